import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * Where n8n keeps an item's files in the workflow setting "binary mode: combined" (n8n 2.x):
 * in the item's JSON under this key. n8n-workflow 2.x names it BINARY_IN_JSON_PROPERTY;
 * written out here because n8n 1.x, which this package supports, lacks the constant.
 */
export const FILES_IN_JSON = '_files';

/** The node types whose items carry uploaded files in top-level JSON fields in combined mode (n8n's Form utils). */
const FORM_NODE_TYPES = ['n8n-nodes-base.formTrigger', 'n8n-nodes-base.form'];

/** At most this many outputs of one node are looked at (a Switch node has a few dozen at most). */
const MAX_OUTPUTS = 64;

/**
 * A binary object as n8n hands it to a parameter from an expression (`{{ $binary.data }}`,
 * n8n 1.114 and later): its mime type and either its bytes or its id in n8n's binary store.
 * The same test as n8n-workflow's isBinaryValue, which older n8n versions lack.
 */
export function isBinaryObject(value: unknown): value is IBinaryData {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
	const candidate = value as Partial<IBinaryData>;
	return (
		typeof candidate.mimeType === 'string' &&
		(typeof candidate.id === 'string' || typeof candidate.data === 'string')
	);
}

/** Whether the workflow keeps files in the items' JSON (workflow setting binaryMode: combined). */
export function isCombinedBinaryMode(context: IExecuteFunctions): boolean {
	if (typeof context.getWorkflowSettings !== 'function') return false;
	return context.getWorkflowSettings()?.binaryMode === 'combined';
}

/** The files n8n put in `json._files` (combined mode), by name. */
export function filesInJson(json: IDataObject): Record<string, IBinaryData> {
	const files = json[FILES_IN_JSON];
	if (!files || typeof files !== 'object' || Array.isArray(files)) return {};
	return Object.fromEntries(
		Object.entries(files as IDataObject).filter(([, value]) => isBinaryObject(value)),
	) as Record<string, IBinaryData>;
}

/** The binary objects among an item's top-level JSON fields (a field, or a list of them). */
export function filesInTopLevelJson(json: IDataObject): Array<[string, IBinaryData]> {
	const found: Array<[string, IBinaryData]> = [];
	for (const [key, value] of Object.entries(json)) {
		if (key === FILES_IN_JSON) continue;
		if (isBinaryObject(value)) found.push([key, value]);
		else if (Array.isArray(value)) {
			value.forEach((entry, index) => {
				if (isBinaryObject(entry)) found.push([`${key}[${index}]`, entry]);
			});
		}
	}
	return found;
}

/** The ids of the files n8n placed on an item: binary fields, and in combined mode `_files`. */
function addFileIds(
	ids: Set<string>,
	items: INodeExecutionData[] | null | undefined,
	combined: boolean,
	fromForm: boolean,
): void {
	for (const item of items ?? []) {
		for (const binary of Object.values(item?.binary ?? {})) if (binary?.id) ids.add(binary.id);
		if (!combined || !item?.json) continue;
		for (const binary of Object.values(filesInJson(item.json))) if (binary.id) ids.add(binary.id);
		if (!fromForm) continue;
		for (const [, binary] of filesInTopLevelJson(item.json)) if (binary.id) ids.add(binary.id);
	}
}

function nameOf(entry: unknown): string | undefined {
	if (typeof entry === 'string') return entry;
	const name = (entry as { name?: unknown } | null)?.name;
	return typeof name === 'string' ? name : undefined;
}

/**
 * Every node connected to this one, with its type: what this execution can have run
 * (getParentNodes / getChildNodes see only main connections, through which files flow).
 */
function connectedNodes(context: IExecuteFunctions): Map<string, string | undefined> {
	const nodes = new Map<string, string | undefined>();
	if (typeof context.getParentNodes !== 'function') return nodes;
	const queue = [context.getNode().name];
	while (queue.length > 0) {
		const name = queue.pop() as string;
		const related = [
			...context.getParentNodes(name),
			...(typeof context.getChildNodes === 'function' ? context.getChildNodes(name) : []),
		] as unknown[];
		for (const entry of related) {
			const relatedName = nameOf(entry);
			if (relatedName === undefined || nodes.has(relatedName)) continue;
			nodes.set(relatedName, (entry as { type?: string }).type);
			queue.push(relatedName);
		}
	}
	return nodes;
}

type ItemsOfNode = (nodeName: string, outputIndex: number, runIndex: number) => unknown;

/** Every output of one run of a node in this execution's run data, through n8n's data proxy. */
function* outputsOfRun(
	itemsOf: ItemsOfNode,
	nodeName: string,
	run: number,
): Generator<INodeExecutionData[]> {
	for (let output = 0; output < MAX_OUTPUTS; output++) {
		let items: unknown;
		try {
			items = itemsOf(nodeName, output, run);
		} catch {
			// No such output (or the run failed, or gave nothing): the run's outputs end here.
			return;
		}
		if (Array.isArray(items)) yield items as INodeExecutionData[];
	}
}

/**
 * Every output of every run of the given nodes, the newest runs first: a file named by an
 * expression is most often in its node's latest run, so a node inside a loop finds it without
 * reading the runs of all the loop's earlier rounds.
 */
function* outputsNewestFirst(
	itemsOf: ItemsOfNode,
	runCounts: Map<string, number>,
): Generator<[string, INodeExecutionData[]]> {
	const mostRuns = Math.max(0, ...runCounts.values());
	for (let age = 0; age < mostRuns; age++) {
		for (const [nodeName, runCount] of runCounts) {
			if (age >= runCount) continue;
			for (const items of outputsOfRun(itemsOf, nodeName, runCount - 1 - age)) {
				yield [nodeName, items];
			}
		}
	}
}

function runCountOf(proxy: IDataObject, nodeName: string): number {
	try {
		const node = (proxy.$node as Record<string, { runIndex?: unknown }> | undefined)?.[nodeName];
		const lastRun = Number(node?.runIndex);
		return Number.isInteger(lastRun) ? lastRun + 1 : 0;
	} catch {
		return 0;
	}
}

const inputFiles = new WeakMap<IExecuteFunctions, Set<string>>();

/** The ids of the input items' files (cheap: looked at first). */
function filesOfInput(context: IExecuteFunctions): Set<string> {
	let ids = inputFiles.get(context);
	if (!ids) {
		ids = new Set<string>();
		addFileIds(ids, context.getInputData(), isCombinedBinaryMode(context), false);
		inputFiles.set(context, ids);
	}
	return ids;
}

/** How far the run data was read for one execution of the node, and the file ids found so far. */
interface RunDataSearch {
	ids: Set<string>;
	outputs: Iterator<[string, INodeExecutionData[]]>;
	nodeTypes: Map<string, string | undefined>;
	combined: boolean;
}

const runDataSearches = new WeakMap<IExecuteFunctions, RunDataSearch>();

/** The search through the outputs of every node connected to this one, begun once per execution of the node. */
function runDataSearchOf(context: IExecuteFunctions): RunDataSearch {
	const started = runDataSearches.get(context);
	if (started) return started;
	// n8n versions without the data proxy's run data keep only the input items' files.
	const proxy =
		typeof context.getWorkflowDataProxy === 'function'
			? (context.getWorkflowDataProxy(0) as unknown as IDataObject)
			: undefined;
	const itemsOf = proxy?.$items as ItemsOfNode | undefined;
	const nodeTypes = proxy && typeof itemsOf === 'function' ? connectedNodes(context) : new Map();
	const runCounts = new Map(
		[...nodeTypes.keys()].map((name): [string, number] => [
			name,
			proxy ? runCountOf(proxy, name) : 0,
		]),
	);
	const search: RunDataSearch = {
		ids: new Set<string>(),
		outputs:
			typeof itemsOf === 'function'
				? outputsNewestFirst(itemsOf, runCounts)
				: ([] as Array<[string, INodeExecutionData[]]>)[Symbol.iterator](),
		nodeTypes,
		combined: isCombinedBinaryMode(context),
	};
	runDataSearches.set(context, search);
	return search;
}

/** Whether `id` is a file of an output of a node connected to this one, reading no further than needed. */
function isFileOfRunData(context: IExecuteFunctions, id: string): boolean {
	const search = runDataSearchOf(context);
	while (!search.ids.has(id)) {
		const next = search.outputs.next();
		if (next.done) return false;
		const [nodeName, items] = next.value;
		const fromForm = FORM_NODE_TYPES.includes(search.nodeTypes.get(nodeName) ?? '');
		addFileIds(search.ids, items, search.combined, fromForm);
	}
	return true;
}

/**
 * Whether `id` is a file n8n placed on an item in this execution: a file of an input item, or
 * of any output of any node connected to this one (this execution's run data, which in a
 * partial execution from the editor or a retried execution holds the earlier nodes' runs).
 * A file object is trusted only then: see docs/contributing.md, "Files given by an
 * expression". The run data is read once per execution of the node, and only as far as
 * needed: the run data of the nodes before does not change while this node runs.
 */
export function isFileOfThisExecution(context: IExecuteFunctions, id: string): boolean {
	return filesOfInput(context).has(id) || isFileOfRunData(context, id);
}
