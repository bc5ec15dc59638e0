/**
 * `npm run bench`: every figure beside its baseline, measured in the same run
 * against the same emulator. Prints one table and writes it to bench/RESULTS.md.
 *
 *   npx tsx bench/run.ts            full size (1 GiB upload, 100,000 usage records, 20,000 Runs)
 *   npx tsx bench/run.ts --smoke    tiny sizes (what test/bench/bench-smoke.test.ts runs)
 *   --files=N --file-mib=N --usage=N --runs=N --reps=N --upload-reps=N (or BENCH_* env) override sizes;
 *   --out=PATH writes the results elsewhere; --no-write prints only (default for --smoke).
 *   --only=trigger runs figures 4 and 8 only and prints their rows (writes nothing).
 *   --only=links runs figure 9 only (Files → Links in each store) and prints its rows and runs.
 *   --link-items=N --link-mb=N (or BENCH_LINK_ITEMS, BENCH_LINK_MB) size figure 9.
 *
 * What each figure measures is in bench/figures.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startEmulator } from '../dev/emulator';
import { setSecretScanning, shutdownHarness } from '../dev/harness';
import { DEFAULT_ITEMS_IN_PARALLEL } from '../nodes/ExtractionAgents/descriptions/options';
import {
	benchBatch,
	benchLinks,
	benchPackage,
	benchTrigger,
	benchTriggerAllAgents,
	benchUpload,
	benchUsage,
	renderTable,
	REPO_ROOT,
	sizesFrom,
	type BatchFigures,
	type BenchSizes,
	type LinkFigures,
	type LinkRun,
	type PackageFigures,
	type Row,
	type AllAgentsFigures,
	type TriggerFigures,
	type UploadFigures,
	type UsageFigures,
} from './figures';

export interface BenchResults {
	sizes: BenchSizes;
	rows: Row[];
	upload: UploadFigures;
	usage: UsageFigures;
	trigger: TriggerFigures;
	allAgents: AllAgentsFigures;
	pkg: PackageFigures;
	batch: BatchFigures;
	links: LinkFigures;
}

export async function runBench(
	sizes: BenchSizes,
	log: (line: string) => void = () => undefined,
): Promise<BenchResults> {
	const emu = await startEmulator({ logErrors: false, seed: 42 });
	// Figure 3 gets an emulator without demo Runs: finishing Runs would add usage records mid-benchmark.
	const usageEmu = await startEmulator({ logErrors: false, seed: 42, seedDemoData: false });
	const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
		const t0 = performance.now();
		try {
			return await fn();
		} finally {
			log(`  ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
		}
	};
	try {
		log(`upload: ${sizes.fileCount} × ${sizes.fileMiB} MiB (ours, buffered baseline, curl)…`);
		const upload = await timed('upload', () => benchUpload(emu, sizes));
		log(`usage: Return All of ${sizes.usageRecords} records…`);
		const usage = await timed('usage', () => benchUsage(usageEmu, sizes));
		log(`trigger: ${sizes.historicalRuns} historical Runs + ${sizes.newRuns} new…`);
		const trigger = await timed('trigger', () => benchTrigger(emu, sizes));
		log(`trigger, All Agents: ${sizes.triggerAgentCounts.join(' / ')} Agents, simulated time…`);
		const allAgents = await timed('trigger, All Agents', () => benchTriggerAllAgents(sizes));
		log('package…');
		const pkg = await timed('package', () => benchPackage(sizes));
		log(`batch: ${sizes.batchItems} items, Runs of ${sizes.batchRunMs / 1000} s…`);
		const batch = await timed('batch', () => benchBatch(emu, sizes, DEFAULT_ITEMS_IN_PARALLEL));
		log(`links: ${sizes.linkItems} items × ${sizes.linkMB} MB links in each store…`);
		const links = await timed('links', () => benchLinks(sizes));
		return {
			sizes,
			rows: [
				...upload.rows,
				...usage.rows,
				...trigger.rows,
				...pkg.rows,
				...batch.rows,
				...allAgents.rows,
				...links.rows,
			],
			upload,
			usage,
			trigger,
			allAgents,
			pkg,
			batch,
			links,
		};
	} finally {
		await Promise.all([emu.stop(), usageEmu.stop()]);
	}
}

function versionOf(pkgName: string): string {
	try {
		return (
			JSON.parse(
				fs.readFileSync(path.join(REPO_ROOT, 'node_modules', pkgName, 'package.json'), 'utf8'),
			) as { version: string }
		).version;
	} catch {
		return 'unknown';
	}
}

const MIB = 1024 * 1024;

export function linkRunLine(r: LinkRun): string {
	return `- Links, ${r.variant}, ${r.store} store, ${r.items} × ${r.megabytes} MB: ${(r.ms / 1000).toFixed(1)} s, RSS growth ${(r.rssGrowth / MIB).toFixed(1)} MiB, emulator received ${r.bytesReceived} bytes, each link read at most ${r.maxReads} time(s)${r.ok ? '' : `, NOT every file uploaded whole${r.errors.length ? `: ${r.errors[0]}` : ''}`}`;
}

export function renderResults(results: BenchResults): string {
	const { sizes, upload, usage, trigger, pkg, batch } = results;
	const MiB = 1024 * 1024;
	const cpus = os.cpus();
	return [
		'# Benchmark results',
		'',
		`Written by \`npm run bench\` (bench/run.ts; what each figure measures: bench/figures.ts).`,
		'',
		`- Date: ${new Date().toISOString()}`,
		`- Node ${process.version}, n8n-core ${versionOf('n8n-core')}, n8n-workflow ${versionOf('n8n-workflow')}`,
		`- Machine: ${cpus.length} cores (${cpus[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, ${os.platform()} ${os.release()}`,
		`- Sizes: ${sizes.label} (${sizes.fileCount} × ${sizes.fileMiB} MiB files, ${sizes.usageRecords} usage records, ${sizes.historicalRuns} historical Runs + ${sizes.newRuns} new, ${sizes.reps} reps of figures 3–5, ${sizes.uploadReps} uploads each of ours and curl, ${sizes.batchItems} items of ${sizes.batchRunMs / 1000} s Runs in figure 6)`,
		'',
		renderTable(results.rows),
		'',
		"Figure 2 measured in a real n8n 2.41.1 on Node 24, beside curl and n8n's own HTTP Request node: `npm run bench:n8n` (bench/RESULTS-n8n.md).",
		'',
		'## Raw numbers',
		'',
		...upload.oursRuns.map(
			(r, i) =>
				`- Upload ${i + 1}, ours: RSS before ${(r.rssBefore / MiB).toFixed(1)} MiB, peak ${(r.rssPeak / MiB).toFixed(1)} MiB, ${r.ms.toFixed(0)} ms (${(upload.bytes / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s), emulator received ${r.bytesReceived} of ${upload.bytes} bytes${r.error ? `, error: ${r.error}` : ''}`,
		),
		`- Upload, baseline node: RSS before ${(upload.baseline.rssBefore / MiB).toFixed(1)} MiB, peak ${(upload.baseline.rssPeak / MiB).toFixed(1)} MiB, ${upload.baseline.ms.toFixed(0)} ms (${(upload.bytes / 1e6 / (upload.baseline.ms / 1000)).toFixed(1)} MB/s), received ${upload.baseline.bytesReceived} bytes${upload.baseline.error ? `, error: ${upload.baseline.error}` : ''}`,
		...upload.curlRuns.map(
			(r, i) =>
				`- Upload ${i + 1}, curl: HTTP ${r.status}, ${r.ms.toFixed(0)} ms (${(upload.bytes / 1e6 / (r.ms / 1000)).toFixed(1)} MB/s), received ${r.bytesReceived} bytes`,
		),
		`- Usage: ours ${usage.oursItems} items in ${usage.oursRequests} requests, ${usage.oursMs.toFixed(0)} ms; loop ${usage.loopRecords} records in ${usage.loopRequests} requests, ${usage.loopMs.toFixed(0)} ms`,
		`- Trigger: ${trigger.totalRuns} Runs on the Agent; activation poll ${trigger.activationRequests} requests; poll ${trigger.pollRequests} requests → ${trigger.pollItems} items in ${trigger.pollMs.toFixed(1)} ms; full scan ${trigger.scanRequests} requests → ${trigger.scanFound} found in ${trigger.scanMs.toFixed(1)} ms`,
		...[...batch.runs, ...batch.listRuns].map(
			(r) =>
				`- Create + Wait, ${r.link}, ${r.items} item(s), Items in Parallel ${r.itemsInParallel}, waited by ${r.waitBy}${r.faultRate ? `, ${r.faultRate * 100} % of reads faulty` : ''}: ${r.ms.toFixed(0)} ms, ${r.listReads} list reads + ${r.statusReads} Run reads, RSS growth ${(r.rssGrowth / MiB).toFixed(1)} MiB${r.ok ? '' : ', NOT every item succeeded'}`,
		),
		...results.links.runs.map(linkRunLine),
		`- Package: ${pkg.packedBytes} bytes packed, ${pkg.unpackedBytes} unpacked, ${pkg.files} files, ${pkg.runtimeDependencies} runtime dependencies, classes ${pkg.loadedClasses.join(', ')} loaded in ${pkg.loadMs.toFixed(1)} ms`,
		'',
	].join('\n');
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const sizes = sizesFrom(argv);
	// The harness's secret scan is a test check; timing it would bill it to the node (figure 3).
	setSecretScanning(false);
	if (argv.includes('--only=links')) {
		const links = await benchLinks(sizes);
		await shutdownHarness();
		console.log(renderTable(links.rows));
		console.log(links.runs.map(linkRunLine).join('\n'));
		return;
	}
	if (argv.includes('--only=trigger')) {
		const emu = await startEmulator({ logErrors: false, seed: 42 });
		try {
			const rows = [
				...(await benchTrigger(emu, sizes)).rows,
				...(await benchTriggerAllAgents(sizes)).rows,
			];
			console.log(renderTable(rows));
		} finally {
			await emu.stop();
			await shutdownHarness();
		}
		return;
	}
	const results = await runBench(sizes, (line) => console.error(line));
	await shutdownHarness();
	const md = renderResults(results);
	console.log(renderTable(results.rows));
	const out = argv.find((a) => a.startsWith('--out='))?.slice(6);
	const write = !argv.includes('--no-write') && (out !== undefined || sizes.label !== 'smoke');
	if (write) {
		const file = out ?? path.join(__dirname, 'RESULTS.md');
		fs.writeFileSync(file, md);
		console.error(`written to ${path.relative(process.cwd(), file)}`);
	}
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
