/**
 * Templated output: real files with the right magic bytes, content types and Content-Disposition;
 * 404/409/422 rules (service note 24, 14, 15, 27).
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import {
	CONTENT_TYPES,
	DEMO_KEYS,
	Emulator,
	startEmulator,
	XLSM_MAIN,
} from '../../dev/emulator/index';
import { client } from './test-helpers';

let emu: Emulator;
let alice: ReturnType<typeof client>;

beforeAll(async () => {
	emu = await startEmulator({ seed: 3 });
	alice = client(emu, DEMO_KEYS.alice);
});
afterAll(() => emu.stop());

const INVOICE_RUN = 1002; // Invoices, finished, "INV-20417 Acme GmbH.pdf"
const CONTRACT_RUN = 1005; // Contracts, finished

const output = (agentId: number, runId: number, body: unknown) =>
	alice.raw('POST', `/agents/${agentId}/runs/${runId}/templated-output`, body);

async function contentTypes(zipBytes: Buffer): Promise<string> {
	const zip = await JSZip.loadAsync(zipBytes);
	return zip.file('[Content_Types].xml')!.async('string');
}

describe('formats', () => {
	test('docx from a Word template', async () => {
		const r = await output(1, INVOICE_RUN, { output_template_id: 11, format: 'docx' });
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe(CONTENT_TYPES.docx);
		expect(r.headers.get('content-disposition')).toBe(
			`attachment; filename="Invoice summary - run ${INVOICE_RUN}.docx"; filename*=UTF-8''Invoice%20summary%20-%20run%20${INVOICE_RUN}.docx`,
		);
		expect(r.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
		expect(await contentTypes(r.bytes)).toContain(
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
		);
		const doc = await (await JSZip.loadAsync(r.bytes)).file('word/document.xml')!.async('string');
		expect(doc).toContain('Invoice number');
		expect(doc).toContain('INV-20417');
	});

	test('pdf from a Word template', async () => {
		const r = await output(1, INVOICE_RUN, { output_template_id: 11, format: 'pdf' });
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe('application/pdf');
		expect(r.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
		expect(r.headers.get('content-disposition')).toContain(
			`filename="Invoice summary - run ${INVOICE_RUN}.pdf"`,
		);
		const pdf = await PDFDocument.load(r.bytes);
		expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
		expect(pdf.getTitle()).toContain(`run ${INVOICE_RUN}`);
	});

	test('xlsx from an Excel template: a table of Prompt -> value', async () => {
		const r = await output(1, INVOICE_RUN, { output_template_id: 12, format: 'xlsx' });
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe(CONTENT_TYPES.xlsx);
		expect(r.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
		expect(await contentTypes(r.bytes)).toContain(
			'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
		);
		const wb = new ExcelJS.Workbook();
		await wb.xlsx.load(r.bytes as any);
		const sheet = wb.worksheets[0];
		expect(sheet.name).toBe('Results');
		expect(sheet.getRow(1).values).toEqual([undefined, 'Prompt', 'Value', 'Status']);
		expect(sheet.getRow(2).values).toEqual([undefined, 'Invoice number', 'INV-20417', 'success']);
		expect(String(sheet.getRow(5).getCell(2).value)).toMatch(
			/^amount: [\d.]+; currency: [A-Z]{3}$/,
		);
	});

	test('xlsm: the workbook part is macro-enabled', async () => {
		const r = await output(2, CONTRACT_RUN, { output_template_id: 22, format: 'xlsm' });
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe('application/vnd.ms-excel.sheet.macroEnabled.12');
		expect(r.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
		const types = await contentTypes(r.bytes);
		expect(types).toContain(XLSM_MAIN);
		expect(types).not.toContain('spreadsheetml.sheet.main+xml');
		expect(r.headers.get('content-disposition')).toContain(
			`filename="Clause register - run ${CONTRACT_RUN}.xlsm"`,
		);
	});

	test('csv: the first worksheet only, as text', async () => {
		const r = await output(1, INVOICE_RUN, { output_template_id: 12, format: 'csv' });
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
		const text = r.bytes.toString('utf8');
		const lines = text.trimEnd().split('\r\n');
		expect(lines[0]).toBe('Prompt,Value,Status');
		expect(lines[1]).toBe('Invoice number,INV-20417,success');
		expect(lines).toHaveLength(5);
		expect(text).not.toContain('INV-20417 Acme GmbH.pdf'); // the "Files" sheet is not exported
	});

	test('non-ASCII template name: ASCII fallback plus filename*', async () => {
		const r = await output(2, CONTRACT_RUN, { output_template_id: 23, format: 'docx' });
		expect(r.status).toBe(200);
		const cd = r.headers.get('content-disposition')!;
		expect(cd).toContain(`filename="Vertragsubersicht _ Deutsch - run ${CONTRACT_RUN}.docx"`);
		expect(cd).toContain(
			`filename*=UTF-8''Vertrags%C3%BCbersicht%20%E2%80%93%20Deutsch%20-%20run%20${CONTRACT_RUN}.docx`,
		);
	});

	test('format omitted: the UI default (service note 24)', async () => {
		const word = await output(1, INVOICE_RUN, { output_template_id: 11 });
		expect(word.headers.get('content-type')).toBe(CONTENT_TYPES.docx);
		const excel = await output(1, INVOICE_RUN, { output_template_id: 12 });
		expect(excel.headers.get('content-type')).toBe(CONTENT_TYPES.xlsx);
	});

	test('a .dotx template counts as Word (service note 24)', async () => {
		const bob = client(emu, DEMO_KEYS.bob);
		const r = await bob.raw('POST', '/agents/3/runs/1007/templated-output', {
			output_template_id: 32,
			format: 'pdf',
		});
		expect(r.status).toBe(200);
		expect(r.bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
	});
});

describe('errors', () => {
	const json = (r: { bytes: Buffer }) => JSON.parse(r.bytes.toString('utf8'));

	test('409 while the Run is running (service note 18)', async () => {
		const run = emu.createRun(1, [{ name: 'slow.pdf' }], { hold: true });
		const r = await output(1, run.run_id as number, { output_template_id: 11, format: 'docx' });
		expect(r.status).toBe(409);
		expect(json(r)).toEqual({ detail: `Run ${run.run_id} is still running` });
	});

	test('404: unknown template, a template of another Agent, unknown Run or Agent', async () => {
		const unknown = await output(1, INVOICE_RUN, { output_template_id: 999, format: 'docx' });
		expect([unknown.status, json(unknown)]).toEqual([
			404,
			{ detail: 'Output template 999 not found' },
		]);
		expect((await output(2, CONTRACT_RUN, { output_template_id: 11, format: 'docx' })).status).toBe(
			404,
		);
		expect(json(await output(1, 5, { output_template_id: 11, format: 'docx' }))).toEqual({
			detail: 'Run 5 not found',
		});
		expect(json(await output(3, 1007, { output_template_id: 31, format: 'xlsx' }))).toEqual({
			detail: 'Agent 3 not found',
		});
	});

	test('422: wrong template/format pairs, unknown format, missing template id, unknown template kind', async () => {
		const wordXlsx = await output(1, INVOICE_RUN, { output_template_id: 11, format: 'xlsx' });
		expect(wordXlsx.status).toBe(422);
		expect(json(wordXlsx).detail[0]).toMatchObject({
			loc: ['body', 'format'],
			type: 'value_error',
			input: 'xlsx',
		});
		expect(json(wordXlsx).detail[0].msg).toContain('docx, pdf');
		for (const format of ['pdf', 'docx']) {
			expect((await output(1, INVOICE_RUN, { output_template_id: 12, format })).status).toBe(422);
		}
		expect((await output(1, INVOICE_RUN, { output_template_id: 11, format: 'csv' })).status).toBe(
			422,
		);
		const txt = await output(1, INVOICE_RUN, { output_template_id: 11, format: 'txt' });
		expect(json(txt).detail[0]).toMatchObject({ loc: ['body', 'format'], type: 'enum' });
		expect(json(await output(1, INVOICE_RUN, { format: 'docx' })).detail[0]).toMatchObject({
			loc: ['body', 'output_template_id'],
			type: 'missing',
		});
		const odt = await output(2, CONTRACT_RUN, { output_template_id: 24, format: 'docx' });
		expect(odt.status).toBe(422);
		expect(json(odt).detail[0].msg).toContain('neither a Word nor an Excel template');
	});
});
