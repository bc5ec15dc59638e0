/**
 * Every example of examples/ as a user sees it right after importing it: the real n8n editor
 * (2.41.1) in Debian's headless Chromium. A sticky note is the example's instructions: when
 * its text runs past the bottom (or the side) of its box, n8n cuts it off and the user never
 * reads the last step (often "Publish"); when the note lies over a node, the node is hidden
 * under it. Both are measured in the page, from the rendered text's own boxes:
 * - a note's text overflows when any line of it ends below (or right of) the note's box;
 * - a note covers a node when their boxes on the canvas intersect.
 *
 * Saves a picture of each example as imported (zoomed to fit) to
 * test/artifacts/example-<name>.png (not committed). Needs the real n8n (dev/n8n/host.ts) and
 * Chromium (chromium.ts); N8N_BROWSER=skip or N8N_E2E=skip leaves it out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startEmulator, type Emulator } from '../../dev/emulator';
import { OWNER, startSession, type Session } from '../../dev/n8n/session';
import { exampleFiles, loadExample } from '../examples/helpers';
import { launchChromium } from './chromium';

const VERSION = '2.41.1';
const SKIP = [process.env.N8N_BROWSER, process.env.N8N_E2E].some((v) =>
	/^(skip|0|false|no)$/i.test(v ?? ''),
);
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');

/** What the page measured of one workflow's canvas. */
interface Measured {
	notes: Array<{ name: string; box: Box; textBottom: number; textRight: number; lines: number }>;
	nodes: Array<{ name: string; box: Box }>;
}
interface Box {
	left: number;
	top: number;
	right: number;
	bottom: number;
}

/**
 * In the page (as text: the tests compile without the browser's types): every canvas node's
 * box; for a sticky note, also how far down and right its rendered text reaches (the client
 * rects of its text, clipped or not). n8n 2.41's canvas: every node's element names it and
 * its type; a sticky note's box is the `sticky` inside it, any other node's box is the
 * element itself.
 */
const MEASURE_CANVAS = `(() => {
	const boxOf = (element) => {
		const { left, top, right, bottom } = element.getBoundingClientRect();
		return { left, top, right, bottom };
	};
	const measured = { notes: [], nodes: [] };
	for (const element of Array.from(document.querySelectorAll('[data-node-type]'))) {
		const name = element.getAttribute('data-node-name') ?? '?';
		if (element.getAttribute('data-node-type') !== 'n8n-nodes-base.stickyNote') {
			measured.nodes.push({ name, box: boxOf(element) });
			continue;
		}
		const sticky = element.querySelector('[data-test-id="sticky"]') ?? element;
		let textBottom = -Infinity;
		let textRight = -Infinity;
		let lines = 0;
		const walker = document.createTreeWalker(sticky, NodeFilter.SHOW_TEXT);
		for (let text = walker.nextNode(); text; text = walker.nextNode()) {
			if (!text.textContent || !text.textContent.trim()) continue;
			const range = document.createRange();
			range.selectNodeContents(text);
			for (const rect of Array.from(range.getClientRects())) {
				if (rect.width === 0 && rect.height === 0) continue;
				lines++;
				textBottom = Math.max(textBottom, rect.bottom);
				textRight = Math.max(textRight, rect.right);
			}
		}
		measured.notes.push({ name, box: boxOf(sticky), textBottom, textRight, lines });
	}
	return measured;
})()`;

const intersects = (a: Box, b: Box) =>
	a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const describeBrowser = SKIP ? describe.skip : describe;

describeBrowser(`the examples in the n8n ${VERSION} editor, as imported`, () => {
	let emu: Emulator;
	let session: Session;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;

	beforeAll(async () => {
		browser = await launchChromium();
		emu = await startEmulator({ logErrors: false });
		session = await startSession({
			version: VERSION,
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			workflows: [],
			examples: true,
			publish: [],
			quiet: true,
		});
		context = await browser.newContext({
			viewport: { width: 1440, height: 900 },
			deviceScaleFactor: 1,
			locale: 'en-US',
			timezoneId: 'UTC',
		});
		page = await context.newPage();
		page.setDefaultTimeout(30_000);
		page.setDefaultNavigationTimeout(60_000);
		await page.goto(`${session.server.url}/signin`, { waitUntil: 'domcontentloaded' });
		await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(OWNER.email);
		await page.locator('[data-test-id="password"] input').fill(OWNER.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
		fs.mkdirSync(ARTIFACTS, { recursive: true });
	}, 30 * 60_000);

	afterAll(async () => {
		await context?.close().catch(() => undefined);
		await browser?.close().catch(() => undefined);
		await session?.stop();
		await emu?.stop();
	}, 60_000);

	it.each(exampleFiles)(
		'%s: every note shows its whole text inside its box and covers no node',
		async (file) => {
			const example = loadExample(file);
			const imported = session.examples.find((workflow) => workflow.name === example.name);
			expect(imported).toBeDefined();
			await page.goto(`${session.server.url}/workflow/${imported!.id}`, {
				waitUntil: 'domcontentloaded',
			});
			await page.locator('[data-node-type]').first().waitFor({ timeout: 60_000 });
			await page.waitForFunction(
				`document.querySelectorAll('[data-node-type]').length >= ${example.nodes.length}`,
				undefined,
				{ timeout: 60_000 },
			);
			await page.keyboard.press('1'); // zoom to fit, as n8n opens an imported workflow
			await page.mouse.move(5, 5);
			await page.waitForTimeout(800);
			await page.screenshot({
				path: path.join(ARTIFACTS, `example-${file.replace(/\.json$/, '')}.png`),
			});

			const measured = (await page.evaluate(MEASURE_CANVAS)) as Measured;
			const stickies = example.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote');
			expect(measured.notes.length).toBe(stickies.length);
			expect(measured.nodes.length).toBe(example.nodes.length - stickies.length);
			for (const note of measured.notes) {
				// A note's text that reaches past its box is cut off on the canvas.
				expect(note.lines).toBeGreaterThan(3);
				expect({
					note: note.name,
					cutOffBelowBy: Math.max(0, Math.round(note.textBottom - note.box.bottom)),
					cutOffRightBy: Math.max(0, Math.round(note.textRight - note.box.right)),
				}).toEqual({ note: note.name, cutOffBelowBy: 0, cutOffRightBy: 0 });
				expect({
					note: note.name,
					covers: measured.nodes
						.filter((node) => intersects(note.box, node.box))
						.map((node) => node.name),
				}).toEqual({ note: note.name, covers: [] });
			}
		},
		3 * 60_000,
	);
});
