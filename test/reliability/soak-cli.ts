/**
 * `npm run soak`: the soak at full size (1,000 Runs). Prints the counts; exits 1 when a
 * promise is broken (a duplicate Run, a lost item, a Run the trigger missed or emitted twice).
 *
 *   npm run soak                       1,000 Runs
 *   npm run soak -- --runs=200 --seed=3
 */
import { shutdownHarness } from '../../dev/harness';
import { formatSoakReport, runSoak, soakViolations } from './soak';

function flag(name: string): number | undefined {
	const arg = process.argv.find((candidate) => candidate.startsWith(`--${name}=`));
	return arg ? Number(arg.split('=')[1]) : undefined;
}

async function main(): Promise<number> {
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
