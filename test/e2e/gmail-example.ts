/**
 * The Gmail example (examples/gmail-invoices-to-google-sheets.json) in real n8n, its own nodes
 * and connections, with stand-ins only where a Google account is needed: a Webhook and a Code
 * node named *Gmail Trigger* give two emails as n8n's Gmail Trigger does (Simplify off,
 * attachments downloaded), and the two Google Sheets nodes are No Operation nodes of the same
 * names (what reaches them is the row the sheet gets). *Extract invoice data* and *Row for
 * review* are the example's. One email's Run is made to end `failed` in the emulator (by its
 * file name, test/node/fixtures.ts shapeRunsByFileName): it must reach *Needs review*.
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

export const GMAIL_EXAMPLE = {
	workflowId: 'eaE2eGmailEx0001',
	webhookPath: 'e2e-gmail-example',
	file: path.resolve(__dirname, '..', '..', 'examples', 'gmail-invoices-to-google-sheets.json'),
	emails: [
		{ id: '18f2c0ffee00e2e1', subject: 'Invoices March', pdfs: ['INV-3001.pdf', 'INV-3002.pdf'] },
		{ id: '18f2c0ffee00e2e2', subject: 'Scanned invoice', pdfs: ['blurred-scan.pdf'] },
	],
	/** The file whose Run the emulator ends `failed`. */
	failingPdf: 'blurred-scan.pdf',
	trigger: 'Gmail Trigger',
	extract: 'Extract invoice data',
	reviewRow: 'Row for review',
	invoicesSheet: 'Add row to Invoices',
	reviewSheet: 'Add row to Needs review',
} as const;

export function gmailExampleWorkflow(): WorkflowJson {
	const example = JSON.parse(fs.readFileSync(GMAIL_EXAMPLE.file, 'utf8')) as WorkflowJson;
	const emails = GMAIL_EXAMPLE.emails.map((email) => ({
		id: email.id,
		subject: email.subject,
		pdfs: email.pdfs.map((name) => ({
			name,
			base64: samplePdf(`${email.subject}: ${name}`).toString('base64'),
		})),
	}));
	const jsCode = [
		`const emails = ${JSON.stringify(emails)};`,
		'return emails.map((email) => {',
		'  const binary = {};',
		"  email.pdfs.forEach((pdf, i) => { binary[`attachment_${i}`] = { data: pdf.base64, mimeType: 'application/pdf', fileName: pdf.name, fileExtension: 'pdf' }; });",
		"  return { json: { id: email.id, threadId: email.id, date: '2026-11-25T09:14:00.000Z', subject: email.subject, from: { text: 'billing@vendor.example', value: [{ address: 'billing@vendor.example', name: '' }] } }, binary };",
		'});',
	].join('\n');
	const standIn = (node: NodeJson): NodeJson => {
		if (node.name === GMAIL_EXAMPLE.trigger)
			return {
				id: node.id,
				name: node.name,
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: node.position,
				parameters: { jsCode },
			};
		if (node.name === GMAIL_EXAMPLE.invoicesSheet || node.name === GMAIL_EXAMPLE.reviewSheet)
			return {
				id: node.id,
				name: node.name,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: node.position,
				parameters: {},
			};
		if (node.name === GMAIL_EXAMPLE.extract)
			return {
				...node,
				credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				parameters: {
					...node.parameters,
					agent: { __rl: true, mode: 'id', value: String(INVOICES_AGENT_ID) },
				},
			};
		return node;
	};
	const hook = webhook(
		'Webhook',
		GMAIL_EXAMPLE.webhookPath,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000020',
		'allEntries',
	);
	hook.parameters.responseMode = 'onReceived';
	hook.position = [-240, 0];
	return {
		...example,
		id: GMAIL_EXAMPLE.workflowId,
		name: 'E2E: the Gmail example with a failed Run (Gmail and Sheets stood in for)',
		active: false,
		nodes: [hook, ...example.nodes.map(standIn)],
		connections: {
			...example.connections,
			Webhook: { main: [[{ node: GMAIL_EXAMPLE.trigger, type: 'main', index: 0 }]] },
		},
		settings: {
			...example.settings,
			saveManualExecutions: true,
			saveDataSuccessExecution: 'all',
			saveDataErrorExecution: 'all',
		},
		pinData: {},
		tags: [],
	};
}
