/**
 * Child process of figures 1 and 2: runs ONE upload through n8n's engine (harness,
 * filesystem binary mode) so that its RSS is the engine's alone. The parent starts it with
 * `fork(…, { execArgv: ['--import', 'tsx'] })` and samples its RSS from /proc.
 *
 * No forced GC before the measured upload: `global.gc()` there resets V8's heap-growth
 * limit to its minimum, and the upload's read buffers (external memory) then trigger a
 * full mark-compact every ~130 ms (--trace-gc: mutator utilisation ~0.5). That halved the
 * measured throughput (≈200 vs ≈470 MB/s) without changing the RSS before the upload
 * (≈198 MiB either way); n8n itself never forces a GC.
 *
 * in (argv[2], JSON): { mode: 'ours' | 'baseline', url, apiKey, files: string[] }
 * out (IPC): {type:'before', rss} → parent answers {type:'go'} once it samples →
 *            {type:'after', rss, ms} → {type:'done', ok, error?, runId?, ms}
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { executeNode, loadExtractionAgentsNode, shutdownHarness } from '../dev/harness';
import { BaselineUpload } from './BaselineUpload.node';

export interface UploadChildArgs {
	mode: 'ours' | 'baseline';
	url: string;
	apiKey: string;
	files: string[];
}

const send = (msg: unknown) =>
	new Promise<void>((resolve) => process.send!(msg, undefined, undefined, () => resolve()));

function waitFor(type: string): Promise<void> {
	return new Promise((resolve) => {
		const onMessage = (msg: { type?: string }) => {
			if (msg?.type === type) {
				process.off('message', onMessage);
				resolve();
			}
		};
		process.on('message', onMessage);
	});
}

/** The node, wrapped so that its execute() is bracketed by the 'before' / 'after' marks. */
function instrumented(node: INodeType, onTime: (ms: number) => void): INodeType {
	const wrapped = Object.create(node) as INodeType;
	wrapped.execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		await send({ type: 'before', rss: process.memoryUsage().rss });
		await waitFor('go');
		const started = performance.now();
		try {
			return (await node.execute!.call(this)) as INodeExecutionData[][];
		} finally {
			const ms = performance.now() - started;
			onTime(ms);
			await send({ type: 'after', rss: process.memoryUsage().rss, ms });
		}
	};
	return wrapped;
}

async function main(): Promise<void> {
	const args = JSON.parse(process.argv[2]) as UploadChildArgs;
	let ms = 0;
	const base =
		args.mode === 'ours' ? (loadExtractionAgentsNode() as INodeType) : new BaselineUpload();
	const parameters =
		args.mode === 'ours'
			? {
					resource: 'run',
					operation: 'create',
					agent: { __rl: true, mode: 'id', value: '1' },
					binarySource: 'all',
					// One Run of all the files (version 1.5 makes one per file by default): the
					// figure is one upload of the whole size, as the baseline's.
					filesPerRun: 'item',
					waitForCompletion: false,
				}
			: { agentId: '1' };
	const binary = Object.fromEntries(
		args.files.map((path, i) => [`file${i}`, { path, mimeType: 'application/pdf' }]),
	);
	// Warm-up: one small upload first, so that the measured one runs in a process whose
	// modules, DI container and HTTP agents are loaded, as in a running n8n (the first
	// execution of a fresh process was measured ~1/3 slower than the next ones).
	await executeNode({
		nodeType: base,
		parameters,
		credentials: { apiKey: args.apiKey, baseUrl: args.url },
		inputItems: [
			{
				binary: {
					warmup: {
						data: Buffer.from('%PDF-1.4 warm-up'),
						fileName: 'warm-up.pdf',
						mimeType: 'application/pdf',
					},
				},
			},
		],
		binaryMode: 'filesystem',
		timeoutMs: 5 * 60_000,
	});
	const result = await executeNode({
		nodeType: instrumented(base, (t) => (ms = t)),
		parameters,
		credentials: { apiKey: args.apiKey, baseUrl: args.url },
		inputItems: [{ binary }],
		binaryMode: 'filesystem',
		timeoutMs: 30 * 60_000,
	});
	const json = result.items[0]?.json as { run_id?: number } | undefined;
	await send({
		type: 'done',
		ok: !result.error,
		error: result.error?.message,
		runId: json?.run_id,
		ms,
	});
	await shutdownHarness();
	process.exit(0);
}

main().catch(async (error: Error) => {
	await send({ type: 'done', ok: false, error: error.stack ?? error.message, ms: 0 });
	process.exit(1);
});
