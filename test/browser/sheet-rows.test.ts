/**
 * The README's pictures of the sheets the Gmail example fills (sheet-rows.ts): the example runs
 * with the real Google Sheets node into an in-memory spreadsheet, its cells are drawn as a
 * Google Sheets page and photographed in Debian's headless Chromium into test/artifacts/. With
 * UPDATE_SCREENSHOTS=1 the pictures go to docs/images/ and docs/images/screenshots.json records
 * them with the cells they show; without it, the cells the example writes today must be the
 * recorded ones (else the pictures show old rows: retake them).
 *
 * Needs the n8n install of the E2E suite (dev/n8n/host.ts, installed when missing) for n8n's
 * own Google Sheets node, but no running n8n. N8N_BROWSER=skip or N8N_E2E=skip leave it out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { startEmulator, type Emulator } from '../../dev/emulator';
import { useHarness } from '../../dev/harness';
import { ensureN8n } from '../../dev/n8n/host';
import { launchChromium } from './chromium';
import {
	HOW_TO_RETAKE,
	README_PICTURES,
	cellsDigest,
	readRecord,
	recordSheetPictures,
} from './screenshots';
import {
	EMAILS,
	FAILING_PDF,
	SHEETS,
	spreadsheetPage,
	writeExampleSheets,
	type CellGrid,
} from './sheet-rows';

const SKIP = [process.env.N8N_BROWSER, process.env.N8N_E2E].some((v) =>
	/^(skip|0|false|no)$/i.test(v ?? ''),
);
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
const describeBrowser = SKIP ? describe.skip : describe;

useHarness();

/** Wider pictures are shrunk to the README's width (about 880 pixels) and become hard to read. */
const WINDOW = { maxWidth: 960, maxColumnWidth: 200 };

describeBrowser('the README’s pictures of the sheets the Gmail example fills', () => {
	let emulator: Emulator;
	let browser: Browser;
	let sheets: Record<keyof typeof SHEETS, CellGrid> | undefined;
	const update = process.env.UPDATE_SCREENSHOTS === '1';

	beforeAll(async () => {
		browser = await launchChromium();
		await ensureN8n('2.41.1');
		// Run links as the user's service gives them, not the emulator's loopback address.
		emulator = await startEmulator({
			logErrors: false,
			runDurationMs: 300,
			webUrl: 'https://extraction.example.com',
		});
	}, 30 * 60_000);

	afterAll(async () => {
		await browser?.close().catch(() => undefined);
		await emulator?.stop();
	});

	test('the example writes a row per read invoice to Invoices, Prompts first, and the failed scan to Needs review with its link', async () => {
		sheets = await writeExampleSheets(emulator);
		const { invoices, review } = sheets;
		const read = EMAILS.filter((email) => email.pdf.name !== FAILING_PDF);
		const [columns, ...rows] = invoices;
		expect(columns.slice(0, 5)).toEqual([
			'Invoice number',
			'Invoice date',
			'Vendor',
			'Total amount › amount',
			'Total amount › currency',
		]);
		const cell = (row: string[], column: string) => row[columns.indexOf(column)];
		expect(rows.map((row) => [cell(row, 'Invoice number'), cell(row, 'status')])).toEqual([
			['INV-30117', 'success'],
			['INV-88213', 'success'],
			['INV-4471', 'success'],
		]);
		expect(rows.map((row) => cell(row, 'files'))).toEqual(read.map((email) => email.pdf.name));
		expect(rows.map((row) => cell(row, 'user_defined_id'))).toEqual(read.map((email) => email.id));
		const scan = EMAILS.find((email) => email.pdf.name === FAILING_PDF)!;
		expect(review).toHaveLength(2);
		const reviewRow = Object.fromEntries(review[0].map((column, c) => [column, review[1][c]]));
		expect(reviewRow).toMatchObject({
			Received: scan.date,
			From: scan.from,
			Subject: scan.subject,
			Files: FAILING_PDF,
			'Prompts that failed': 'Invoice number, Invoice date, Vendor, Total amount',
			Why: expect.stringMatching(/^Invoice number: /),
			Run: expect.stringMatching(/^https:\/\/extraction\.example\.com\/agents\/1\/runs\/\d+$/),
		});
		// For the person checking the scan: no n8n setup hints.
		expect(Object.values(reviewRow).join(' ')).not.toMatch(/Options →|Output as Results/);
	}, 120_000);

	(update ? test.skip : test)(
		`the README’s sheet pictures show the cells the example writes today (else retake them: ${HOW_TO_RETAKE})`,
		() => {
			expect(sheets).toBeDefined();
			const recorded = readRecord()?.sheetCells ?? {};
			expect({
				[README_PICTURES.invoicesSheet]: recorded[README_PICTURES.invoicesSheet],
				[README_PICTURES.reviewSheet]: recorded[README_PICTURES.reviewSheet],
			}).toEqual({
				[README_PICTURES.invoicesSheet]: cellsDigest(sheets!.invoices),
				[README_PICTURES.reviewSheet]: cellsDigest(sheets!.review),
			});
		},
	);

	test('the sheets drawn as Google Sheets shows them, photographed in Chromium', async () => {
		expect(sheets).toBeDefined();
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		const context = await browser.newContext({
			viewport: { width: 1200, height: 600 },
			deviceScaleFactor: 2,
			locale: 'en-US',
		});
		try {
			const page = await context.newPage();
			const tabs = [SHEETS.invoices, SHEETS.review];
			const taken = [];
			for (const [picture, title, cells] of [
				[README_PICTURES.invoicesSheet, SHEETS.invoices, sheets!.invoices],
				[README_PICTURES.reviewSheet, SHEETS.review, sheets!.review],
			] as const) {
				await page.setContent(spreadsheetPage(cells, tabs, title, WINDOW));
				const sheet = page.locator('#sheet');
				// Every cell is on the page as the sheet holds it.
				await expect(sheet.locator('td').allInnerTexts()).resolves.toEqual(
					expect.arrayContaining(cells.flat().filter(Boolean)),
				);
				const file = path.join(ARTIFACTS, picture);
				await sheet.screenshot({ path: file });
				expect(fs.statSync(file).size).toBeGreaterThan(10_000);
				taken.push({ picture: file, cells });
			}
			if (update) {
				recordSheetPictures(taken);
				process.stderr.write(`[browser] sheet pictures updated in docs/images/\n`);
			}
		} finally {
			await context.close();
		}
	}, 120_000);
});
