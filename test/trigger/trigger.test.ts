/**
 * Engine-level tests of the Extraction Agents Trigger: n8n-core's PollContext runs
 * the node, the emulator answers on loopback, static data is carried between polls the way
 * n8n carries it (dev/harness/poller.ts).
 *
 * The suites live in *.suite.ts files next to this one and are gathered into two test files
 * (this one and trigger-resilience.test.ts): starting jest, ts-jest and n8n-core costs
 * about 5 s of CPU per test file, far more than the trigger tests themselves.
 *
 *   exactly-once.suite.ts  50 Runs in random order, every list order and shape, restart
 *   options.suite.ts       Statuses, Simplify, Include Full Run
 *   all-agents.suite.ts    Watch = All Agents, an Agent made after activation
 */
import { useHarness } from '../../dev/harness';
import './exactly-once.suite';
import './options.suite';
import './all-agents.suite';

useHarness();
