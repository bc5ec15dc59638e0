/**
 * The soak inside `npm test`: 60 Runs (12 executions of 5 items, 3 files each)
 * under 10% random faults on every endpoint, with the trigger polling throughout.
 * `npm run soak` runs the full size (1,000 Runs); see soak.ts for what is judged.
 */
import { useHarness } from '../../dev/harness';
import { formatSoakReport, runSoak, soakViolations } from './soak';

useHarness();

it('60 Runs under 10% faults: each created once or reported failed clearly; the trigger emits each once', async () => {
	const report = await runSoak({ runs: 60, seed: 11, waitEvery: 6, simulatedMinutes: 30 });
	console.log(formatSoakReport(report));
	expect(soakViolations(report)).toEqual([]);
	expect(report.createdOnce).toBeGreaterThan(40);
	expect(report.faultsInjected).toBeGreaterThan(5);
	expect(report.trigger.emitted).toBe(report.trigger.finishedRuns);
}, 120_000);
