/**
 * Engine-level tests of the Extraction Agents Trigger: what it remembers and for how long
 * (memory.suite.ts). See trigger.test.ts for why suites are gathered into few test files.
 */
import { useHarness } from '../../dev/harness';
import './memory.suite';
import './net.suite';

useHarness();
