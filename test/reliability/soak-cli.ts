/**
 * `npm run soak`: the soak at full size (1,000 Runs), then the trigger's generated schedules
 * (test/trigger/model/: 3,000 by default). Prints the counts; exits 1 when a promise is broken
 * (a duplicate Run, a lost item, a Run the trigger missed or emitted twice, a generated
 * schedule failing: its seed and shrunk schedule are printed).
 *
 *   npm run soak                       1,000 Runs, 3,000 schedules
 *   npm run soak -- --runs=200 --seed=3
 *   npm run soak -- --schedules=10000 --schedule-seed=100000 --schedules-only
 *   npm run soak -- --schedules=0      no generated schedules
 *   npm run soak -- --shrink=20        shrink attempts per failing schedule (default 150)
 */
import { shutdownHarness } from '../../dev/harness';
import { formatCampaign, runCampaign } from '../trigger/model/campaign';
import { knownFailure } from '../trigger/model/replays';
import { formatSoakReport, runSoak, soakViolations } from './soak';

function flag(name: string): number | undefined {
	const arg = process.argv.find((candidate) => candidate.startsWith(`--${name}=`));
	return arg ? Number(arg.split('=')[1]) : undefined;
}

async function main(): Promise<number> {
	const soakCode = process.argv.includes('--schedules-only') ? 0 : await classicSoak();
	const schedules = flag('schedules') ?? 3000;
	if (schedules === 0) return soakCode;
	const campaign = await runCampaign({
		count: schedules,
		// Above the seeds `npm test` runs (1 to a few hundred).
		firstSeed: flag('schedule-seed') ?? 10_000,
		shrinkAttempts: flag('shrink') ?? 150,
		known: knownFailure,
		log: (line) => console.error(line),
	});
	console.log(formatCampaign(campaign).join('\n'));
	const fresh = campaign.failures.filter((failure) => !failure.known);
	if (fresh.length > 0) {
		console.error(`BROKEN: ${fresh.length} generated schedules failed (seeds above)`);
		return 1;
	}
	return soakCode;
}

async function classicSoak(): Promise<number> {
	const report = await runSoak({
		runs: flag('runs') ?? 1000,
		seed: flag('seed') ?? 7,
		log: (line) => console.log(line),
	});
	console.log(formatSoakReport(report));
	const problems = soakViolations(report);
	for (const problem of problems) console.error(`BROKEN: ${problem}`);
	if (problems.length === 0)
		console.log(
			'All promises kept: every Run created once or reported failed clearly; the trigger emitted each finished Run once.',
		);
	return problems.length === 0 ? 0 : 1;
}

main()
	.then(async (code) => {
		await shutdownHarness();
		process.exit(code);
	})
	.catch(async (error) => {
		console.error(error);
		await shutdownHarness();
		process.exit(1);
	});
