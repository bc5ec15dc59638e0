/**
 * Sheet-ready output in real n8n: Webhook → Code (a purchase order for the Purchase orders
 * Agent, whose "Line items" is a list, and an invoice for the Invoices Agent, whose "Total
 * amount" is an object) → Extract Data From Files (node version 1.2, defaults) → n8n's own
 * Convert to File as CSV and XLSX, written to disk; and the same Runs as One Item per Prompt
 * Result rows, likewise. The test reads the four files and finds no `[object Object]` and no
 * JSON in any cell.
 */
import ExcelJS from 'exceljs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	samplePdf,
	webhook,
	workflow,
	type NodeJson,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

export const SHEET_READY_WORKFLOW_ID = 'eaE2eSheetReady1';
export const SHEET_READY_WEBHOOK_PATH = 'e2e-sheet-ready';
export const SHEET_READY_FILES = [
	'run-rows.csv',
	'run-rows.xlsx',
	'prompt-rows.csv',
	'prompt-rows.xlsx',
] as const;

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };

function node(
	name: string,
	type: string,
	typeVersion: number,
	position: [number, number],
	parameters: Record<string, unknown>,
): NodeJson {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-sheet-node`,
		name,
		type,
		typeVersion,
		position,
		parameters,
	};
}

export function sheetReadyWorkflow(outputDir: string): WorkflowJson {
	const documents = [
		{ agent: 4, fileName: 'PO-2026-17.pdf', text: 'Purchase order PO-2026-17 Widgets x 3' },
		{ agent: 1, fileName: 'INV-2026-88.pdf', text: 'Invoice INV-2026-88 total 412.00 EUR' },
	].map((doc) => ({ ...doc, base64: samplePdf(doc.text).toString('base64') }));
	const jsCode = [
		`const documents = ${JSON.stringify(documents.map(({ agent, fileName, base64 }) => ({ agent, fileName, base64 })))};`,
		"return documents.map((d) => ({ json: { agent: d.agent }, binary: { data: { data: d.base64, mimeType: 'application/pdf', fileName: d.fileName, fileExtension: 'pdf' } } }));",
	].join('\n');
	const hook = webhook(
		'Webhook',
		SHEET_READY_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000009',
		'allEntries',
	);
	hook.parameters.responseMode = 'onReceived';
	const dir = outputDir.replace(/\\/g, '/');
	const convertAndWrite = (prefix: string, from: [number, number]): NodeJson[] =>
		(['csv', 'xlsx'] as const).flatMap((format, index) => [
			node(
				`${prefix} as ${format}`,
				'n8n-nodes-base.convertToFile',
				1.1,
				[from[0], from[1] + index * 160],
				{
					operation: format,
					binaryPropertyName: 'data',
					options: {},
				},
			),
			node(
				`Write ${prefix} ${format}`,
				'n8n-nodes-base.readWriteFile',
				1,
				[from[0] + 220, from[1] + index * 160],
				{
					operation: 'write',
					fileName: `${dir}/${prefix}.${format}`,
					dataPropertyName: 'data',
					options: {},
				},
			),
		]);
	const extract: NodeJson = {
		...node('Extract Data From Files', ACTION_TYPE, 1.2, [440, 0], {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: '={{ $json.agent }}' },
		}),
		credentials,
	};
	const promptRows: NodeJson = {
		...node('Get Run as Prompt rows', ACTION_TYPE, 1.2, [660, 300], {
			resource: 'run',
			operation: 'get',
			agent: { __rl: true, mode: 'id', value: '={{ $json.agent_id }}' },
			run: { __rl: true, mode: 'id', value: '={{ $json.run_id }}' },
			output: 'promptResult',
		}),
		credentials,
	};
	const to = (name: string) => [{ node: name, type: 'main' as const, index: 0 }];
	return workflow(
		SHEET_READY_WORKFLOW_ID,
		'E2E: sheet-ready rows through Convert to File',
		[
			hook,
			node('Two documents', 'n8n-nodes-base.code', 2, [220, 0], { jsCode }),
			extract,
			promptRows,
			...convertAndWrite('run-rows', [880, -160]),
			...convertAndWrite('prompt-rows', [880, 300]),
		],
		{
			Webhook: { main: [to('Two documents')] },
			'Two documents': { main: [to('Extract Data From Files')] },
			'Extract Data From Files': {
				main: [
					[...to('run-rows as csv'), ...to('run-rows as xlsx'), ...to('Get Run as Prompt rows')],
				],
			},
			'Get Run as Prompt rows': {
				main: [[...to('prompt-rows as csv'), ...to('prompt-rows as xlsx')]],
			},
			'run-rows as csv': { main: [to('Write run-rows csv')] },
			'run-rows as xlsx': { main: [to('Write run-rows xlsx')] },
			'prompt-rows as csv': { main: [to('Write prompt-rows csv')] },
			'prompt-rows as xlsx': { main: [to('Write prompt-rows xlsx')] },
		},
	);
}

/** Cells of a CSV text (RFC 4180 quoting), row by row. */
export function csvRows(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const char = text[i];
		if (quoted) {
			if (char === '"' && text[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (char === '"') quoted = false;
			else cell += char;
		} else if (char === '"') quoted = true;
		else if (char === ',') {
			row.push(cell);
			cell = '';
		} else if (char === '\n' || char === '\r') {
			if (char === '\r' && text[i + 1] === '\n') i++;
			row.push(cell);
			rows.push(row);
			row = [];
			cell = '';
		} else cell += char;
	}
	if (cell !== '' || row.length > 0) {
		row.push(cell);
		rows.push(row);
	}
	return rows;
}

/** Every cell of the four files, as text, by file. */
export async function sheetReadyCells(outputDir: string): Promise<Record<string, string[][]>> {
	const cells: Record<string, string[][]> = {};
	for (const file of SHEET_READY_FILES) {
		const full = path.join(outputDir, file);
		if (file.endsWith('.csv')) {
			cells[file] = csvRows(fs.readFileSync(full, 'utf8'));
			continue;
		}
		const book = new ExcelJS.Workbook();
		await book.xlsx.readFile(full);
		const rows: string[][] = [];
		book.worksheets[0].eachRow((excelRow) => {
			rows.push(
				(excelRow.values as unknown[])
					.slice(1)
					.map((value) =>
						value === null || value === undefined
							? ''
							: typeof value === 'object' && 'text' in (value as object)
								? String((value as { text: unknown }).text)
								: typeof value === 'object' && !(value instanceof Date)
									? JSON.stringify(value)
									: String(value),
					),
			);
		});
		cells[file] = rows;
	}
	return cells;
}
