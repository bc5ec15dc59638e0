/**
 * `npm run bench` at smoke size (bench/run.ts --smoke), through the same functions, so the
 * benchmarks cannot rot. Structure only: numbers are finite and request counts are what the
 * design promises. Never wall-clock thresholds (those are the benchmark's job, not a test's).
 */
import { SMOKE } from '../../bench/figures';
import { renderResults, runBench, type BenchResults } from '../../bench/run';
import { shutdownHarness } from '../../dev/harness';

// Figure 9 runs twelve child processes (three stores, four ways each).
jest.setTimeout(300_000);

let results: BenchResults;

beforeAll(async () => {
	results = await runBench(SMOKE);
});

afterAll(async () => {
	await shutdownHarness();
});

test('prints one row per figure with a goal verdict', () => {
	expect(results.rows.map((r) => r.figure.split(' ')[0])).toEqual([
		'1.',
		'2.',
		'3.',
		'3.',
		'4.',
		'4.',
		'5.',
		'5.',
		'5.',
		'6.',
		'6.',
		'6.',
		'6.',
		'6.',
		'7.',
		'7.',
		'7.',
		'7.',
		'8.',
		'8.',
		'8.',
		'8.',
		'8.',
		'8.',
		'8.',
		'8.',
		...Array.from({ length: 9 }, () => '9.'),
	]);
	const md = renderResults(results);
	expect(md).toContain('| Figure | Ours | Baseline | Ratio | Goal | Met? |');
	expect(md).toMatch(/Node v\d+/);
	expect(md).toMatch(/n8n-core \d+\.\d+\.\d+/);
	expect(md).toMatch(/\d+ cores/);
});

test('upload: ours, the buffered baseline and curl each deliver every byte; memory and time are finite', () => {
	const { upload } = results;
	expect(upload.bytes).toBe(SMOKE.fileCount * SMOKE.fileMiB * 1024 * 1024);
	for (const r of [upload.ours, upload.baseline]) {
		expect(r.error).toBeUndefined();
		expect(r.ok).toBe(true);
		expect(r.bytesReceived).toBe(upload.bytes);
		expect(Number.isFinite(r.ms) && r.ms > 0).toBe(true);
		expect(r.rssBefore).toBeGreaterThan(0);
		expect(r.rssPeak).toBeGreaterThanOrEqual(r.rssBefore);
	}
	expect(upload.curl.ok).toBe(true);
	expect(upload.curl.bytesReceived).toBe(upload.bytes);
	expect(Number.isFinite(upload.curl.ms) && upload.curl.ms > 0).toBe(true);
});

test('usage Return All: ceil(n / 1000) requests for ours and the loop, every record returned', () => {
	const { usage } = results;
	const pages = Math.ceil(SMOKE.usageRecords / 1000);
	expect(usage.oursRequests).toBe(pages);
	expect(usage.loopRequests).toBe(pages);
	expect(usage.oursItems).toBe(SMOKE.usageRecords);
	expect(usage.loopRecords).toBe(SMOKE.usageRecords);
	expect(Number.isFinite(usage.oursMs)).toBe(true);
	expect(Number.isFinite(usage.loopMs)).toBe(true);
});

test('trigger: one small request per poll emits the new Runs; the full scan reads every page', () => {
	const { trigger } = results;
	expect(trigger.pollItems).toBe(SMOKE.newRuns);
	expect(trigger.pollRequests).toBeGreaterThanOrEqual(1);
	expect(trigger.pollRequests).toBeLessThanOrEqual(2);
	expect(trigger.scanRequests).toBe(Math.ceil(trigger.totalRuns / 1000));
	expect(trigger.scanFound).toBeGreaterThanOrEqual(SMOKE.newRuns);
	expect(Number.isFinite(trigger.pollMs)).toBe(true);
	expect(Number.isFinite(trigger.scanMs)).toBe(true);
});

test('package: packs, has no runtime dependencies, loads both nodes and the credential', () => {
	const { pkg } = results;
	expect(pkg.packedBytes).toBeGreaterThan(0);
	expect(pkg.files).toBeGreaterThan(0);
	expect(pkg.runtimeDependencies).toBe(0);
	expect(pkg.loadedClasses).toEqual(
		expect.arrayContaining(['ExtractionAgents', 'ExtractionAgentsTrigger', 'ExtractionAgentsApi']),
	);
	expect(Number.isFinite(pkg.loadMs)).toBe(true);
});

test('many items: every item of each batch gets its finished Run, at the default Items in Parallel and at 1, with status reads counted', () => {
	const { batch } = results;
	expect(batch.runs.map((run) => [run.link, run.items, run.itemsInParallel])).toEqual([
		['loopback', 1, 10],
		['loopback', SMOKE.batchItems, 10],
		['loopback', SMOKE.batchItems, 1],
		['slow', 1, 10],
		['slow', SMOKE.batchItems, 10],
		['slow', SMOKE.batchItems, 1],
	]);
	for (const run of batch.runs) {
		expect(run.ok).toBe(true);
		// At least one read per Run: each is seen finished by a read, never by the create answer.
		expect(run.statusReads).toBeGreaterThanOrEqual(run.items);
		expect(Number.isFinite(run.ms) && Number.isFinite(run.rssGrowth)).toBe(true);
	}
});

test('waiting by the Run list: the same batch waited both ways, every Run finished; the list way reads each Run singly once', () => {
	const { listRuns } = results.batch;
	expect(listRuns.map((run) => [run.waitBy, run.items, run.faultRate])).toEqual([
		['list', SMOKE.listBatchItems, 0],
		['single reads', SMOKE.listBatchItems, 0],
		['list', SMOKE.faultBatchItems, 0.25],
		['single reads', SMOKE.faultBatchItems, 0.25],
	]);
	for (const run of listRuns) expect(run.ok).toBe(true);
	const [byList, singly] = listRuns;
	expect(byList.listReads).toBeGreaterThan(0);
	expect(byList.statusReads).toBe(byList.items);
	expect(singly.listReads).toBe(0);
	expect(singly.statusReads).toBeGreaterThanOrEqual(singly.items);
});

test('trigger, All Agents: a quiet poll costs the Agent listing and a share of the hourly sweep; without n_runs, one list read per Agent; each Run emitted within a minute of finishing', () => {
	const { quiet, latency } = results.allAgents;
	expect(quiet.map((q) => q.agents)).toEqual(SMOKE.triggerAgentCounts);
	for (const q of quiet) {
		expect(q.offMean).toBe(1 + q.agents);
		expect(q.oursMean).toBeGreaterThanOrEqual(1);
		expect(q.oursMean).toBeLessThan(q.offMean + 0.01);
	}
	expect(latency.runs).toBe(3 * SMOKE.latencyMinutes);
	expect(latency.maxS).toBeLessThanOrEqual(60);
	expect(latency.offMaxS).toBeLessThanOrEqual(60);
});

test('links: in each store, ours, 0.3.0 and 0.4.0 upload every link whole; ours reads each once', () => {
	const { runs } = results.links;
	expect(runs.map((r) => `${r.variant} ${r.store}`).sort()).toEqual(
		['default', 'database', 'filesystem']
			.flatMap((store) => [`ours ${store}`, `ours ${store}`, `0.3.0 ${store}`, `0.4.0 ${store}`])
			.sort(),
	);
	for (const r of runs) {
		expect(r.errors).toEqual([]);
		expect(r.bytesReceived).toBe(Math.round(r.megabytes * 1_000_000) * r.items);
		expect(Number.isFinite(r.rssGrowth)).toBe(true);
		if (r.variant !== '0.3.0') expect(r.maxReads).toBe(1);
	}
});
