import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * Where n8n keeps an item's files in the workflow setting "binary mode: combined" (n8n 2.x):
 * in the item's JSON under this key. n8n-workflow 2.x names it BINARY_IN_JSON_PROPERTY;
 * written out here because n8n 1.x, which this package supports, lacks the constant.
 */
export const FILES_IN_JSON = '_files';

/**
 * n8n's nodes that build their items from what whoever calls their address sends: the Form
 * Trigger and Form, the Webhook, the Wait (resumed by a call or a form), the Chat Trigger.
 */
const FORM_NODE_TYPES = ['n8n-nodes-base.formTrigger', 'n8n-nodes-base.form'];
const WEBHOOK_NODE_TYPE = 'n8n-nodes-base.webhook';
const WAIT_NODE_TYPE = 'n8n-nodes-base.wait';
const CHAT_TRIGGER_NODE_TYPES = [
	'@n8n/n8n-nodes-langchain.chatTrigger',
	'@n8n/n8n-nodes-langchain.manualChatTrigger',
];

/**
 * The keys n8n's Form utils write after the form's elements, so a same-named element is
 * overwritten (headers: option Show Headers; user: a signed-in submitter).
 */
const FORM_KEYS_WRITTEN_LAST = [
	'submittedAt',
	'formMode',
	'headers',
	'formQueryParameters',
	'user',
];

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

/** One node of the workflow as its saved parameters describe it. */
interface ConnectedNode {
	type?: string;
	typeVersion?: number;
	parameters?: IDataObject;
}

/**
 * Where n8n itself puts files on a node's items, and whether the rest of their JSON is what an
 * outsider sent (docs/contributing.md, "Files given by an expression: what is trusted").
 */
interface FilePlaces {
	/** `_files` holds only what n8n's engine put there: an outsider cannot name that key. */
	filesInJson: boolean;
	/** Top-level fields in which a form puts its uploads in combined mode: its file elements. */
	formFileFields: Set<string>;
	/** The items' JSON, outside the places above, is what whoever called the node's address sent. */
	received: boolean;
}

const NOT_RECEIVED: FilePlaces = { filesInJson: true, formFileFields: new Set(), received: false };

/** One element of a form definition, as n8n saves it in the Form's parameters. */
interface FormElement {
	fieldLabel?: unknown;
	fieldName?: unknown;
	fieldType?: unknown;
	multiselect?: unknown;
	elementName?: unknown;
}

function isExpression(value: unknown): boolean {
	return typeof value === 'string' && (value.startsWith('=') || value.includes('{{'));
}

/**
 * A form's elements from its saved parameters: the Form Elements list, or the JSON given in
 * "Define Form: Using JSON" (escaped as n8n escapes it). Undefined when only a run could tell
 * (an expression), so that nothing of that form is trusted.
 */
function formElementsOf(parameters: IDataObject): FormElement[] | undefined {
	let elements: unknown;
	if (parameters.defineForm === 'json') {
		const text = parameters.jsonOutput;
		if (typeof text !== 'string' || isExpression(text)) return undefined;
		try {
			elements = JSON.parse(text);
		} catch {
			return undefined;
		}
		if (!Array.isArray(elements)) return undefined;
		const escape = (value: unknown) =>
			typeof value === 'string' ? value.replace(/</g, '&lt;').replace(/>/g, '&gt;') : value;
		elements = elements.map((element: FormElement) => ({
			...element,
			fieldLabel: escape(element?.fieldLabel),
			fieldName: escape(element?.fieldName),
		}));
	} else {
		elements = (parameters.formFields as IDataObject | undefined)?.values ?? [];
	}
	if (!Array.isArray(elements)) return undefined;
	const list = elements.filter(
		(element) => element && typeof element === 'object',
	) as FormElement[];
	const named = (element: FormElement) => [
		element.fieldLabel,
		element.fieldName,
		element.elementName,
	];
	return list.some((element) => named(element).some(isExpression)) ? undefined : list;
}

/**
 * The top-level fields of a form's items that hold its uploads, and whether it names a field
 * `_files`. n8n's Form utils write one field per element, in order, named by its Field Name
 * (node version 2.4 and later, when set) or its label; an HTML element by its Element Name;
 * then FORM_KEYS_WRITTEN_LAST. A field holds an upload when the last element written to it is
 * a file element: a checkbox, radio or multiple-choice element's text is JSON-parsed, so its
 * value is whatever the submitter typed (n8n 2.41's Form utils: prepareFormReturnItem,
 * addFormResponseDataToReturnItem).
 */
function formFilePlaces(node: ConnectedNode): { fileFields: Set<string>; namesFiles: boolean } {
	const parameters = node.parameters ?? {};
	const elements = formElementsOf(parameters);
	if (!elements) return { fileFields: new Set(), namesFiles: true };
	const lastWriter = new Map<string, FormElement | undefined>();
	for (const element of elements) {
		if (element.fieldType === 'html') {
			if (typeof element.elementName === 'string' && element.elementName !== '')
				lastWriter.set(element.elementName, undefined);
			continue;
		}
		const name =
			(node.typeVersion ?? 1) >= 2.4 && typeof element.fieldName === 'string' && element.fieldName
				? element.fieldName
				: (element.fieldLabel ?? element.fieldName);
		lastWriter.set(String(name ?? ''), element);
	}
	for (const key of FORM_KEYS_WRITTEN_LAST) lastWriter.set(key, undefined);
	if (typeof parameters.userOutputField === 'string')
		lastWriter.set(parameters.userOutputField, undefined);
	const fileFields = new Set(
		[...lastWriter]
			.filter(([, element]) => element?.fieldType === 'file' && !element.multiselect)
			.map(([name]) => name),
	);
	return { fileFields, namesFiles: lastWriter.has(FILES_IN_JSON) };
}

/**
 * Where n8n puts files on the items of a node of this type, from its saved parameters (what
 * the workflow's author set, not what a run received). The Chat Trigger's item is the JSON
 * message as sent, `_files` included; a Webhook's is n8n's `{ headers, params, query, body }`
 * (`_files` is n8n's); a Form's is one field per element of its definition.
 */
function filePlacesOf(node: ConnectedNode | undefined): FilePlaces {
	const type = node?.type ?? '';
	const resume = node?.parameters?.resume;
	if (CHAT_TRIGGER_NODE_TYPES.includes(type)) {
		return { filesInJson: false, formFileFields: new Set(), received: true };
	}
	if (type === WEBHOOK_NODE_TYPE || (type === WAIT_NODE_TYPE && resume === 'webhook')) {
		return { filesInJson: true, formFileFields: new Set(), received: true };
	}
	if (FORM_NODE_TYPES.includes(type) || (type === WAIT_NODE_TYPE && resume === 'form')) {
		const { fileFields, namesFiles } = formFilePlaces(node as ConnectedNode);
		return { filesInJson: !namesFiles, formFileFields: fileFields, received: true };
	}
	return NOT_RECEIVED;
}

/** The files n8n placed on items: binary fields, and in combined mode `_files` and a form's file elements. */
function addFileIds(
	ids: Set<string>,
	items: INodeExecutionData[] | null | undefined,
	combined: boolean,
	places: FilePlaces,
): void {
	for (const item of items ?? []) {
		for (const binary of Object.values(item?.binary ?? {})) if (binary?.id) ids.add(binary.id);
		if (!combined || !item?.json) continue;
		if (places.filesInJson) {
			for (const binary of Object.values(filesInJson(item.json))) if (binary.id) ids.add(binary.id);
		}
		for (const field of places.formFileFields) {
			const value = item.json[field];
			for (const entry of Array.isArray(value) ? value : [value]) {
				if (isBinaryObject(entry) && entry.id) ids.add(entry.id);
			}
		}
	}
}

/**
 * Every text an outsider sent in a received node's items (outside the places n8n puts files):
 * a file object's id among them, or an id given as text, names no file of this execution
 * wherever it turns up later. A file object an outsider typed keeps its id when a later node
 * (Edit Fields, Code, Merge) moves it into `_files` or a file field.
 */
function addReceivedTexts(
	texts: Set<string>,
	items: INodeExecutionData[] | null | undefined,
	places: FilePlaces,
): void {
	const stack: unknown[] = [];
	for (const item of items ?? []) {
		for (const [key, value] of Object.entries(item?.json ?? {})) {
			if (key === FILES_IN_JSON && places.filesInJson) continue;
			if (places.formFileFields.has(key)) continue;
			stack.push(value);
		}
	}
	while (stack.length > 0) {
		const value = stack.pop();
		if (typeof value === 'string') texts.add(value);
		else if (value && typeof value === 'object') stack.push(...Object.values(value));
	}
}

function nameOf(entry: unknown): string | undefined {
	if (typeof entry === 'string') return entry;
	const name = (entry as { name?: unknown } | null)?.name;
	return typeof name === 'string' ? name : undefined;
}

/**
 * Every node connected to this one, with its type and saved parameters: what this execution
 * can have run (getParentNodes / getChildNodes see only main connections, through which files
 * flow). n8n versions that do not give parameters leave a form's file elements unknown, so
 * that none of them is trusted.
 */
function connectedNodes(context: IExecuteFunctions): Map<string, ConnectedNode> {
	const nodes = new Map<string, ConnectedNode>();
	if (typeof context.getParentNodes !== 'function') return nodes;
	const withParameters = { includeNodeParameters: true };
	const queue = [context.getNode().name];
	while (queue.length > 0) {
		const name = queue.pop() as string;
		const related = [
			...context.getParentNodes(name, withParameters),
			...(typeof context.getChildNodes === 'function'
				? context.getChildNodes(name, withParameters)
				: []),
		] as unknown[];
		for (const entry of related) {
			const relatedName = nameOf(entry);
			if (relatedName === undefined || nodes.has(relatedName)) continue;
			nodes.set(relatedName, entry as ConnectedNode);
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

interface InputFiles {
	/** The input items' binary fields. */
	binary: Set<string>;
	/** In combined mode, the input items' `_files`. */
	inJson: Set<string>;
}

const inputFiles = new WeakMap<IExecuteFunctions, InputFiles>();

/** The ids of the input items' files (cheap: looked at first). */
function filesOfInput(context: IExecuteFunctions): InputFiles {
	let ids = inputFiles.get(context);
	if (!ids) {
		const items = context.getInputData();
		ids = { binary: new Set<string>(), inJson: new Set<string>() };
		addFileIds(ids.binary, items, false, NOT_RECEIVED);
		addFileIds(ids.inJson, items, isCombinedBinaryMode(context), NOT_RECEIVED);
		inputFiles.set(context, ids);
	}
	return ids;
}

/** How far the run data was read for one execution of the node, and the file ids found so far. */
interface RunDataSearch {
	ids: Set<string>;
	outputs: Iterator<[string, INodeExecutionData[]]>;
	places: Map<string, FilePlaces>;
	combined: boolean;
	/**
	 * Every text outsiders sent into this execution (see addReceivedTexts); undefined when this
	 * n8n version does not let the node read the run data, so only binary fields are trusted.
	 */
	received: Set<string> | undefined;
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
	const readable = proxy !== undefined && typeof itemsOf === 'function';
	const nodes = readable ? connectedNodes(context) : new Map<string, ConnectedNode>();
	const runCounts = new Map(
		[...nodes.keys()].map((name): [string, number] => [name, proxy ? runCountOf(proxy, name) : 0]),
	);
	const places = new Map([...nodes].map(([name, node]) => [name, filePlacesOf(node)]));
	let received: Set<string> | undefined;
	if (readable && typeof context.getParentNodes === 'function') {
		// Every run of every node that received outside data, read whole: few nodes, few runs.
		received = new Set<string>();
		for (const [name, nodePlaces] of places) {
			if (!nodePlaces.received) continue;
			for (let run = 0; run < (runCounts.get(name) ?? 0); run++) {
				for (const items of outputsOfRun(itemsOf, name, run)) {
					addReceivedTexts(received, items, nodePlaces);
				}
			}
		}
	}
	const search: RunDataSearch = {
		ids: new Set<string>(),
		outputs: readable
			? outputsNewestFirst(itemsOf, runCounts)
			: ([] as Array<[string, INodeExecutionData[]]>)[Symbol.iterator](),
		places,
		combined: isCombinedBinaryMode(context),
		received,
	};
	runDataSearches.set(context, search);
	return search;
}

/** Whether `id` is a file of an output of a node connected to this one, reading no further than needed. */
function isFileOfRunData(search: RunDataSearch, id: string): boolean {
	while (!search.ids.has(id)) {
		const next = search.outputs.next();
		if (next.done) return false;
		const [nodeName, items] = next.value;
		addFileIds(search.ids, items, search.combined, search.places.get(nodeName) ?? NOT_RECEIVED);
	}
	return true;
}

/**
 * Whether `id` is a file n8n placed on an item in this execution, and no outsider sent it.
 * Placed: a binary field, an entry of `_files` (combined mode) where only n8n's engine writes
 * that key, or a form's file element, of an input item or of any output of any node connected
 * to this one (this execution's run data, which in a partial execution from the editor or a
 * retried execution holds the earlier nodes' runs). Sent: the id is a text anywhere in what a
 * Webhook, Form, Wait (resumed by a form or a call) or Chat Trigger received, outside those
 * places, so a file object typed there is refused even after a node moved it into `_files`.
 * See docs/contributing.md, "Files given by an expression: what is trusted". The run data is
 * read once per execution of the node, and only as far as needed: the run data of the nodes
 * before does not change while this node runs.
 */
export function isFileOfThisExecution(context: IExecuteFunctions, id: string): boolean {
	const input = filesOfInput(context);
	const search = runDataSearchOf(context);
	if (search.received === undefined) return input.binary.has(id);
	// Inside a text too: JSON an outsider sent as a string (a Slack payload, a urlencoded
	// field) becomes a file object once a Code or Edit Fields node parses it.
	for (const text of search.received) if (text.includes(id)) return false;
	return input.binary.has(id) || input.inJson.has(id) || isFileOfRunData(search, id);
}
