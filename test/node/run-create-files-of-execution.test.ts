/**
 * Run → Create takes files where n8n's own nodes take them: the item's files in either binary
 * mode of the workflow (separate, or combined: in the item's JSON under `_files`), and a file
 * object from an expression in any store (filesystem including a webhook's `executions/temp`,
 * n8n's database store), also in a partial execution from the editor and in a retried
 * execution. A file object typed into data (a webhook's JSON) names no file of this execution
 * and is refused.
 */
import type { INodeParameters, INodeType, IWorkflowSettings } from 'n8n-workflow';

import {
	type BinaryMode,
	EXTRACTION_AGENTS_TYPE,
	HARNESS_INPUT_TYPE,
	LOOK_UP_TYPE,
	WEBHOOK_UPLOAD_TYPE,
	FORM_TRIGGER_TYPE,
	WEBHOOK_TYPE,
	CHAT_TRIGGER_TYPE,
	ITEM_FROM_FIELD_TYPE,
	ItemFromField,
	createChatTrigger,
	createFormUpload,
	createFormPage,
	FORM_TYPE,
	WAIT_TYPE,
	type FormSubmission,
	type HarnessInputItem,
	type RunWorkflowOptions,
	type WebhookRequest,
	type WorkflowJson,
	createHarnessInput,
	createWebhookUpload,
	runWorkflow,
	useHarness,
} from '../../dev/harness';
import { createRunParameters, pdf, sha256, shapeRunsByFileName, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 100 });
let uniqueCount = 0;
const uniqueIdOf = (base: string) => `${base}-${Date.now()}-${++uniqueCount}`;

const invoice = pdf('invoice INV-39');
const receipt = pdf('receipt R-40');

function extractNode(parameters: INodeParameters) {
	return {
		name: 'Extract Data From Files',
		type: EXTRACTION_AGENTS_TYPE,
		typeVersion: 1.3,
		parameters: createRunParameters(parameters),
	};
}

const FILE_FROM_WEBHOOK = {
	binarySource: 'fields',
	binaryPropertyName: "={{ $('Webhook').item.binary.invoice }}",
};

interface TestWorkflow {
	workflow: WorkflowJson;
	nodeTypes: Record<string, INodeType>;
}

/** Webhook (multipart upload) → Look Up (the item replaced, its file gone) → Extract Data From Files. */
function webhookWorkflow(
	requests: WebhookRequest[],
	parameters: INodeParameters = FILE_FROM_WEBHOOK,
	settings: IWorkflowSettings = {},
): TestWorkflow {
	return {
		workflow: {
			nodes: [
				{ name: 'Webhook', type: WEBHOOK_UPLOAD_TYPE, typeVersion: 1, parameters: {} },
				{ name: 'Look Up', type: LOOK_UP_TYPE, typeVersion: 1, parameters: {} },
				extractNode(parameters),
			],
			connections: {
				Webhook: { main: [[{ node: 'Look Up', type: 'main' as const, index: 0 }]] },
				'Look Up': {
					main: [[{ node: 'Extract Data From Files', type: 'main' as const, index: 0 }]],
				},
			},
			settings,
		},
		nodeTypes: { [WEBHOOK_UPLOAD_TYPE]: createWebhookUpload(requests) },
	};
}

/** A node named `name` that emits `items` (files stored by this execution) → Extract Data From Files. */
function filesWorkflow(
	name: string,
	items: HarnessInputItem[],
	parameters: INodeParameters,
	settings: IWorkflowSettings = {},
	between?: string,
): TestWorkflow {
	const nodes = [
		{ name, type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} },
		...(between ? [{ name: between, type: LOOK_UP_TYPE, typeVersion: 1, parameters: {} }] : []),
		extractNode(parameters),
	];
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	return {
		workflow: { nodes, connections, settings },
		nodeTypes: { [HARNESS_INPUT_TYPE]: createHarnessInput(items) },
	};
}

async function run(
	{ workflow, nodeTypes }: TestWorkflow,
	binaryMode: BinaryMode = 'filesystem',
	partial?: RunWorkflowOptions['partial'],
	more: Pick<RunWorkflowOptions, 'retryOf' | 'credentials'> = {},
) {
	const seq = ctx.emulator.lastSeq;
	const result = await runWorkflow(workflow, {
		credentials: ctx.credentials,
		nodeTypes,
		binaryMode,
		startNode: workflow.nodes[0].name,
		partial,
		...more,
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path))
		.map((entry) => entry.upload?.files.map((file) => [file.filename, file.sha256]));
	return { result, uploads };
}

describe('Run → Create: files as n8n hands them over', () => {
	it('uploads a webhook’s file (kept under executions/temp) named by an expression after a node that dropped it', async () => {
		const { result, uploads } = await run(
			webhookWorkflow([{ files: { invoice: { data: invoice, fileName: 'INV-39.pdf' } } }]),
		);
		const fileId = String(result.outputOf('Webhook')[0].binary?.invoice.id);
		expect(fileId).toMatch(/\/executions\/temp\/binary_data\//);
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('uploads a file of n8n’s database store (id database:<uuid>) named by an expression', async () => {
		const { result, uploads } = await run(
			filesWorkflow(
				'Gmail',
				[
					{
						json: { subject: 'Invoice' },
						binary: { attachment_0: { data: invoice, fileName: 'INV-39.pdf' } },
					},
				],
				{
					binarySource: 'fields',
					binaryPropertyName: "={{ $('Gmail').item.binary.attachment_0 }}",
				},
				{},
				'Look Up',
			),
			'database',
		);
		expect(String(result.outputOf('Gmail')[0].binary?.attachment_0.id)).toMatch(
			/^database:[0-9a-f-]{36}$/,
		);
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('uploads every file of the item with the defaults in combined binary mode (files in the JSON under _files)', async () => {
		const { result, uploads } = await run(
			filesWorkflow(
				'Read',
				[
					{
						binary: {
							attachment_0: { data: invoice, fileName: 'INV-39.pdf' },
							attachment_1: { data: receipt, fileName: 'R-40.pdf' },
						},
					},
				],
				{},
				{ binaryMode: 'combined' },
			),
		);
		const read = result.outputOf('Read')[0];
		expect(read.binary).toBeUndefined();
		expect(Object.keys(read.json._files as object)).toEqual(['attachment_0', 'attachment_1']);
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([
			[
				['INV-39.pdf', sha256(invoice)],
				['R-40.pdf', sha256(receipt)],
			],
		]);
	});

	it.each([
		['separate', {}],
		['combined', { binaryMode: 'combined' }],
	] as Array<[string, IWorkflowSettings]>)(
		'uploads the item’s files in the order the item has them, not by name (%s binary mode)',
		async (_mode, settings) => {
			const { result, uploads } = await run(
				filesWorkflow(
					'Read',
					[
						{
							binary: {
								z_scan: { data: receipt, fileName: 'scan-2.pdf' },
								a_cover: { data: invoice, fileName: 'cover-1.pdf' },
							},
						},
					],
					{},
					settings,
				),
			);
			const read = result.outputOf('Read')[0];
			expect(Object.keys(read.binary ?? (read.json._files as object))).toEqual([
				'z_scan',
				'a_cover',
			]);
			expect(result.error).toBeUndefined();
			expect(uploads).toEqual([
				[
					['scan-2.pdf', sha256(receipt)],
					['cover-1.pdf', sha256(invoice)],
				],
			]);
		},
	);

	it('uploads a file named by an expression in a partial execution from the editor (earlier nodes’ files from the run before)', async () => {
		const workflow = filesWorkflow(
			'Read',
			[{ binary: { data: { data: invoice, fileName: 'INV-39.pdf' } } }],
			{ binarySource: 'fields', binaryPropertyName: "={{ $('Read').item.binary.data }}" },
			{},
			'Look Up',
		);
		const first = await run(workflow);
		expect(first.result.error).toBeUndefined();
		// "Execute step" on the node: a new execution that reuses the earlier nodes' run data.
		const { runData } = first.result;
		const { result, uploads } = await run(workflow, 'filesystem', {
			runData: { Read: runData.Read, 'Look Up': runData['Look Up'] },
			destinationNode: 'Extract Data From Files',
		});
		expect(result.error).toBeUndefined();
		expect(result.runData.Read).toBeDefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('uploads a file named by an expression in a retried execution (earlier nodes’ files from the failed one)', async () => {
		const workflow = filesWorkflow(
			'Read',
			[{ binary: { data: { data: invoice, fileName: 'INV-39.pdf' } } }],
			{ binarySource: 'fields', binaryPropertyName: "={{ $('Read').item.binary.data }}" },
			{},
			'Look Up',
		);
		// The first execution fails on the node (the API key was wrong), after Read stored the file.
		const failed = await run(workflow, 'filesystem', undefined, {
			credentials: { ...ctx.credentials, apiKey: 'ea_wrong_key_0000000000000000' },
		});
		expect(failed.result.errorNode).toBe('Extract Data From Files');
		expect(failed.uploads).toEqual([]);
		const { result, uploads } = await run(workflow, 'filesystem', undefined, {
			retryOf: failed.result.run,
		});
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('version 1.5: an execution retried from n8n’s list makes no second Run for a file whose Run the failed execution made (same User-Defined ID)', async () => {
		const invoiceA = pdf('invoice A of the retried execution');
		const workflow = filesWorkflow(
			'Read',
			[
				{
					json: { id: uniqueIdOf('retry-A') },
					binary: { data: { data: invoiceA, fileName: 'A.pdf' } },
				},
				{
					json: { id: uniqueIdOf('retry-B') },
					binary: { data: { data: invoice, fileName: 'B.pdf' } },
				},
			],
			{ additionalFields: { userDefinedId: '={{ $json.id }}' } },
		);
		(workflow.workflow.nodes.at(-1) as { typeVersion: number }).typeVersion = 1.5;
		// The first execution fails on B (its Run fails), after A's Run was made.
		shapeRunsByFileName(ctx.emulator, { failed: 'B.pdf' }, 4);
		const failed = await run(workflow, 'filesystem', undefined, {});
		expect(failed.result.errorNode).toBe('Extract Data From Files');
		const { result, uploads } = await run(workflow, 'filesystem', undefined, {
			retryOf: failed.result.run,
		});
		// Both Runs are the failed execution's: nothing is uploaded again, and B's failed Run is
		// reported again as it was.
		expect(result.errorNode).toBe('Extract Data From Files');
		expect(uploads).toEqual([]);
		const runsOf = (name: string) =>
			[...ctx.emulator.state.runs.values()].filter((entry) => entry.files[0]?.name === name);
		expect([runsOf('A.pdf').length, runsOf('B.pdf').length]).toEqual([1, 1]);
	});

	it('in combined binary mode, takes a file field’s name, a path under _files and an expression into an earlier node’s _files', async () => {
		const items = [{ binary: { data: { data: invoice, fileName: 'INV-39.pdf' } } }];
		for (const [binaryPropertyName, between] of [
			['data', undefined],
			['_files.data', undefined],
			["={{ $('Read').item._files.data }}", 'Look Up'],
		] as const) {
			const { result, uploads } = await run(
				filesWorkflow(
					'Read',
					items,
					{ binarySource: 'fields', binaryPropertyName },
					{ binaryMode: 'combined' },
					between,
				),
			);
			expect([binaryPropertyName, result.error]).toEqual([binaryPropertyName, undefined]);
			expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
		}
	});

	it('in combined binary mode, says where files are when an expression looks for them in binary', async () => {
		const { result, uploads } = await run(
			filesWorkflow(
				'Read',
				[{ binary: { data: { data: invoice, fileName: 'INV-39.pdf' } } }],
				{ binarySource: 'fields', binaryPropertyName: "={{ $('Read').item.binary?.data }}" },
				{ binaryMode: 'combined' },
				'Look Up',
			),
		);
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'File Fields holds nothing: the expression gives no value, not file field names or files',
		);
		expect((result.error as Error & { description?: string }).description).toContain(
			"{{ $('Webhook').item._files.data }}",
		);
	});

	it('in combined binary mode, uploads a Form Trigger’s file (kept in its JSON field) with the defaults', async () => {
		const { result, uploads } = await run({
			workflow: {
				nodes: [
					{
						name: 'On form submission',
						type: FORM_TRIGGER_TYPE,
						typeVersion: 2.3,
						parameters: {
							formFields: {
								values: [
									{ fieldLabel: 'name', fieldType: 'text' },
									{ fieldLabel: 'invoice', fieldType: 'file' },
								],
							},
						},
					},
					extractNode({}),
				],
				connections: {
					'On form submission': {
						main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]],
					},
				},
				settings: { binaryMode: 'combined' },
			},
			nodeTypes: {
				[FORM_TRIGGER_TYPE]: createFormUpload([
					{
						body: { 'field-0': 'Ada' },
						files: { 'field-1': { data: invoice, fileName: 'INV-39.pdf' } },
					},
				]),
			},
		});
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('in combined binary mode, does not take a file object typed into a webhook’s JSON as a file of the item', async () => {
		const id = await storedByAnotherWorkflow('filesystem', pdf('payroll of another workflow'));
		const crafted = { mimeType: 'application/pdf', fileName: 'payroll.pdf', id };
		const { workflow, nodeTypes } = webhookWorkflow(
			[{ body: crafted }],
			{},
			{ binaryMode: 'combined' },
		);
		// Webhook → Extract Data From Files with the defaults (All Files of the Item).
		workflow.nodes.splice(1, 1);
		workflow.connections = {
			Webhook: { main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]] },
		};
		const { result, uploads } = await run({ workflow, nodeTypes });
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has no files: "payroll.pdf" in its data is not a file of this execution',
		);
	});

	it.each(['filesystem', 'database'] as const)(
		'refuses a file object typed into a webhook’s JSON that names another workflow’s file (%s store), uploading nothing',
		async (binaryMode) => {
			const secret = pdf('payroll of another workflow');
			const id = await storedByAnotherWorkflow(binaryMode, secret);
			const crafted = { mimeType: 'application/pdf', fileName: 'payroll.pdf', id };
			const { result, uploads } = await run(
				webhookWorkflow([{ body: { file: crafted } }], {
					binarySource: 'fields',
					binaryPropertyName: "={{ $('Webhook').item.json.body.file }}",
				}),
				binaryMode,
			);
			expect(uploads).toEqual([]);
			expect(result.error?.message).toBe(
				'The file "payroll.pdf" given in File Fields is not a file of this execution',
			);
			expect((result.error as Error & { description?: string }).description).toMatch(
				/comes from data \(e\.g\. a webhook’s JSON\)/,
			);
		},
	);
});

/** A Form Trigger (n8n's form definition: an Invoice file element, a Topics checkbox) → Extract Data From Files. */
function formWorkflow(
	submission: FormSubmission,
	binaryMode: 'combined' | 'separate',
): TestWorkflow {
	return {
		workflow: {
			nodes: [
				{
					name: 'On form submission',
					type: FORM_TRIGGER_TYPE,
					typeVersion: 2.3,
					parameters: {
						formFields: {
							values: [
								{ fieldLabel: 'Invoice', fieldType: 'file' },
								{ fieldLabel: 'Topics', fieldType: 'checkbox' },
							],
						},
					},
				},
				extractNode({}),
			],
			connections: {
				'On form submission': {
					main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]],
				},
			},
			settings: { binaryMode },
		},
		nodeTypes: { [FORM_TRIGGER_TYPE]: createFormUpload([submission]) },
	};
}

describe('Run → Create: a file object an outsider typed into received data is never read', () => {
	const payroll = pdf('payroll of another workflow');
	let crafted: { mimeType: string; fileName: string; id: string };
	beforeAll(async () => {
		const id = await storedByAnotherWorkflow('filesystem', payroll);
		crafted = { mimeType: 'application/pdf', fileName: 'payroll.pdf', id };
	});

	it('in combined binary mode, a public form’s checkbox whose text is a file object naming another workflow’s payroll.pdf uploads nothing of it', async () => {
		const { result, uploads } = await run(
			formWorkflow({ body: { 'field-1': JSON.stringify(crafted) } }, 'combined'),
		);
		expect(result.outputOf('On form submission')[0].json.Topics).toEqual(crafted);
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has no files: "payroll.pdf" in its data is not a file of this execution',
		);
	});

	it('in combined binary mode, a form with a genuine upload and a forged checkbox uploads only the genuine file', async () => {
		const { result, uploads } = await run(
			formWorkflow(
				{
					body: { 'field-1': JSON.stringify([crafted]) },
					files: { 'field-0': { data: invoice, fileName: 'INV-39.pdf' } },
				},
				'combined',
			),
		);
		expect(result.error).toBeUndefined();
		expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
	});

	it('in combined binary mode, a chat message whose JSON carries _files naming another workflow’s file uploads nothing of it', async () => {
		const { result, uploads } = await run({
			workflow: {
				nodes: [
					{
						name: 'When chat message received',
						type: CHAT_TRIGGER_TYPE,
						typeVersion: 1.4,
						parameters: {},
					},
					extractNode({}),
				],
				connections: {
					'When chat message received': {
						main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]],
					},
				},
				settings: { binaryMode: 'combined' },
			},
			nodeTypes: {
				[CHAT_TRIGGER_TYPE]: createChatTrigger([
					{ body: { sessionId: 's-1', chatInput: 'read this', _files: { data0: crafted } } },
				]),
			},
		});
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has no files: "payroll.pdf" in its data is not a file of this execution',
		);
	});

	it('in combined binary mode, a webhook body’s _files made the item by an Edit Fields node is not read', async () => {
		const { result, uploads } = await run({
			workflow: {
				nodes: [
					{ name: 'Webhook', type: WEBHOOK_TYPE, typeVersion: 2, parameters: {} },
					{ name: 'Edit Fields', type: ITEM_FROM_FIELD_TYPE, typeVersion: 1, parameters: {} },
					extractNode({}),
				],
				connections: {
					Webhook: { main: [[{ node: 'Edit Fields', type: 'main', index: 0 }]] },
					'Edit Fields': {
						main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]],
					},
				},
				settings: { binaryMode: 'combined' },
			},
			nodeTypes: {
				[WEBHOOK_TYPE]: createWebhookUpload(
					[{ body: { _files: { data: crafted } } }],
					WEBHOOK_TYPE,
				),
				[ITEM_FROM_FIELD_TYPE]: new ItemFromField(),
			},
		});
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has no files: "payroll.pdf" in its data is not a file of this execution',
		);
	});
});

/** A form (Form Trigger, or a Form page after one) with `parameters` → Extract Data From Files, in combined mode. */
function formPageWorkflow(
	receiver: 'trigger' | 'page' | 'wait',
	typeVersion: number,
	parameters: INodeParameters,
	submission: FormSubmission,
): TestWorkflow {
	const trigger = {
		name: 'On form submission',
		type: FORM_TRIGGER_TYPE,
		typeVersion,
		parameters:
			receiver === 'trigger'
				? parameters
				: { formFields: { values: [{ fieldLabel: 'Name', fieldType: 'text' }] } },
	};
	const nodes = [
		trigger,
		...(receiver === 'page' ? [{ name: 'Form', type: FORM_TYPE, typeVersion, parameters }] : []),
		...(receiver === 'wait'
			? [
					{
						name: 'Wait',
						type: WAIT_TYPE,
						typeVersion: 1.1,
						parameters: { ...parameters, resume: 'form' },
					},
				]
			: []),
		extractNode({}),
	];
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] },
			]),
	);
	return {
		workflow: { nodes, connections, settings: { binaryMode: 'combined' } },
		nodeTypes: {
			[FORM_TRIGGER_TYPE]: createFormUpload([
				receiver === 'trigger' ? submission : { body: { 'field-0': 'Ada' } },
			]),
			[FORM_TYPE]: createFormPage([submission]),
			[WAIT_TYPE]: createFormPage([submission], WAIT_TYPE),
		},
	};
}

describe('Run → Create: a form’s or a chat’s own uploads, as the form definition places them', () => {
	const upload = { files: { 'field-0': { data: invoice, fileName: 'INV-39.pdf' } } };

	it.each([
		[
			'Form Trigger 2.4, the file element named by its Field Name',
			'trigger',
			2.4,
			{
				formFields: {
					values: [{ fieldLabel: 'Your invoice', fieldName: 'invoice_file', fieldType: 'file' }],
				},
			},
		],
		[
			'Form Trigger defined by JSON',
			'trigger',
			2.3,
			{
				defineForm: 'json',
				jsonOutput: JSON.stringify([{ fieldLabel: 'Invoice', fieldType: 'file' }]),
			},
		],
		[
			'a later Form page',
			'page',
			2.3,
			{
				formFields: { values: [{ fieldLabel: 'Invoice', fieldType: 'file', multipleFiles: true }] },
			},
		],
		[
			'a Wait node resumed by a form',
			'wait',
			2.3,
			{ formFields: { values: [{ fieldLabel: 'Invoice', fieldType: 'file' }] } },
		],
	] as Array<[string, 'trigger' | 'page' | 'wait', number, INodeParameters]>)(
		'in combined binary mode, uploads the file of a form’s file element (%s)',
		async (_title, receiver, typeVersion, parameters) => {
			const { result, uploads } = await run(
				formPageWorkflow(receiver, typeVersion, parameters, upload),
			);
			expect(result.error).toBeUndefined();
			expect(uploads).toEqual([[['INV-39.pdf', sha256(invoice)]]]);
		},
	);

	it('in combined binary mode, reads no file of a form whose definition only a run can tell (an expression), and says why', async () => {
		const { result, uploads } = await run(
			formPageWorkflow(
				'trigger',
				2.3,
				{
					defineForm: 'json',
					jsonOutput: '={{ JSON.stringify([{ fieldLabel: "Invoice", fieldType: "file" }]) }}',
				},
				upload,
			),
		);
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has no files: "INV-39.pdf" in its data is not a file of this execution',
		);
	});

	it.each([
		['separate', {}, [[['INV-39.pdf', sha256(invoice)]]]],
		['combined', { binaryMode: 'combined' }, []],
	] as Array<[string, IWorkflowSettings, unknown[]]>)(
		'a chat’s uploaded file (binary mode %s): read from its binary field, never from _files (a chat message can type _files)',
		async (mode, settings, expected) => {
			const { result, uploads } = await run({
				workflow: {
					nodes: [
						{ name: 'Chat', type: CHAT_TRIGGER_TYPE, typeVersion: 1.4, parameters: {} },
						extractNode({}),
					],
					connections: {
						Chat: { main: [[{ node: 'Extract Data From Files', type: 'main', index: 0 }]] },
					},
					settings,
				},
				nodeTypes: {
					[CHAT_TRIGGER_TYPE]: createChatTrigger([
						{
							body: { sessionId: 's-1', chatInput: 'read this' },
							files: { file: { data: invoice, fileName: 'INV-39.pdf' } },
						},
					]),
				},
			});
			expect(uploads).toEqual(expected);
			if (mode === 'combined') {
				expect(result.error?.message).toBe(
					'Item 1 has no files: "INV-39.pdf" in its data is not a file of this execution',
				);
				expect((result.error as Error & { description?: string }).description).toContain(
					'binary mode is "separate"',
				);
			} else expect(result.error).toBeUndefined();
		},
	);
});

/** Stores `data` as a file of another workflow's execution, in `binaryMode`'s store; its id. */
async function storedByAnotherWorkflow(binaryMode: BinaryMode, data: Buffer): Promise<string> {
	const result = await runWorkflow(
		{
			id: 'another-workflow',
			nodes: [{ name: 'Payroll', type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} }],
			connections: {},
		},
		{
			binaryMode,
			startNode: 'Payroll',
			nodeTypes: {
				[HARNESS_INPUT_TYPE]: createHarnessInput([
					{ binary: { data: { data, fileName: 'payroll.pdf' } } },
				]),
			},
		},
	);
	return String(result.outputOf('Payroll')[0].binary?.data.id);
}
