/**
 * The Gmail example (examples/gmail-invoices-to-google-sheets.json) as it is, its own nodes,
 * connections and expressions, with stand-ins only where a Google account is needed, as
 * test/e2e/gmail-example.ts does for two emails:
 * - a Webhook and a Code node named as the example's Gmail Trigger: each call is one poll of
 *   the mailbox, its emails as the Gmail Trigger gives them (Simplify off, attachments
 *   downloaded as attachment_0, attachment_1…, the email's HTML with its inline logo);
 * - each Google Sheets node becomes a Convert to File node of its name (each item to its own
 *   JSON file) and a Read/Write Files node that writes the file under sheets/<sheet name>/ in
 *   n8n's files folder: one file per row, the item as the sheet's auto-mapped row.
 *
 * Why files on disk as the sheet: the rows must outlast executions and an n8n restart, and be
 * read back whatever their columns. n8n's Data Table node keeps rows in n8n's database but
 * writes only into columns the table already has (no "first row names the columns", as the
 * example's Sheets append does), so each new Prompt column would need setting up beforehand; a
 * Code node's workflow static data is one object that concurrent executions overwrite, and
 * task runners hand it back only in some versions. A file per row is written by n8n's own
 * nodes, never overwritten, and is still there after the restart.
 *
 * Nothing else is changed: any node the example gains (a Remove Duplicates before Create Run,
 * an If after it) runs as the example has it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	INVOICES_AGENT_ID,
	webhook,
	type NodeJson,
	type WorkflowJson,
} from '../../../dev/n8n/workflows';
import { bytesOf, type WeekEmail } from './generate';

export const WEEK_WORKFLOW = {
	id: 'eaE2eWeekGmail01',
	webhookPath: 'e2e-week-gmail',
	example: path.resolve(
		__dirname,
		'..',
		'..',
		'..',
		'examples',
		'gmail-invoices-to-google-sheets.json',
	),
	/** Under n8n's files folder (N8N_RESTRICT_FILE_ACCESS_TO). */
	sheetsFolder: 'sheets',
} as const;

export type Grouping = 'item' | 'file';

/** Where a sheet's rows go: a result sheet or the review sheet (its name says "review"). */
export interface SheetStandIn {
	node: string;
	sheetName: string;
	review: boolean;
	folder: string;
}

export function readExample(file: string = WEEK_WORKFLOW.example): WorkflowJson {
	return JSON.parse(fs.readFileSync(file, 'utf8')) as WorkflowJson;
}

/** The example's Run → Create node. */
export function createRunNode(example: WorkflowJson): NodeJson {
	const node = example.nodes.find(
		(n) =>
			n.type === ACTION_TYPE &&
			(n.parameters.resource ?? 'run') === 'run' &&
			n.parameters.operation === 'create',
	);
	if (!node) throw new Error(`${example.name}: no Extraction Agents node creating Runs`);
	return node;
}

function findKey(value: unknown, key: string): unknown {
	if (!value || typeof value !== 'object') return undefined;
	if (key in (value as Record<string, unknown>)) return (value as Record<string, unknown>)[key];
	for (const inner of Object.values(value as Record<string, unknown>)) {
		const found = findKey(inner, key);
		if (found !== undefined) return found;
	}
	return undefined;
}

/**
 * How the example groups an email's files into Runs: its `filesPerRun` where it sets one, else
 * the default of its node version (one Run per file from 1.5, one Run per email before).
 */
export function groupingOf(example: WorkflowJson): Grouping {
	const node = createRunNode(example);
	const set = findKey(node.parameters, 'filesPerRun');
	if (set === 'item' || set === 'file') return set;
	return node.typeVersion >= 1.5 ? 'file' : 'item';
}

/** Whether the Gmail Trigger gives only emails with attachments (its search has has:attachment). */
export function onlyWithAttachments(example: WorkflowJson): boolean {
	const trigger = example.nodes.find((n) => n.type === 'n8n-nodes-base.gmailTrigger');
	return /has:attachment/.test(String(findKey(trigger?.parameters, 'q') ?? ''));
}

/** Names of the nodes reached from the Run → Create node's error output (its second output). */
function afterErrorOutput(example: WorkflowJson): Set<string> {
	const reached = new Set<string>();
	const queue = (example.connections[createRunNode(example).name]?.main?.[1] ?? []).map(
		(c) => c.node,
	);
	while (queue.length > 0) {
		const name = queue.shift()!;
		if (reached.has(name)) continue;
		reached.add(name);
		for (const output of example.connections[name]?.main ?? [])
			for (const c of output ?? []) queue.push(c.node);
	}
	return reached;
}

/**
 * The example's sheets: a review sheet is one its Run → Create node's error output leads to,
 * or one whose name says "review" (a partly read document routed there by an If node, say).
 */
export function sheetStandIns(example: WorkflowJson, filesDir: string): SheetStandIn[] {
	const fromErrors = afterErrorOutput(example);
	return example.nodes
		.filter((n) => n.type === 'n8n-nodes-base.googleSheets')
		.map((n) => {
			const sheetName = String(
				(n.parameters.sheetName as { value?: unknown } | undefined)?.value ?? n.name,
			);
			return {
				node: n.name,
				sheetName,
				review: fromErrors.has(n.name) || /review/i.test(sheetName),
				folder: path.join(filesDir, WEEK_WORKFLOW.sheetsFolder, sheetName.replace(/[^\w -]/g, '_')),
			};
		});
}

/** The poll's emails as the webhook's body. */
export function pollBody(emails: WeekEmail[]) {
	return {
		emails: emails.map((email) => ({
			id: email.id,
			date: new Date(email.receivedMs).toISOString(),
			subject: email.subject,
			from: email.from,
			html: email.html,
			files: email.files.map((file) => ({
				name: file.name,
				mimeType: file.mimeType,
				base64: bytesOf(file).toString('base64'),
			})),
		})),
	};
}

/** The Code node standing in for the Gmail Trigger: one item per email of the poll. */
const FEED_CODE = [
	"const { emails } = $('Webhook').first().json.body;",
	'return emails.map((email) => {',
	'  const binary = {};',
	'  email.files.forEach((file, i) => {',
	"    binary[`attachment_${i}`] = { data: file.base64, mimeType: file.mimeType, fileName: file.name, fileExtension: file.name.split('.').pop() };",
	'  });',
	'  const from = { text: email.from, value: [{ address: email.from, name: "" }], html: email.from };',
	'  return {',
	'    json: {',
	'      id: email.id, threadId: email.id, labelIds: ["INBOX", "UNREAD"], date: email.date,',
	'      subject: email.subject, from, to: { text: "accounts@example.com", value: [{ address: "accounts@example.com", name: "" }] },',
	"      html: email.html, text: 'Hello, please find attached our documents.', textAsHtml: email.html,",
	'      messageId: `<${email.id}@mail.example>`,',
	'    },',
	'    binary,',
	'  };',
	'});',
].join('\n');

export function weekWorkflow(options: {
	example?: WorkflowJson;
	filesDir: string;
	agentId?: number;
}): WorkflowJson {
	const example = options.example ?? readExample();
	const trigger = example.nodes.find((n) => n.type === 'n8n-nodes-base.gmailTrigger');
	if (!trigger) throw new Error(`${example.name}: no Gmail Trigger`);
	const create = createRunNode(example);
	const sheets = sheetStandIns(example, options.filesDir);
	const nodes: NodeJson[] = [];
	const connections: WorkflowJson['connections'] = { ...example.connections };
	for (const node of example.nodes) {
		if (node.name === trigger.name) {
			nodes.push({
				id: node.id,
				name: node.name,
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: node.position,
				parameters: { jsCode: FEED_CODE },
			});
			continue;
		}
		const sheet = sheets.find((s) => s.node === node.name);
		if (sheet) {
			// Two nodes may append to one sheet: the node's place in the list keeps their files apart.
			const writerIndex = sheets.indexOf(sheet);
			const writer = `${node.name} (row file)`;
			nodes.push(
				{
					id: node.id,
					name: node.name,
					type: 'n8n-nodes-base.convertToFile',
					typeVersion: 1.1,
					position: node.position,
					parameters: {
						operation: 'toJson',
						mode: 'each',
						binaryPropertyName: 'data',
						options: {},
					},
				},
				{
					id: `${node.id}-write`,
					name: writer,
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					position: [node.position[0] + 220, node.position[1]],
					parameters: {
						operation: 'write',
						// One file per row: the execution and the item make it unique, never overwritten.
						fileName: `=${sheet.folder.replace(/\\/g, '/')}/{{ $execution.id }}-${writerIndex}-{{ String($itemIndex).padStart(3, '0') }}.json`,
						dataPropertyName: 'data',
						options: {},
					},
				},
			);
			if (connections[node.name]) connections[writer] = connections[node.name];
			connections[node.name] = { main: [[{ node: writer, type: 'main', index: 0 }]] };
			continue;
		}
		if (node.name === create.name) {
			nodes.push({
				...node,
				credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				parameters: {
					...node.parameters,
					agent: {
						__rl: true,
						mode: 'id',
						value: String(options.agentId ?? INVOICES_AGENT_ID),
					},
				},
			});
			continue;
		}
		nodes.push(node);
	}
	const hook = webhook(
		'Webhook',
		WEEK_WORKFLOW.webhookPath,
		'7a3f1c55-2e0b-4d5e-9a61-0e2e00000043',
		'allEntries',
	);
	// The call answers once the execution has ended: one poll at a time, as the trigger polls.
	hook.parameters.responseMode = 'lastNode';
	hook.position = [trigger.position[0] - 240, trigger.position[1]];
	connections.Webhook = { main: [[{ node: trigger.name, type: 'main', index: 0 }]] };
	return {
		...example,
		id: WEEK_WORKFLOW.id,
		name: 'E2E: a generated week through the Gmail example (Gmail and Sheets stood in for)',
		active: false,
		nodes: [hook, ...nodes],
		connections,
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

/** The rows a sheet stand-in holds, in the order they were written. */
export function rowsOf(sheet: SheetStandIn): Array<Record<string, unknown>> {
	if (!fs.existsSync(sheet.folder)) return [];
	return fs
		.readdirSync(sheet.folder)
		.filter((name) => name.endsWith('.json'))
		.sort((a, b) => {
			const [ea, na, ia] = a
				.replace(/\.json$/, '')
				.split('-')
				.map(Number);
			const [eb, nb, ib] = b
				.replace(/\.json$/, '')
				.split('-')
				.map(Number);
			return ea - eb || na - nb || ia - ib;
		})
		.map(
			(name) =>
				JSON.parse(fs.readFileSync(path.join(sheet.folder, name), 'utf8')) as Record<
					string,
					unknown
				>,
		);
}
