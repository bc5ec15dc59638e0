/**
 * The workflows in examples/ are what a user imports as they are. Checked here:
 * - structure: n8n's workflow export shape, unique node names and ids, connections between
 *   existing nodes, every node reachable from its trigger, credentials by placeholder name only;
 * - node types: ours (`n8n-nodes-extraction-agents.*` at their newest version, including n8n's AI
 *   Agent tool variant `extractionAgentsTool`) or n8n core and AI nodes at a typeVersion of n8n 2.41.1;
 *   when that n8n is installed (dev/n8n/host.ts cache), their parameters are checked against
 *   its node descriptions too;
 * - parameters of our nodes: every one is declared (and shown) for the node's resource and
 *   operation, option values exist, collections hold only declared options;
 * - examples/README.md: one row per example, saying what it does and what else it needs;
 * - behaviour: each example that reads files runs whole in example-runs.test.ts; here, the parts
 *   that touch only our nodes run in n8n-core's engine against the emulator (the AI Agent example's tools: test/node/as-tool.test.ts and test/e2e/ai-agent.ts), with the example's own parameters (the Agent picked as the demo Agent 1
 *   "Invoices"), and what the next node reads (`$json.<field>`) is in their output;
 * - sheets: every Google Sheets append runs as n8n's own node (installed n8n, its Google API
 *   answered by an in-memory spreadsheet, test/examples/google-sheets.ts) 100 times on the sheet
 *   its note has the user create (empty, unless the note names a header row), and every row lands
 *   under its columns.
 */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IExecuteFunctions,
} from 'n8n-workflow';
import { readFileSync } from 'fs';
import { join } from 'path';
import { NodeHelpers } from 'n8n-workflow';
import { startEmulator, type Emulator } from '../../dev/emulator';
import {
	EXTRACTION_AGENTS_TRIGGER_TYPE,
	EXTRACTION_AGENTS_TYPE,
	createPoller,
	executeNode,
	runWorkflow,
	useHarness,
	type WorkflowJson,
} from '../../dev/harness';
import { addBinariesToItem } from '../../dev/harness/nodes/AggregateBinaries.node';
import { HARNESS_INPUT_TYPE, createHarnessInput } from '../../dev/harness/nodes/HarnessInput.node';
import { shapeRunsByFileName } from '../node/fixtures';
import {
	CORE_NODE_VERSIONS,
	EXAMPLES_DIR,
	INVOICES,
	INVOICE_LINES_XLSX,
	LANGCHAIN,
	N8N_VERSION,
	OUR_TYPES,
	TRIGGER_TYPES,
	coreDescription,
	exampleFiles,
	installedN8nDescriptions,
	jsonFieldsRead,
	loadExample,
	nodeNamed,
	nodeOfType,
	nodeTypeStub,
	ourDescription,
	parameterProblems,
	propertiesOf,
	successors,
	withDemoAgent,
	type ExampleWorkflow,
} from './helpers';
import {
	InMemorySpreadsheet,
	installedAppendOperationFile,
	installedGoogleSheetsNode,
	installedSetNode,
} from './google-sheets';

useHarness();

const ERROR_WORKFLOW = 'error-workflow-email-the-owner.json';

function newestVersion(description: { version: number | number[]; defaultVersion?: number }) {
	return (
		description.defaultVersion ??
		(Array.isArray(description.version) ? Math.max(...description.version) : description.version)
	);
}

describe('examples/: structure', () => {
	it('has the twelve documented examples', () => {
		expect(exampleFiles).toEqual([
			'ai-agent-questions-about-runs.json',
			'error-workflow-email-the-owner.json',
			'failed-documents-alert-in-slack.json',
			'finished-run-to-excel-by-email.json',
			'form-upload-shows-extracted-values.json',
			'gmail-invoices-to-google-sheets.json',
			'google-drive-folder-as-one-run.json',
			'google-drive-new-files-to-excel-365.json',
			'google-drive-new-files-to-google-sheets.json',
			'invoice-line-items-to-google-sheets.json',
			'monthly-usage-report-to-google-sheets.json',
			'outlook-invoices-to-excel-365.json',
		]);
	});

	it('examples/README.md has one row per example: what it does and what else it needs', () => {
		const readme = readFileSync(join(EXAMPLES_DIR, 'README.md'), 'utf8');
		const rows = readme.split('\n').filter((line) => /^\| \[[^\]]+\.json\]/.test(line));
		expect(rows.map((row) => /^\| \[([^\]]+)\]/.exec(row)![1]).sort()).toEqual(exampleFiles);
		for (const row of rows) {
			const cells = row.split(' | ').map((cell) => cell.trim());
			expect({ row: cells[0], cells: cells.length }).toEqual({ row: cells[0], cells: 3 });
			expect(cells[1].split(/\s+/).length).toBeGreaterThan(8);
		}
	});

	describe.each(exampleFiles)('%s', (file) => {
		const workflow = loadExample(file);
		const working = workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote');

		it('is an n8n workflow export: name, nodes, connections, settings (execution order v1), inactive', () => {
			expect(typeof workflow.name).toBe('string');
			expect(Array.isArray(workflow.nodes)).toBe(true);
			expect(typeof workflow.connections).toBe('object');
			expect(workflow.settings).toEqual(expect.objectContaining({ executionOrder: 'v1' }));
			expect(workflow.active).toBe(false);
			for (const node of workflow.nodes) {
				expect(node).toEqual(
					expect.objectContaining({
						id: expect.stringMatching(/^[0-9a-f-]{36}$/),
						name: expect.any(String),
						type: expect.any(String),
						typeVersion: expect.any(Number),
						position: [expect.any(Number), expect.any(Number)],
						parameters: expect.any(Object),
					}),
				);
			}
			expect(new Set(workflow.nodes.map((node) => node.name)).size).toBe(workflow.nodes.length);
			expect(new Set(workflow.nodes.map((node) => node.id)).size).toBe(workflow.nodes.length);
			expect(workflow.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote')).toBe(true);
		});

		it('connects only existing nodes, and every node is reached from its one trigger (AI sub-nodes through their root node)', () => {
			const names = new Set(workflow.nodes.map((node) => node.name));
			for (const [source, outputs] of Object.entries(workflow.connections)) {
				expect(names).toContain(source);
				for (const [kind, lists] of Object.entries(outputs)) {
					expect(['main', 'ai_languageModel', 'ai_tool']).toContain(kind);
					for (const target of (lists ?? []).flat()) {
						expect(names).toContain(target!.node);
						expect(target!.type).toBe(kind);
						expect(target!.index).toBe(0);
					}
				}
			}
			const triggers = working.filter((node) => TRIGGER_TYPES.has(node.type));
			expect(triggers).toHaveLength(1);
			const reached = new Set([triggers[0].name]);
			const queue = [triggers[0].name];
			while (queue.length > 0) {
				for (const next of successors(workflow, queue.shift()!)) {
					if (reached.has(next)) continue;
					reached.add(next);
					queue.push(next);
				}
			}
			// A sub-node (chat model, tool) is used by the root node its ai_* output goes to.
			for (const [source, outputs] of Object.entries(workflow.connections)) {
				const roots = Object.entries(outputs)
					.filter(([kind]) => kind !== 'main')
					.flatMap(([, lists]) => (lists ?? []).flat().map((t) => t!.node));
				if (roots.some((root) => reached.has(root))) reached.add(source);
			}
			expect([...reached].sort()).toEqual(working.map((node) => node.name).sort());
		});

		it('uses our node types at their newest version and core nodes at a typeVersion n8n 2.41.1 and 1.123.81 both have', () => {
			for (const node of workflow.nodes) {
				if (OUR_TYPES.has(node.type)) {
					// New users start on the newest behaviour.
					expect([node.name, node.typeVersion]).toEqual([
						node.name,
						newestVersion(ourDescription(node.type)),
					]);
				} else {
					expect(Object.keys(CORE_NODE_VERSIONS)).toContain(node.type);
					expect([node.type, node.typeVersion]).toEqual([node.type, CORE_NODE_VERSIONS[node.type]]);
				}
			}
			// The Error Workflow example watches the others: it has none of our nodes.
			if (file !== ERROR_WORKFLOW)
				expect(workflow.nodes.some((node) => OUR_TYPES.has(node.type))).toBe(true);
		});

		it('asks no one to type column names: no note names a header row, and every Excel 365 append follows the step that writes row 1', () => {
			for (const note of workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote'))
				expect(String(note.parameters.content)).not.toMatch(
					/needs the header row|write them first|column names (of|in) row 1:/i,
				);
			// n8n's Excel 365 append maps items only under the names in row 1, and fails on an
			// empty worksheet: the examples write row 1 themselves, then append raw rows in its order.
			for (const append of workflow.nodes.filter(
				(node) =>
					node.type === 'n8n-nodes-base.microsoftExcel' && node.parameters.operation === 'append',
			)) {
				expect({ node: append.name, dataMode: append.parameters.dataMode }).toEqual({
					node: append.name,
					dataMode: 'raw',
				});
				const before = workflow.nodes.find((node) =>
					successors(workflow, node.name).includes(append.name),
				)!;
				expect(before.parameters).toMatchObject({
					operation: 'update',
					dataMode: 'raw',
					useRange: true,
					range: expect.stringMatching(/^=\{\{ 'A1:' \+ /),
				});
			}
		});

		it('references credentials by placeholder name only (no ids, no secrets)', () => {
			for (const node of workflow.nodes) {
				for (const [type, reference] of Object.entries(node.credentials ?? {})) {
					expect(reference).toEqual({ id: null, name: expect.any(String) });
					if (node.type.startsWith('n8n-nodes-extraction-agents.')) {
						expect(type).toBe('extractionAgentsApi');
						expect(reference.name).toBe('Extraction Agents account');
					}
				}
				if (node.type.startsWith('n8n-nodes-extraction-agents.'))
					expect(node.credentials).toBeDefined();
			}
			expect(JSON.stringify(workflow)).not.toMatch(/api[_-]?key|secret|password|ea_live|Bearer /i);
		});

		it('gives our nodes only parameters they declare for that resource and operation', () => {
			const ours = workflow.nodes.filter((node) =>
				node.type.startsWith('n8n-nodes-extraction-agents.'),
			);
			for (const node of ours) {
				expect({
					node: node.name,
					problems: parameterProblems(node, ourDescription(node.type)),
				}).toEqual({ node: node.name, problems: [] });
				// With the Agent picked (and, for templated output, the template), n8n finds no issue.
				const picked: INode = {
					...node,
					parameters: withDemoAgent(
						node.parameters,
						node.parameters.operation === 'downloadTemplatedOutput'
							? { outputTemplate: INVOICE_LINES_XLSX }
							: {},
					),
				};
				const description = ourDescription(node.type);
				expect(
					NodeHelpers.getNodeParametersIssues(propertiesOf(description), picked, description),
				).toBeNull();
			}
		});

		const n8nDescriptions = installedN8nDescriptions();
		(n8nDescriptions ? it : it.skip)(
			`gives the core nodes only parameters n8n ${N8N_VERSION} declares (installed n8n)`,
			() => {
				for (const node of workflow.nodes.filter(
					(candidate) =>
						candidate.type.startsWith('n8n-nodes-base.') ||
						candidate.type.startsWith(`${LANGCHAIN}.`),
				)) {
					const description = coreDescription(n8nDescriptions!, node.type, node.typeVersion);
					expect({ node: node.name, found: Boolean(description) }).toEqual({
						node: node.name,
						found: true,
					});
					expect({ node: node.name, problems: parameterProblems(node, description!) }).toEqual({
						node: node.name,
						problems: [],
					});
				}
			},
		);
	});
});

// ------------------------------------------------------------------------------------------
// The parts that touch only our nodes, run in n8n-core's engine against the emulator
// ------------------------------------------------------------------------------------------

describe('examples/: our nodes run with the examples’ parameters against the emulator', () => {
	let emulator: Emulator;
	let credentials: { apiKey: string; baseUrl: string };
	beforeAll(async () => {
		emulator = await startEmulator({ logErrors: false, runDurationMs: 600 });
		credentials = { apiKey: emulator.keys.alice, baseUrl: emulator.url };
	});
	afterAll(async () => {
		await emulator.stop();
	});

	const pdf = (text: string) => Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`);

	it('(a) Gmail → emails not seen before → Run Create: one Run per attachment, one sheet-ready row each; a failed file to Needs review with what went wrong', async () => {
		const workflow = loadExample('gmail-invoices-to-google-sheets.json');
		const node = nodeOfType(workflow, EXTRACTION_AGENTS_TYPE, 'create');
		// An email delivered twice makes no second Run: n8n's Remove Duplicates, across
		// executions, on the email's id.
		const skip = nodeNamed(workflow, successors(workflow, 'Gmail Trigger')[0]);
		expect(skip).toMatchObject({
			type: 'n8n-nodes-base.removeDuplicates',
			parameters: {
				operation: 'removeItemsSeenInPreviousExecutions',
				logic: 'removeItemsWithAlreadySeenKeyValues',
				dedupeValue: '={{ $json.id }}',
			},
		});
		expect(successors(workflow, skip.name)).toEqual([node.name]);
		// Two invoices in one email are two documents: one Run each; a partly read one is
		// announced on the error output.
		expect(node.parameters).toMatchObject({
			filesPerRun: 'file',
			options: { partlyReadRuns: 'error' },
		});
		// Success to one sheet, n8n's error output to another.
		expect(node.onError).toBe('continueErrorOutput');
		const [toRows, toReviewRow] = (workflow.connections[node.name].main ?? []).map((targets) =>
			nodeNamed(workflow, targets![0].node),
		);
		// The error branch makes the review row's columns (Edit Fields), then appends it.
		expect(toReviewRow.type).toBe('n8n-nodes-base.set');
		const toReview = nodeNamed(workflow, successors(workflow, toReviewRow.name)[0]);
		for (const sheets of [toRows, toReview]) {
			expect(sheets.type).toBe('n8n-nodes-base.googleSheets');
			expect(sheets.parameters.operation).toBe('append');
		}
		// What Gmail Trigger emits with Simplify off and Download Attachments on.
		const gmailItem = {
			json: {
				id: '18f2c0ffee000001',
				threadId: '18f2c0ffee000001',
				date: '2026-03-02T09:14:00.000Z',
				subject: 'Invoices March',
				from: { text: 'billing@vendor.example' },
			},
			binary: {
				attachment_0: {
					data: pdf('invoice INV-3001'),
					fileName: 'INV-3001.pdf',
					mimeType: 'application/pdf',
				},
				attachment_1: {
					data: pdf('invoice INV-3002'),
					fileName: 'INV-3002.pdf',
					mimeType: 'application/pdf',
				},
			},
		};
		// Gmail's has:attachment also finds an email whose only image is its logo: no document.
		const noAttachment = {
			json: {
				...gmailItem.json,
				id: '18f2c0ffee000002',
				html: '<p>Thank you.</p><p><img src="cid:ii_logo1" alt="image001.png" width="120"></p>',
			},
			binary: {
				attachment_0: {
					data: Buffer.from('89504e470d0a1a0a', 'hex'),
					fileName: 'image001.png',
					mimeType: 'image/png',
				},
			},
		};
		// An email whose Run the service ends `failed`.
		const unreadable = {
			json: { ...gmailItem.json, id: '18f2c0ffee000003', subject: 'Scan' },
			binary: {
				attachment_0: {
					data: pdf('a blurred scan'),
					fileName: 'blurred-scan.pdf',
					mimeType: 'application/pdf',
				},
			},
		};
		shapeRunsByFileName(emulator, { failed: 'blurred-scan.pdf' }, 3);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			typeVersion: node.typeVersion,
			nodeName: node.name,
			onError: node.onError,
			credentials,
			parameters: withDemoAgent(node.parameters),
			inputItems: [gmailItem, noAttachment, unreadable],
		});
		expect(result.error).toBeUndefined();
		const [rows, review] = result.outputs;
		expect(rows.map((item) => [item.json.files, item.json.user_defined_id])).toEqual([
			// One Run per file: each file's User-Defined ID is the email's, numbered.
			['INV-3001.pdf', `${String(gmailItem.json.id)}#1`],
			['INV-3002.pdf', `${String(gmailItem.json.id)}#2`],
		]);
		const row = rows[0].json;
		expect(row).toMatchObject({ status: 'success', agent_id: INVOICES });
		// Google Sheets' auto-map makes one row of it, a column per field: the Prompt values
		// first, every cell a value a sheet shows as it is (no object, no JSON).
		expect(Object.keys(row).slice(0, 3)).toEqual(['Invoice number', 'Invoice date', 'Vendor']);
		for (const [column, cell] of Object.entries(row)) {
			expect({ column, isObject: cell !== null && typeof cell === 'object' }).toEqual({
				column,
				isObject: false,
			});
			expect(String(cell)).not.toMatch(/^[[{]|\[object Object\]/);
		}
		// The email whose Run failed goes to Needs review, with its link and status: every field
		// the review row reads is there. The email without a document makes no review row.
		const reviewed = review.map((item) => item.json as IDataObject & { error: IDataObject });
		expect(reviewed.map((json) => json.id)).toEqual([unreadable.json.id]);
		const [failedRun] = reviewed;
		expect(failedRun.error).toMatchObject({
			files: 'blurred-scan.pdf',
			status: 'failed',
			run_url: expect.stringMatching(/\/runs\/\d+/),
		});
		for (const json of reviewed)
			for (const field of jsonFieldsRead(toReviewRow.parameters).filter((f) => f !== 'error'))
				expect({ email: json.id, has: field in json }).toEqual({ email: json.id, has: true });
		// The row is for the person checking the document: why it failed and the Run, not the
		// n8n setup hints of `error.description` (example-runs.test.ts checks every cell).
		const reviewParameters = JSON.stringify(toReviewRow.parameters);
		for (const field of ['message', 'failure_reasons', 'failed_prompts', 'run_url'])
			expect(reviewParameters).toContain(`$json.error.${field}`);
		expect(reviewParameters).not.toContain('$json.error.description');
	});

	it('(b) Trigger → If succeeded → Download Templated Output (xlsx) → Send with Gmail: the file is where the email attaches it from', async () => {
		const workflow = loadExample('finished-run-to-excel-by-email.json');
		const trigger = nodeOfType(workflow, EXTRACTION_AGENTS_TRIGGER_TYPE);
		const download = nodeOfType(workflow, EXTRACTION_AGENTS_TYPE, 'downloadTemplatedOutput');
		const email = nodeNamed(workflow, successors(workflow, download.name)[0]);
		// Succeeded Runs to the Excel email, the others to an email of their own.
		const check = nodeNamed(workflow, successors(workflow, trigger.name)[0]);
		expect(check.type).toBe('n8n-nodes-base.if');
		expect(successors(workflow, check.name)).toEqual([download.name, 'Email: please check']);
		expect(email.type).toBe('n8n-nodes-base.gmail');
		const attachments = (
			(email.parameters.options as IDataObject).attachmentsUi as {
				attachmentsBinary: Array<{ property: string }>;
			}
		).attachmentsBinary;
		expect(attachments.map((attachment) => attachment.property)).toEqual([
			download.parameters.binaryPropertyName,
		]);

		const { pollTimes: _pollTimes, ...triggerParameters } = trigger.parameters;
		const poller = createPoller({
			parameters: withDemoAgent(triggerParameters),
			credentials,
			nodeName: trigger.name,
		});
		expect(await poller.poll()).toBeNull(); // activation: the Agent's history is the past
		const run = emulator.createRun(INVOICES, [{ name: 'INV-4001.pdf' }], { hold: true });
		emulator.finishRun(INVOICES, Number(run.run_id), 'success');
		const emitted = await poller.poll();
		expect(emitted?.[0]).toHaveLength(1);
		const finished = emitted![0][0];
		expect(finished.json).toMatchObject({ run_id: Number(run.run_id), status: 'success' });

		const result = await executeNode({
			nodeType: 'extractionAgents',
			typeVersion: download.typeVersion,
			nodeName: download.name,
			credentials,
			parameters: withDemoAgent(download.parameters, { outputTemplate: INVOICE_LINES_XLSX }),
			inputItems: [{ json: finished.json }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		const field = String(download.parameters.binaryPropertyName);
		expect(item.binary?.[field]).toMatchObject({
			mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			fileName: expect.stringMatching(/\.xlsx$/),
		});
		expect((await result.readBinary(item, field)).subarray(0, 2).toString()).toBe('PK');
		// The email's subject and text read these fields of the item: all are there.
		for (const name of jsonFieldsRead(email.parameters)) expect(item.json).toHaveProperty([name]);
	});

	it('(c) Drive files → Aggregate (include binaries) → Run Create → sheet: one Run with every file', async () => {
		const workflow = loadExample('google-drive-folder-as-one-run.json');
		const aggregate = nodeOfType(workflow, 'n8n-nodes-base.aggregate');
		const create = nodeOfType(workflow, EXTRACTION_AGENTS_TYPE, 'create');
		const download = workflow.nodes.find((node) =>
			successors(workflow, node.name).includes(aggregate.name),
		)!;
		expect(download.parameters.operation).toBe('download');
		expect(successors(workflow, aggregate.name)).toEqual([create.name]);
		expect(aggregate.parameters).toMatchObject({
			aggregate: 'aggregateAllItemData',
			options: { includeBinaries: true },
		});

		// Google Drive → Download gives one item per file, the file in `data`. Stand-in for it:
		// the harness input; for n8n's Aggregate: the same code path (addBinariesToItem) on
		// the example's own parameters.
		const files = ['PO-1.pdf', 'PO-2.pdf', 'PO-3.pdf'];
		const driveItems = files.map((name, index) => ({
			json: { id: `drive-file-${index}`, name },
			binary: {
				data: { data: pdf(`purchase order ${index}`), fileName: name, mimeType: 'application/pdf' },
			},
		}));
		const aggregateType: INodeType = {
			// n8n's Workflow keeps only declared parameters: declare the ones the example sets.
			description: nodeTypeStub('Aggregate', 'n8n-nodes-base.aggregate', [
				{
					displayName: 'Aggregate',
					name: 'aggregate',
					type: 'options',
					default: 'aggregateIndividualFields',
					options: [
						{ name: 'Individual Fields', value: 'aggregateIndividualFields' },
						{ name: 'All Item Data (Into a Single List)', value: 'aggregateAllItemData' },
					],
				},
				{
					displayName: 'Put Output in Field',
					name: 'destinationFieldName',
					type: 'string',
					default: 'data',
				},
				{
					displayName: 'Options',
					name: 'options',
					type: 'collection',
					default: {},
					options: [
						{
							displayName: 'Include Binaries',
							name: 'includeBinaries',
							type: 'boolean',
							default: false,
						},
						{
							displayName: 'Keep Only Unique Binaries',
							name: 'keepOnlyUnique',
							type: 'boolean',
							default: false,
						},
					],
				},
			]),
			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				const items = this.getInputData();
				expect(this.getNodeParameter('aggregate', 0)).toBe('aggregateAllItemData');
				const destination = this.getNodeParameter('destinationFieldName', 0, 'data') as string;
				const item: INodeExecutionData = {
					json: { [destination]: items.map((input) => input.json) },
					pairedItem: items.map((_input, index) => ({ item: index })),
				};
				if (this.getNodeParameter('options.includeBinaries', 0, false)) {
					addBinariesToItem(
						item,
						items,
						this.getNodeParameter('options.keepOnlyUnique', 0, false) as boolean,
					);
				}
				return [[item]];
			},
		};
		const seq = emulator.lastSeq;
		const { credentials: _c, ...createNode } = create;
		const result = await runWorkflow(
			{
				name: workflow.name,
				nodes: [
					{
						name: download.name,
						type: HARNESS_INPUT_TYPE,
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					{ ...aggregate },
					{ ...createNode, parameters: withDemoAgent(create.parameters) },
				],
				connections: {
					[download.name]: workflow.connections[download.name],
					[aggregate.name]: workflow.connections[aggregate.name],
				},
			} as WorkflowJson,
			{
				credentials,
				startNode: download.name,
				nodeTypes: {
					[HARNESS_INPUT_TYPE]: createHarnessInput(driveItems),
					'n8n-nodes-base.aggregate': aggregateType,
				},
			},
		);
		expect(result.error).toBeUndefined();
		const runs = result.outputOf(create.name);
		expect(runs).toHaveLength(1);
		expect(runs[0].json).toMatchObject({
			status: 'success',
			agent_id: INVOICES,
			files: files.join(', '),
		});
		// The Run ends in a sheet.
		const sheets = nodeNamed(workflow, successors(workflow, create.name)[0]);
		expect([sheets.type, sheets.parameters.operation]).toEqual([
			'n8n-nodes-base.googleSheets',
			'append',
		]);
		expect(String(runs[0].json.user_defined_id)).toMatch(/^drive-folder-\d{4}-\d{2}-\d{2}-\S+$/);
		const uploads = emulator
			.requestsSince(seq)
			.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
		expect(uploads).toHaveLength(1);
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual(files);
	});

	it('(d) monthly Usage Get Many: exactly last month, with the fields Summarize and the sheet row read', async () => {
		const workflow = loadExample('monthly-usage-report-to-google-sheets.json');
		const usage = nodeOfType(workflow, EXTRACTION_AGENTS_TYPE, 'getAll');
		expect(usage.parameters.resource).toBe('usage');
		const summarize = nodeNamed(workflow, successors(workflow, usage.name)[0]);
		// The sheet row (Edit Fields), then the sheet: its column names come from the row.
		const sheetRow = nodeNamed(workflow, successors(workflow, summarize.name)[0]);
		expect(summarize.type).toBe('n8n-nodes-base.summarize');
		expect([sheetRow.type, successors(workflow, sheetRow.name)]).toEqual([
			'n8n-nodes-base.set',
			['Google Sheets'],
		]);
		const summarized = (
			summarize.parameters.fieldsToSummarize as {
				values: Array<{ aggregation: string; field: string }>;
			}
		).values;
		expect(summarized).toEqual([{ aggregation: 'sum', field: 'credits_used' }]);
		const splitBy = String(summarize.parameters.fieldsToSplitBy);

		const seq = emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			typeVersion: usage.typeVersion,
			nodeName: usage.name,
			credentials,
			parameters: usage.parameters,
		});
		expect(result.error).toBeUndefined();
		const [request] = emulator.requestsSince(seq).filter((entry) => entry.path.endsWith('/usage'));
		const from = Date.parse(request.query.created_gte);
		const to = Date.parse(request.query.created_lte);
		// From the first millisecond of last month to its last one, in the workflow's time zone.
		const days = (to + 1 - from) / 86_400_000;
		expect(days).toBeGreaterThanOrEqual(28 - 1 / 24);
		expect(days).toBeLessThanOrEqual(31 + 1 / 24);
		expect(Date.now() - to).toBeGreaterThan(0);
		expect(Date.now() - to).toBeLessThan(32 * 86_400_000);
		expect(new Date(from + 12 * 3_600_000).getUTCDate()).toBe(1);

		const records = result.items.map((item) => item.json);
		expect(records.length).toBeGreaterThan(0);
		// The service sends some timestamps without an offset: those are UTC.
		const millis = (value: unknown) =>
			Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(String(value)) ? String(value) : `${String(value)}Z`);
		for (const record of records) {
			const created = millis(record.created);
			expect(created).toBeGreaterThanOrEqual(from);
			expect(created).toBeLessThanOrEqual(to + 1);
			expect(record).toHaveProperty([splitBy]);
			expect(typeof record[summarized[0].field]).toBe('number');
		}
		// What Summarize (sum of credits_used, split by agent_id) hands to Google Sheets.
		const sums = new Map<unknown, number>();
		for (const record of records)
			sums.set(record[splitBy], (sums.get(record[splitBy]) ?? 0) + Number(record.credits_used));
		const summaryItem = {
			[splitBy]: [...sums.keys()][0],
			[`sum_${summarized[0].field}`]: [...sums.values()][0],
		};
		for (const name of jsonFieldsRead(sheetRow.parameters))
			expect(summaryItem).toHaveProperty([name]);
	});
});

// ------------------------------------------------------------------------------------------
// Every sheet the examples write to, with n8n's own Google Sheets node (installed n8n)
// ------------------------------------------------------------------------------------------

/**
 * Where each Google Sheets append of the examples gets its items, and an item of the kind
 * that reaches it (the `n`th of many): `from` is the first node after our node (or the
 * Summarize) on the way to the sheet, which starts empty (no column name typed by hand); the test runs the example's nodes from there on.
 */
const SHEET_WRITES: Array<{
	file: string;
	sheetsNode: string;
	from: string;
	item: (n: number) => IDataObject;
}> = [
	{
		file: 'gmail-invoices-to-google-sheets.json',
		sheetsNode: 'Add row to Invoices',
		from: 'Add row to Invoices',
		item: (n) => sheetReadyRun(n),
	},
	{
		file: 'gmail-invoices-to-google-sheets.json',
		sheetsNode: 'Add row to Needs review',
		from: 'Add row to Needs review',
		// The row *Row for review* makes of a failed email (example-runs.test.ts runs it).
		item: (n) => ({
			Received: `2026-03-02T09:${String(n % 60).padStart(2, '0')}:00.000Z`,
			From: `billing${n}@vendor.example`,
			Subject: `Invoice ${n}`,
			Files: `scan-${n}.pdf`,
			Run: `https://extraction.example.com/app/agents/1/runs/${5000 + n}`,
			'Prompts that failed': 'Invoice number, Total amount',
			Why: 'Invoice number: no number is printed\nTotal amount: the totals box is cut off',
		}),
	},
	{
		file: 'google-drive-new-files-to-google-sheets.json',
		sheetsNode: 'Add row to Results',
		from: 'Add row to Results',
		item: (n) => sheetReadyRun(n),
	},
	{
		file: 'invoice-line-items-to-google-sheets.json',
		sheetsNode: 'Add row to Invoice lines',
		from: 'Add row to Invoice lines',
		// What *One row per line* gives (example-runs.test.ts runs it).
		item: (n) => ({
			'Invoice number': `INV-${Math.ceil(n / 3)}`,
			Vendor: 'Vendor Ltd',
			Line: `Item ${((n - 1) % 3) + 1}: Widgets x ${n}`,
			Run: `https://extraction.example.com/app/agents/1/runs/${4000 + Math.ceil(n / 3)}`,
		}),
	},
	{
		file: 'invoice-line-items-to-google-sheets.json',
		sheetsNode: 'Add row to Needs review',
		from: 'Add row to Needs review',
		// The row *Row for review* makes of a file that was not read whole.
		item: (n) => ({
			Received: `2026-03-02T09:${String(n % 60).padStart(2, '0')}:00.000Z`,
			From: `billing${n}@vendor.example`,
			Subject: `Invoice ${n}`,
			Files: `scan-${n}.pdf`,
			Run: `https://extraction.example.com/app/agents/1/runs/${5000 + n}`,
			'Prompts that failed': 'Line items',
			Why: 'Line items: the table is cut off',
		}),
	},
	{
		file: 'failed-documents-alert-in-slack.json',
		sheetsNode: 'Add row to Invoices',
		from: 'Add row to Invoices',
		item: (n) => sheetReadyRun(n),
	},
	{
		file: 'google-drive-folder-as-one-run.json',
		sheetsNode: 'Add row to sheet',
		from: 'Add row to sheet',
		item: (n) => sheetReadyRun(n),
	},
	{
		file: 'monthly-usage-report-to-google-sheets.json',
		sheetsNode: 'Google Sheets',
		// The row Edit Fields makes of Summarize's item: the sheet gets its column names from it.
		from: 'Row per Agent',
		item: (n) => ({ agent_id: n, sum_credits_used: 10 * n }),
	},
];

/** From this row on, the Agent has a Prompt more (added in the web app during the week). */
const PROMPT_ADDED_AT = 51;

/**
 * A Run as Simplify gives it at node version 1.2 and later (the Prompt values first, in the
 * Agent's order); from row PROMPT_ADDED_AT on, with the Prompt *Due date* added after *Vendor*.
 */
function sheetReadyRun(n: number): IDataObject {
	return {
		'Invoice number': `INV-${n}`,
		'Invoice date': '2026-03-01',
		Vendor: 'Vendor Ltd',
		...(n >= PROMPT_ADDED_AT ? { 'Due date': '2026-04-01' } : {}),
		'Total amount › amount': 100 + n,
		'Total amount › currency': 'EUR',
		run_id: 4000 + n,
		status: 'success',
		run_url: `https://extraction.example.com/agents/1/runs/${4000 + n}`,
		files: `INV-${n}.pdf`,
		user_defined_id: `email-${n}`,
		failed_prompts: '',
		agent_id: INVOICES,
	};
}

/** The header row a sticky note tells the user to create on `sheet`, if it names one. */
function headerRowTheNoteNames(workflow: ExampleWorkflow, sheet: string): string[] | undefined {
	const note = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote');
	const content = String(note?.parameters.content ?? '');
	const named = new RegExp(`\\*${sheet}\\*[^.]*needs the header row ([^.]+)\\.`).exec(content);
	return named?.[1].split(/,\s*/).map((column) => column.replace(/^\*|\*$/g, ''));
}

describe(`examples/: every sheet they append to, with n8n ${N8N_VERSION}'s own Google Sheets node`, () => {
	const installed = Boolean(installedAppendOperationFile());
	const ROWS = 100;

	it('covers every Google Sheets append in examples/', () => {
		const appends = exampleFiles.flatMap((file) =>
			loadExample(file)
				.nodes.filter(
					(node) =>
						node.type === 'n8n-nodes-base.googleSheets' && node.parameters.operation === 'append',
				)
				.map((node) => `${file} › ${node.name}`),
		);
		expect(appends.sort()).toEqual(
			SHEET_WRITES.map((write) => `${write.file} › ${write.sheetsNode}`).sort(),
		);
	});

	describe.each(SHEET_WRITES)('$file › $sheetsNode', ({ file, sheetsNode, from, item }) => {
		(installed ? it : it.skip)(
			`writes row after row from the first to the ${ROWS}th, on the sheet as its note has the user make it, under the columns of its first row`,
			async () => {
				const workflow = loadExample(file);
				const sheets = nodeNamed(workflow, sheetsNode);
				const sheetName = String((sheets.parameters.sheetName as IDataObject).value);
				// The sheet starts empty unless the note tells the user to write its header row.
				const header = headerRowTheNoteNames(workflow, sheetName);
				const spreadsheet = new InMemorySpreadsheet(
					[sheetName],
					header ? { [sheetName]: header } : {},
				);
				const path = [from];
				while (path[path.length - 1] !== sheetsNode)
					path.push(successors(workflow, path[path.length - 1])[0]);
				const documentId = { __rl: true, mode: 'id', value: 'spreadsheet-1' };
				const nodes = path.map((name) => {
					const node = structuredClone(nodeNamed(workflow, name));
					delete node.credentials;
					if (name === sheetsNode) node.parameters.documentId = documentId;
					return node;
				});
				const nodeTypes = {
					'n8n-nodes-base.googleSheets': installedGoogleSheetsNode(spreadsheet)!,
					'n8n-nodes-base.set': installedSetNode()!,
				};
				const written: IDataObject[] = [];
				for (let n = 1; n <= ROWS; n++) {
					const input = item(n);
					const result = await runWorkflow(
						{
							name: workflow.name,
							nodes: [
								{
									name: 'Before the sheet',
									type: HARNESS_INPUT_TYPE,
									typeVersion: 1,
									parameters: {},
								},
								...nodes,
							],
							connections: {
								'Before the sheet': { main: [[{ node: from, type: 'main', index: 0 }]] },
								...Object.fromEntries(
									path
										.slice(0, -1)
										.map((name) => [name, { main: [workflow.connections[name].main[0]] }]),
								),
							},
						} as WorkflowJson,
						{
							startNode: 'Before the sheet',
							nodeTypes: {
								...nodeTypes,
								[HARNESS_INPUT_TYPE]: createHarnessInput([{ json: input }]),
							},
						},
					);
					expect({ row: n, error: result.error?.message }).toEqual({ row: n, error: undefined });
					// What the sheet node wrote: the item (auto-map) or the row it mapped (map below).
					written.push(result.outputOf(sheetsNode)[0].json);
				}
				const rows = spreadsheet.rows(sheetName);
				expect(rows).toHaveLength(ROWS + 1);
				const columns = rows[0] as string[];
				// Row 1 names every field a row brought, the first row's in its order, then each
				// field that came later (a Prompt added to the Agent) as a new column at the end:
				// no value left out, no column typed by hand.
				const fields = [...new Set(written.flatMap((json) => Object.keys(json)))];
				expect(columns).toEqual(header ?? fields);
				if (!header)
					expect(columns.slice(0, Object.keys(written[0]).length)).toEqual(Object.keys(written[0]));
				const trimmed = (cells: unknown[]) => {
					const copy = cells.map((cell) => cell ?? '');
					while (copy.length && copy[copy.length - 1] === '') copy.pop();
					return copy;
				};
				for (const [index, json] of written.entries())
					expect({ row: index + 2, cells: trimmed(rows[index + 1]) }).toEqual({
						row: index + 2,
						cells: trimmed(columns.map((column) => json[column] ?? '')),
					});
			},
			120_000,
		);
	});
});
