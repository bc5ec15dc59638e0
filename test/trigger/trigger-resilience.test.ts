/**
 * Engine-level tests of the Extraction Agents Trigger, second half; see trigger.test.ts.
 *
 *   faults.suite.ts   item 3: a poll failing half-way, then a clean poll; random faults
 *   cost.suite.ts     item 5: request count of a poll with 20,000 historical Runs
 *   pending.suite.ts  item 4: deleted while pending, running for 20 polls, completed null
 *   manual.suite.ts   item 6: Fetch Test Event
 *   overlap.suite.ts  a poll that starts while the previous one still runs
 */
import { useHarness } from '../../dev/harness';
import './faults.suite';
import './cost.suite';
import './pending.suite';
import './manual.suite';
import './overlap.suite';

useHarness();
