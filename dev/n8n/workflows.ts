/**
 * Credential and workflows imported into the real n8n by the E2E suite and by `npm run demo`.
 * Node types are those of the installed community package: `<package name>.<node name>`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PACKAGE_NAME = 'n8n-nodes-extraction-agents';
export const ACTION_TYPE = `${PACKAGE_NAME}.extractionAgents`;
export const TRIGGER_TYPE = `${PACKAGE_NAME}.extractionAgentsTrigger`;

export const CREDENTIAL_ID = 'eaCredential0001';
export const CREDENTIAL_NAME = 'Extraction Agents account';

export const WORKFLOW_IDS = {
	headline: 'eaExampleInvoice',
	runAndRender: 'eaE2eRunRender01',
	usage: 'eaE2eUsageAll001',
	trigger: 'eaE2eTriggerRun1',
	triggerAll: 'eaE2eTriggerAll1',
} as const;

export const WEBHOOK_PATHS = {
	headline: 'extraction-agents-invoices',
	runAndRender: 'e2e-run-and-render',
	usage: 'e2e-usage',
} as const;

/** The Invoices Agent of the emulator's demo data and its Excel template. */
export const INVOICES_AGENT_ID = 1;
export const INVOICE_LINES_TEMPLATE_ID = 12;
/** The trigger watches another Agent, so the Runs the other workflows create do not reach it. */
export const TRIGGER_AGENT_ID = 2;

export interface NodeJson {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
}

export interface WorkflowJson {
	id: string;
	name: string;
	active: boolean;
	nodes: NodeJson[];
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: 'main'; index: number }>> }
	>;
	settings: Record<string, unknown>;
	pinData: Record<string, unknown>;
	tags?: unknown[];
}

export function credentialJson(
	baseUrl: string,
	apiKey: string,
	name = CREDENTIAL_NAME,
	id = CREDENTIAL_ID,
) {
	return { id, name, type: 'extractionAgentsApi', data: { apiKey, baseUrl } };
}

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
const agent = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });

export function chain(...names: string[]): WorkflowJson['connections'] {
	const connections: WorkflowJson['connections'] = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

export function workflow(
	id: string,
	name: string,
	nodes: NodeJson[],
	connections: WorkflowJson['connections'],
): WorkflowJson {
	return {
		id,
		name,
		active: false,
		nodes,
		connections,
		settings: {
			executionOrder: 'v1',
			saveManualExecutions: true,
			saveDataSuccessExecution: 'all',
			saveDataErrorExecution: 'all',
		},
		pinData: {},
	};
}

export function webhook(
	name: string,
	path: string,
	webhookId: string,
	responseData: 'allEntries' | 'firstEntryBinary',
	binaryField?: string,
): NodeJson {
	return {
		id: `${webhookId}-node`,
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData,
			...(binaryField ? { responseBinaryPropertyName: binaryField } : {}),
			options: {},
		},
	};
}

function createRunNode(
	name: string,
	position: [number, number],
	parameters: Record<string, unknown>,
): NodeJson {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-node`,
		name,
		type: ACTION_TYPE,
		typeVersion: 1,
		position,
		credentials,
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: agent(INVOICES_AGENT_ID),
			waitForCompletion: true,
			timeoutMinutes: 2,
			simplify: true,
			output: 'run',
			additionalFields: {},
			...parameters,
		},
	};
}

function downloadXlsxNode(
	name: string,
	position: [number, number],
	binaryPropertyName: string,
): NodeJson {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-node`,
		name,
		type: ACTION_TYPE,
		typeVersion: 1,
		position,
		credentials,
		parameters: {
			resource: 'run',
			operation: 'downloadTemplatedOutput',
			agent: agent(INVOICES_AGENT_ID),
			run: { __rl: true, mode: 'id', value: '={{ $json.run_id }}' },
			outputTemplate: INVOICE_LINES_TEMPLATE_ID,
			format: 'xlsx',
			binaryPropertyName,
		},
	};
}

/** A tiny but well-formed one-page PDF whose text is `text`. */
export function samplePdf(text: string): Buffer {
	const stream = `BT /F1 14 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
	];
	let body = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((object, i) => {
		offsets.push(body.length);
		body += `${i + 1} 0 obj\n${object}\nendobj\n`;
	});
	const xref = body.length;
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(body, 'latin1');
}

export const E2E_FILES = [
	{
		field: 'invoice_a',
		fileName: 'invoice-2026-001.pdf',
		text: 'Invoice 2026-001 ACME Supplies total 1,250.00 EUR',
	},
	{
		field: 'invoice_b',
		fileName: 'invoice-2026-002.pdf',
		text: 'Invoice 2026-002 Globex Parts total 980.40 EUR',
	},
];

/**
 * (b)+(c): Webhook → Code (one item with two PDF files) → Create Run (all binary fields, wait)
 * → Download Templated Output (Invoice lines.xlsx as XLSX). The webhook answers with the file.
 */
export function runAndRenderWorkflow(): WorkflowJson {
	const files = E2E_FILES.map((f) => ({ ...f, base64: samplePdf(f.text).toString('base64') }));
	const jsCode = [
		`const files = ${JSON.stringify(files.map(({ field, fileName, base64 }) => ({ field, fileName, base64 })))};`,
		'const binary = {};',
		"for (const f of files) binary[f.field] = { data: f.base64, mimeType: 'application/pdf', fileName: f.fileName, fileExtension: 'pdf' };",
		"return [{ json: { source: 'e2e' }, binary }];",
	].join('\n');
	return workflow(
		WORKFLOW_IDS.runAndRender,
		'E2E: Create Run with two files and render XLSX',
		[
			webhook(
				'Webhook',
				WEBHOOK_PATHS.runAndRender,
				'5b0c8a43-5a8e-4c55-9f39-0e2e00000001',
				'firstEntryBinary',
				'xlsx',
			),
			{
				id: 'code-two-files',
				name: 'Two PDF files',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode },
			},
			createRunNode('Create Run', [440, 0], { binarySource: 'all' }),
			downloadXlsxNode('Download XLSX', [660, 0], 'xlsx'),
		],
		chain('Webhook', 'Two PDF files', 'Create Run', 'Download XLSX'),
	);
}

/** (d): Webhook → Usage → Get Many (Return All). The webhook answers with every record. */
export function usageWorkflow({
	id = WORKFLOW_IDS.usage as string,
	name = 'E2E: Usage, return all',
} = {}): WorkflowJson {
	return workflow(
		id,
		name,
		[
			webhook('Webhook', WEBHOOK_PATHS.usage, '5b0c8a43-5a8e-4c55-9f39-0e2e00000002', 'allEntries'),
			{
				id: 'usage-all',
				name: 'Usage',
				type: ACTION_TYPE,
				typeVersion: 1,
				position: [220, 0],
				credentials,
				parameters: { resource: 'usage', operation: 'getAll', returnAll: true, filters: {} },
			},
		],
		chain('Webhook', 'Usage'),
	);
}

/**
 * Poll times for the trigger. n8n refuses a poll interval under a minute, so a fast test lists
 * several once-a-minute times (each at a fixed second): a poll every `everySeconds`.
 */
export function pollTimesEvery(everySeconds: number | 'minute') {
	if (everySeconds === 'minute') return { item: [{ mode: 'everyMinute' }] };
	const item = [];
	for (let second = 0; second < 60; second += everySeconds)
		item.push({ mode: 'custom', cronExpression: `${second} * * * * *` });
	return { item };
}

/** (e): Extraction Agents Trigger (Runs of one Agent that finish) → No Operation. Published. */
export function triggerWorkflow(
	pollTimes: ReturnType<typeof pollTimesEvery>,
	{
		id = WORKFLOW_IDS.trigger as string,
		name = 'E2E: Trigger on finished Runs',
		agentId = TRIGGER_AGENT_ID as number,
		includeFullRun = true,
		agentScope = 'one' as 'one' | 'all',
		/** 1.1 puts Include Full Run and When Reactivated under Options. */
		typeVersion = 1 as 1 | 1.1,
		onReactivation = 'emit' as 'emit' | 'skip',
		simplify = true,
		/** The Extraction Agents credential (id and name) the trigger uses. */
		credential = credentials.extractionAgentsApi,
	} = {},
): WorkflowJson {
	const settings =
		typeVersion === 1
			? { includeFullRun, onReactivation }
			: { options: { includeFullRun, onReactivation } };
	return workflow(
		id,
		name,
		[
			{
				id: 'trigger-runs',
				name: 'Run finished',
				type: TRIGGER_TYPE,
				typeVersion,
				position: [0, 0],
				credentials: { extractionAgentsApi: credential },
				parameters: {
					pollTimes,
					agentScope,
					...(agentScope === 'one' ? { agent: agent(agentId) } : {}),
					statuses: ['success', 'failed'],
					simplify,
					...settings,
				},
			},
			{
				id: 'noop',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		chain('Run finished', 'Received'),
	);
}

/**
 * The headline example: invoices in a folder → one Run per file (wait for the results) →
 * "Invoice lines" rendered as XLSX → written next to them. Starts from the editor's
 * "Execute workflow" button or from its webhook (what the demo calls headlessly).
 */
export function headlineWorkflow(options: { inputDir: string; outputDir: string }): WorkflowJson {
	const manual: NodeJson = {
		id: 'manual-trigger',
		name: 'When clicking ‘Execute workflow’',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, -100],
		parameters: {},
	};
	const hook = webhook(
		'Webhook',
		WEBHOOK_PATHS.headline,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000003',
		'allEntries',
	);
	hook.position = [0, 100];
	const read: NodeJson = {
		id: 'read-invoices',
		name: 'Read invoice PDFs',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [240, 0],
		parameters: {
			operation: 'read',
			fileSelector: `${options.inputDir.replace(/\\/g, '/')}/*.pdf`,
			options: {},
		},
	};
	const write: NodeJson = {
		id: 'write-xlsx',
		name: 'Write XLSX to disk',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: [960, 0],
		parameters: {
			operation: 'write',
			fileName: `=${options.outputDir.replace(/\\/g, '/')}/{{ $binary.xlsx.fileName }}`,
			dataPropertyName: 'xlsx',
			options: {},
		},
	};
	const connections = chain(
		'Read invoice PDFs',
		'Extract with the Invoices Agent',
		'Render Invoice lines (XLSX)',
		'Write XLSX to disk',
	);
	connections[manual.name] = { main: [[{ node: read.name, type: 'main', index: 0 }]] };
	connections[hook.name] = { main: [[{ node: read.name, type: 'main', index: 0 }]] };
	return workflow(
		WORKFLOW_IDS.headline,
		'Example: Extract invoices and render Invoice lines (XLSX)',
		[
			manual,
			hook,
			read,
			createRunNode('Extract with the Invoices Agent', [480, 0], {
				binarySource: 'fields',
				binaryPropertyName: 'data',
				timeoutMinutes: 10,
			}),
			downloadXlsxNode('Render Invoice lines (XLSX)', [720, 0], 'xlsx'),
			write,
		],
		connections,
	);
}

/**
 * The package's examples/*.json as imported into the demo's and the E2E suite's n8n: each gets a
 * fixed id, and its Extraction Agents credential is the one pointing at the emulator (other
 * services' credentials stay unset, as for a user who imports the file).
 */
export function exampleWorkflows(
	examplesDir = path.resolve(__dirname, '..', '..', 'examples'),
): WorkflowJson[] {
	if (!fs.existsSync(examplesDir)) return [];
	return fs
		.readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file, index) => {
			const source = JSON.parse(
				fs.readFileSync(path.join(examplesDir, file), 'utf8'),
			) as WorkflowJson & { meta?: unknown };
			const nodes = source.nodes.map((node) =>
				node.credentials?.extractionAgentsApi
					? { ...node, credentials: { ...node.credentials, ...credentials } }
					: node,
			);
			return {
				...source,
				id: `eaExampleFile${String(index + 1).padStart(3, '0')}`,
				active: false,
				nodes,
				settings: source.settings ?? {},
				pinData: source.pinData ?? {},
				tags: [],
			};
		});
}
