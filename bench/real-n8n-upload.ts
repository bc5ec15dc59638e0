/**
 * `npm run bench:n8n`: figure 2 (upload throughput) cross-checked in a REAL n8n (2.41.1 on
 * Node 24, binary data in filesystem mode), where `npm run bench` measures in n8n-core's
 * engine on the repository's Node. Not part of `npm test` (it starts n8n and moves GiBs).
 *
 * The workflow: Webhook → Read/Write Files from Disk (the 8 × 128 MiB bench files) →
 * Aggregate (all binaries into one item) → Extraction Agents "Create Run" (all binary
 * fields, no waiting). The Create Run node's own execution time, as n8n records it in
 * the execution data, gives its MB/s; `curl -F` sends the same files to the same emulator
 * endpoint right after each execution, and n8n's own HTTP Request node (which streams
 * from the binary store too) sends them in a second workflow. Each upload is checked
 * byte-complete in the emulator's request log. The RSS of the n8n process (and of its task
 * runner) is sampled every 50 ms throughout: each upload's growth is its peak while the node
 * ran (n8n's own start time and execution time of the node) minus the median of the 2 s of
 * quiet before the webhook call, reported as the median and range over the repetitions.
 *
 * Then many items (figure 6'): Webhook → Read/Write Files (50 files of 300 kB, one item
 * each) → Create Run with Wait for Completion, the emulator's Runs taking 3 s, at the
 * default Items in Parallel and at 1, beside the same workflow with one file (one Run).
 *
 * `--cpu-prof` instead profiles one upload of each node (n8n started with --cpu-prof, the
 * bench process, where the emulator receives, with the inspector) and writes
 * bench/PROFILE-n8n.md: where each process's time went while the upload's own code ran.
 * RESULTS-n8n.md keeps what follows its "notes" marker when rewritten (the reading of the profile).
 *
 *   npx tsx bench/real-n8n-upload.ts [--reps=3] [--files=8 --file-mib=128] [--batch-items=50] [--no-write] [--cpu-prof]
 */
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';

import { startEmulator } from '../dev/emulator';
import { callWebhook, startSession, type Session } from '../dev/n8n/session';
import {
	ACTION_TYPE,
	chain,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	webhook,
	workflow,
	type NodeJson,
	type WorkflowJson,
} from '../dev/n8n/workflows';
import { DEFAULT_ITEMS_IN_PARALLEL } from '../nodes/ExtractionAgents/descriptions/options';
import {
	median,
	prepareFiles,
	procRss,
	renderTable,
	sizesFrom,
	uploadWithCurl,
	type Row,
} from './figures';
import {
	EMULATOR_GROUPS,
	N8N_GROUPS,
	readProfile,
	renderSummary,
	summarize,
	windowOf,
	type CpuProfile,
} from './cpu-profile';

const MiB = 1024 * 1024;
const WORKFLOW_ID = 'eaBenchUpload001'; // n8n's ids are 16 characters
const WEBHOOK_PATH = 'bench-upload';
const CREATE_RUN = 'Create Run';

const HTTP_WORKFLOW_ID = 'eaBenchUploadHtp';
const HTTP_WEBHOOK_PATH = 'bench-upload-http-request';
const HTTP_REQUEST = 'HTTP Request';

/** Read/Write Files: every *.pdf in `dir`, one item each, named "Read files". */
function readPdfsNode(workflowId: string, dir: string): NodeJson {
	return {
		id: `${workflowId}-read`,
		name: 'Read files',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [220, 0],
		parameters: {
			operation: 'read',
			fileSelector: `${dir.replace(/\\/g, '/')}/*.pdf`,
			options: {},
		},
	};
}

/** Webhook → Read/Write Files (every *.pdf in inputDir) → Aggregate (one item, all binaries) → `sender`. */
function uploadWorkflow(
	id: string,
	name: string,
	webhookPath: string,
	webhookId: string,
	inputDir: string,
	sender: NodeJson,
): WorkflowJson {
	return workflow(
		id,
		name,
		[
			webhook('Webhook', webhookPath, webhookId, 'allEntries'),
			readPdfsNode(id, inputDir),
			{
				id: `${id}-aggregate`,
				name: 'One item',
				type: 'n8n-nodes-base.aggregate',
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					aggregate: 'aggregateAllItemData',
					destinationFieldName: 'files',
					include: 'allFields',
					options: { includeBinaries: true },
				},
			},
			{ ...sender, position: [660, 0] },
		],
		chain('Webhook', 'Read files', 'One item', sender.name),
	);
}

function createRunWorkflow(inputDir: string): WorkflowJson {
	return uploadWorkflow(
		WORKFLOW_ID,
		'Bench: upload 1 GiB in one Run',
		WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2eb0000001',
		inputDir,
		{
			id: 'bench-create-run',
			name: CREATE_RUN,
			type: ACTION_TYPE,
			typeVersion: 1,
			position: [0, 0],
			credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			parameters: {
				resource: 'run',
				operation: 'create',
				agent: { __rl: true, mode: 'id', value: '1' },
				binarySource: 'all',
				waitForCompletion: false,
			},
		},
	);
}

/**
 * The same files through n8n's own HTTP Request node (multipart, "n8n Binary File" fields),
 * which also streams from the binary store (getBinaryStream + form-data): what n8n itself
 * achieves on the same machine, to the same endpoint. Aggregate names the binaries data, data_1, …
 */
function httpRequestWorkflow(
	inputDir: string,
	apiUrl: string,
	apiKey: string,
	fileCount: number,
): WorkflowJson {
	const fields = Array.from({ length: fileCount }, (_, i) => ({
		parameterType: 'formBinaryData',
		name: 'files',
		inputDataFieldName: i === 0 ? 'data' : `data_${i}`,
	}));
	return uploadWorkflow(
		HTTP_WORKFLOW_ID,
		'Bench: upload 1 GiB with the HTTP Request node',
		HTTP_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2eb0000002',
		inputDir,
		{
			id: 'bench-http-request',
			name: HTTP_REQUEST,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [0, 0],
			parameters: {
				method: 'POST',
				url: `${apiUrl}/agents/1/runs`,
				sendHeaders: true,
				headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
				sendBody: true,
				contentType: 'multipart-form-data',
				bodyParameters: { parameters: fields },
				options: {},
			},
		},
	);
}

/** Webhook → Read/Write Files (every *.pdf in `dir`, one item each) → Create Run + Wait. */
function batchWorkflow(
	id: string,
	webhookPath: string,
	webhookId: string,
	dir: string,
	itemsInParallel: number,
): WorkflowJson {
	return workflow(
		id,
		`Bench: Create + Wait over every file in ${path.basename(dir)}, Items in Parallel ${itemsInParallel}`,
		[
			webhook('Webhook', webhookPath, webhookId, 'allEntries'),
			readPdfsNode(id, dir),
			{
				id: `${id}-create`,
				name: CREATE_RUN,
				type: ACTION_TYPE,
				typeVersion: 1,
				position: [440, 0],
				credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				parameters: {
					resource: 'run',
					operation: 'create',
					agent: { __rl: true, mode: 'id', value: '1' },
					options: { itemsInParallel },
				},
			},
		],
		chain('Webhook', 'Read files', CREATE_RUN),
	);
}

const BATCHES = [
	{
		key: 'one',
		id: 'eaBenchBatchOne1',
		path: 'bench-batch-one',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2eb0000003',
		dir: 'batch-one',
		parallel: DEFAULT_ITEMS_IN_PARALLEL,
	},
	{
		key: 'batch',
		id: 'eaBenchBatchDflt',
		path: 'bench-batch-default',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2eb0000004',
		dir: 'batch',
		parallel: DEFAULT_ITEMS_IN_PARALLEL,
	},
	{
		key: 'sequential',
		id: 'eaBenchBatchSeq1',
		path: 'bench-batch-one-by-one',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2eb0000005',
		dir: 'batch',
		parallel: 1,
	},
] as const;

/** The processes `pid` started (n8n's task runner), from the kernel's list of its children. */
function childPids(pid: number): number[] {
	try {
		return fs
			.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.split(/\s+/)
			.filter((p) => p !== '')
			.map(Number);
	} catch {
		return [];
	}
}

interface RssSample {
	/** Date.now(), comparable with n8n's start time of a node. */
	at: number;
	main: number;
	/** The task runner (and anything else n8n started), summed. */
	children: number;
	/** CPU time the n8n process has used (all its threads: GC helpers, the file reads), seconds. */
	cpu: number;
}

/** utime + stime of a process from /proc, in seconds (clock ticks of 1/100 s on Linux). */
function procCpuSeconds(pid: number): number {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return (Number(fields[11]) + Number(fields[12])) / 100;
	} catch {
		return 0;
	}
}

/** Samples the RSS of `pid` and of its children every 50 ms until stopped. */
function recordRss(pid: number): { samples: RssSample[]; stop: () => void } {
	const samples: RssSample[] = [];
	let children = childPids(pid);
	let tick = 0;
	const sample = () => {
		if (++tick % 20 === 0) children = childPids(pid);
		samples.push({
			at: Date.now(),
			main: procRss(pid) ?? 0,
			cpu: procCpuSeconds(pid),
			children: children.reduce((sum, child) => sum + (procRss(child) ?? 0), 0),
		});
	};
	sample();
	const timer = setInterval(sample, 50);
	return { samples, stop: () => clearInterval(timer) };
}

/** Quiet before the webhook call whose median RSS is the baseline of an upload. */
const BASELINE_MS = 1500;

interface N8nWhileNodeRan {
	/** Median RSS over the quiet window before the webhook call. */
	baseline: number;
	/** Highest RSS while the node ran. */
	peak: number;
	growth: number;
	runnerBaseline: number;
	runnerGrowth: number;
	/** Samples in each window. */
	baselineSamples: number;
	peakSamples: number;
	/**
	 * CPU seconds n8n used while the node ran: unlike the node's time, this hardly moves when
	 * other processes share the cores.
	 */
	cpuSeconds: number;
}

function n8nWhileNodeRan(
	samples: RssSample[],
	callAt: number,
	nodeFrom: number,
	nodeTo: number,
): N8nWhileNodeRan {
	const quiet = samples.filter((s) => s.at >= callAt - BASELINE_MS && s.at < callAt);
	// The last sample before the node started, so that a node shorter than the period has one.
	const during = samples.filter(
		(s, i) =>
			(s.at >= nodeFrom && s.at <= nodeTo) ||
			(s.at < nodeFrom && (samples[i + 1]?.at ?? Infinity) >= nodeFrom),
	);
	if (quiet.length === 0 || during.length === 0)
		throw new Error(
			`no RSS samples (${quiet.length} before the call, ${during.length} while the node ran)`,
		);
	const baseline = median(quiet.map((s) => s.main));
	const runnerBaseline = median(quiet.map((s) => s.children));
	const peak = Math.max(...during.map((s) => s.main));
	return {
		baseline,
		peak,
		growth: peak - baseline,
		runnerBaseline,
		runnerGrowth: Math.max(...during.map((s) => s.children)) - runnerBaseline,
		baselineSamples: quiet.length,
		peakSamples: during.length,
		cpuSeconds: during[during.length - 1].cpu - during[0].cpu,
	};
}

interface Rep {
	nodeMs: number;
	webhookMs: number;
	bytesReceived: number;
	runId?: number;
	curlMs: number;
	curlBytes: number;
	httpMs: number;
	httpBytes: number;
	nodeN8n: N8nWhileNodeRan;
	httpN8n: N8nWhileNodeRan;
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

/** "median (min–max)" of growths in MiB. */
function spread(values: number[]): string {
	return `${mib(median(values))} MiB (${mib(Math.min(...values))} to ${mib(Math.max(...values))})`;
}

function cpuSpread(values: number[]): string {
	const s = (x: number) => x.toFixed(1);
	return `${s(median(values))} s (${s(Math.min(...values))} to ${s(Math.max(...values))})`;
}

/** Starts the inspector's profiler in this process (where the emulator receives). */
async function profileThisProcess(): Promise<() => Promise<CpuProfile>> {
	const session = new inspector.Session();
	session.connect();
	const post = (method: string, params?: object) =>
		new Promise<unknown>((resolve, reject) =>
			session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
		);
	await post('Profiler.enable');
	await post('Profiler.start');
	return async () => {
		const { profile } = (await post('Profiler.stop')) as { profile: CpuProfile };
		session.disconnect();
		return profile;
	};
}

/** The --cpu-prof file n8n's server process wrote on exit. */
function serverProfile(dir: string, pid: number): CpuProfile {
	const file = fs.readdirSync(dir).find((name) => name.split('.')[3] === String(pid));
	if (!file) throw new Error(`n8n (pid ${pid}) wrote no CPU profile in ${dir}`);
	return readProfile(path.join(dir, file));
}

/** Date.now() − the monotonic clock (ms), which V8's profiles stamp in µs. */
const MONOTONIC_TO_EPOCH_MS = Date.now() - Number(process.hrtime.bigint()) / 1e6;

const NOTES_MARKER = '<!-- Notes below are kept when bench:n8n rewrites this file. -->';

/** The file's hand-written notes (from the marker on), if any. */
function notesOf(file: string): string {
	const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
	const at = text.indexOf(NOTES_MARKER);
	return at >= 0 ? text.slice(at) : `${NOTES_MARKER}\n`;
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const sizes = sizesFrom(argv);
	const cpuProf = argv.includes('--cpu-prof');
	const reps = cpuProf ? 1 : Number(argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 3);
	const files = prepareFiles(sizes);
	const bytes = files.reduce((sum, f) => sum + fs.statSync(f).size, 0);
	const emu = await startEmulator({ logErrors: false, seed: 42 });
	let session: Session | undefined;
	let rss: ReturnType<typeof recordRss> | undefined;
	const rows: Rep[] = [];
	const batchItems = Number(argv.find((a) => a.startsWith('--batch-items='))?.slice(14) ?? 50);
	const batchMs: Record<string, number> = {};
	const batchReads: Record<string, number> = {};
	const loadBefore = os.loadavg();
	let loadAfter = loadBefore;
	const profDir = cpuProf ? fs.mkdtempSync(path.join(os.tmpdir(), 'ea-bench-n8n-prof-')) : '';
	let stopProfilingHere: (() => Promise<CpuProfile>) | undefined;
	let benchProfile: CpuProfile | undefined;
	let serverPid = 0;
	try {
		console.error(`starting n8n (binary data: filesystem) with the packed package…`);
		// startSession puts the Read/Write Files folder at <userFolder>/files/invoices.
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-bench-n8n-'));
		// BENCH_N8N_NODE_OPTIONS (e.g. --max-semi-space-size=64; Node refuses --trace-gc there)
		// goes to n8n's NODE_OPTIONS; its log is kept then.
		const nodeOptions = [
			process.env.BENCH_N8N_NODE_OPTIONS ?? '',
			`--require ${path.join(__dirname, 'n8n-preload.cjs')}`,
			cpuProf ? `--cpu-prof --cpu-prof-dir=${profDir}` : '',
		]
			.join(' ')
			.trim();
		session = await startSession({
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			userFolder,
			workflows: [
				createRunWorkflow(path.join(userFolder, 'files', 'invoices')),
				httpRequestWorkflow(
					path.join(userFolder, 'files', 'invoices'),
					emu.apiUrl,
					emu.keys.alice,
					files.length,
				),
				...BATCHES.map((b) =>
					batchWorkflow(
						b.id,
						b.path,
						b.webhookId,
						path.join(userFolder, 'files', b.dir),
						b.parallel,
					),
				),
			],
			examples: false,
			env: {
				N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
				...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
				...(cpuProf ? { BENCH_GC_LOG_DIR: profDir } : {}),
			},
			quiet: true,
		});
		serverPid = session.server.process.pid ?? 0;
		rss = recordRss(serverPid);
		for (const [i, file] of files.entries()) {
			// Hard links: the bytes curl sends are the very same file (and page cache) n8n reads.
			const target = path.join(session.inputDir, `bench-${i}.pdf`);
			fs.rmSync(target, { force: true });
			fs.linkSync(file, target);
		}
		/** Calls a webhook, then reads how long `nodeName` ran in that execution, what the emulator received and n8n's RSS meanwhile. */
		const executeAndTime = async (
			workflowId: string,
			webhookPath: string,
			nodeName: string,
			count: number,
		) => {
			const seq = emu.lastSeq;
			const callAt = Date.now();
			const t0 = performance.now();
			const res = await callWebhook(session!.server.url, webhookPath);
			const webhookMs = performance.now() - t0;
			if (res.status !== 200) {
				const log = session!.server.logs().split('\n').slice(-40).join('\n');
				throw new Error(
					`webhook ${webhookPath} answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 500)}\nn8n log:\n${log}`,
				);
			}
			const [latest] = await session!.waitForExecutions(workflowId, count, 60_000);
			const details = await session!.execution(latest.id);
			const run = details.runData[nodeName]?.[0] as
				| { startTime?: number; executionTime?: number; error?: { message?: string } }
				| undefined;
			if (!run || run.error || typeof run.executionTime !== 'number') {
				throw new Error(`${nodeName} did not succeed: ${run?.error?.message ?? 'no run data'}`);
			}
			const nodeFrom = run.startTime ?? callAt;
			const nodeN8n = n8nWhileNodeRan(rss!.samples, callAt, nodeFrom, nodeFrom + run.executionTime);
			const upload = emu
				.requestsSince(seq)
				.filter((e) => e.operation === 'runs.create')
				.at(-1)?.upload;
			const bytesReceived = (upload?.files ?? []).reduce((sum, f) => sum + f.size, 0);
			const statusReads = emu
				.requestsSince(seq)
				.filter((e) => e.method === 'GET' && /\/runs\/\d+$/.test(e.path)).length;
			return { nodeMs: run.executionTime, webhookMs, bytesReceived, nodeN8n, statusReads };
		};
		// n8n stores the execution after the webhook has answered: let it finish, collect the
		// garbage of the upload before (bench/n8n-preload.cjs), then the last BASELINE_MS of
		// quiet are the next upload's RSS baseline.
		const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
		const settle = async () => {
			await sleep(2000);
			process.kill(serverPid, 'SIGUSR2');
			await sleep(500 + BASELINE_MS);
		};
		await settle();
		if (cpuProf) stopProfilingHere = await profileThisProcess();
		for (let rep = 0; rep < reps; rep++) {
			await settle();
			const ours = await executeAndTime(WORKFLOW_ID, WEBHOOK_PATH, CREATE_RUN, rep + 1);
			await settle();
			const http = await executeAndTime(HTTP_WORKFLOW_ID, HTTP_WEBHOOK_PATH, HTTP_REQUEST, rep + 1);
			if (!cpuProf) await settle();
			const curl = await uploadWithCurl(emu, files);
			rows.push({
				...ours,
				curlMs: curl.ms,
				curlBytes: curl.bytesReceived,
				httpMs: http.nodeMs,
				httpBytes: http.bytesReceived,
				nodeN8n: ours.nodeN8n,
				httpN8n: http.nodeN8n,
			});
			console.error(
				`  upload ${rep + 1}: Create Run ${ours.nodeMs} ms (RSS +${mib(ours.nodeN8n.growth)} MiB, CPU ${ours.nodeN8n.cpuSeconds.toFixed(1)} s), HTTP Request node ${http.nodeMs} ms (RSS +${mib(http.nodeN8n.growth)} MiB, CPU ${http.nodeN8n.cpuSeconds.toFixed(1)} s), curl ${curl.ms.toFixed(0)} ms`,
			);
		}
		if (stopProfilingHere) benchProfile = await stopProfilingHere();

		// Figure 6': many items in one execution, each Run taking 3 s.
		const batchFiles = { one: 1, batch: batchItems } as const;
		for (const [dir, count] of cpuProf
			? []
			: ([
					['batch-one', batchFiles.one],
					['batch', batchFiles.batch],
				] as const)) {
			const target = path.join(session.filesDir, dir);
			fs.mkdirSync(target, { recursive: true });
			for (let n = 0; n < count; n++)
				fs.writeFileSync(path.join(target, `invoice-${n}.pdf`), Buffer.alloc(300_000, n % 251));
		}
		emu.knobs.runDurationMs = 3000;
		for (const b of cpuProf ? [] : BATCHES) {
			await settle();
			const timing = await executeAndTime(b.id, b.path, CREATE_RUN, 1);
			batchMs[b.key] = timing.nodeMs;
			batchReads[b.key] = timing.statusReads;
			console.error(
				`  ${b.key}: Create Run + Wait ${timing.nodeMs} ms, ${timing.statusReads} status reads`,
			);
		}
		loadAfter = os.loadavg();
	} finally {
		rss?.stop();
		if (session && process.env.BENCH_N8N_NODE_OPTIONS) {
			const kept = path.join(os.tmpdir(), 'ea-bench-n8n.log');
			fs.writeFileSync(kept, session.server.logs());
			console.error(`n8n log: ${kept}`);
		}
		await session?.stop();
		if (session) fs.rmSync(session.userFolder, { recursive: true, force: true });
		await emu.stop();
	}
	const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
	const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
	const machine = `${os.cpus().length} cores; load average (1, 5, 15 min) ${load(loadBefore)} before, ${load(loadAfter)} after`;
	if (cpuProf && benchProfile) {
		writeProfileReport(
			profDir,
			serverPid,
			benchProfile,
			rows,
			bytes,
			machine,
			session?.n8n.version,
		);
		return;
	}
	const oursMs = median(rows.map((r) => r.nodeMs));
	const curlMs = median(rows.map((r) => r.curlMs));
	const httpMs = median(rows.map((r) => r.httpMs));
	const complete = rows.every(
		(r) => r.bytesReceived === bytes && r.curlBytes === bytes && r.httpBytes === bytes,
	);
	const what = `${sizes.fileCount} × ${sizes.fileMiB} MiB, median of ${rows.length}`;
	const range = (xs: number[]) =>
		`${mbps(Math.max(...xs)).toFixed(1)} to ${mbps(Math.min(...xs)).toFixed(1)}`;
	const table: Row[] = [
		{
			figure: `2'. Upload throughput in real n8n ${session?.n8n.version} (${what}; range in brackets)`,
			ours: `${mbps(oursMs).toFixed(1)} MB/s (${range(rows.map((r) => r.nodeMs))})`,
			baseline: `${mbps(curlMs).toFixed(1)} MB/s (curl -F; ${range(rows.map((r) => r.curlMs))})`,
			ratio: `${(curlMs / oursMs).toFixed(2)}×`,
			goal: '≥ 0.8× curl',
			met: complete && mbps(oursMs) >= 0.8 * mbps(curlMs),
		},
		{
			figure: `2'. The same, beside n8n's own HTTP Request node (multipart, binary fields)`,
			ours: `${mbps(oursMs).toFixed(1)} MB/s`,
			baseline: `${mbps(httpMs).toFixed(1)} MB/s (HTTP Request node; ${range(rows.map((r) => r.httpMs))})`,
			ratio: `${(httpMs / oursMs).toFixed(2)}×`,
			goal: '—',
			met: null,
		},
		{
			figure: `2'. RSS growth of the n8n process while the node uploads: peak during the node − median of the ${BASELINE_MS / 1000} s before the call (${sizes.fileCount} × ${sizes.fileMiB} MiB; median (min to max) of ${rows.length})`,
			ours: spread(rows.map((r) => r.nodeN8n.growth)),
			baseline: `${spread(rows.map((r) => r.httpN8n.growth))} (HTTP Request node)`,
			ratio: '—',
			goal: '—',
			met: null,
		},
		{
			figure: `2'. CPU time of the n8n process (all threads) while the node uploads (median (min to max) of ${rows.length}): less sensitive to a shared machine than the node's time`,
			ours: cpuSpread(rows.map((r) => r.nodeN8n.cpuSeconds)),
			baseline: `${cpuSpread(rows.map((r) => r.httpN8n.cpuSeconds))} (HTTP Request node)`,
			ratio: `${(median(rows.map((r) => r.httpN8n.cpuSeconds)) / median(rows.map((r) => r.nodeN8n.cpuSeconds))).toFixed(2)}×`,
			goal: '—',
			met: null,
		},
		{
			figure: `6'. Create + Wait in real n8n, ${batchItems} items via a webhook, Runs of 3 s: node time ÷ one Run's`,
			ours: `${(batchMs.batch / batchMs.one).toFixed(2)}× (${batchMs.batch} ms, Items in Parallel ${DEFAULT_ITEMS_IN_PARALLEL}, ${batchReads.batch} status reads)`,
			baseline: `${(batchMs.sequential / batchMs.one).toFixed(2)}× (${batchMs.sequential} ms, Items in Parallel 1); one Run ${batchMs.one} ms`,
			ratio: `${(batchMs.batch / batchMs.sequential).toFixed(2)}×`,
			goal: '≤ 2× one Run',
			met: batchMs.batch <= 2 * batchMs.one,
		},
	];
	const rssOf = (g: N8nWhileNodeRan) =>
		`baseline ${mib(g.baseline)} MiB (${g.baselineSamples} samples), peak ${mib(g.peak)} MiB (${g.peakSamples} samples), growth ${mib(g.growth)} MiB; task runner growth ${mib(g.runnerGrowth)} MiB; n8n CPU ${g.cpuSeconds.toFixed(1)} s`;
	const resultsFile = path.join(__dirname, 'RESULTS-n8n.md');
	const md = [
		'# Upload throughput in a real n8n',
		'',
		'Written by `npm run bench:n8n` (bench/real-n8n-upload.ts).',
		'',
		`- Date: ${new Date().toISOString()}`,
		`- n8n ${session?.n8n.version} on its Node (${session?.n8n.nodeBin}), binary data mode filesystem; ${bytes} bytes in one Run`,
		`- Machine: ${machine}. The machine is shared: a load above the core count means the figures are noisy.`,
		`- RSS: sampled every 50 ms from /proc (the n8n process; its task runner apart). Each upload's growth is the highest RSS while the node ran (its start and execution time in n8n's execution data) minus the median over the ${BASELINE_MS / 1000} s before the webhook call, which follow a full garbage collection (bench/n8n-preload.cjs, on SIGUSR2) so that the garbage of the upload before does not inflate the baseline. CPU: utime + stime of the n8n process (all threads) from /proc/<pid>/stat over the same window.`,
		'',
		renderTable(table),
		'',
		'## Each upload',
		'',
		...rows.map(
			(r, i) =>
				`- ${i + 1}: Create Run node ${r.nodeMs} ms (${mbps(r.nodeMs).toFixed(1)} MB/s), whole webhook execution ${r.webhookMs.toFixed(0)} ms, emulator received ${r.bytesReceived} bytes, RSS ${rssOf(r.nodeN8n)}; HTTP Request node ${r.httpMs} ms (${mbps(r.httpMs).toFixed(1)} MB/s), received ${r.httpBytes} bytes, RSS ${rssOf(r.httpN8n)}; curl ${r.curlMs.toFixed(0)} ms (${mbps(r.curlMs).toFixed(1)} MB/s), received ${r.curlBytes} bytes`,
		),
		'',
		notesOf(resultsFile),
	].join('\n');
	console.log(md);
	if (!argv.includes('--no-write')) fs.writeFileSync(resultsFile, md);
}

/** bench/PROFILE-n8n.md: each node's upload window in n8n's profile, and the emulator's in the same window. */
function writeProfileReport(
	profDir: string,
	serverPid: number,
	benchProfile: CpuProfile,
	rows: Rep[],
	bytes: number,
	machine: string,
	version: string | undefined,
): void {
	const n8nProfile = serverProfile(profDir, serverPid);
	const ours = windowOf(n8nProfile, (u) => /\/transport\/multipart\.js$/.test(u));
	const http = windowOf(
		n8nProfile,
		(u) => /\/(form-data|combined-stream|delayed-stream)\//.test(u),
		ours?.toUs,
	);
	if (!ours || !http)
		throw new Error('the profile has no sample of an upload (multipart.js, form-data)');
	const mbps = (ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
	// Profiles stamp with the monotonic clock in µs, the GC log with the epoch in ms.
	const epochMs = (us: number) => us / 1000 + MONOTONIC_TO_EPOCH_MS;
	const gcLog = path.join(profDir, `gc-${serverPid}.jsonl`);
	const gcs = fs.existsSync(gcLog)
		? fs
				.readFileSync(gcLog, 'utf8')
				.split('\n')
				.filter((line) => line !== '')
				.map((line) => JSON.parse(line) as { at: number; ms: number; kind: string })
		: [];
	const gcLines = (window: { fromUs: number; toUs: number }) => {
		const inWindow = gcs.filter(
			(gc) => gc.at >= epochMs(window.fromUs) && gc.at <= epochMs(window.toUs),
		);
		const kinds = [...new Set(inWindow.map((gc) => gc.kind))];
		return [
			`**Garbage collections of the n8n process in the window** (perf_hooks, bench/n8n-preload.cjs)`,
			'',
			'| Kind | Count | Total ms | Longest ms |',
			'| --- | --- | --- | --- |',
			...kinds.map((kind) => {
				const ms = inWindow.filter((gc) => gc.kind === kind).map((gc) => gc.ms);
				return `| ${kind} | ${ms.length} | ${ms.reduce((a, b) => a + b, 0).toFixed(0)} | ${Math.max(...ms).toFixed(0)} |`;
			}),
			'',
		];
	};
	const sections = [
		{ title: 'Create Run (ours)', window: ours, ms: rows[0].nodeMs },
		{ title: 'HTTP Request node', window: http, ms: rows[0].httpMs },
	].flatMap(({ title, window, ms }) => [
		`## ${title}: ${ms} ms in n8n's execution data (${mbps(ms)} MB/s)`,
		'',
		...renderSummary(
			'The n8n process',
			summarize(n8nProfile, N8N_GROUPS, window.fromUs, window.toUs),
		),
		...gcLines(window),
		...renderSummary(
			'The bench process, where the emulator receives (same window)',
			summarize(benchProfile, EMULATOR_GROUPS, window.fromUs, window.toUs),
		),
	]);
	const md = [
		'# Where an upload’s time goes in a real n8n (CPU profiles)',
		'',
		'Written by `npm run bench:n8n -- --cpu-prof` (bench/real-n8n-upload.ts, bench/cpu-profile.ts).',
		'',
		`- Date: ${new Date().toISOString()}; n8n ${version}; ${bytes} bytes per upload; ${machine}`,
		`- curl sent the same files in ${rows[0].curlMs.toFixed(0)} ms (${mbps(rows[0].curlMs)} MB/s) right after.`,
		'- Window: from the first to the last sample of n8n with the upload’s own code on the stack (multipart.js for ours, form-data for the HTTP Request node). Self time; a native function without a file (a socket write, a copy) counts to its JavaScript caller. Idle is time the thread waited (for the disk, the socket, or the other core).',
		'',
		...sections,
	].join('\n');
	console.log(md);
	fs.writeFileSync(path.join(__dirname, 'PROFILE-n8n.md'), md);
	console.error(`profiles kept in ${profDir}`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
