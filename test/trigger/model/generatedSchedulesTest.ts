/**
 * The generated schedules of `npm test` (test/trigger/generated-schedules.test.ts and
 * generated-schedules-second-half.test.ts): a fixed count of seeds, split in two halves that
 * jest runs side by side on 2 cores.
 */
import { formatCampaign, runCampaign } from './campaign';
import { generateSchedule } from './generate';
import type { Schedule } from './schedule';
import { knownFailure } from './replays';

/**
 * A fixed count, always run to the end (no time limit cuts it short): the same seeds judged at
 * every run, on any machine. Sized to take under a minute on 2 cores, the two halves side by
 * side (the wider generator's schedules hold more Runs: 200 take about 80 s of CPU).
 */
const SCHEDULES = Number(process.env.MODEL_SCHEDULES ?? 200);
const FIRST_SEED = Number(process.env.MODEL_SEED ?? 1);
/** Shrink attempts per failing schedule (`npm run mutants` sets 0: it needs the seeds only). */
const SHRINK_ATTEMPTS = Number(process.env.MODEL_SHRINK_ATTEMPTS ?? 60);
/** `npm run mutants` stops at the first failing seed (it needs to know the mutation is caught). */
const STOP_AFTER = process.env.MODEL_STOP_AFTER_FAILURES
	? Number(process.env.MODEL_STOP_AFTER_FAILURES)
	: undefined;

/**
 * Whether a replay of this test file has failed. Under `npm run mutants` (STOP_AFTER set) the
 * rest of the file is not run once one has: caught is caught, and a mutated trigger can make
 * every later schedule run to its deadline, minutes each.
 */
export const modelFailures = { replay: false };

/** Whether the rest of the file may be left unrun (`npm run mutants`, a replay already failed). */
export function caughtAlready(): boolean {
	return STOP_AFTER !== undefined && modelFailures.replay;
}

/**
 * Real time a schedule spends waiting, beyond its CPU: a hanging single read waits for the
 * Request Timeout, a single read failing again and again for the trigger's retries. It decides
 * which half a seed goes to, so that the halves take about as long.
 */
function realWaitWeight(schedule: Schedule): number {
	let weight = 1;
	for (const step of schedule.steps) {
		if (step.do === 'readHang') weight += 20;
		if (step.do === 'readFail') weight += step.times;
	}
	return weight;
}

/** The seeds of one half: each seed of the range, in order, to the half that weighs less so far. */
function seedsOf(half: 'first half' | 'second half'): number[] {
	const halves: [number[], number[]] = [[], []];
	const weights = [0, 0];
	for (let seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
		const to = weights[0] <= weights[1] ? 0 : 1;
		halves[to].push(seed);
		weights[to] += realWaitWeight(generateSchedule(seed));
	}
	return halves[half === 'first half' ? 0 : 1];
}

export function describeGeneratedSchedules(half: 'first half' | 'second half'): void {
	const seeds = seedsOf(half);
	const count = seeds.length;
	describe(`Extraction Agents Trigger: generated schedules (${half})`, () => {
		const title = `${count} generated schedules from seed ${FIRST_SEED} (${half} of ${SCHEDULES}): every Run emitted once, in time; nothing old; no poll past its budget`;
		if (count === 0) {
			it.skip(title, () => undefined);
			return;
		}
		it(
			title,
			async () => {
				if (caughtAlready()) return;
				const report = await runCampaign({
					count,
					firstSeed: FIRST_SEED,
					seeds,
					shrinkAttempts: SHRINK_ATTEMPTS,
					...(STOP_AFTER !== undefined ? { stopAfterFailures: STOP_AFTER } : {}),
					shrinkFirst: 3,
					shrinkTimeLimitMs: 15_000,
					known: knownFailure,
					log: (line) => console.error(line),
				});
				console.log(formatCampaign(report).join('\n'));
				if (STOP_AFTER === undefined) expect(report.schedules).toBe(count);
				// Known failures are listed in the summary above (replays.ts, knownFailure).
				const fresh = report.failures.filter((failure) => !failure.known);
				expect(
					fresh.map((failure) => `seed ${failure.seed}: ${failure.shrunkViolations.join('; ')}`),
				).toEqual([]);
			},
			600_000,
		);
	});
}
