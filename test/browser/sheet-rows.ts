/**
 * The README's picture of the rows the Gmail example writes: the example's own nodes from
 * *Extract invoice data* on (ours against the emulator; n8n 2.41.1's Google Sheets and Edit
 * Fields nodes, Google's API answered by the in-memory spreadsheet of
 * test/examples/google-sheets.ts), fed a few invoice emails as Gmail Trigger gives them, one of
 * them a scan whose Run the emulator ends `failed`. What the spreadsheet then holds is drawn as
 * an HTML page that looks like Google Sheets, for sheet-rows.test.ts to photograph.
 */
import type { IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';
import type { Emulator } from '../../dev/emulator';
import { runWorkflow, type WorkflowJson } from '../../dev/harness';
import { HARNESS_INPUT_TYPE, createHarnessInput } from '../../dev/harness/nodes/HarnessInput.node';
import { samplePdf } from '../../dev/n8n/workflows';
import {
	InMemorySpreadsheet,
	installedGoogleSheetsNode,
	installedSetNode,
} from '../examples/google-sheets';
import { loadExample, nodeTypeStub, withDemoAgent } from '../examples/helpers';

/**
 * n8n's Remove Duplicates across executions needs n8n's own database: each email here is new,
 * so it passes every item on, as it does for an email not seen before.
 */
const EVERY_EMAIL_NEW: INodeType = {
	description: nodeTypeStub(
		'Remove Duplicates (every email new)',
		'n8n-nodes-base.removeDuplicates',
		[],
	),
	async execute(this: IExecuteFunctions) {
		return [this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }))];
	},
};

export const EXAMPLE_FILE = 'gmail-invoices-to-google-sheets.json';
export const SHEETS = { invoices: 'Invoices', review: 'Needs review' } as const;
const TRIGGER = 'Gmail Trigger';

/** The file of the email whose Run ends `failed`: the service reads none of its Prompts. */
export const FAILING_PDF = 'blurred-scan.pdf';

interface Email {
	id: string;
	date: string;
	from: string;
	subject: string;
	pdf: { name: string; text: string };
}

/**
 * Four emails, a few minutes apart. The emulator reads an invoice's number, date and vendor
 * from its file's name (dev/emulator/results.ts), as a real Agent reads them from the page.
 */
export const EMAILS: Email[] = [
	{
		id: '18e4f2a9c1d00a01',
		date: '2026-03-02T09:14:00.000Z',
		from: 'Acme GmbH <billing@acme.example>',
		subject: 'Invoice INV-30117',
		pdf: {
			name: 'Acme_INV-30117_2026-03-02.pdf',
			text: 'Acme GmbH - Invoice no. INV-30117 - Date 2026-03-02',
		},
	},
	{
		id: '18e4f2a9c1d00a02',
		date: '2026-03-05T14:02:00.000Z',
		from: 'Globex Corporation <ar@globex.example>',
		subject: 'Your invoice from Globex',
		pdf: {
			name: 'Globex_INV-88213_2026-03-05.pdf',
			text: 'Globex Corporation - Invoice INV-88213 - 2026-03-05',
		},
	},
	{
		id: '18e4f2a9c1d00a03',
		date: '2026-03-06T08:40:00.000Z',
		from: 'Umbrella Supplies <office@umbrella.example>',
		subject: 'Scanned invoice',
		pdf: { name: FAILING_PDF, text: 'a photo of a crumpled page, too blurred to read' },
	},
	{
		id: '18e4f2a9c1d00a04',
		date: '2026-03-09T11:27:00.000Z',
		from: 'Initech Ltd <accounts@initech.example>',
		subject: 'Invoice 4471',
		pdf: {
			name: 'Initech_invoice_4471_2026-03-09.pdf',
			text: 'Initech Ltd - Invoice 4471 - 2026-03-09',
		},
	},
];

/** What Gmail Trigger gives for an email with Simplify off and Download Attachments on. */
function gmailItem(email: Email) {
	const [, name, address] = /^(.*) <(.*)>$/.exec(email.from)!;
	return {
		json: {
			id: email.id,
			threadId: email.id,
			labelIds: ['UNREAD', 'INBOX'],
			date: email.date,
			subject: email.subject,
			from: { text: email.from, value: [{ address, name }] } as IDataObject,
			to: { text: 'invoices@example.com', value: [{ address: 'invoices@example.com', name: '' }] },
		},
		binary: {
			attachment_0: {
				data: samplePdf(email.pdf.text),
				fileName: email.pdf.name,
				mimeType: 'application/pdf',
			},
		},
	};
}

/**
 * Gives each email's Run the times a real one has (the emulator would stamp them with today's
 * clock, and the picture would change at every retake): created a minute after the email
 * arrived, read in 38 seconds; the scan's Run ends `failed` 6 seconds in, none of its Prompts
 * read. Done as each upload is handled, on the Runs that upload made.
 */
function timeRunsAsTheEmailsArrived(emulator: Emulator): void {
	const known = new Set(emulator.state.runs.keys());
	emulator.afterRequest(
		{ method: 'POST', path: /\/agents\/\d+\/runs$/ },
		() => {
			for (const run of emulator.state.runs.values()) {
				if (known.has(run.runId)) continue;
				known.add(run.runId);
				const email = EMAILS.find((candidate) => candidate.pdf.name === run.files[0]?.name);
				if (!email) continue;
				run.createdMs = Date.parse(email.date) + 60_000;
				run.durationMs = 38_000;
				if (email.pdf.name === FAILING_PDF)
					run.forced = { status: 'failed', atMs: run.createdMs + 6_000 };
			}
		},
		EMAILS.length,
	);
}

/** A sheet's cells as the Sheets API reads them back: text, row 1 first, no trailing blanks. */
export type CellGrid = string[][];

function cellGrid(rows: unknown[][]): CellGrid {
	return rows.map((row) =>
		row.map((cell) => (cell === undefined || cell === null ? '' : String(cell))),
	);
}

/**
 * Runs the example from *Extract invoice data* on, once per email (Gmail Trigger's poll finds one
 * new email at a time), into one spreadsheet with the two empty sheets its note asks for; returns
 * what each sheet then holds.
 */
export async function writeExampleSheets(
	emulator: Emulator,
): Promise<Record<keyof typeof SHEETS, CellGrid>> {
	const workflow = loadExample(EXAMPLE_FILE);
	const spreadsheet = new InMemorySpreadsheet([SHEETS.invoices, SHEETS.review]);
	const sheetsNode = installedGoogleSheetsNode(spreadsheet);
	const setNode = installedSetNode();
	if (!sheetsNode || !setNode) throw new Error('n8n 2.41.1 is not installed (dev/n8n/host.ts)');
	const nodes = workflow.nodes
		.filter((node) => node.type !== 'n8n-nodes-base.stickyNote' && node.name !== TRIGGER)
		.map((example) => {
			const node = structuredClone(example);
			// The harness gives our node its credential; Google's is not needed by the stand-in.
			delete node.credentials;
			if (node.type === 'n8n-nodes-base.googleSheets')
				node.parameters.documentId = { __rl: true, mode: 'id', value: 'spreadsheet-1' };
			if (node.name === 'Extract invoice data') node.parameters = withDemoAgent(node.parameters);
			return node;
		});
	timeRunsAsTheEmailsArrived(emulator);
	for (const email of EMAILS) {
		const result = await runWorkflow(
			{
				name: workflow.name,
				nodes: [
					{ name: TRIGGER, type: HARNESS_INPUT_TYPE, typeVersion: 1, parameters: {} },
					...nodes,
				],
				connections: workflow.connections,
				settings: workflow.settings,
			} as WorkflowJson,
			{
				credentials: { apiKey: emulator.keys.alice, baseUrl: emulator.url },
				startNode: TRIGGER,
				nodeTypes: {
					'n8n-nodes-base.googleSheets': sheetsNode,
					'n8n-nodes-base.set': setNode,
					'n8n-nodes-base.removeDuplicates': EVERY_EMAIL_NEW,
					[HARNESS_INPUT_TYPE]: createHarnessInput([gmailItem(email)]),
				},
			},
		);
		if (result.error)
			throw new Error(
				`The example failed on the email "${email.subject}": ${result.error.message}`,
			);
	}
	return {
		invoices: cellGrid(spreadsheet.rows(SHEETS.invoices)),
		review: cellGrid(spreadsheet.rows(SHEETS.review)),
	};
}

// ------------------------------------------------------------------------------------------
// The spreadsheet as a page: Google Sheets' grid, column letters, row numbers, sheet tabs
// ------------------------------------------------------------------------------------------

const escapeHtml = (text: string) =>
	text.replace(
		/[&<>"]/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string,
	);

function columnLetter(index: number): string {
	let letters = '';
	for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
		letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
	return letters;
}

/** How Google Sheets shows a value entered as the user would type it (USER_ENTERED). */
function cellClass(text: string, isHeader: boolean): string {
	if (isHeader) return 'header';
	if (/^-?\d+(\.\d+)?$/.test(text) || /^\d{4}-\d{2}-\d{2}$/.test(text)) return 'number';
	if (/^https?:\/\//.test(text)) return 'link';
	return '';
}

/**
 * A page showing `grid` as Google Sheets shows a sheet: column letters, row numbers, light gray
 * grid lines, row 1 bold (the column names the append wrote), numbers and dates to the right,
 * links underlined, the spreadsheet's sheet tabs below with `active` selected. Each column is as
 * wide as its content (Sheets' "Resize column: fit to data") up to `maxColumnWidth`, longer text
 * cut at the cell's edge as Sheets cuts it; the window is at most `maxWidth` pixels wide, so the
 * columns past it are out of view as in a browser window. One empty row follows the data.
 */
export function spreadsheetPage(
	grid: CellGrid,
	tabs: string[],
	active: string,
	{ maxWidth, maxColumnWidth }: { maxWidth: number; maxColumnWidth: number },
): string {
	const width = Math.max(...grid.map((row) => row.length));
	const rows = [
		...grid.map((row) => [...row, ...Array<string>(width - row.length).fill('')]),
		Array<string>(width).fill(''),
	];
	const head = `<tr><th class="corner"></th>${Array.from({ length: width }, (_, c) => `<th>${columnLetter(c)}</th>`).join('')}</tr>`;
	const body = rows
		.map(
			(row, r) =>
				`<tr><th class="row">${r + 1}</th>${row
					.map((cell) => `<td class="${cellClass(cell, r === 0)}">${escapeHtml(cell)}</td>`)
					.join('')}</tr>`,
		)
		.join('\n');
	const tabBar = tabs
		.map((tab) => `<span class="tab${tab === active ? ' active' : ''}">${escapeHtml(tab)}</span>`)
		.join('');
	return `<!doctype html>
<html><head><meta charset="utf-8"><style>
	body { margin: 0; background: #fff; font-family: Arial, "Liberation Sans", Helvetica, sans-serif; }
	#sheet { display: inline-block; border: 1px solid #c4c7c5; overflow: hidden; }
	table { border-collapse: collapse; font-size: 13px; color: #000; }
	th, td { height: 21px; padding: 0 5px; border: 1px solid #e1e1e1; white-space: pre; overflow: hidden; box-sizing: border-box; }
	td { text-align: left; }
	th { background: #f8f9fa; color: #444746; font-weight: normal; font-size: 11px; text-align: center; border-color: #c4c7c5; }
	th.row, th.corner { width: 40px; }
	td.header { font-weight: bold; }
	td.number { text-align: right; }
	td.link { color: #1155cc; text-decoration: underline; }
	#tabs { background: #f8f9fa; border-top: 1px solid #c4c7c5; padding: 4px 8px; font-size: 13px; color: #444746; white-space: nowrap; }
	.tab { display: inline-block; padding: 4px 14px; margin-right: 2px; border-radius: 4px; }
	.tab.active { background: #e1e9f7; color: #0b57d0; font-weight: bold; }
</style></head><body>
<div id="sheet"><table>
${head}
${body}
</table><div id="tabs">${tabBar}</div></div>
<script>
{
	// Fit each column to its widest cell (up to the cap), then fix the widths: longer text is cut.
	// (A block: a page written again into the same window keeps the globals of the last one.)
	const table = document.querySelector('table');
	const rows = Array.from(table.rows);
	const widths = Array.from(rows[0].cells).map((_, c) =>
		c === 0 ? 40 : Math.min(${maxColumnWidth}, Math.max(60, ...rows.map((row) => Math.ceil(row.cells[c].scrollWidth) + 2))),
	);
	const colgroup = document.createElement('colgroup');
	for (const w of widths) colgroup.appendChild(Object.assign(document.createElement('col'), { style: 'width:' + w + 'px' }));
	table.prepend(colgroup);
	table.style.tableLayout = 'fixed';
	table.style.width = widths.reduce((a, b) => a + b, 0) + 'px';
	document.getElementById('sheet').style.width = Math.min(${maxWidth}, table.offsetWidth) + 'px';
}
</script>
</body></html>`;
}
