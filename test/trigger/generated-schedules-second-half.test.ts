/**
 * The second half of the model-based test's fixed seeds (the first half, the replays and what
 * they mean: generated-schedules.test.ts), in a file of its own so that jest runs both halves
 * side by side.
 */
import { useHarness } from '../../dev/harness';
import { describeGeneratedSchedules } from './model/generatedSchedulesTest';

useHarness();

describeGeneratedSchedules('second half');
