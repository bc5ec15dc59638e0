/**
 * The Form example in real n8n 2.41.1 (the packed package installed, the emulator as the
 * service), used as a person would: its form opened in Debian's headless Chromium, an invoice
 * PDF chosen and submitted, and the page n8n shows afterwards photographed into test/artifacts/.
 * That page must show the values the Run read and the Run's link. With UPDATE_SCREENSHOTS=1 the
 * picture goes to docs/images/ and docs/images/screenshots.json records it with the example and
 * the page's text; without it, the page's text must be the recorded one (else the README shows
 * an old page: retake it).
 *
 * The install is the E2E suite's (dev/n8n/host.ts, cached). N8N_BROWSER=skip or N8N_E2E=skip
 * leave it out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { DEMO_AGENT_IDS, startEmulator, type Emulator } from '../../dev/emulator';
import { startSession, type Session } from '../../dev/n8n/session';
import { samplePdf } from '../../dev/n8n/workflows';
import { FORM_EXAMPLE, formExampleWorkflow } from '../e2e/examples-in-n8n';
import { launchChromium } from './chromium';
import {
	HOW_TO_RETAKE,
	README_PICTURES,
	readRecord,
	recordFormPagePicture,
	sha256,
} from './screenshots';

const VERSION = '2.41.1';
const SKIP = [process.env.N8N_BROWSER, process.env.N8N_E2E].some((v) =>
	/^(skip|0|false|no)$/i.test(v ?? ''),
);
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
const FAILURE_SCREENSHOT = path.join(ARTIFACTS, 'form-page-failure.png');
const describeBrowser = SKIP ? describe.skip : describe;

/** The invoice uploaded: the emulator reads its number, date and vendor from its name. */
const INVOICE = {
	name: 'Acme_INV-30117_2026-03-02.pdf',
	text: 'Acme GmbH - Invoice no. INV-30117 - Date 2026-03-02',
};

/**
 * n8n registers a published workflow's form a moment after publishing answered: until then the
 * form's link shows "Problem loading form". Opening the form (GET) runs nothing.
 */
async function waitForForm(url: string, timeoutMs = 30_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const res = await fetch(url);
		const html = await res.text();
		if (res.status === 200 && html.includes('Send us an invoice')) return;
		if (Date.now() > deadline)
			throw new Error(`the form ${url} did not open within ${timeoutMs / 1000} s: ${res.status}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

interface ReadRun {
	status: string;
	files: string[];
	user_defined_id: string;
	data: Record<string, { value: unknown }>;
}

describeBrowser(`the Form example’s pages in n8n ${VERSION}, in Chromium`, () => {
	let emu: Emulator;
	let session: Session;
	let browser: Browser;
	let context: BrowserContext;
	const update = process.env.UPDATE_SCREENSHOTS === '1';

	beforeAll(async () => {
		browser = await launchChromium();
		// Run links as the user's service gives them, not the emulator's loopback address.
		emu = await startEmulator({
			logErrors: false,
			runDurationMs: 1500,
			webUrl: 'https://extraction.example.com',
		});
		session = await startSession({
			version: VERSION,
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			workflows: [formExampleWorkflow()], // published: its form has its production link
			examples: false,
			quiet: true,
		});
		context = await browser.newContext({
			viewport: { width: 720, height: 560 },
			deviceScaleFactor: 2,
			locale: 'en-US',
			timezoneId: 'UTC',
		});
		// The form pages ask Google for a web font; this machine has no way out, so refuse at
		// once (the page falls back to the system's sans-serif) rather than wait.
		await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
	}, 30 * 60_000);

	afterAll(async () => {
		await context?.close().catch(() => undefined);
		await browser?.close().catch(() => undefined);
		await session?.stop();
		await emu?.stop();
	}, 60_000);

	test('a person uploads an invoice in the form; the page after it shows the values the Run read and its link', async () => {
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		const page = await context.newPage();
		page.setDefaultTimeout(30_000);
		const upload = path.join(ARTIFACTS, INVOICE.name);
		fs.writeFileSync(upload, samplePdf(INVOICE.text));
		try {
			const formUrl = `${session.server.url}/form/${FORM_EXAMPLE.formPath}`;
			await waitForForm(formUrl);
			await page.goto(formUrl, {
				waitUntil: 'domcontentloaded',
			});
			await expect(page.locator('h1').first().innerText()).resolves.toBe('Send us an invoice');
			await page.locator('input[type="file"]').setInputFiles(upload);
			await page.locator('#submit-btn').click();

			// The node waits for the Run; then n8n shows the Form node's completion page.
			const title = page.locator('h1', { hasText: 'Thank you: here is what we read' });
			await title.waitFor({ timeout: 90_000 });
			const message = page.locator('.card .header p');
			const shown = (await message.innerText()).trim();

			const runId = Number(/\/runs\/(\d+)$/m.exec(shown)?.[1]);
			const run = emu.getRun(DEMO_AGENT_IDS.invoices, runId) as unknown as ReadRun;
			expect(run).toMatchObject({
				status: 'success',
				files: [INVOICE.name],
			});
			// The file's name for people, the execution's ID to tell two uploads of one name apart.
			expect(run.user_defined_id).toMatch(
				new RegExp(`^${INVOICE.name.replace('.', '\\.')} \\(form \\d+\\)$`),
			);
			const value = (prompt: string) => String(run.data[prompt].value);
			const total = run.data['Total amount'].value as { amount: number; currency: string };
			expect(shown.split('\n')).toEqual([
				`Invoice number: ${value('Invoice number')}`,
				`Invoice date: ${value('Invoice date')}`,
				`Vendor: ${value('Vendor')}`,
				`Total: ${total.amount} ${total.currency}`,
				'',
				`See it in Extraction Agents: https://extraction.example.com/agents/${DEMO_AGENT_IDS.invoices}/runs/${runId}`,
			]);
			// What the page shows is what the uploaded file holds, as the emulator reads it.
			expect(value('Invoice number')).toBe('INV-30117');
			expect(value('Vendor')).toBe('Acme GmbH');
			// One upload, one Run.
			const runsCreated = emu.requestLog.filter(
				(e) => e.method === 'POST' && /\/agents\/\d+\/runs$/.test(e.path),
			);
			expect(runsCreated).toHaveLength(1);

			await page.mouse.move(5, 5);
			const picture = path.join(ARTIFACTS, README_PICTURES.formPage);
			// The card and n8n's line under it, not the empty page below.
			const box = (await page.locator('.container').boundingBox())!;
			await page.screenshot({
				path: picture,
				clip: { x: box.x - 32, y: 0, width: box.width + 64, height: box.y + box.height + 24 },
			});
			expect(fs.statSync(picture).size).toBeGreaterThan(10_000);
			const pageText = `${await title.innerText()}\n${shown}`;
			if (update) {
				recordFormPagePicture(picture, pageText);
				process.stderr.write(`[browser] form page picture updated in docs/images/\n`);
			} else {
				// Else the README shows an old page: retake it.
				expect({ pageText: sha256(pageText), howToRetake: HOW_TO_RETAKE }).toEqual({
					pageText: readRecord()?.formPage?.pageText,
					howToRetake: HOW_TO_RETAKE,
				});
			}
		} catch (err) {
			await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => undefined);
			process.stderr.write(
				`[browser] failed at ${page.url()}; screenshot ${FAILURE_SCREENSHOT}\n[browser] n8n log tail:\n${session.server.logs().slice(-3000)}\n`,
			);
			throw err;
		} finally {
			await page.close();
		}
	}, 180_000);
});
