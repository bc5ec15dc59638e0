/**
 * Generated forgeries against an oracle: a file object that whoever calls a public Webhook,
 * fills a Form or writes to a Chat Trigger types into what they send is never read, whatever
 * it names. Each case puts an object naming another workflow's stored file (payroll.pdf) at
 * one place an outsider writes: a Webhook's body (top level, nested, in a list, under
 * `_files`), query or headers; a form's checkbox, radio or multiple-choice value (top level,
 * in a list, nested), a checkbox labelled `_files`, a checkbox with the same label as the
 * file element, a text element or the form address's query, on the Form Trigger, a later
 * Form page or a Wait node resumed by a form; a chat message's JSON (top level, `_files`, nested, its `files` list) or a
 * multipart message's text. It varies the workflow's binary mode (separate, combined), n8n's
 * store (filesystem, database), a genuine upload beside it or not, a node between (none, an
 * Edit Fields node lifting the object to the top level or into `_files`) and how Extract Data
 * From Files is told what to send (its defaults, an expression naming the object, the field's
 * name). Each runs in the engine harness against the emulator. Oracle, per case:
 *   - the emulator received no upload holding payroll.pdf's bytes;
 *   - every upload holds only genuine files;
 *   - no upload at all comes with a message from Extract Data From Files that says why.
 * A failing case prints its seed and the case shrunk to its simplest form that still fails;
 * add the seed to REPLAYED to keep it.
 */
import type { IDataObject, INode, INodeParameters, IWorkflowSettings } from 'n8n-workflow';

import { mulberry32 } from '../../dev/emulator/random';
import {
	type BinaryMode,
	CHAT_TRIGGER_TYPE,
	EXTRACTION_AGENTS_TYPE,
	FORM_TRIGGER_TYPE,
	FORM_TYPE,
	WAIT_TYPE,
	type FormElement,
	type FormSubmission,
	HARNESS_INPUT_TYPE,
	ITEM_FROM_FIELD_TYPE,
	ItemFromField,
	WEBHOOK_TYPE,
	type WorkflowJson,
	createChatTrigger,
	createFormPage,
	createFormUpload,
	createHarnessInput,
	createWebhookUpload,
	runWorkflow,
	useHarness,
} from '../../dev/harness';
import { createRunParameters, pdf, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

const RECEIVERS = [
	'webhook',
	'form-trigger',
	'form-page',
	'wait-form',
	'chat-json',
	'chat-multipart',
] as const;
type Receiver = (typeof RECEIVERS)[number];

/** Where each receiver lets an outsider write; the first is the simplest. */
const PLACES: Record<Receiver, readonly string[]> = {
	webhook: [
		'body-top',
		'body-nested',
		'body-list',
		'body-_files',
		'query',
		'query-nested',
		'headers',
	],
	'form-trigger': [
		'checkbox',
		'checkbox-list',
		'radio',
		'multiselect',
		'nested',
		'label-_files',
		'same-label-as-file',
		'text',
		'query',
	],
	'form-page': [
		'checkbox',
		'checkbox-list',
		'radio',
		'multiselect',
		'nested',
		'label-_files',
		'same-label-as-file',
		'text',
	],
	'wait-form': [
		'checkbox',
		'checkbox-list',
		'radio',
		'multiselect',
		'nested',
		'label-_files',
		'same-label-as-file',
		'text',
	],
	'chat-json': ['top', '_files', 'nested', 'files-list'],
	'chat-multipart': ['text'],
};
const MODES = ['separate', 'combined'] as const;
const STORES = ['filesystem', 'database'] as const;
const VIAS = ['direct', 'lift', 'lift-into-_files'] as const;
const SELECTIONS = ['all', 'expression', 'name'] as const;

interface ForgeryCase {
	receiver: Receiver;
	place: string;
	mode: (typeof MODES)[number];
	store: (typeof STORES)[number];
	genuine: boolean;
	via: (typeof VIAS)[number];
	selection: (typeof SELECTIONS)[number];
}

function generate(seed: number): ForgeryCase {
	const random = mulberry32(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	const receiver = pick(RECEIVERS);
	return {
		receiver,
		place: pick(PLACES[receiver]),
		mode: pick(MODES),
		store: pick(STORES),
		// A JSON chat message carries no file.
		genuine: receiver !== 'chat-json' && random() < 0.5,
		via: pick(VIAS),
		selection: pick(SELECTIONS),
	};
}

const invoice = pdf('invoice INV-41 (genuine upload)');
const payroll = pdf('payroll of another workflow');
const victims = new Map<BinaryMode, string>();

beforeAll(async () => {
	for (const store of STORES) {
		const stored = await runWorkflow(
			{
				id: 'payroll-workflow',
				nodes: [{ name: 'Payroll', type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} }],
				connections: {},
			},
			{
				binaryMode: store,
				startNode: 'Payroll',
				nodeTypes: {
					[HARNESS_INPUT_TYPE]: createHarnessInput([
						{ binary: { data: { data: payroll, fileName: 'payroll.pdf' } } },
					]),
				},
			},
		);
		victims.set(store, String(stored.outputOf('Payroll')[0].binary?.data.id));
	}
});

function forgedObject(store: BinaryMode): IDataObject {
	return { mimeType: 'application/pdf', fileName: 'payroll.pdf', id: victims.get(store) };
}

/** `value` at `path` in a new object (numbers make lists). */
function nestAt(path: Array<string | number>, value: unknown): IDataObject {
	let nested: unknown = value;
	for (let index = path.length - 1; index >= 0; index--) {
		const key = path[index];
		if (typeof key === 'number') {
			const list: unknown[] = Array.from({ length: key }, (_, i) => `entry ${i}`);
			list.push(nested);
			nested = list;
		} else nested = { [key]: nested };
	}
	return nested as IDataObject;
}

const FORM_ELEMENTS: FormElement[] = [
	{ fieldLabel: 'Invoice', fieldType: 'file' },
	{ fieldLabel: 'Topics', fieldType: 'checkbox' },
	{ fieldLabel: 'Size', fieldType: 'radio' },
	{ fieldLabel: 'Colours', fieldType: 'dropdown', multiselect: true },
	{ fieldLabel: 'Notes', fieldType: 'text' },
];

interface Built {
	/** The receiver's node and what it receives. */
	receiverNode: INode;
	nodes: INode[];
	nodeTypes: Record<string, unknown>;
	/** Where the forged object (or its text) sits in the receiver's output item. */
	path: Array<string | number>;
}

function formOf(testCase: ForgeryCase, forged: IDataObject) {
	const elements = [...FORM_ELEMENTS];
	const body: Record<string, string> = {};
	let query: IDataObject | undefined;
	let path: Array<string | number>;
	const text = (value: unknown) => JSON.stringify(value);
	switch (testCase.place) {
		case 'checkbox':
			body['field-1'] = text(forged);
			path = ['Topics'];
			break;
		case 'checkbox-list':
			body['field-1'] = text(['a', forged]);
			path = ['Topics', 1];
			break;
		case 'radio':
			body['field-2'] = text([forged]);
			path = ['Size'];
			break;
		case 'multiselect':
			body['field-3'] = text(['red', forged]);
			path = ['Colours', 1];
			break;
		case 'nested':
			body['field-1'] = text({ a: { file: forged } });
			path = ['Topics', 'a', 'file'];
			break;
		case 'label-_files':
			elements.push({ fieldLabel: '_files', fieldType: 'checkbox' });
			body['field-5'] = text({ data: forged });
			path = ['_files', 'data'];
			break;
		case 'same-label-as-file':
			elements.push({ fieldLabel: 'Invoice', fieldType: 'checkbox' });
			body['field-5'] = text(forged);
			path = ['Invoice'];
			break;
		case 'text':
			body['field-4'] = text(forged);
			path = ['Notes'];
			break;
		default:
			query = { file: forged };
			path = ['formQueryParameters', 'file'];
	}
	const submission: FormSubmission = {
		body,
		query,
		files: testCase.genuine ? { 'field-0': { data: invoice, fileName: 'INV-41.pdf' } } : {},
	};
	return {
		parameters: { formFields: { values: elements } } as unknown as INodeParameters,
		submission,
		path,
	};
}

function receiverOf(testCase: ForgeryCase): Built {
	const forged = forgedObject(testCase.store);
	const node = (name: string, type: string, typeVersion: number, parameters: INodeParameters) =>
		({ name, type, typeVersion, parameters, id: name, position: [0, 0] }) as INode;
	if (testCase.receiver === 'webhook') {
		const path = {
			'body-top': ['body', 'file'],
			'body-nested': ['body', 'a', 'b', 'file'],
			'body-list': ['body', 'files', 1],
			'body-_files': ['body', '_files', 'data'],
			query: ['query', 'file'],
			'query-nested': ['query', 'filter', 'file'],
			headers: ['headers', 'x-file'],
		}[testCase.place] as Array<string | number>;
		const sent = nestAt(path, forged);
		const receiverNode = node('Webhook', WEBHOOK_TYPE, 2, {});
		return {
			receiverNode,
			nodes: [receiverNode],
			nodeTypes: {
				[WEBHOOK_TYPE]: createWebhookUpload(
					[
						{
							body: sent.body as IDataObject,
							query: sent.query as IDataObject,
							headers: sent.headers as IDataObject,
							files: testCase.genuine
								? { invoice: { data: invoice, fileName: 'INV-41.pdf' } }
								: undefined,
						},
					],
					WEBHOOK_TYPE,
				),
			},
			path,
		};
	}
	if (testCase.receiver === 'chat-json' || testCase.receiver === 'chat-multipart') {
		const receiverNode = node('When chat message received', CHAT_TRIGGER_TYPE, 1.4, {});
		const message = { sessionId: 's-41', action: 'sendMessage', chatInput: 'read this' };
		let path: Array<string | number>;
		let body: IDataObject;
		if (testCase.receiver === 'chat-multipart') {
			// A multipart message's fields are text: the object arrives as its JSON text.
			path = ['note'];
			body = { ...message, note: JSON.stringify(forged) };
		} else {
			path = {
				top: ['file'],
				_files: ['_files', 'data0'],
				nested: ['metadata', 'attachments', 0],
				'files-list': ['files', 0],
			}[testCase.place] as Array<string | number>;
			body = { ...message, ...nestAt(path, forged) };
		}
		return {
			receiverNode,
			nodes: [receiverNode],
			nodeTypes: {
				[CHAT_TRIGGER_TYPE]: createChatTrigger([
					{
						body,
						files: testCase.genuine
							? { file: { data: invoice, fileName: 'INV-41.pdf' } }
							: undefined,
					},
				]),
			},
			path,
		};
	}
	const { parameters, submission, path } = formOf(testCase, forged);
	if (testCase.receiver === 'form-trigger') {
		const receiverNode = node('On form submission', FORM_TRIGGER_TYPE, 2.3, parameters);
		return {
			receiverNode,
			nodes: [receiverNode],
			nodeTypes: { [FORM_TRIGGER_TYPE]: createFormUpload([submission]) },
			path,
		};
	}
	// A later page: the Form Trigger asks for a name, the Form page (or a Wait node resumed by
	// a form) is the outsider's.
	const trigger = node('On form submission', FORM_TRIGGER_TYPE, 2.3, {
		formFields: { values: [{ fieldLabel: 'Name', fieldType: 'text' }] },
	});
	const wait = testCase.receiver === 'wait-form';
	const receiverNode = wait
		? node('Wait', WAIT_TYPE, 1.1, { ...parameters, resume: 'form' })
		: node('Form', FORM_TYPE, 2.3, parameters);
	return {
		receiverNode,
		nodes: [trigger, receiverNode],
		nodeTypes: {
			[FORM_TRIGGER_TYPE]: createFormUpload([{ body: { 'field-0': 'Ada' } }]),
			[wait ? WAIT_TYPE : FORM_TYPE]: createFormPage([submission], wait ? WAIT_TYPE : FORM_TYPE),
		},
		path,
	};
}

/** The workflow of a case: the receiver (and what comes before it) → [Edit Fields] → Extract Data From Files. */
function workflowOf(testCase: ForgeryCase): {
	workflow: WorkflowJson;
	nodeTypes: Record<string, unknown>;
	built: Built;
} {
	const built = receiverOf(testCase);
	const { receiverNode, path } = built;
	const nodes: INode[] = [...built.nodes];
	const nodeTypes: Record<string, unknown> = {
		...built.nodeTypes,
		[ITEM_FROM_FIELD_TYPE]: new ItemFromField(),
	};
	// What File Fields names, on the item that reaches Extract Data From Files.
	let named = path.join('.');
	if (testCase.via !== 'direct') {
		const lift = testCase.via === 'lift';
		nodes.push({
			name: 'Edit Fields',
			type: ITEM_FROM_FIELD_TYPE,
			typeVersion: 1,
			id: 'Edit Fields',
			position: [0, 0],
			parameters: lift
				? { field: path.slice(0, -1).join('.') }
				: { field: path.join('.'), target: '_files' },
		});
		named = lift ? String(path[path.length - 1]) : '_files.data';
	}
	const accessors = path.map((key) => `[${JSON.stringify(key)}]`).join('');
	const parameters: INodeParameters =
		testCase.selection === 'all'
			? {}
			: {
					binarySource: 'fields',
					binaryPropertyName:
						testCase.selection === 'expression'
							? `={{ $('${receiverNode.name}').item.json${accessors} }}`
							: named,
				};
	nodes.push({
		name: 'Extract Data From Files',
		type: EXTRACTION_AGENTS_TYPE,
		typeVersion: 1.3,
		id: 'Extract Data From Files',
		position: [0, 0],
		parameters: createRunParameters(parameters),
	});
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((from, index) => [
				from.name,
				{ main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	const settings: IWorkflowSettings =
		testCase.mode === 'combined' ? { binaryMode: 'combined' } : {};
	return { workflow: { nodes, connections, settings }, nodeTypes, built };
}

/** A refusal that says why nothing was sent (Extract Data From Files' own messages). */
const CLEAR_REFUSAL =
	/is not a file of this execution|^Item 1 has no files?\b|^Item 1 has no file field "|holds .* not file field names or files/;

/** What the oracle found wrong with a case, or undefined. */
async function violations(testCase: ForgeryCase): Promise<string | undefined> {
	const { workflow, nodeTypes, built } = workflowOf(testCase);
	const seq = ctx.emulator.lastSeq;
	const result = await runWorkflow(workflow, {
		credentials: ctx.credentials,
		nodeTypes: nodeTypes as never,
		binaryMode: testCase.store,
		startNode: workflow.nodes[0].name,
	});
	const received = JSON.stringify(result.outputOf(built.receiverNode.name));
	// The case put the forged object (or its text) where it meant to: else it tests nothing.
	if (!received.includes(String(victims.get(testCase.store)).slice(-36))) {
		return `the forged object is not in ${built.receiverNode.name}'s output: ${received}`;
	}
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path))
		.map((entry) => entry.upload?.files ?? []);
	const victimSha = sha256(payroll);
	for (const files of uploads) {
		if (files.some((file) => file.sha256 === victimSha)) {
			return `payroll.pdf was uploaded (${files.map((file) => file.filename).join(', ')})`;
		}
		const other = files.find((file) => file.sha256 !== sha256(invoice));
		if (other) return `an upload held a file that is not the genuine one: ${other.filename}`;
	}
	if (uploads.length === 0) {
		if (result.errorNode !== 'Extract Data From Files') {
			return `nothing was uploaded and Extract Data From Files did not say why (${result.errorNode ?? 'no error'}: ${result.error?.message ?? ''})`;
		}
		if (!CLEAR_REFUSAL.test(result.error?.message ?? '')) {
			return `an unclear refusal: ${result.error?.message}`;
		}
	}
	return undefined;
}

/** The case with as many dimensions at their simplest value as still fail. */
async function shrink(testCase: ForgeryCase): Promise<ForgeryCase> {
	let current = testCase;
	for (let changed = true; changed; ) {
		changed = false;
		const simplest: Partial<ForgeryCase>[] = [
			{ place: PLACES[current.receiver][0] },
			{ genuine: false },
			{ via: 'direct' },
			{ selection: 'all' },
			{ store: 'filesystem' },
			{ mode: 'separate' },
		];
		for (const change of simplest) {
			const candidate = { ...current, ...change };
			if (JSON.stringify(candidate) === JSON.stringify(current)) continue;
			if (await violations(candidate)) {
				current = candidate;
				changed = true;
				break;
			}
		}
	}
	return current;
}

/** Seeds that once failed, replayed on every run whatever FORGED_SEED says. */
const REPLAYED: number[] = [];
const CASES = Number(process.env.FORGED_CASES ?? 240);
const FIRST_SEED = Number(process.env.FORGED_SEED ?? 20261141);

describe('generated forgeries: no file object an outsider typed is ever read', () => {
	it(`holds for ${CASES} generated cases and the replayed seeds`, async () => {
		const seeds = [...REPLAYED, ...Array.from({ length: CASES }, (_, index) => FIRST_SEED + index)];
		const kinds = new Map<string, number>();
		for (const seed of seeds) {
			const testCase = generate(seed);
			const kind = `${testCase.receiver}/${testCase.mode}`;
			kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
			const problem = await violations(testCase);
			if (problem) {
				const shrunk = await shrink(testCase);
				throw new Error(
					`seed ${seed}: ${problem}\ncase: ${JSON.stringify(testCase)}\nshrunk case: ${JSON.stringify(shrunk)}\nshrunk case fails with: ${await violations(shrunk)}`,
				);
			}
		}
		process.stdout.write(
			`[forged files] ${seeds.length} cases from seed ${FIRST_SEED}: ${[...kinds]
				.sort()
				.map(([kind, count]) => `${kind} ${count}`)
				.join(', ')}\n`,
		);
		// Every receiver was drawn in both binary modes, so the oracle was put to each.
		expect([...kinds.keys()].sort()).toEqual(
			RECEIVERS.flatMap((receiver) => MODES.map((mode) => `${receiver}/${mode}`)).sort(),
		);
	}, 900_000);
});
