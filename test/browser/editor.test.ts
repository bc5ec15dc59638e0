/**
 * The real n8n editor (2.41.1) in Debian's headless Chromium, with the packed package installed
 * and its credential pointing at the emulator: log in, open a workflow, open the Extraction
 * Agents node, pick an Agent from the searchable list (asserting the list is the emulator's
 * Agents, fetched by n8n from the emulator), pick an output template, and save a screenshot to
 * test/artifacts/editor-extraction-agents.png (not committed).
 *
 * It also takes the README's two pictures from the same editor (the Gmail → Sheets example on the
 * canvas, and its Extract Data From Files panel) into test/artifacts/; with UPDATE_SCREENSHOTS=1
 * it copies them to docs/images/ and records what they show in docs/images/screenshots.json, which
 * test/package/screenshots.test.ts checks, so that a changed example or node cannot leave the
 * README showing the old one.
 *
 * Installs Chromium with apt when it is missing (see chromium.ts); the n8n install is the one the
 * E2E suite uses (dev/n8n/host.ts, cached). Set N8N_BROWSER=skip (or N8N_E2E=skip, which
 * leaves out everything that needs the real n8n) to leave this suite out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
	DEMO_AGENT_IDS,
	startEmulator,
	type Emulator,
	type RequestLogEntry,
} from '../../dev/emulator';
import { OWNER, startSession, type Session } from '../../dev/n8n/session';
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	INVOICE_LINES_TEMPLATE_ID,
	type WorkflowJson,
} from '../../dev/n8n/workflows';
import { launchChromium } from './chromium';
import { IMAGES_DIR, README_PICTURES, recordScreenshots } from './screenshots';

/** The editor's selectors (data-test-id attributes) are those of this n8n version. */
const VERSION = '2.41.1';
const SKIP = [process.env.N8N_BROWSER, process.env.N8N_E2E].some((v) =>
	/^(skip|0|false|no)$/i.test(v ?? ''),
);
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');
const SCREENSHOT = path.join(ARTIFACTS, 'editor-extraction-agents.png');
const LIST_SCREENSHOT = path.join(ARTIFACTS, 'editor-extraction-agents-list.png');
const FAILURE_SCREENSHOT = path.join(ARTIFACTS, 'editor-extraction-agents-failure.png');

const WORKFLOW_ID = 'eaBrowserEditor1';
const WORKFLOW_NAME = 'Browser: render an Agent’s output template';
const NODE_NAME = 'Extraction Agents';
const AGENTS_PATH = '/api/v1/client/agents';

function editorWorkflow(): WorkflowJson {
	const manual = 'When clicking ‘Execute workflow’';
	return {
		id: WORKFLOW_ID,
		name: WORKFLOW_NAME,
		active: false,
		nodes: [
			{
				id: 'browser-manual',
				name: manual,
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'browser-extraction-agents',
				name: NODE_NAME,
				type: ACTION_TYPE,
				typeVersion: 1,
				position: [260, 0],
				credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				// Agent and template left for the user (the test) to pick in the editor.
				parameters: { resource: 'run', operation: 'downloadTemplatedOutput' },
			},
		],
		connections: { [manual]: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** What a field shows: its text and the values of its inputs. */
function shownValue(locator: Locator): Promise<string> {
	return locator.evaluate((el) =>
		[
			el.textContent ?? '',
			...Array.from(el.querySelectorAll('input')).map(
				(input) => (input as { value: string }).value,
			),
		]
			.join(' ')
			.replace(/\s+/g, ' ')
			.trim(),
	);
}

/** Waits until the emulator logged a finished request (method, path) after `seq`. */
async function waitForRequests(
	emu: Emulator,
	seq: number,
	method: string,
	urlPath: string,
	timeoutMs = 30_000,
): Promise<RequestLogEntry[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = emu
			.requestsSince(seq)
			.filter((e) => e.method === method && e.path === urlPath && e.status !== 0);
		if (found.length > 0) return found;
		if (Date.now() > deadline)
			throw new Error(`no ${method} ${urlPath} reached the emulator within ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Polls the stored workflow until the node's parameters pass `done`; returns them. */
async function waitForSavedNode(
	session: Session,
	workflowId: string,
	nodeName: string,
	done: (parameters: Record<string, unknown>) => boolean,
	timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const workflow = await session.api.get<{
			nodes: Array<{ name: string; parameters: Record<string, unknown> }>;
		}>(`/rest/workflows/${workflowId}`);
		const parameters = workflow.nodes.find((node) => node.name === nodeName)?.parameters ?? {};
		if (done(parameters)) return parameters;
		if (Date.now() > deadline)
			throw new Error(
				`workflow ${workflowId} was not saved with the picks: ${JSON.stringify(parameters)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/**
 * Clicks a dropdown's trigger until `option` shows. A dropdown can close again right after it
 * opened (its options reloading when a parameter it depends on changed), so a click that did not
 * leave the option visible is repeated.
 */
async function openDropdown(trigger: Locator, option: Locator, attempts = 4): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		await trigger.click();
		try {
			await option.waitFor({ timeout: attempt === attempts ? 30_000 : 8_000 });
			return;
		} catch (err) {
			if (attempt >= attempts) throw err;
			process.stderr.write(
				`[browser] dropdown did not show "${await option.evaluate((el) => el.textContent).catch(() => '?')}" yet: clicking again\n`,
			);
		}
	}
}

const describeBrowser = SKIP ? describe.skip : describe;

describeBrowser(`the n8n ${VERSION} editor in Chromium`, () => {
	let emu: Emulator;
	let session: Session;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	const timings: Record<string, number> = {};
	const consoleErrors: string[] = [];

	beforeAll(async () => {
		let started = Date.now();
		// Chromium first: a machine that cannot have it fails here, before n8n starts.
		browser = await launchChromium();
		timings.chromium = Date.now() - started;
		started = Date.now();
		emu = await startEmulator({ logErrors: false });
		session = await startSession({
			version: VERSION,
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			workflows: [editorWorkflow()],
			examples: true,
			publish: [],
			quiet: true,
		});
		timings.n8n = Date.now() - started;
		context = await browser.newContext({
			viewport: { width: 1440, height: 900 },
			deviceScaleFactor: 1,
			locale: 'en-US',
			timezoneId: 'UTC',
		});
		page = await context.newPage();
		page.setDefaultTimeout(30_000);
		page.setDefaultNavigationTimeout(60_000);
		page.on('console', (message) => {
			if (message.type() === 'error') consoleErrors.push(message.text().slice(0, 300));
		});
	}, 30 * 60_000);

	afterAll(async () => {
		const failed = (expect.getState() as { suppressedErrors?: unknown[] }).suppressedErrors?.length;
		if (failed && session)
			process.stderr.write(`[browser] n8n log tail:\n${session.server.logs().slice(-4000)}\n`);
		await context?.close().catch(() => undefined);
		await browser?.close().catch(() => undefined);
		await session?.stop();
		await emu?.stop();
	}, 60_000);

	const agentListRequests = (entries: RequestLogEntry[]) =>
		entries.filter((e) => e.method === 'GET' && e.path === AGENTS_PATH);

	/** The emulator's Agents as alice's key sees them, named as the node's list names them. */
	async function emulatorAgentNames(): Promise<string[]> {
		const res = await fetch(`${emu.apiUrl}/agents?page_size=1000`, {
			headers: { authorization: `Bearer ${emu.keys.alice}` },
		});
		expect(res.status).toBe(200);
		const body = (await res.json()) as { agents: Array<{ id: number; name: string }> };
		return body.agents.map((a) => `${a.name} (${a.id})`).sort((a, b) => a.localeCompare(b));
	}

	test(
		'log in, open the node, pick an Agent from the emulator’s list and an output template',
		async () => {
			const started = Date.now();
			const step = (name: string, since: number) => (timings[name] = Date.now() - since);
			fs.mkdirSync(ARTIFACTS, { recursive: true });
			fs.rmSync(FAILURE_SCREENSHOT, { force: true });
			const expectedAgents = await emulatorAgentNames();
			expect(expectedAgents).toEqual(
				expect.arrayContaining([
					`Invoices (${DEMO_AGENT_IDS.invoices})`,
					`Contracts (${DEMO_AGENT_IDS.contracts})`,
				]),
			);
			try {
				// Log in as the owner through the sign-in form.
				let t = Date.now();
				await page.goto(`${session.server.url}/signin`, { waitUntil: 'domcontentloaded' });
				await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(OWNER.email);
				await page.locator('[data-test-id="password"] input').fill(OWNER.password);
				await page.locator('[data-test-id="form-submit-button"]').click();
				await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
				step('login', t);

				// Open the workflow: both nodes on the canvas.
				t = Date.now();
				await page.goto(`${session.server.url}/workflow/${WORKFLOW_ID}`, {
					waitUntil: 'domcontentloaded',
				});
				const canvasNode = page
					.locator('[data-test-id="canvas-node"]')
					.filter({ hasText: NODE_NAME });
				await canvasNode.waitFor({ timeout: 60_000 });
				await expect(
					page.locator('[data-test-id="workflow-name-input"]').innerText(),
				).resolves.toContain(WORKFLOW_NAME);
				step('openWorkflow', t);

				// Open the node (double-click): its parameters panel.
				t = Date.now();
				// Every Agents request from here on is n8n's (the test's own came before).
				const seqBeforeList = emu.lastSeq;
				await canvasNode.dblclick();
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.waitFor();
				await expect(
					ndv.locator('[data-test-id="node-title-container"]').innerText(),
				).resolves.toContain(NODE_NAME);
				const agentLocator = ndv.locator('[data-test-id="resource-locator-agent"]');
				await agentLocator.waitFor();
				await expect(
					shownValue(ndv.locator('[data-test-id="node-credentials-select"]')),
				).resolves.toContain(CREDENTIAL_NAME);
				step('openNode', t);

				// The Agent picker, From List: the emulator's Agents, fetched by n8n from the emulator.
				t = Date.now();
				const items = page.locator('[data-test-id="rlc-item"]');
				await openDropdown(
					agentLocator.locator('[data-test-id="rlc-input"]'),
					items.filter({ hasText: `Invoices (${DEMO_AGENT_IDS.invoices})` }),
				);
				await items.nth(expectedAgents.length - 1).waitFor();
				const shown = (await items.allInnerTexts()).map((s) => s.trim());
				expect(shown).toEqual(expectedAgents);
				expect(shown).toEqual(
					expect.arrayContaining(['Invoices (1)', 'Contracts (2)', 'Purchase orders (4)']),
				);
				const listRequests = agentListRequests(emu.requestsSince(seqBeforeList));
				expect(listRequests.length).toBeGreaterThanOrEqual(1);
				for (const request of listRequests) {
					expect(request.status).toBe(200);
					expect(request.userId).toBe('alice');
				}
				step('agentList', t);
				await page.screenshot({ path: LIST_SCREENSHOT });

				// Pick Invoices: the picker shows it.
				t = Date.now();
				const seqBeforePick = emu.lastSeq;
				await items.filter({ hasText: `Invoices (${DEMO_AGENT_IDS.invoices})` }).click();
				await items.first().waitFor({ state: 'hidden' });
				await expect(shownValue(agentLocator)).resolves.toContain(
					`Invoices (${DEMO_AGENT_IDS.invoices})`,
				);

				// Output Template Name or ID: the Invoices Agent's templates, which n8n loads from the
				// emulator (GET /agents/1) once the Agent is chosen.
				const agentRequests = await waitForRequests(
					emu,
					seqBeforePick,
					'GET',
					`${AGENTS_PATH}/${DEMO_AGENT_IDS.invoices}`,
				);
				expect(agentRequests.every((e) => e.status === 200 && e.userId === 'alice')).toBe(true);
				const templateInput = ndv.locator('[data-test-id="parameter-input-outputTemplate"]');
				const options = page
					.locator('[data-test-id="parameter-input-item"]')
					.filter({ visible: true });
				const invoiceLines = options.filter({ hasText: 'Invoice lines.xlsx' });
				await openDropdown(templateInput, invoiceLines);
				const templates = (await options.allInnerTexts()).map((s) => s.split('\n')[0].trim());
				expect(templates).toEqual(['Invoice summary.docx', 'Invoice lines.xlsx']);
				await invoiceLines.click();
				await invoiceLines.waitFor({ state: 'hidden' });
				await expect(shownValue(templateInput)).resolves.toContain('Invoice lines.xlsx');
				await expect(shownValue(agentLocator)).resolves.toContain(
					`Invoices (${DEMO_AGENT_IDS.invoices})`,
				);
				step('pickTemplate', t);

				await page.mouse.move(250, 750); // off the parameters: no hover decorations in the picture
				await page.waitForTimeout(500);
				await page.screenshot({ path: SCREENSHOT });
				expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);

				// Close the node and save the workflow (Ctrl+S): the picks are stored as IDs.
				t = Date.now();
				await ndv.locator('[data-test-id="ndv-close-button"]').click();
				await ndv.waitFor({ state: 'hidden' });
				await page.keyboard.press('ControlOrMeta+s');
				const saved = await waitForSavedNode(
					session,
					WORKFLOW_ID,
					NODE_NAME,
					(p) => p.outputTemplate === INVOICE_LINES_TEMPLATE_ID,
				);
				expect(saved.agent).toMatchObject({
					__rl: true,
					mode: 'list',
					value: String(DEMO_AGENT_IDS.invoices),
				});
				expect(saved.outputTemplate).toBe(INVOICE_LINES_TEMPLATE_ID);
				step('save', t);
				timings.test = Date.now() - started;
				process.stderr.write(
					`[browser] Agent list: ${shown.join(', ')}; ${listRequests.length} × GET ${AGENTS_PATH} from n8n to the emulator; ` +
						`templates: ${templates.join(', ')}\n[browser] timings (ms): ${JSON.stringify(timings)}; n8n session ${JSON.stringify(session.timings)}\n` +
						`[browser] screenshot: ${SCREENSHOT}\n`,
				);
			} catch (err) {
				await page.screenshot({ path: FAILURE_SCREENSHOT }).catch(() => undefined);
				const log = emu.requestLog.map((e) => `${e.method} ${e.path} ${e.status}`).join('\n');
				process.stderr.write(
					`[browser] failed at ${page.url()}; screenshot ${FAILURE_SCREENSHOT}\n[browser] emulator requests:\n${log}\n` +
						`[browser] console errors:\n${consoleErrors.join('\n')}\n`,
				);
				throw err;
			}
		},
		3 * 60_000,
	);
	test(
		'the README’s pictures: the Gmail → Sheets example on the canvas, and its Extract Data From Files panel with an Agent picked',
		async () => {
			fs.mkdirSync(ARTIFACTS, { recursive: true });
			const example = session.examples.find(
				(workflow) => workflow.name === README_PICTURES.workflowName,
			);
			expect(example).toBeDefined();
			await page.goto(`${session.server.url}/workflow/${example?.id}`, {
				waitUntil: 'domcontentloaded',
			});
			const extractNode = page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: README_PICTURES.nodeName });
			await extractNode.waitFor({ timeout: 60_000 });
			// The reader's Gmail and Sheets credentials are not in this n8n: their warning marks
			// would only distract in a picture of what the workflow looks like once set up.
			await page.addStyleTag({
				content:
					'[data-test-id="node-issues"], [data-test-id="canvas-node-status-warning"] { display: none !important; }',
			});
			await page.keyboard.press('1'); // zoom to fit
			await page.mouse.move(5, 5);
			await page.waitForTimeout(800);
			const canvasPicture = path.join(ARTIFACTS, README_PICTURES.canvas);
			await page.screenshot({ path: canvasPicture });

			await extractNode.dblclick();
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor();
			await expect(
				ndv.locator('[data-test-id="node-title-container"]').innerText(),
			).resolves.toContain(README_PICTURES.nodeName);
			const agentLocator = ndv.locator('[data-test-id="resource-locator-agent"]');
			const items = page.locator('[data-test-id="rlc-item"]');
			const invoices = items.filter({ hasText: `Invoices (${DEMO_AGENT_IDS.invoices})` });
			await openDropdown(agentLocator.locator('[data-test-id="rlc-input"]'), invoices);
			await invoices.click();
			await items.first().waitFor({ state: 'hidden' });
			await expect(shownValue(agentLocator)).resolves.toContain('Invoices');
			// What version 1.2 shows a new user: the files of the item, all of them, by default.
			await expect(shownValue(ndv)).resolves.toContain('All Files of the Item');
			await page.mouse.move(5, 5);
			await page.waitForTimeout(500);
			const panelPicture = path.join(ARTIFACTS, README_PICTURES.panel);
			await page.screenshot({ path: panelPicture });
			for (const picture of [canvasPicture, panelPicture])
				expect(fs.statSync(picture).size).toBeGreaterThan(10_000);
			if (process.env.UPDATE_SCREENSHOTS === '1') {
				recordScreenshots([canvasPicture, panelPicture]);
				process.stderr.write(`[browser] README pictures updated in ${IMAGES_DIR}\n`);
			}
			await ndv.locator('[data-test-id="ndv-close-button"]').click();
		},
		3 * 60_000,
	);
});
