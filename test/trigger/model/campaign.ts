/**
 * Runs generated schedules one after the other and tallies them: how many, with which hazards,
 * which failed (each with its seed and its shrunk schedule as JSON, to paste into replays.ts).
 * Used by test/trigger/generated-schedules.test.ts (a few hundred) and `npm run soak`
 * (thousands: test/reliability/soak-cli.ts).
 */
import { generateSchedule, shrinkSchedule } from './generate';
import { runSchedule } from './run';
import { hazardsOf, type Schedule } from './schedule';

export interface CampaignOptions {
	count: number;
	firstSeed: number;
	/** The seeds to run instead of count from firstSeed (a share of a range: generatedSchedulesTest.ts). */
	seeds?: number[];
	/** Attempts the shrinker may make per failing schedule (0: no shrinking). */
	shrinkAttempts: number;
	/** Real time the shrinker may take per failing schedule (default: no limit). */
	shrinkTimeLimitMs?: number;
	/** Shrink only the first this many failures (default: all); the others print their seed. */
	shrinkFirst?: number;
	/** Stop after this many failures that are not known (default: run every schedule). */
	stopAfterFailures?: number;
	/** Why a failure is known (reported, not shrunk), or undefined. */
	known?: (schedule: Schedule, violations: string[]) => string | undefined;
	log?: (line: string) => void;
}

export interface CampaignFailure {
	seed: number;
	violations: string[];
	/** The shrunk schedule, as JSON a replay can take. */
	shrunk: Schedule;
	shrunkViolations: string[];
	/** Why it is a known failure (replays.ts). */
	known?: string;
}

export interface CampaignReport {
	schedules: number;
	polls: number;
	runs: number;
	emitted: number;
	realMs: number;
	/** Schedules per hazard. */
	hazards: Record<string, number>;
	failures: CampaignFailure[];
	/** Schedules with duplicates the stored state alone cannot prevent (run.ts). */
	tolerated: number;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignReport> {
	const started = performance.now();
	const report: CampaignReport = {
		schedules: 0,
		polls: 0,
		runs: 0,
		emitted: 0,
		realMs: 0,
		hazards: {},
		failures: [],
		tolerated: 0,
	};
	const seeds =
		options.seeds ?? Array.from({ length: options.count }, (_, n) => options.firstSeed + n);
	for (const seed of seeds) {
		const schedule = generateSchedule(seed);
		const fresh = report.failures.filter((failure) => !failure.known).length;
		if (fresh >= (options.stopAfterFailures ?? Infinity)) break;
		const outcome = await runSchedule(schedule);
		report.schedules++;
		report.polls += outcome.polls;
		report.runs += outcome.runs;
		report.emitted += outcome.emitted;
		if (outcome.tolerated.length > 0) report.tolerated++;
		for (const hazard of hazardsOf(schedule))
			report.hazards[hazard] = (report.hazards[hazard] ?? 0) + 1;
		if (outcome.violations.length === 0) continue;
		let shrunk = schedule;
		const known = options.known?.(schedule, outcome.violations);
		const shrinkStarted = performance.now();
		if (options.shrinkAttempts > 0 && !known && fresh < (options.shrinkFirst ?? Infinity))
			shrunk = (
				await shrinkSchedule(
					schedule,
					async (candidate) =>
						performance.now() - shrinkStarted < (options.shrinkTimeLimitMs ?? Infinity) &&
						(await runSchedule(candidate)).violations.length > 0,
					options.shrinkAttempts,
				)
			).schedule;
		const shrunkViolations =
			shrunk === schedule ? outcome.violations : (await runSchedule(shrunk)).violations;
		report.failures.push({
			seed,
			violations: outcome.violations,
			shrunk,
			shrunkViolations,
			...(known ? { known } : {}),
		});
		if (!known) options.log?.(formatFailure(report.failures.at(-1)!));
	}
	report.realMs = Math.round(performance.now() - started);
	return report;
}

export function formatFailure(failure: CampaignFailure): string {
	return [
		`FAILED seed ${failure.seed}: ${failure.violations.join('; ')}`,
		`  shrunk (${failure.shrunk.steps.length} steps): ${failure.shrunkViolations.join('; ')}`,
		`  replay: ${JSON.stringify(failure.shrunk)}`,
	].join('\n');
}

export function formatCampaign(report: CampaignReport): string[] {
	const hazards = Object.entries(report.hazards)
		.sort(([, a], [, b]) => b - a)
		.map(([name, count]) => `${name} ${count}`)
		.join(', ');
	return [
		`Trigger, generated schedules: ${report.schedules} schedules in ${(report.realMs / 1000).toFixed(1)} s (${report.polls} polls, ${report.runs} Runs made, ${report.emitted} emitted); ${report.failures.length} failed (${report.failures.filter((f) => f.known).length} of them known), ${report.tolerated} with duplicates tolerated (a load older than another process's save)`,
		`  schedules per hazard: ${hazards}`,
		...report.failures
			.filter((failure) => failure.known)
			.map((failure) => `  known failure, seed ${failure.seed}: ${failure.known}`),
	];
}
