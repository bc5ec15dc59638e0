/**
 * Engine-level tests of the Extraction Agents Trigger, third part: the hazards of
 * hazards.suite.ts (Agents missing from a listing, an unreadable Run, the list changing
 * during a poll, Runs listed late, the poll budget, unknown statuses, static data size,
 * re-activation). See trigger.test.ts for why suites are gathered into few test files.
 */
import { useHarness } from '../../dev/harness';
import './hazards.suite';

useHarness();
