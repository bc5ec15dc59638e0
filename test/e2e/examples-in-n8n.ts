/**
 * The examples of examples/ that read files, run in real n8n with their own nodes and
 * connections. The Form example runs as it is: n8n's Form Trigger receives the upload and n8n's
 * Form node shows the last page. The others get stand-ins only where a Google, Microsoft or
 * Slack account is needed: a Webhook and a Code node named as the trigger give the documents as
 * that trigger does (files included), and each Google Sheets, Google Drive, Excel or Slack node
 * becomes a No Operation node of the same name (what reaches it is what that service gets).
 * In every one a document named UNREADABLE_PDF gets a Run the emulator ends `failed`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	INVOICES_AGENT_ID,
	samplePdf,
	webhook,
	type NodeJson,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

export const UNREADABLE_PDF = 'blurred-scan.pdf';
const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const SERVICE_NODE_TYPES = new Set([
	'n8n-nodes-base.googleSheets',
	'n8n-nodes-base.googleDrive',
	'n8n-nodes-base.microsoftExcel',
	'n8n-nodes-base.slack',
]);

function loadExample(file: string): WorkflowJson {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')) as WorkflowJson;
}

/** Our node with the suite's credential and the demo Agent "Invoices" picked. */
function withAgentPicked(node: NodeJson): NodeJson {
	return {
		...node,
		credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		parameters: {
			...node.parameters,
			agent: { __rl: true, mode: 'id', value: String(INVOICES_AGENT_ID) },
		},
	};
}

const settings = (example: WorkflowJson) => ({
	...example.settings,
	saveManualExecutions: true,
	saveDataSuccessExecution: 'all',
	saveDataErrorExecution: 'all',
});

/**
 * The Form example as users import it, with the Agent picked; its form at `/form/<formPath>`
 * (the imported examples/ copy, never published, keeps its own).
 */
export const FORM_EXAMPLE = {
	workflowId: 'eaE2eFormExampl1',
	file: 'form-upload-shows-extracted-values.json',
	formPath: '5b0c8a43-5a8e-4c55-9f39-0e2e00000040',
} as const;

export function formExampleWorkflow(): WorkflowJson {
	const example = loadExample(FORM_EXAMPLE.file);
	return {
		...example,
		id: FORM_EXAMPLE.workflowId,
		name: 'E2E: the Form example as it is',
		active: false,
		nodes: example.nodes.map((node) => {
			if (node.credentials?.extractionAgentsApi) return withAgentPicked(node);
			if (node.type === 'n8n-nodes-base.formTrigger')
				return { ...node, webhookId: FORM_EXAMPLE.formPath };
			return node;
		}),
		settings: settings(example),
		pinData: {},
		tags: [],
	};
}

/** An example whose trigger and service nodes are stood in for; `documents` per trigger item. */
export interface StandInExample {
	workflowId: string;
	webhookPath: string;
	file: string;
	/** What the trigger gives per document: its JSON; the file goes into `binaryField`. */
	documents: Array<{ json: Record<string, unknown>; fileName?: string }>;
	binaryField: string;
	webhookId: string;
}

export const STAND_IN_EXAMPLES: StandInExample[] = [
	{
		workflowId: 'eaE2eDriveExamp1',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2e00000030',
		webhookPath: 'e2e-drive-example',
		file: 'google-drive-new-files-to-google-sheets.json',
		binaryField: 'data',
		documents: ['INV-7001.pdf', UNREADABLE_PDF].map((name, i) => ({
			json: { id: `drive-file-${i}`, name, mimeType: 'application/pdf' },
			fileName: name,
		})),
	},
	{
		workflowId: 'eaE2eOutlookExa1',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2e00000031',
		webhookPath: 'e2e-outlook-example',
		file: 'outlook-invoices-to-excel-365.json',
		binaryField: 'attachment_0',
		documents: ['INV-8001.pdf', UNREADABLE_PDF].map((name, i) => ({
			json: {
				id: `AAMk-${i}`,
				subject: `Invoice ${i}`,
				from: 'billing@vendor.example',
				to: ['ap@example.com'],
				hasAttachments: true,
			},
			fileName: name,
		})),
	},
	{
		workflowId: 'eaE2eSlackExamp1',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2e00000032',
		webhookPath: 'e2e-slack-example',
		file: 'failed-documents-alert-in-slack.json',
		binaryField: 'attachment_0',
		documents: ['INV-3001.pdf', UNREADABLE_PDF].map((name, i) => ({
			json: {
				id: `18f2c0ffee00a00${i}`,
				subject: `Invoice ${i}`,
				date: '2026-11-25T09:14:00.000Z',
				from: { text: 'billing@vendor.example' },
			},
			fileName: name,
		})),
	},
	{
		workflowId: 'eaE2eLinesExamp1',
		webhookId: '5b0c8a43-5a8e-4c55-9f39-0e2e00000033',
		webhookPath: 'e2e-lines-example',
		file: 'invoice-line-items-to-google-sheets.json',
		binaryField: 'attachment_0',
		documents: [
			{
				json: {
					id: '18f2c0ffee00b001',
					subject: 'Invoice',
					date: '2026-11-25T09:14:00.000Z',
					from: { text: 'billing@vendor.example' },
				},
				fileName: 'INV-5001.pdf',
			},
		],
	},
];

export function standInExampleWorkflow(spec: StandInExample): WorkflowJson {
	const example = loadExample(spec.file);
	const trigger = example.nodes.find((node) => /Trigger$/.test(node.type))!;
	const documents = spec.documents.map((document) => ({
		json: document.json,
		file: document.fileName
			? { name: document.fileName, base64: samplePdf(document.fileName).toString('base64') }
			: undefined,
	}));
	const jsCode = [
		`const documents = ${JSON.stringify(documents)};`,
		`return documents.map((d) => d.file ? { json: d.json, binary: { ${JSON.stringify(spec.binaryField)}: { data: d.file.base64, mimeType: 'application/pdf', fileName: d.file.name, fileExtension: 'pdf' } } } : { json: d.json });`,
	].join('\n');
	const standIn = (node: NodeJson): NodeJson => {
		if (node.name === trigger.name)
			return {
				id: node.id,
				name: node.name,
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: node.position,
				parameters: { jsCode },
			};
		if (SERVICE_NODE_TYPES.has(node.type))
			return {
				id: node.id,
				name: node.name,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: node.position,
				parameters: {},
			};
		return node.credentials?.extractionAgentsApi ? withAgentPicked(node) : node;
	};
	const hook = webhook('Webhook', spec.webhookPath, spec.webhookId, 'allEntries');
	hook.parameters.responseMode = 'onReceived';
	hook.position = [-240, 0];
	return {
		...example,
		id: spec.workflowId,
		name: `E2E: ${example.name} (stand-ins for Google, Microsoft and Slack)`,
		active: false,
		nodes: [hook, ...example.nodes.map(standIn)],
		connections: {
			...example.connections,
			Webhook: { main: [[{ node: trigger.name, type: 'main', index: 0 }]] },
		},
		settings: settings(example),
		pinData: {},
		tags: [],
	};
}

/** A form submission as the browser sends it: the file in the form's first field. */
export function formSubmission(fileName: string): FormData {
	const body = new FormData();
	body.append('field-0', new Blob([samplePdf(fileName)], { type: 'application/pdf' }), fileName);
	return body;
}
