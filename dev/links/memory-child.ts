/**
 * Child process of `linksInChild` (memory.ts): runs ONE execution of
 * Run → Create with Files: Links, one link per item, in n8n's engine (harness) in the binary
 * mode asked, so that its RSS is the engine's alone (the emulator and the file host run in
 * the parent). It samples its own RSS every 10 ms while the node runs.
 *
 * in (argv[2], JSON): { binaryMode, apiUrl, apiKey, links: string[], warmUpLink, nodeFrom?, storeWhole? }
 * out (IPC): { type: 'done', ok, errors, rssBefore, rssPeak, ms }
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import {
	executeNode,
	loadExtractionAgentsNode,
	shutdownHarness,
	type BinaryMode,
} from '../harness';

export interface LinksChildArgs {
	binaryMode: BinaryMode;
	apiUrl: string;
	apiKey: string;
	links: string[];
	warmUpLink: string;
	/** Another version's node file to run instead of this checkout's (a baseline). */
	nodeFrom?: string;
	/**
	 * 0.4.0's way, as a baseline: every link read whole into n8n's store, whatever the store
	 * (the node is told its store keeps files on disk).
	 */
	storeWhole?: boolean;
}

export interface LinksChildResult {
	type: 'done';
	ok: boolean;
	errors: string[];
	rssBefore: number;
	rssPeak: number;
	ms: number;
}

/** The node as the child runs it: this checkout's, another version's, or told to store every link. */
function nodeOf(args: LinksChildArgs): INodeType | 'extractionAgents' {
	let node: INodeType | undefined;
	if (args.nodeFrom) {
		const loaded = require(args.nodeFrom) as Record<string, new () => INodeType>;
		node = new loaded.ExtractionAgents();
	}
	if (!args.storeWhole) return node ?? 'extractionAgents';
	const base = node ?? (loadExtractionAgentsNode() as INodeType);
	const wrapped = Object.create(base) as INodeType;
	wrapped.execute = async function (this: IExecuteFunctions) {
		return await executeTold(base, this);
	};
	return wrapped;
}

/** Runs `base` with a context whose store-mode probe answers "on disk". */
async function executeTold(
	base: INodeType,
	context: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const helpers = Object.create(context.helpers) as IExecuteFunctions['helpers'];
	helpers.prepareBinaryData = async (data, fileName, mimeType) => {
		const stored = await context.helpers.prepareBinaryData(data, fileName, mimeType);
		// The store-mode probe (linkStore.ts) answered as if the store kept files on disk.
		return fileName === 'store-mode' ? { ...stored, id: 'filesystem-v2:baseline' } : stored;
	};
	const told = Object.create(context, { helpers: { value: helpers } }) as IExecuteFunctions;
	return (await base.execute!.call(told)) as INodeExecutionData[][];
}

async function run(args: LinksChildArgs, links: string[]) {
	return await executeNode({
		nodeType: nodeOf(args),
		credentials: { apiKey: args.apiKey, baseUrl: args.apiUrl },
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: '1' },
			binarySource: 'links',
			fileLinks: '={{ $json.link }}',
			waitForCompletion: false,
		},
		inputItems: links.map((link) => ({ json: { link } })),
		binaryMode: args.binaryMode,
		timeoutMs: 20 * 60_000,
	});
}

async function main(): Promise<void> {
	const args = JSON.parse(process.argv[2]) as LinksChildArgs;
	// Warm-up: modules, DI container and HTTP agents loaded, as in a running n8n.
	await run(args, [args.warmUpLink]);
	const rssBefore = process.memoryUsage().rss;
	let rssPeak = rssBefore;
	const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 10);
	const started = performance.now();
	const result = await run(args, args.links);
	const ms = performance.now() - started;
	clearInterval(sampler);
	rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
	const errors = [
		...(result.error ? [result.error.message] : []),
		...result.items.flatMap((item) => {
			const error = (item.json as { error?: unknown }).error;
			return error ? [String(error)] : [];
		}),
	];
	const message: LinksChildResult = {
		type: 'done',
		ok: errors.length === 0,
		errors,
		rssBefore,
		rssPeak,
		ms,
	};
	await new Promise<void>((resolve) =>
		process.send!(message, undefined, undefined, () => resolve()),
	);
	await shutdownHarness();
	process.exit(0);
}

void main();
