/**
 * `npm run mutants`: mutation testing of the trigger as a standing check. Applies each named
 * mutation of scripts/mutants/mutations.ts to a copy of the tree (the worktree itself is never
 * changed), runs there what `npm test` runs of the model-based test (its replays and its fixed
 * seeds: test/trigger/generated-schedules*.test.ts, shrinking off), then, for a mutation those
 * let through, the trigger's engine tests (the rest of test/trigger, also in `npm test`), and
 * prints a table: each mutation caught (by which replays, seeds or engine tests) or survived.
 * Exits 1 when a mutation survives that is not stated equivalent, when an anchor drifted (found
 * zero or several times), or when the unmutated code fails (then every mutation would look
 * caught).
 *
 *   npm run mutants
 *   npm run mutants -- --only="no owed,no leftOut"   (names, comma-separated)
 *   npm run mutants -- --seeds=300 --seed=1           (MODEL_SCHEDULES / MODEL_SEED)
 *   npm run mutants -- --no-baseline
 *   npm run mutants -- --jobs=2                       (mutations judged side by side)
 *   npm run mutants -- --anchors-only                 (only check that every anchor is found once)
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MUTATIONS, type Mutation, type MutationEdit } from './mutants/mutations';

const ROOT = path.resolve(__dirname, '..');
const TRIGGER_DIR = 'nodes/ExtractionAgents/trigger';
/** Both files of the model-based test (its replays, and its fixed seeds in two halves). */
const TEST_FILE = 'test/trigger/generated-schedules';
/**
 * The trigger's engine tests (the rest of test/trigger, also run by `npm test`): run for a
 * mutation the replays and seeds let through, e.g. one that only a state written by 0.3.0
 * (tested there, not generated) can show.
 */
const ENGINE_TESTS = ['test/trigger', '--testPathIgnorePatterns', 'generated-schedules'];
/** What the copy leaves out: made again or linked (node_modules). */
const NOT_COPIED = new Set(['node_modules', '.git', 'dist', 'coverage']);

interface Verdict {
	name: string;
	outcome: 'caught' | 'survived' | 'drifted' | 'equivalent';
	replays: string[];
	seeds: number[];
	/** Engine tests that failed (run only when no replay or seed caught it). */
	engineTests?: string[];
	detail: string;
	seconds: number;
}

function flag(name: string): string | undefined {
	const arg = process.argv.find((candidate) => candidate.startsWith(`--${name}=`));
	return arg ? arg.slice(name.length + 3) : undefined;
}

function count(haystack: string, needle: string): number {
	let found = 0;
	for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found++;
	return found;
}

/** The anchors of a mutation that are not found exactly once in the tree at `root`. */
function driftOf(root: string, mutation: Mutation): string[] {
	return mutation.edits.flatMap((edit) => {
		const file = path.join(root, TRIGGER_DIR, edit.file);
		const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
		const found = count(text, edit.find);
		return found === 1 ? [] : [`${edit.file}: ${JSON.stringify(edit.find)} found ${found} times`];
	});
}

function copyTree(): string {
	const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'mutants-'));
	for (const entry of fs.readdirSync(ROOT)) {
		if (NOT_COPIED.has(entry)) continue;
		fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
	}
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
	return copy;
}

/** Applies the edits in the copy and returns how to put the files back. */
function apply(copy: string, edits: MutationEdit[]): () => void {
	const originals = new Map<string, string>();
	try {
		for (const edit of edits) {
			const file = path.join(copy, TRIGGER_DIR, edit.file);
			const text = originals.get(file) ?? fs.readFileSync(file, 'utf8');
			if (!originals.has(file)) originals.set(file, text);
			const current = fs.readFileSync(file, 'utf8');
			fs.writeFileSync(
				file,
				current.replace(edit.find, () => edit.replace),
			);
		}
	} catch (error) {
		for (const [file, text] of originals) fs.writeFileSync(file, text);
		throw error;
	}
	return () => {
		for (const [file, text] of originals) fs.writeFileSync(file, text);
	};
}

interface JestResult {
	testResults: Array<{
		message: string;
		assertionResults: Array<{ title: string; status: string; failureMessages: string[] }>;
	}>;
}

/**
 * Runs jest in the copy with `args`, writing its JSON result to `outputName` there: the result,
 * or why there is none (jest's exit code and the end of what it printed).
 */
async function runJest(
	copy: string,
	args: string[],
	outputName: string,
	env: NodeJS.ProcessEnv = process.env,
): Promise<{ result: JestResult } | { failed: string }> {
	const output = path.join(copy, outputName);
	fs.rmSync(output, { force: true });
	const child = spawn(
		path.join(copy, 'node_modules/.bin/jest'),
		[...args, '--json', `--outputFile=${output}`, '--silent'],
		{ cwd: copy, stdio: ['ignore', 'ignore', 'pipe'], env, timeout: 30 * 60_000 },
	);
	let stderr = '';
	child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	if (!fs.existsSync(output))
		return { failed: `jest wrote no result (exit ${code}): ${stderr.slice(-400)}` };
	return { result: JSON.parse(fs.readFileSync(output, 'utf8')) as JestResult };
}

/** Runs the model-based test in the copy: the failing replays and seeds. */
async function runModelTest(
	copy: string,
	seeds?: string,
	firstSeed?: string,
	baseline = false,
): Promise<{ replays: string[]; seeds: number[]; crashed: string }> {
	const run = await runJest(copy, [TEST_FILE], 'jest-result.json', {
		...process.env,
		...(seeds ? { MODEL_SCHEDULES: seeds } : {}),
		...(firstSeed ? { MODEL_SEED: firstSeed } : {}),
		MODEL_SHRINK_ATTEMPTS: '0',
		// Caught is caught: the first failing replay or seed is enough, the rest of that file is
		// left unrun (generatedSchedulesTest.ts, caughtAlready; the baseline runs them all).
		...(baseline ? {} : { MODEL_STOP_AFTER_FAILURES: '1' }),
	});
	if ('failed' in run) return { replays: [], seeds: [], crashed: run.failed };
	const replays: string[] = [];
	const failedSeeds = new Set<number>();
	let crashed = '';
	for (const file of run.result.testResults) {
		if (file.assertionResults.length === 0 && file.message) crashed = file.message.slice(0, 400);
		for (const test of file.assertionResults) {
			if (test.status !== 'failed') continue;
			// A replay kept as a known failure "fails" when it passes: not a catch.
			if (test.title.includes('[known failure]')) continue;
			if (test.title.includes('generated schedules from seed')) {
				for (const message of test.failureMessages)
					for (const match of message.matchAll(/seed (\d+):/g)) failedSeeds.add(Number(match[1]));
				if (failedSeeds.size === 0) crashed = test.failureMessages.join(' ').slice(0, 400);
			} else replays.push(test.title);
		}
	}
	return { replays, seeds: [...failedSeeds].sort((a, b) => a - b), crashed };
}

/** Runs the trigger's engine tests in the copy: the titles of those that failed. */
async function runEngineTests(copy: string): Promise<string[]> {
	const run = await runJest(copy, ENGINE_TESTS, 'jest-engine-result.json');
	if ('failed' in run) return [run.failed.slice(0, 200)];
	return run.result.testResults.flatMap((file) =>
		file.assertionResults.length === 0 && file.message
			? [file.message.slice(0, 200)]
			: file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.title),
	);
}

async function judgeMutation(
	copy: string,
	mutation: Mutation,
	seeds?: string,
	first?: string,
): Promise<Verdict> {
	const started = performance.now();
	const drift = driftOf(copy, mutation);
	const base = { name: mutation.name, replays: [], seeds: [], seconds: 0 };
	if (drift.length > 0) return { ...base, outcome: 'drifted', detail: drift.join('; ') };
	const restore = apply(copy, mutation.edits);
	try {
		const found = await runModelTest(copy, seeds, first);
		const byModel = found.replays.length > 0 || found.seeds.length > 0 || found.crashed !== '';
		const engineTests = byModel ? [] : await runEngineTests(copy);
		const caught = byModel || engineTests.length > 0;
		return {
			name: mutation.name,
			outcome: caught ? 'caught' : mutation.equivalent ? 'equivalent' : 'survived',
			replays: found.replays,
			seeds: found.seeds,
			...(engineTests.length > 0 ? { engineTests } : {}),
			detail: found.crashed || mutation.equivalent || '',
			seconds: Math.round((performance.now() - started) / 1000),
		};
	} finally {
		restore();
	}
}

function formatVerdict(verdict: Verdict): string {
	const by: string[] = [];
	if (verdict.replays.length > 0)
		by.push(
			`${verdict.replays.length} replays (${verdict.replays.slice(0, 3).join(' | ')}${verdict.replays.length > 3 ? ' | …' : ''})`,
		);
	if (verdict.seeds.length > 0)
		by.push(
			`${verdict.seeds.length} seeds (${verdict.seeds.slice(0, 8).join(', ')}${verdict.seeds.length > 8 ? ', …' : ''})`,
		);
	if (verdict.engineTests?.length)
		by.push(
			`${verdict.engineTests.length} engine tests (${verdict.engineTests.slice(0, 2).join(' | ')}${verdict.engineTests.length > 2 ? ' | …' : ''})`,
		);
	if (verdict.detail) by.push(verdict.detail);
	return `| ${verdict.name} | ${verdict.outcome.toUpperCase()} | ${by.join('; ') || '-'} | ${verdict.seconds} s |`;
}

async function main(): Promise<number> {
	const jobs = Math.max(1, Number(flag('jobs') ?? 1));
	const only = flag('only')
		?.split(',')
		.map((name) => name.trim());
	// Default: the test's own count and first seed (what `npm test` runs).
	const seeds = flag('seeds') ?? process.env.MODEL_SCHEDULES;
	const first = flag('seed') ?? process.env.MODEL_SEED;
	const seedsText = `${seeds ?? "npm test's"} seeds from ${first ?? 'its first'}`;
	const mutations = only ? MUTATIONS.filter((m) => only.includes(m.name)) : MUTATIONS;
	if (only && mutations.length !== only.length) {
		console.error(
			`Unknown mutation name in --only (known: ${MUTATIONS.map((m) => m.name).join(', ')})`,
		);
		return 1;
	}
	// Drift is reported before anything runs, against the worktree itself.
	const drifted = mutations.filter((m) => driftOf(ROOT, m).length > 0);
	for (const m of drifted) console.error(`DRIFTED: "${m.name}": ${driftOf(ROOT, m).join('; ')}`);
	if (process.argv.includes('--anchors-only')) {
		console.log(`Anchors: ${mutations.length} mutations, ${drifted.length} drifted.`);
		return drifted.length > 0 ? 1 : 0;
	}
	// One copy of the tree per job: each mutation is applied to its job's copy only.
	const copies = Array.from({ length: jobs }, () => copyTree());
	const copy = copies[0];
	try {
		if (!process.argv.includes('--no-baseline')) {
			const baseline = await runModelTest(copy, seeds, first, true);
			if (baseline.replays.length > 0 || baseline.seeds.length > 0 || baseline.crashed) {
				console.error(
					`The unmutated code fails (replays: ${baseline.replays.join(' | ') || 'none'}; seeds: ${baseline.seeds.join(', ') || 'none'}; ${baseline.crashed}): fix that first, or every mutation looks caught.`,
				);
				return 1;
			}
			console.log(`Baseline: the unmutated code passes the replays and ${seedsText}.`);
		}
		console.log(`| Mutation | Verdict | Caught by | Time |\n|---|---|---|---|`);
		const verdicts: Verdict[] = [];
		const queue = [...mutations];
		await Promise.all(
			copies.map(async (jobCopy) => {
				for (let next = queue.shift(); next; next = queue.shift()) {
					const verdict = await judgeMutation(jobCopy, next, seeds, first);
					verdicts.push(verdict);
					console.log(formatVerdict(verdict));
				}
			}),
		);
		const tally = (outcome: Verdict['outcome']) =>
			verdicts.filter((v) => v.outcome === outcome).length;
		console.log(
			`Mutations: ${verdicts.length}; caught ${tally('caught')}, survived ${tally('survived')}, equivalent ${tally('equivalent')}, drifted ${tally('drifted')} (replays and ${seedsText})`,
		);
		return tally('survived') + tally('drifted') > 0 ? 1 : 0;
	} finally {
		for (const jobCopy of copies) fs.rmSync(jobCopy, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
