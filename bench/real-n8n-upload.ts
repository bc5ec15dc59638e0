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
 * byte-complete in the emulator's request log, and the n8n process's RSS is sampled every
 * 50 ms during each of the two nodes' uploads.
 *
 * Then many items (figure 6'): Webhook → Read/Write Files (50 files of 300 kB, one item
 * each) → Create Run with Wait for Completion, the emulator's Runs taking 3 s, at the
 * default Items in Parallel and at 1, beside the same workflow with one file (one Run).
 *
 *   npx tsx bench/real-n8n-upload.ts [--reps=3] [--files=8 --file-mib=128] [--batch-items=50] [--no-write]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startEmulator } from '../test/emulator';
import { callWebhook, startSession, type Session } from '../test/e2e/n8n-session';
import {
	ACTION_TYPE,
	chain,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	webhook,
	workflow,
	type NodeJson,
	type WorkflowJson,
} from '../test/e2e/workflows';
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

/** Samples a process's RSS every 50 ms until stopped; returns the highest seen. */
function sampleRss(pid: number | undefined): () => number {
	let peak = pid ? (procRss(pid) ?? 0) : 0;
	const timer = setInterval(() => {
		if (pid) peak = Math.max(peak, procRss(pid) ?? 0);
	}, 50);
	return () => {
		clearInterval(timer);
		return peak;
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
	/** Peak RSS of the n8n process during each node's execution (bytes). */
	nodeRssPeak: number;
	httpRssPeak: number;
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const sizes = sizesFrom(argv);
	const reps = Number(argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 3);
	const files = prepareFiles(sizes);
	const bytes = files.reduce((sum, f) => sum + fs.statSync(f).size, 0);
	const emu = await startEmulator({ logErrors: false, seed: 42 });
	let session: Session | undefined;
	const rows: Rep[] = [];
	const batchItems = Number(argv.find((a) => a.startsWith('--batch-items='))?.slice(14) ?? 50);
	const batchMs: Record<string, number> = {};
	const batchReads: Record<string, number> = {};
	let rssBaseline = 0;
	try {
		console.error(`starting n8n (binary data: filesystem) with the packed package…`);
		// startSession puts the Read/Write Files folder at <userFolder>/files/invoices.
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-bench-n8n-'));
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
			// BENCH_N8N_NODE_OPTIONS (e.g. --trace-gc) goes to n8n's NODE_OPTIONS; its log is kept then.
			env: {
				N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
				...(process.env.BENCH_N8N_NODE_OPTIONS
					? { NODE_OPTIONS: process.env.BENCH_N8N_NODE_OPTIONS }
					: {}),
			},
			quiet: true,
		});
		for (const [i, file] of files.entries()) {
			// Hard links: the bytes curl sends are the very same file (and page cache) n8n reads.
			const target = path.join(session.inputDir, `bench-${i}.pdf`);
			fs.rmSync(target, { force: true });
			fs.linkSync(file, target);
		}
		/** Calls a webhook, then reads how long `nodeName` ran in that execution and what the emulator received. */
		const executeAndTime = async (
			workflowId: string,
			webhookPath: string,
			nodeName: string,
			count: number,
		) => {
			const seq = emu.lastSeq;
			const t0 = performance.now();
			const stopSampling = sampleRss(session!.server.process.pid);
			const res = await callWebhook(session!.server.url, webhookPath);
			const rssPeak = stopSampling();
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
				| { executionTime?: number; error?: { message?: string } }
				| undefined;
			if (!run || run.error || typeof run.executionTime !== 'number') {
				throw new Error(`${nodeName} did not succeed: ${run?.error?.message ?? 'no run data'}`);
			}
			const upload = emu
				.requestsSince(seq)
				.filter((e) => e.operation === 'runs.create')
				.at(-1)?.upload;
			const bytesReceived = (upload?.files ?? []).reduce((sum, f) => sum + f.size, 0);
			const statusReads = emu
				.requestsSince(seq)
				.filter((e) => e.method === 'GET' && /\/runs\/\d+$/.test(e.path)).length;
			return { nodeMs: run.executionTime, webhookMs, bytesReceived, rssPeak, statusReads };
		};
		const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));
		await settle();
		rssBaseline = procRss(session.server.process.pid ?? 0) ?? 0;
		for (let rep = 0; rep < reps; rep++) {
			// n8n stores the execution after the webhook has answered: let it finish before each upload.
			await settle();
			const ours = await executeAndTime(WORKFLOW_ID, WEBHOOK_PATH, CREATE_RUN, rep + 1);
			await settle();
			const http = await executeAndTime(HTTP_WORKFLOW_ID, HTTP_WEBHOOK_PATH, HTTP_REQUEST, rep + 1);
			await settle();
			const curl = await uploadWithCurl(emu, files);
			rows.push({
				...ours,
				curlMs: curl.ms,
				curlBytes: curl.bytesReceived,
				httpMs: http.nodeMs,
				httpBytes: http.bytesReceived,
				nodeRssPeak: ours.rssPeak,
				httpRssPeak: http.rssPeak,
			});
			console.error(
				`  upload ${rep + 1}: Create Run ${ours.nodeMs} ms, HTTP Request node ${http.nodeMs} ms, curl ${curl.ms.toFixed(0)} ms`,
			);
		}

		// Figure 6': many items in one execution, each Run taking 3 s.
		const batchFiles = { one: 1, batch: batchItems } as const;
		for (const [dir, count] of [
			['batch-one', batchFiles.one],
			['batch', batchFiles.batch],
		] as const) {
			const target = path.join(session.filesDir, dir);
			fs.mkdirSync(target, { recursive: true });
			for (let n = 0; n < count; n++)
				fs.writeFileSync(path.join(target, `invoice-${n}.pdf`), Buffer.alloc(300_000, n % 251));
		}
		emu.knobs.runDurationMs = 3000;
		for (const b of BATCHES) {
			await settle();
			const timing = await executeAndTime(b.id, b.path, CREATE_RUN, 1);
			batchMs[b.key] = timing.nodeMs;
			batchReads[b.key] = timing.statusReads;
			console.error(
				`  ${b.key}: Create Run + Wait ${timing.nodeMs} ms, ${timing.statusReads} status reads`,
			);
		}
	} finally {
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
	const oursMs = median(rows.map((r) => r.nodeMs));
	const curlMs = median(rows.map((r) => r.curlMs));
	const httpMs = median(rows.map((r) => r.httpMs));
	const complete = rows.every(
		(r) => r.bytesReceived === bytes && r.curlBytes === bytes && r.httpBytes === bytes,
	);
	const what = `${sizes.fileCount} × ${sizes.fileMiB} MiB, median of ${rows.length}`;
	const table: Row[] = [
		{
			figure: `2'. Upload throughput in real n8n ${session?.n8n.version} (${what})`,
			ours: `${mbps(oursMs).toFixed(1)} MB/s`,
			baseline: `${mbps(curlMs).toFixed(1)} MB/s (curl -F)`,
			ratio: `${(curlMs / oursMs).toFixed(2)}×`,
			goal: '≥ 0.8× curl',
			met: complete && mbps(oursMs) >= 0.8 * mbps(curlMs),
		},
		{
			figure: `2'. The same, beside n8n's own HTTP Request node (multipart, binary fields)`,
			ours: `${mbps(oursMs).toFixed(1)} MB/s`,
			baseline: `${mbps(httpMs).toFixed(1)} MB/s (HTTP Request node)`,
			ratio: `${(httpMs / oursMs).toFixed(2)}×`,
			goal: '—',
			met: null,
		},
		{
			figure: `2'. Peak RSS growth of the n8n process while uploading (${what})`,
			ours: `${((median(rows.map((r) => r.nodeRssPeak)) - rssBaseline) / MiB).toFixed(1)} MiB`,
			baseline: `${((median(rows.map((r) => r.httpRssPeak)) - rssBaseline) / MiB).toFixed(1)} MiB (HTTP Request node)`,
			ratio: '—',
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
	const md = [
		'# Upload throughput in a real n8n',
		'',
		'Written by `npm run bench:n8n` (bench/real-n8n-upload.ts).',
		'',
		`- Date: ${new Date().toISOString()}`,
		`- n8n ${session?.n8n.version} on its Node (${session?.n8n.nodeBin}), binary data mode filesystem; ${bytes} bytes in one Run; n8n's RSS before the uploads ${(rssBaseline / MiB).toFixed(1)} MiB`,
		'',
		renderTable(table),
		'',
		'## Each upload',
		'',
		...rows.map(
			(r, i) =>
				`- ${i + 1}: Create Run node ${r.nodeMs} ms (${mbps(r.nodeMs).toFixed(1)} MB/s), whole webhook execution ${r.webhookMs.toFixed(0)} ms, emulator received ${r.bytesReceived} bytes; HTTP Request node ${r.httpMs} ms (${mbps(r.httpMs).toFixed(1)} MB/s), received ${r.httpBytes} bytes; n8n RSS peak ${(r.nodeRssPeak / MiB).toFixed(1)} MiB during Create Run, ${(r.httpRssPeak / MiB).toFixed(1)} MiB during HTTP Request; curl ${r.curlMs.toFixed(0)} ms (${mbps(r.curlMs).toFixed(1)} MB/s), received ${r.curlBytes} bytes`,
		),
		'',
	].join('\n');
	console.log(md);
	if (!argv.includes('--no-write')) fs.writeFileSync(path.join(__dirname, 'RESULTS-n8n.md'), md);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
