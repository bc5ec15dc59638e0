/**
 * Engine-level tests of the Extraction Agents Trigger, fourth part: what a quiet poll costs
 * with All Agents (quiet-poll.suite.ts). See trigger.test.ts for why suites are gathered
 * into few test files.
 */
import { useHarness } from '../../dev/harness';
import './quiet-poll.suite';

useHarness();
