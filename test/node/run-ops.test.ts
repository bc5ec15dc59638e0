import { executeNode, loadOptions, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { INVOICES, agentById, finishedRun, requestLines, runById, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });
const CONTRACTS = DEMO_AGENT_IDS.contracts;

const runOp = (operation: string, parameters: Record<string, unknown> = {}) => ({
	resource: 'run',
	operation,
	agent: agentById(INVOICES),
	...parameters,
});

describe('Run → Get', () => {
	it('returns the finished Run simplified, by ID or by its run_url', async () => {
		const run = finishedRun(ctx.emulator);
		for (const locator of [runById(run.run_id), { __rl: true, mode: 'url', value: run.run_url }]) {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: runOp('get', { run: locator }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				run_id: run.run_id,
				status: 'success',
				files: 'doc.pdf',
			});
			expect(result.items[0].json).toHaveProperty(['Invoice number']);
			expect(typeof result.items[0].json.credits_used).toBe('number');
		}
	});

	it('returns the API’s Run untouched with Simplify off, timings and usage included', async () => {
		const run = finishedRun(ctx.emulator);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('get', { run: runById(run.run_id), simplify: false }),
		});
		const json = result.items[0].json as {
			data: Record<string, { start_time?: string; usage?: unknown }>;
			usage: unknown;
		};
		expect(json.usage).toBeDefined();
		expect(json.data['Invoice number'].start_time).toBeDefined();
	});

	it('names the Run and the Agent when the Run does not exist', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('get', { run: runById(987654) }),
		});
		expect(result.error?.message).toBe(`Run 987654 of Agent ${INVOICES} not found`);
	});
});

describe('Run → Get Many', () => {
	it('lists the Agent’s newest Runs up to Limit, each Run one flat item from the nested list', async () => {
		const older = finishedRun(ctx.emulator, INVOICES, { fileName: 'older.pdf' });
		const newer = finishedRun(ctx.emulator, INVOICES, { fileName: 'newer.pdf' });
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('getAll', { limit: 2 }),
		});
		expect(result.items.map((item) => [item.json.run_id, item.json.files])).toEqual([
			[newer.run_id, 'newer.pdf'],
			[older.run_id, 'older.pdf'],
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		// One page, asked for no more than the Limit needs.
		const lists = ctx.emulator
			.requestsSince(seq)
			.filter((entry) => entry.method === 'GET' && /\/runs$/.test(entry.path));
		expect(lists).toHaveLength(1);
		expect(Number(lists[0].query.page_size)).toBeLessThanOrEqual(100);
	});

	it('filters by Run ID (sent to the API) and by status (applied to what the API returns)', async () => {
		const run = finishedRun(ctx.emulator);
		const running = ctx.emulator.createRun(INVOICES, [{ name: 'still.pdf' }], { hold: true });
		const byId = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('getAll', { returnAll: true, filters: { runId: String(run.run_id) } }),
		});
		expect(byId.items.map((item) => item.json.run_id)).toEqual([run.run_id]);
		const onlyRunning = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('getAll', { returnAll: true, filters: { status: ['running'] } }),
		});
		expect(onlyRunning.items.map((item) => item.json.run_id)).toContain(running.run_id);
		expect(onlyRunning.items.every((item) => item.json.status === 'running')).toBe(true);
		ctx.emulator.finishRun(INVOICES, Number(running.run_id));
	});
});

describe('Run → Get Many: Output', () => {
	it('gives one item per Prompt result of each Run, as Get and Create do', async () => {
		const run = finishedRun(ctx.emulator);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('getAll', {
				filters: { runId: String(run.run_id) },
				output: 'promptResult',
			}),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.run_id, item.json.prompt])).toEqual(
			['Invoice number', 'Invoice date', 'Vendor', 'Total amount'].map((prompt) => [
				run.run_id,
				prompt,
			]),
		);
		for (const item of result.items) expect(item.pairedItem).toEqual({ item: 0 });
	});
});

describe('Run → Delete', () => {
	it('deletes the Run and says so', async () => {
		const run = finishedRun(ctx.emulator);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('delete', { run: runById(run.run_id) }),
		});
		expect(result.items[0].json).toEqual({ deleted: true, run_id: run.run_id, agent_id: INVOICES });
		expect(ctx.emulator.getRun(INVOICES, run.run_id)).toBeUndefined();
	});

	it('succeeds when the first attempt deleted the Run but its answer was lost (the retry gets 404)', async () => {
		const run = finishedRun(ctx.emulator);
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([{ match: { method: 'DELETE' }, kind: '503', timing: 'after' }]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('delete', { run: runById(run.run_id) }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ deleted: true, run_id: run.run_id, agent_id: INVOICES });
		const path = `/api/v1/client/agents/${INVOICES}/runs/${run.run_id}`;
		expect(
			ctx.emulator
				.requestsSince(seq)
				.map((entry) => `${entry.method} ${entry.path} ${entry.status}`),
		).toEqual([`DELETE ${path} 503`, `DELETE ${path} 404`]);
	});

	it('a Run that never existed is "not found" when the 404 answers a retry after a 429 (a rate-limited request was not processed)', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([{ match: { method: 'DELETE' }, kind: '429', timing: 'before' }]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('delete', { run: runById(987001) }),
		});
		expect(result.error?.message).toBe(`Run 987001 of Agent ${INVOICES} not found`);
		const path = `/api/v1/client/agents/${INVOICES}/runs/987001`;
		expect(
			ctx.emulator
				.requestsSince(seq)
				.map((entry) => `${entry.method} ${entry.path} ${entry.status}`),
		).toEqual([`DELETE ${path} 429`, `DELETE ${path} 404`]);
	});

	it('a Run that is already gone gives a clear not-found error', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('delete', { run: runById(555555) }),
		});
		expect(result.error?.message).toBe(`Run 555555 of Agent ${INVOICES} not found`);
	});
});

describe('Run → Download Templated Output', () => {
	const cases = [
		{
			agent: INVOICES,
			template: 11,
			format: 'docx',
			mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			magic: 'PK',
		},
		{ agent: INVOICES, template: 11, format: 'pdf', mime: 'application/pdf', magic: '%PDF' },
		{
			agent: INVOICES,
			template: 12,
			format: 'xlsx',
			mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			magic: 'PK',
		},
		{
			agent: CONTRACTS,
			template: 22,
			format: 'xlsm',
			mime: 'application/vnd.ms-excel.sheet.macroEnabled.12',
			magic: 'PK',
		},
		{ agent: INVOICES, template: 12, format: 'csv', mime: 'text/csv', magic: '' },
	];

	it.each(cases)(
		'renders $format as a binary with its MIME type, file name and leading bytes',
		async ({ agent, template, format, mime, magic }) => {
			const run = finishedRun(ctx.emulator, agent, { fileName: 'INV-5.pdf' });
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: {
					resource: 'run',
					operation: 'downloadTemplatedOutput',
					agent: agentById(agent),
					run: runById(run.run_id),
					outputTemplate: template,
					format,
					binaryPropertyName: 'report',
				},
				inputItems: [{ json: { keep: 'me' } }],
			});
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json).toEqual({ keep: 'me' });
			expect(item.binary?.report.mimeType).toBe(mime);
			expect(item.binary?.report.fileName).toMatch(new RegExp(`\\.${format}$`));
			expect(item.binary?.report.fileName).toContain(String(run.run_id));
			const bytes = await result.readBinary(item, 'report');
			expect(bytes.subarray(0, magic.length).toString('latin1')).toBe(magic);
			if (format === 'csv') expect(bytes.toString('utf8')).toContain('Invoice number');
		},
	);

	it('keeps a non-ASCII file name from filename*=UTF-8', async () => {
		const run = finishedRun(ctx.emulator, CONTRACTS, { fileName: 'vertrag.pdf' });
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(CONTRACTS),
				run: runById(run.run_id),
				outputTemplate: 23,
				format: 'default',
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data.fileName).toMatch(/^Vertragsübersicht – Deutsch.*\.docx$/);
	});

	it.each([
		[11, 'xlsx', 'Template "Invoice summary.docx" cannot be rendered as XLSX'],
		[12, 'pdf', 'Template "Invoice lines.xlsx" cannot be rendered as PDF'],
		[99, 'pdf', `Agent ${INVOICES} has no output template 99`],
	])('refuses template %s as %s before the render request', async (template, format, message) => {
		const run = finishedRun(ctx.emulator);
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('downloadTemplatedOutput', {
				run: runById(run.run_id),
				outputTemplate: template,
				format,
			}),
		});
		expect(result.error?.message).toBe(message);
		expect(
			requestLines(ctx.emulator, seq).filter((line) => line.includes('templated-output')),
		).toEqual([]);
	});

	it('says a running Run is not finished yet', async () => {
		const running = ctx.emulator.createRun(INVOICES, [{ name: 'slow.pdf' }], { hold: true });
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('downloadTemplatedOutput', {
				run: runById(Number(running.run_id)),
				outputTemplate: 11,
				format: 'docx',
			}),
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe(`Run ${running.run_id} of Agent ${INVOICES} is not finished yet`);
		expect(error.description).toContain('Wait for Completion');
		ctx.emulator.finishRun(INVOICES, Number(running.run_id));
	});
});

describe('retries on reads', () => {
	it('waits out a 429 (Retry-After as an HTTP date) and returns one result', async () => {
		const run = finishedRun(ctx.emulator);
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: /\/runs\/\d+$/ },
				kind: '429',
				retryAfter: new Date(Date.now() + 1000).toUTCString(),
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('get', { run: runById(run.run_id) }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.status)).toEqual([429, 200]);
	});

	it.each(['502', '503', '504', 'reset'] as const)(
		'repeats a GET after %s and succeeds',
		async (kind) => {
			const run = finishedRun(ctx.emulator);
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([{ match: { method: 'GET', path: /\/runs\/\d+$/ }, kind }]);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: runOp('get', { run: runById(run.run_id) }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.run_id).toBe(run.run_id);
			expect(ctx.emulator.requestsSince(seq).length).toBe(2);
		},
	);

	it('does not repeat a 500 (a bug, not a hiccup) and says the service failed', async () => {
		const run = finishedRun(ctx.emulator);
		ctx.emulator.injectFaults([{ match: { method: 'GET', path: /\/runs\/\d+$/ }, kind: '500' }]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('get', { run: runById(run.run_id) }),
		});
		expect(result.error?.message).toBe('The Extraction Agents service failed (500)');
	});

	it('a 200 without a Run in it is an error, not an empty item', async () => {
		const run = finishedRun(ctx.emulator);
		ctx.emulator.injectFaults([
			{ match: { method: 'GET', path: /\/runs\/\d+$/ }, kind: 'missing-fields' },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runOp('get', { run: runById(run.run_id) }),
		});
		expect(result.error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the Run',
		);
	});
});

describe('Output templates', () => {
	it('a template without a file name is listed by its ID and asks for a Format instead of failing', async () => {
		const agentRecord = ctx.emulator.state.visibleAgent(
			ctx.emulator.state.userByEmail('alice@acme.example')!,
			CONTRACTS,
		)!;
		agentRecord.templates.push({
			id: 29,
			filename: undefined as unknown as string,
			createdMs: Date.now(),
			updatedMs: Date.now(),
		});
		try {
			const options = await loadOptions({
				nodeType: 'extractionAgents',
				method: 'getOutputTemplates',
				credentials: ctx.credentials,
				parameters: {
					resource: 'run',
					operation: 'downloadTemplatedOutput',
					agent: agentById(CONTRACTS),
				},
			});
			expect(options.find((option) => option.value === 29)?.name).toBe('Template 29');
			const run = finishedRun(ctx.emulator, CONTRACTS);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: {
					resource: 'run',
					operation: 'downloadTemplatedOutput',
					agent: agentById(CONTRACTS),
					run: runById(run.run_id),
					outputTemplate: 29,
					format: 'default',
				},
			});
			expect(result.error?.message).toBe('Choose a Format for template "Template 29"');
		} finally {
			agentRecord.templates = agentRecord.templates.filter((template) => template.id !== 29);
		}
	});

	it('reads an Output Template ID from a template link, not the Agent ID in it', async () => {
		const run = finishedRun(ctx.emulator);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
				run: runById(run.run_id),
				outputTemplate: `https://app.example.com/agents/${INVOICES}/output-templates/12`,
				format: 'xlsx',
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data.fileName).toMatch(/\.xlsx$/);
	});
});
