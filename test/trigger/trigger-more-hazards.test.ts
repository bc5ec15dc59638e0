/**
 * Engine-level tests of the Extraction Agents Trigger: the schedules of issue 28 that lost,
 * duplicated or blocked Runs (more-hazards.suite.ts). See trigger.test.ts for why suites are
 * gathered into few test files.
 */
import { useHarness } from '../../dev/harness';
import './more-hazards.suite';

useHarness();
