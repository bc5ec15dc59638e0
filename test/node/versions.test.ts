/**
 * Workflows saved at node version 1 keep the behaviour they had in 0.1.0; what changed since
 * belongs to version 1.1 and later. One test per version-gated behaviour, each run at both
 * versions so the gate itself is what is shown.
 */
import type { HarnessInputItem } from '../../dev/harness';
import type { NodeParameterValueType } from 'n8n-workflow';
import { executeNode, listSearch, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS, type RequestLogEntry } from '../../dev/emulator';
import {
	agentById,
	createRunParameters,
	INVOICES,
	pdf,
	shapeRunsByFileName,
	useEmulator,
} from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 300, latencyMs: 50 });

function updateMetadataWithPairs(typeVersion: number) {
	return executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion,
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: agentById(INVOICES),
			metadataMode: 'keyValue',
			metadataPairs: {
				pair: [
					{ key: 'cost_centre', value: '4711' },
					{ key: 'active', value: 'true' },
					{ key: 'owner', value: 'null' },
					{ key: 'team', value: 'finance' },
				],
			},
		},
	});
}

function lastPatchBody(seq: number): unknown {
	const patches = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'PATCH' && entry.path.endsWith(`/agents/${INVOICES}`));
	expect(patches).toHaveLength(1);
	return patches[0].body;
}

describe('Agent → Update Metadata, key/value pairs', () => {
	it('version 1 sends every pair value as the text typed, as 0.1.0 did', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await updateMetadataWithPairs(1);
		expect(result.error).toBeUndefined();
		expect(lastPatchBody(seq)).toEqual({
			metadata: { cost_centre: '4711', active: 'true', owner: 'null', team: 'finance' },
		});
	});

	it('version 1.1 sends numbers, true/false and null with their types', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await updateMetadataWithPairs(1.1);
		expect(result.error).toBeUndefined();
		expect(lastPatchBody(seq)).toEqual({
			metadata: { cost_centre: 4711, active: true, owner: null, team: 'finance' },
		});
	});
});

const MISSING_AGENT = 987654;

describe('Agent → Update Metadata, Set From JSON with the field left as it was', () => {
	const updateFromUntouchedJson = (typeVersion: number) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: {
				resource: 'agent',
				operation: 'updateMetadata',
				agent: agentById(INVOICES),
				metadataMode: 'json',
			},
		});

	it('version 1 sends the field’s 0.1.0 default, {"team": "finance"}', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await updateFromUntouchedJson(1);
		expect(result.error).toBeUndefined();
		expect(lastPatchBody(seq)).toEqual({ metadata: { team: 'finance' } });
	});

	it('version 1.1 starts the field empty and sends nothing until the user writes the metadata', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await updateFromUntouchedJson(1.1);
		expect(result.error?.message).toBe('Metadata (JSON) is empty');
		expect(ctx.emulator.requestsSince(seq)).toEqual([]);
	});
});

/** Twelve documents; the second is sent to an Agent that does not exist, so the service refuses it. */
function documentsWithBadSecond(): HarnessInputItem[] {
	return Array.from({ length: 12 }, (_, index) => ({
		json: { agent: index === 1 ? MISSING_AGENT : INVOICES },
		binary: { data: { data: pdf(`invoice ${index}`), fileName: `doc-${index}.pdf` } },
	}));
}

const createRunPerItemAgent = (options: Record<string, unknown> = {}) =>
	createRunParameters({
		agent: { __rl: true, mode: 'id', value: '={{ $json.agent }}' },
		...options,
	});

function uploads(seq: number): RequestLogEntry[] {
	return ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/agents\/\d+\/runs$/.test(entry.path));
}

describe('Run → Create, Items in Parallel left at its default', () => {
	it('version 1 sends one item after another: when the second item is refused, only the first has created a Run', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1,
			parameters: createRunPerItemAgent(),
			inputItems: documentsWithBadSecond(),
		});
		expect(result.error?.message).toBe(`Agent ${MISSING_AGENT} not found`);
		// Item 1's Run, then item 2's refused upload; nothing after it.
		expect(uploads(seq).map((entry) => [entry.path, entry.status])).toEqual([
			[`/api/v1/client/agents/${INVOICES}/runs`, 200],
			[`/api/v1/client/agents/${MISSING_AGENT}/runs`, 404],
		]);
	});

	it('version 1.1 sends up to 10 items at once', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.1,
			parameters: createRunPerItemAgent(),
			inputItems: documentsWithBadSecond(),
		});
		expect(result.error?.message).toBe(`Agent ${MISSING_AGENT} not found`);
		// The other items of the first ten had started their uploads before item 2 was refused.
		expect(uploads(seq).length).toBeGreaterThan(2);
	});

	it('version 1 still takes an Items in Parallel that the workflow sets', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1,
			parameters: createRunPerItemAgent({ options: { itemsInParallel: 4 } }),
			inputItems: documentsWithBadSecond(),
		});
		expect(result.error?.message).toBe(`Agent ${MISSING_AGENT} not found`);
		expect(uploads(seq).length).toBeGreaterThan(2);
	});
});

describe('Run → Create, Files left at its default, with a Gmail-shaped item', () => {
	const gmailItem = (): HarnessInputItem => ({
		json: { subject: 'Invoice March' },
		binary: {
			attachment_0: { data: pdf('invoice'), fileName: 'invoice.pdf', mimeType: 'application/pdf' },
			attachment_1: {
				data: pdf('delivery'),
				fileName: 'delivery.pdf',
				mimeType: 'application/pdf',
			},
		},
	});

	it('version 1.2 uploads every file of the item: attachment_0 and attachment_1 in one Run', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.2,
			parameters: { resource: 'run', operation: 'create', agent: agentById(INVOICES) },
			inputItems: [gmailItem()],
		});
		expect(result.error).toBeUndefined();
		expect(uploads(seq).map((entry) => entry.upload?.files.map((file) => file.filename))).toEqual([
			['invoice.pdf', 'delivery.pdf'],
		]);
	});

	it.each([1, 1.1])(
		'version %s uploads the field "data", as it did: the Gmail item is refused naming its fields',
		async (typeVersion) => {
			const seq = ctx.emulator.lastSeq;
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				typeVersion,
				parameters: { resource: 'run', operation: 'create', agent: agentById(INVOICES) },
				inputItems: [gmailItem()],
			});
			expect(result.error?.message).toBe('Item 1 has no binary field "data"');
			expect(uploads(seq)).toEqual([]);
		},
	);
});

describe('Simplify on Runs', () => {
	const PURCHASE_ORDERS = DEMO_AGENT_IDS.purchaseOrders;
	const getRun = (typeVersion: number, runId: number) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: agentById(PURCHASE_ORDERS),
				run: { __rl: true, mode: 'id', value: String(runId) },
			},
		});
	const finishedPurchaseOrder = () =>
		Number(
			ctx.emulator.createRun(PURCHASE_ORDERS, [{ name: 'po.pdf' }, { name: 'terms.pdf' }], {
				durationMs: 0,
			}).run_id,
		);

	it('version 1.2 gives a sheet-ready row: Prompt values first in the Agent’s order, a list as text, then the Run', async () => {
		const runId = finishedPurchaseOrder();
		const result = await getRun(1.2, runId);
		expect(result.error).toBeUndefined();
		const row = result.items[0].json;
		expect(Object.keys(row)).toEqual([
			'PO number',
			'Line items',
			'Supplier',
			'run_id',
			'status',
			'run_url',
			'files',
			'user_defined_id',
			'created',
			'completed',
			'failed_prompts',
			'credits_used',
			'agent_id',
		]);
		const served = ctx.emulator.getRun(PURCHASE_ORDERS, runId) as {
			data: Record<string, { value: unknown }>;
		};
		expect(row['Line items']).toBe((served.data['Line items'].value as string[]).join(', '));
		expect(row.files).toBe('po.pdf, terms.pdf');
		for (const cell of Object.values(row)) {
			expect(cell === null || typeof cell !== 'object').toBe(true);
			expect(String(cell)).not.toMatch(/\[object Object\]|^[[{]/);
		}
	});

	it('version 1.1 keeps the Run first and the Prompt values as the service gives them', async () => {
		const runId = finishedPurchaseOrder();
		const result = await getRun(1.1, runId);
		const row = result.items[0].json;
		expect(Object.keys(row).slice(0, 3)).toEqual(['run_id', 'agent_id', 'status']);
		expect(Array.isArray(row['Line items'])).toBe(true);
		expect(row.files).toEqual(['po.pdf', 'terms.pdf']);
	});
});

describe('Run → Download Templated Output: Output Template', () => {
	const download = (typeVersion: number, outputTemplate: NodeParameterValueType, runId: number) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
				run: { __rl: true, mode: 'id', value: String(runId) },
				outputTemplate,
			},
		});
	const finished = () =>
		Number(ctx.emulator.createRun(INVOICES, [{ name: 'doc.pdf' }], { durationMs: 0 }).run_id);

	it('version 1.2 picks it from a list of the Agent’s templates, or takes its ID', async () => {
		const picker = await listSearch({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			method: 'searchOutputTemplates',
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
			},
			typeVersion: 1.2,
		});
		expect(picker.results).toEqual([
			{ name: 'Invoice summary.docx (Word)', value: '11' },
			{ name: 'Invoice lines.xlsx (Excel)', value: '12' },
		]);
		for (const mode of ['list', 'id']) {
			const result = await download(1.2, { __rl: true, mode, value: '12' }, finished());
			expect(result.error).toBeUndefined();
			expect(result.items[0].binary?.data.fileName).toMatch(/\.xlsx$/);
		}
	});

	it('version 1.1 keeps the dropdown’s plain template ID', async () => {
		const result = await download(1.1, 12, finished());
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data.fileName).toMatch(/\.xlsx$/);
	});
});

describe('Simplify on Runs, column names that collide', () => {
	const collidingRun = () =>
		Number(
			ctx.emulator.createRun(INVOICES, [{ name: 'doc.pdf' }], {
				durationMs: 0,
				prompts: [
					{ name: 'run_id', value: 'A' },
					{ name: 'run_id (prompt)', value: 'B' },
					{ name: 'Total amount', value: { currency: 'EUR' } },
					{ name: 'Total amount › currency', value: 'USD' },
				],
			}).run_id,
		);
	const simplifiedRow = async (typeVersion: number) => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: agentById(INVOICES),
				run: { __rl: true, mode: 'id', value: String(collidingRun()) },
			},
		});
		expect(result.error).toBeUndefined();
		const row = result.items[0].json;
		return Object.fromEntries(
			Object.keys(row)
				.slice(0, Object.keys(row).indexOf('run_id'))
				.map((key) => [key, row[key]]),
		);
	};

	it('version 1.3 gives a column name already taken " (2)": every value kept', async () => {
		expect(await simplifiedRow(1.3)).toEqual({
			'run_id (prompt)': 'A',
			'run_id (prompt) (2)': 'B',
			'Total amount › currency': 'EUR',
			'Total amount › currency (2)': 'USD',
		});
	});

	it('version 1.2 keeps its column names: the later value takes the column (docs/design/column-names.md)', async () => {
		expect(await simplifiedRow(1.2)).toEqual({
			'run_id (prompt)': 'B',
			'Total amount › currency': 'USD',
		});
	});
});

describe('Run → Create, a Run that ends failed', () => {
	const createFailedRun = (typeVersion: number) => {
		shapeRunsByFileName(ctx.emulator, { failed: 'unreadable.pdf' }, 1);
		return executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: createRunParameters(),
			inputItems: [
				{ json: {}, binary: { data: { data: pdf('unreadable'), fileName: 'unreadable.pdf' } } },
			],
			onError: 'continueErrorOutput',
		});
	};

	it('version 1.3 sends it to the error output', async () => {
		const result = await createFailedRun(1.3);
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		expect(failed.map((item) => (item.json.error as { status: string }).status)).toEqual([
			'failed',
		]);
	});

	it('version 1.3 keeps its error item: "Run N failed", the setup steps in the description, no file names', async () => {
		const result = await createFailedRun(1.3);
		const error = result.outputs[1][0].json.error as Record<string, unknown>;
		expect(Object.keys(error)).toEqual([
			'message',
			'description',
			'run_id',
			'agent_id',
			'run_url',
			'status',
			'failed_prompts',
			'failure_reasons',
		]);
		expect(error.message).toBe(`Run ${String(error.run_id)} failed`);
		expect(error.description).toMatch(
			/^The service could not extract the data from this item’s files\. Prompts that failed: Invoice number: .*\. See the Run in Extraction Agents: http.* To get failed Runs as results instead, set Options → Failed Runs to Output as Results\.$/,
		);
		expect(error.failed_prompts).toBe('Invoice number, Invoice date, Vendor, Total amount');
	});

	it('version 1.3 with Continue (regular output) keeps its flat error item', async () => {
		shapeRunsByFileName(ctx.emulator, { failed: 'unreadable.pdf' }, 1);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.3,
			parameters: createRunParameters(),
			inputItems: [
				{ json: {}, binary: { data: { data: pdf('unreadable'), fileName: 'unreadable.pdf' } } },
			],
			continueOnFail: true,
		});
		const json = result.items[0].json;
		expect(Object.keys(json)).toEqual([
			'error',
			'description',
			'run_id',
			'agent_id',
			'run_url',
			'status',
			'failed_prompts',
			'failure_reasons',
		]);
		expect(json.error).toBe(`Run ${String(json.run_id)} failed`);
		expect(json.description).toContain('set Options → Failed Runs to Output as Results');
	});

	it.each([
		[1.3, ['message', 'description', 'run_id', 'agent_id', 'run_url', 'status']],
		[
			1.4,
			['message', 'description', 'files', 'agent_name', 'run_id', 'agent_id', 'run_url', 'status'],
		],
	])(
		'a Run that went missing while waited for: version %s’s error item has the fields %j',
		async (typeVersion, keys) => {
			shapeRunsByFileName(ctx.emulator, { deleted: 'gone.pdf' }, 1);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				typeVersion,
				parameters: createRunParameters(),
				inputItems: [{ json: {}, binary: { data: { data: pdf('gone'), fileName: 'gone.pdf' } } }],
				onError: 'continueErrorOutput',
			});
			const error = result.outputs[1][0].json.error as Record<string, unknown>;
			expect(Object.keys(error)).toEqual(keys);
			expect(error.message).toMatch(/^Run \d+ of Agent \d+ not found$/);
		},
	);

	it('version 1.4 gives the reviewer’s error item: the file, the Prompts, no setup steps', async () => {
		const result = await createFailedRun(1.4);
		const error = result.outputs[1][0].json.error as Record<string, unknown>;
		expect(error.message).toBe('"unreadable.pdf": none of the 4 Prompts could be answered');
		expect(error.files).toBe('unreadable.pdf');
		expect(error.description).not.toContain('Options');
	});

	it.each([1, 1.1, 1.2])(
		'version %s gives it as a result on the success output, as it did',
		async (typeVersion) => {
			const result = await createFailedRun(typeVersion);
			const [success, failed] = result.outputs;
			expect(success.map((item) => item.json.status)).toEqual(['failed']);
			expect(failed ?? []).toEqual([]);
		},
	);
});

describe('Run → Create, Runs left at its default, with two invoices in one email', () => {
	const twoInvoices = (typeVersion: number) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: createRunParameters(),
			inputItems: [
				{
					json: { subject: 'Two invoices' },
					binary: {
						attachment_0: {
							data: pdf('invoice A'),
							fileName: 'A.pdf',
							mimeType: 'application/pdf',
						},
						attachment_1: {
							data: pdf('invoice B'),
							fileName: 'B.pdf',
							mimeType: 'application/pdf',
						},
					},
				},
			],
		});

	it('version 1.5 makes one Run per file: two uploads, two items paired with the email, each naming its file', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await twoInvoices(1.5);
		expect(result.error).toBeUndefined();
		expect(uploads(seq).map((entry) => entry.upload?.files.map((file) => file.filename))).toEqual([
			['A.pdf'],
			['B.pdf'],
		]);
		expect(result.items.map((item) => [item.pairedItem, item.json.file_name])).toEqual([
			[{ item: 0 }, 'A.pdf'],
			[{ item: 0 }, 'B.pdf'],
		]);
	});

	it('version 1.4 sends both files as one Run and gives one item, as it did', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await twoInvoices(1.4);
		expect(result.error).toBeUndefined();
		expect(uploads(seq).map((entry) => entry.upload?.files.map((file) => file.filename))).toEqual([
			['A.pdf', 'B.pdf'],
		]);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).not.toHaveProperty('file_name');
	});
});

describe('Run → Create, a Run that succeeded with a failed Prompt', () => {
	const createPartlyRead = (typeVersion: number) => {
		shapeRunsByFileName(ctx.emulator, { partlyRead: 'partly.pdf' }, 1);
		return executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: createRunParameters(),
			inputItems: [{ json: {}, binary: { data: { data: pdf('partly'), fileName: 'partly.pdf' } } }],
			onError: 'continueErrorOutput',
		});
	};

	it('version 1.5 sends it to the error output with the values read, the failed Prompt and why', async () => {
		const result = await createPartlyRead(1.5);
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		const error = failed[0].json.error as Record<string, unknown>;
		expect(error.message).toBe('"partly.pdf": 1 of 4 Prompts could not be answered (Total amount)');
		expect(error.status).toBe('success');
		expect(error.failed_prompts).toBe('Total amount');
		expect(error.failure_reasons).toMatch(/^Total amount: ./);
		const valuesRead = error.values_read as Record<string, unknown>;
		expect(Object.keys(valuesRead)).toEqual([
			'Invoice number',
			'Invoice date',
			'Vendor',
			'Total amount',
		]);
		expect(valuesRead['Invoice number']).toEqual(expect.any(String));
		expect(valuesRead['Total amount']).toBeNull();
	});

	it('version 1.4 gives it as a result whose failed_prompts column names the Prompt, as it did', async () => {
		const result = await createPartlyRead(1.4);
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.json.status, item.json.failed_prompts])).toEqual([
			['success', 'Total amount'],
		]);
		expect(failed ?? []).toEqual([]);
	});
});

describe('Run → Create, an email whose only image is a logo in its text', () => {
	const logoOnly = (typeVersion: number) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: createRunParameters(),
			inputItems: [
				{
					json: { html: '<p>Thanks!</p><img src="cid:logo" alt="logo.png">' },
					binary: {
						attachment_0: {
							data: Buffer.from('89504e470d0a1a0a', 'hex'),
							fileName: 'logo.png',
							mimeType: 'image/png',
						},
					},
				},
			],
			onError: 'continueErrorOutput',
		});

	it('version 1.5 sends nothing and gives no item on either output, saying so in a hint', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await logoOnly(1.5);
		expect(result.error).toBeUndefined();
		expect(uploads(seq)).toEqual([]);
		expect(result.outputs.flat()).toEqual([]);
		const hints = (result.runData[result.nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
		expect(hints).toContain(
			'An item whose only files are images shown in its email’s text (a logo, a signature) has no document: nothing was sent for it, and it gives no item.',
		);
	});

	it('version 1.4 gives an error item (a review row), as it did', async () => {
		const result = await logoOnly(1.4);
		expect(
			result.outputs[1].map((item) => (item.json.error as { message: string }).message),
		).toEqual(['Item 1 has only images shown inside the email text, no attached document']);
	});
});

describe('Run → Create with a User-Defined ID, a 503 after the Run was made', () => {
	const createThrough503 = (typeVersion: number, id: string) => {
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'after' },
		]);
		return executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion,
			parameters: createRunParameters({
				waitForCompletion: false,
				additionalFields: { userDefinedId: id },
			}),
			inputItems: [{ json: {}, binary: { data: { data: pdf(id), fileName: `${id}.pdf` } } }],
		});
	};
	const runsWithId = (id: string) =>
		[...ctx.emulator.state.runs.values()].filter((run) => run.userDefinedId === id);

	it('version 1.5 finds the Run among the Agent’s newest by its ID and gives it: one Run, no error', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await createThrough503(1.5, 'mail-503-v15');
		expect(result.error).toBeUndefined();
		expect(uploads(seq).map((entry) => entry.status)).toEqual([503]);
		expect(runsWithId('mail-503-v15')).toHaveLength(1);
		expect(result.items.map((item) => item.json.run_id)).toEqual([
			runsWithId('mail-503-v15')[0].runId,
		]);
	});

	it('version 1.4 fails the item with the 503 and reads no list, as it did', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await createThrough503(1.4, 'mail-503-v14');
		expect(result.error?.message).toBe('The Extraction Agents service failed (503)');
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.method)).toEqual(['POST']);
		expect(runsWithId('mail-503-v14')).toHaveLength(1);
	});
});
