/**
 * Templated output: real files built from a Run's results (a table of Prompt name -> value).
 *
 * - Word or Excel template by filename extension (service note 24): Word allows docx/pdf, Excel xlsx/xlsm/csv.
 *   A template with another extension is "unknown": every format answers 422.
 * - docx via `docx`, pdf via `pdf-lib`, xlsx via `exceljs`; xlsm is an exceljs workbook whose main
 *   part content type is patched to the macro-enabled one (jszip); csv is the FIRST worksheet only
 *   (spec: "csv exports only the first worksheet of the Excel template").
 * - Response headers (service note 25): Content-Type of the format and Content-Disposition attachment with
 *   an ASCII fallback `filename` plus an RFC 5987 `filename*` for non-ASCII names.
 */
import type { TableCell as DocxTableCell } from 'docx';
import type { PDFFont } from 'pdf-lib';

/*
 * The document libraries are loaded on first use: exceljs alone takes about a second to load,
 * and most emulator users (every test file) never render a document.
 */
const lib = {
	docx: (): typeof import('docx') => require('docx'),
	exceljs: (): typeof import('exceljs') => require('exceljs'),
	jszip: (): typeof import('jszip') => require('jszip'),
	pdf: (): typeof import('pdf-lib') => require('pdf-lib'),
};

export const OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'xlsm', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export type TemplateKind = 'word' | 'excel' | 'unknown';

export const FORMATS_BY_KIND: Record<Exclude<TemplateKind, 'unknown'>, OutputFormat[]> = {
	word: ['docx', 'pdf'],
	excel: ['xlsx', 'xlsm', 'csv'],
};

/** Gap 13: the UI default when format is omitted. */
export const DEFAULT_FORMAT: Record<Exclude<TemplateKind, 'unknown'>, OutputFormat> = {
	word: 'docx',
	excel: 'xlsx',
};

export const CONTENT_TYPES: Record<OutputFormat, string> = {
	pdf: 'application/pdf',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.12',
	csv: 'text/csv; charset=utf-8',
};

const XLSX_MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';
export const XLSM_MAIN = 'application/vnd.ms-excel.sheet.macroEnabled.main+xml';

export function templateKind(filename: string): TemplateKind {
	const ext = filename.toLowerCase().split('.').pop() ?? '';
	if (['docx', 'dotx', 'docm', 'doc'].includes(ext)) return 'word';
	if (['xlsx', 'xlsm', 'xltx', 'xltm', 'xls'].includes(ext)) return 'excel';
	return 'unknown';
}

export interface RenderRow {
	prompt: string;
	value: string;
	status: string;
}

export interface RenderInput {
	templateFilename: string;
	agentName: string;
	runId: number;
	status: string;
	completed: string | null;
	files: string[];
	rows: RenderRow[];
}

export interface RenderedFile {
	body: Buffer;
	contentType: string;
	filename: string;
}

/** A Prompt value as one line of text. */
export function formatValue(value: unknown): string {
	if (value === null || value === undefined) return '';
	if (Array.isArray(value)) return value.map(formatValue).join('; ');
	if (typeof value === 'object') {
		return Object.entries(value as Record<string, unknown>)
			.map(([k, v]) => `${k}: ${formatValue(v)}`)
			.join('; ');
	}
	return String(value);
}

/** "<template base name> - run <id>.<format>". */
export function outputFilename(
	templateFilename: string,
	runId: number,
	format: OutputFormat,
): string {
	const base = templateFilename.replace(/\.[^.]+$/, '');
	return `${base} - run ${runId}.${format}`;
}

/** RFC 6266: ASCII fallback in `filename`, the exact name percent-encoded in `filename*`. */
export function contentDisposition(filename: string): string {
	const ascii = filename
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^\x20-\x7e]/g, '_')
		.replace(/["\\]/g, '_');
	const encoded = encodeURIComponent(filename).replace(
		/['()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	);
	return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export async function renderTemplatedOutput(
	format: OutputFormat,
	input: RenderInput,
): Promise<RenderedFile> {
	const filename = outputFilename(input.templateFilename, input.runId, format);
	const contentType = CONTENT_TYPES[format];
	switch (format) {
		case 'docx':
			return { body: await renderDocx(input), contentType, filename };
		case 'pdf':
			return { body: await renderPdf(input), contentType, filename };
		case 'xlsx':
			return { body: await renderXlsx(input), contentType, filename };
		case 'xlsm':
			return { body: await patchToXlsm(await renderXlsx(input)), contentType, filename };
		case 'csv':
			return {
				body: Buffer.from(renderCsv(sheetRows(input)[0].rows), 'utf8'),
				contentType,
				filename,
			};
	}
}

function title(input: RenderInput): string {
	return `${input.templateFilename.replace(/\.[^.]+$/, '')}: ${input.agentName}, run ${input.runId}`;
}

function subtitle(input: RenderInput): string {
	return `Status: ${input.status}. Completed: ${input.completed ?? 'n/a'}. Files: ${input.files.join(', ')}`;
}

// ------------------------------------------------------------------ Word

async function renderDocx(input: RenderInput): Promise<Buffer> {
	const {
		AlignmentType,
		Document,
		HeadingLevel,
		Packer,
		Paragraph,
		Table,
		TableCell,
		TableRow,
		TextRun,
		WidthType,
	} = lib.docx();
	const cell = (text: string, bold = false): DocxTableCell =>
		new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })] });
	const table = new Table({
		width: { size: 100, type: WidthType.PERCENTAGE },
		rows: [
			new TableRow({
				tableHeader: true,
				children: [cell('Prompt', true), cell('Value', true), cell('Status', true)],
			}),
			...input.rows.map(
				(r) => new TableRow({ children: [cell(r.prompt), cell(r.value), cell(r.status)] }),
			),
		],
	});
	const doc = new Document({
		creator: 'Extraction Agents emulator',
		title: title(input),
		sections: [
			{
				children: [
					new Paragraph({ text: title(input), heading: HeadingLevel.HEADING_1 }),
					new Paragraph({ text: subtitle(input), alignment: AlignmentType.LEFT }),
					table,
				],
			},
		],
	});
	return Packer.toBuffer(doc);
}

// ------------------------------------------------------------------ PDF

/** Standard fonts only encode WinAnsi: replace what they cannot draw. */
function drawable(font: PDFFont, text: string): string {
	let out = '';
	for (const ch of text) {
		try {
			font.encodeText(ch);
			out += ch;
		} catch {
			out += '?';
		}
	}
	return out;
}

function fit(font: PDFFont, text: string, size: number, width: number): string {
	if (font.widthOfTextAtSize(text, size) <= width) return text;
	let cut = text;
	while (cut.length > 1 && font.widthOfTextAtSize(`${cut}...`, size) > width)
		cut = cut.slice(0, -1);
	return `${cut}...`;
}

async function renderPdf(input: RenderInput): Promise<Buffer> {
	const { PDFDocument, StandardFonts, rgb } = lib.pdf();
	const pdf = await PDFDocument.create();
	pdf.setTitle(drawable(await pdf.embedFont(StandardFonts.Helvetica), title(input)));
	pdf.setProducer('Extraction Agents emulator');
	const font = await pdf.embedFont(StandardFonts.Helvetica);
	const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
	const [pageWidth, pageHeight, margin] = [595.28, 841.89, 50];
	let page = pdf.addPage([pageWidth, pageHeight]);
	let y = pageHeight - margin;
	const line = (
		text: string,
		f: PDFFont,
		size: number,
		x = margin,
		width = pageWidth - 2 * margin,
	): void => {
		page.drawText(fit(f, drawable(f, text), size, width), {
			x,
			y,
			size,
			font: f,
			color: rgb(0, 0, 0),
		});
	};
	line(title(input), bold, 16);
	y -= 22;
	line(subtitle(input), font, 9);
	y -= 24;
	const cols = [margin, margin + 170, margin + 430];
	const widths = [165, 255, 65];
	const row = (cells: string[], f: PDFFont): void => {
		if (y < margin + 20) {
			page = pdf.addPage([pageWidth, pageHeight]);
			y = pageHeight - margin;
		}
		cells.forEach((c, i) => line(c, f, 10, cols[i], widths[i]));
		y -= 16;
	};
	row(['Prompt', 'Value', 'Status'], bold);
	for (const r of input.rows) row([r.prompt, r.value, r.status], font);
	return Buffer.from(await pdf.save());
}

// ------------------------------------------------------------------ Excel / CSV

interface SheetData {
	name: string;
	rows: string[][];
}

/** Sheet 1 "Results" is the Prompt table (and all that csv exports); sheet 2 lists the files. */
function sheetRows(input: RenderInput): SheetData[] {
	return [
		{
			name: 'Results',
			rows: [
				['Prompt', 'Value', 'Status'],
				...input.rows.map((r) => [r.prompt, r.value, r.status]),
			],
		},
		{ name: 'Files', rows: [['File'], ...input.files.map((f) => [f])] },
	];
}

async function renderXlsx(input: RenderInput): Promise<Buffer> {
	const workbook = new (lib.exceljs().Workbook)();
	workbook.creator = 'Extraction Agents emulator';
	workbook.title = title(input);
	for (const sheet of sheetRows(input)) {
		const ws = workbook.addWorksheet(sheet.name);
		for (const r of sheet.rows) ws.addRow(r);
		ws.getRow(1).font = { bold: true };
		ws.columns.forEach((c) => (c.width = 30));
	}
	return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Turns an xlsx package into an xlsm one: the workbook part gets the macro-enabled content type. */
async function patchToXlsm(xlsx: Buffer): Promise<Buffer> {
	const zip = await lib.jszip().loadAsync(xlsx);
	const file = zip.file('[Content_Types].xml');
	if (!file) throw new Error('xlsx without [Content_Types].xml');
	const xml = await file.async('string');
	zip.file('[Content_Types].xml', xml.split(XLSX_MAIN).join(XLSM_MAIN));
	return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** RFC 4180: CRLF line ends, fields with comma, quote or line break are quoted. */
export function renderCsv(rows: string[][]): string {
	const field = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
	return rows.map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
