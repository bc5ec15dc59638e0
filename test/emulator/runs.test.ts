/**
 * Runs: streamed multipart creation and its limits, listing (shape, order, paging, filter), the
 * full read, deletion, progression over time, outcomes and the test helpers.
 */
import { createHash } from 'node:crypto';
import FormDataPkg from 'form-data';
import { DEMO_KEYS, Emulator, startEmulator } from '../../dev/emulator/index';
import { client, filesForm, flattenRuns, rawRequest, sleep } from './test-helpers';

let emu: Emulator;
let alice: ReturnType<typeof client>;

beforeAll(async () => {
	emu = await startEmulator({ seed: 11, runDurationMs: 400 });
	alice = client(emu, DEMO_KEYS.alice);
});
afterAll(() => emu.stop());

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('POST runs (multipart)', () => {
	test('creates a running Run with empty data; the upload is hashed and logged', async () => {
		const mark = emu.lastSeq;
		const content = Buffer.from('%PDF-1.4 fake invoice 20417');
		const form = filesForm(
			[
				{ name: 'invoice-20417.pdf', content },
				{ name: 'Rechnung Müller №5.pdf', content: 'second' },
			],
			{ user_defined_id: 'erp-1', due_date: '2026-12-24T12:00:00+01:00' },
		);
		const r = await alice.form('/agents/1/runs', form);
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({
			agent_id: 1,
			status: 'running',
			data: {},
			completed: null,
			user_defined_id: 'erp-1',
			files: ['invoice-20417.pdf', 'Rechnung Müller №5.pdf'],
			order: ['Invoice number', 'Invoice date', 'Vendor', 'Total amount'],
		});
		expect(r.json.run_url).toBe(`${emu.url}/app/agents/1/runs/${r.json.run_id}`);
		const entry = emu.requestsSince(mark).find((e) => e.operation === 'runs.create')!;
		expect(entry.upload!.fields).toEqual({
			user_defined_id: 'erp-1',
			due_date: '2026-12-24T12:00:00+01:00',
		});
		expect(entry.upload!.files[0]).toMatchObject({
			field: 'files',
			filename: 'invoice-20417.pdf',
			contentType: 'application/pdf',
			size: content.length,
			sha256: sha(content),
			headers: { filename: 'invoice-20417.pdf', encoding: '7bit', mimeType: 'application/pdf' },
		});
		expect(entry.upload!.files[0].bytes!.equals(content)).toBe(true);
		expect(emu.state.runs.get(r.json.run_id)!.dueDate).toBe('2026-12-24T11:00:00.000Z');
	});

	test('form-data encoding with Content-Length; big files are hashed but not kept', async () => {
		const big = Buffer.alloc(2 * 1024 * 1024 + 3, 7);
		const fd = new FormDataPkg();
		fd.append('files', big, {
			filename: 'scan "big".pdf',
			contentType: 'application/pdf',
			knownLength: big.length,
		});
		const body = fd.getBuffer();
		const mark = emu.lastSeq;
		const res = await rawRequest(`${emu.apiUrl}/agents/1/runs`, {
			method: 'POST',
			headers: {
				...fd.getHeaders(),
				'content-length': String(body.length),
				authorization: `Bearer ${DEMO_KEYS.alice}`,
			},
			body,
		});
		expect('status' in res && res.status).toBe(200);
		const upload = emu.requestsSince(mark)[0].upload!;
		expect(upload).toMatchObject({ contentLength: body.length, chunked: false });
		expect(upload.files[0]).toMatchObject({ size: big.length, sha256: sha(big) });
		expect(upload.files[0].bytes).toBeUndefined();
	});

	test("404 for an unknown Agent or another workspace's Agent", async () => {
		expect(
			await alice
				.form('/agents/99/runs', filesForm([{ name: 'a.pdf', content: 'x' }]))
				.then((r) => [r.status, r.json]),
		).toEqual([404, { detail: 'Agent 99 not found' }]);
		expect(
			(await alice.form('/agents/3/runs', filesForm([{ name: 'a.pdf', content: 'x' }]))).status,
		).toBe(404);
		// The connection stays usable after an early answer.
		expect((await alice.get('/agents/1')).status).toBe(200);
	});

	test('422 without files, with a bad due_date', async () => {
		const none = new FormData();
		none.append('user_defined_id', 'x');
		const r = await alice.form('/agents/1/runs', none);
		expect(r.status).toBe(422);
		expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'files'], type: 'missing' });
		const bad = await alice.form(
			'/agents/1/runs',
			filesForm([{ name: 'a.pdf', content: 'x' }], { due_date: 'next tuesday' }),
		);
		expect(bad.status).toBe(422);
		expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'due_date'], input: 'next tuesday' });
	});

	test('422 for 301 files (300 pass); no Run is created', async () => {
		const nRuns = emu.state.agents.get(4)!.nRuns;
		const files = Array.from({ length: 301 }, (_, i) => ({
			name: `f${i}.pdf`,
			content: `file ${i}`,
		}));
		const r = await alice.form('/agents/4/runs', filesForm(files));
		expect(r.status).toBe(422);
		expect(r.json.detail[0]).toMatchObject({
			loc: ['body', 'files'],
			type: 'too_long',
			ctx: { max_length: 300, actual_length: 301 },
		});
		expect(emu.state.agents.get(4)!.nRuns).toBe(nRuns);
		const ok = await alice.form('/agents/4/runs', filesForm(files.slice(0, 300)));
		expect(ok.status).toBe(200);
		expect(ok.json.files).toHaveLength(300);
	});

	test('422 for a file over maxFileSize, naming it; exactly the limit passes', async () => {
		emu.knobs.maxFileSize = 1000;
		try {
			const mark = emu.lastSeq;
			const r = await alice.form(
				'/agents/1/runs',
				filesForm([
					{ name: 'ok.pdf', content: Buffer.alloc(1000) },
					{ name: 'huge.pdf', content: Buffer.alloc(200_000) },
					{ name: 'never-read.pdf', content: Buffer.alloc(10) },
				]),
			);
			expect(r.status).toBe(422);
			expect(r.json.detail[0]).toMatchObject({
				loc: ['body', 'files', 1],
				type: 'file_too_large',
				input: 'huge.pdf',
				ctx: { max_size: 1000 },
			});
			expect(r.json.detail[0].msg).toContain('huge.pdf');
			const files = emu.requestsSince(mark)[0].upload!.files;
			expect(files.map((f) => f.filename)).toEqual(['ok.pdf', 'huge.pdf']); // reading stopped at the big one
			expect(files[1].truncated).toBe(true);
			expect((await alice.get('/agents/1')).status).toBe(200);
		} finally {
			emu.knobs.maxFileSize = 250_000_000;
		}
	});
});

describe('GET runs (list)', () => {
	test('nested by default (service note 12), flat by knob; summaries without timing/usage', async () => {
		const nested = await alice.get('/agents/1/runs?page_number=0&page_size=50');
		expect(nested.status).toBe(200);
		expect(nested.json).toMatchObject({ page_number: 0, page_size: 50, total_pages: 1 });
		expect(nested.json.runs.every((chunk: unknown) => Array.isArray(chunk))).toBe(true);
		const runs = flattenRuns(nested.json.runs);
		expect(runs.length).toBeGreaterThanOrEqual(4);
		const done = runs.find((r) => r.run_id === 1003);
		expect(done.usage).toBeUndefined();
		expect(done.data['Invoice number'].start_time).toBeUndefined();
		expect(done.data['Invoice number'].metadata.citations[0].regions).toBeUndefined();
		emu.knobs.runsListShape = 'flat';
		try {
			const flat = await alice.get('/agents/1/runs?page_number=0&page_size=50');
			expect(flat.json.runs.every((r: unknown) => !Array.isArray(r))).toBe(true);
			expect(flat.json.runs.map((r: any) => r.run_id)).toEqual(runs.map((r) => r.run_id));
		} finally {
			emu.knobs.runsListShape = 'nested';
		}
	});

	test('order knobs: newest-first, oldest-first, deterministic random (service note 13)', async () => {
		const ids = async (): Promise<number[]> =>
			flattenRuns((await alice.get('/agents/1/runs?page_number=0&page_size=1000')).json.runs).map(
				(r) => r.run_id,
			);
		const newest = await ids();
		const created = newest.map((id) => emu.state.runs.get(id)!.createdMs);
		expect([...created].sort((a, b) => b - a)).toEqual(created);
		emu.knobs.listOrder = 'oldest-first';
		try {
			expect(await ids()).toEqual([...newest].reverse());
			emu.knobs.listOrder = 'random';
			const random = await ids();
			expect(await ids()).toEqual(random);
			expect([...random].sort()).toEqual([...newest].sort());
		} finally {
			emu.knobs.listOrder = 'newest-first';
		}
	});

	test('run_id filter (service note 14: integer) and 422s', async () => {
		const one = await alice.get('/agents/1/runs?page_number=0&page_size=10&run_id=1002');
		expect(flattenRuns(one.json.runs).map((r) => r.run_id)).toEqual([1002]);
		expect(flattenRuns((await alice.get('/agents/1/runs?run_id=1005')).json.runs)).toEqual([]); // a Contracts Run
		expect((await alice.get('/agents/1/runs?run_id=abc')).json.detail[0]).toMatchObject({
			loc: ['query', 'run_id'],
			type: 'int_parsing',
		});
		expect((await alice.get('/agents/1/runs?page_size=5000')).json.detail[0].type).toBe(
			'less_than_equal',
		);
		expect((await alice.get('/agents/1/runs?page_number=-1')).status).toBe(422);
		expect((await alice.get('/agents/3/runs')).status).toBe(404);
	});

	test('addHistoricalRuns bulk-inserts 20,000 Runs; paging over them', async () => {
		const ids = emu.addHistoricalRuns(4, 20_000, { createdBefore: Date.UTC(2026, 1, 20) });
		expect(ids).toHaveLength(20_000);
		const first = await alice.get('/agents/4/runs?page_number=0&page_size=1000');
		expect(first.json.total_pages).toBeGreaterThanOrEqual(20);
		const last = await alice.get(
			`/agents/4/runs?page_number=${first.json.total_pages - 1}&page_size=1000`,
		);
		const oldest = flattenRuns(last.json.runs).pop();
		expect(oldest.run_id).toBe(ids[ids.length - 1]);
		expect(oldest).toMatchObject({ status: 'success', completed: null }); // before March 2026 (service note 19)
		expect(Object.keys(oldest.data)).toEqual(['PO number', 'Line items', 'Supplier']);
		const recent = emu.addHistoricalRuns(4, 2, { status: 'failed', completedNull: false });
		const got = (await alice.get(`/agents/4/runs/${recent[0]}`)).json;
		expect(got.status).toBe('failed');
		expect(got.completed).not.toBeNull();
	});
});

describe('GET run (full read) and DELETE', () => {
	test('per-Prompt timing, usage, citations with regions; Run usage; deprecated confidence', async () => {
		const r = await alice.get('/agents/1/runs/1002');
		expect(r.status).toBe(200);
		const run = r.json;
		expect(run.status).toBe('success');
		expect(Object.keys(run.data)).toEqual(run.order);
		const num = run.data['Invoice number'];
		expect(num.value).toBe('INV-20417'); // from the file name "INV-20417 Acme GmbH.pdf"
		expect(run.data.Vendor.value).toBe('Acme GmbH');
		expect(num.metadata.confidence).toBe(1.0);
		expect(num.metadata.citations[0]).toMatchObject({
			file: 'INV-20417 Acme GmbH.pdf',
			pages: [1],
		});
		expect(num.metadata.citations[0].regions[0]).toMatchObject({
			page: 1,
			point: [expect.any(Number), expect.any(Number)],
			text: 'INV-20417',
		});
		expect(num.metadata.url_citations).toEqual([]);
		expect(typeof num.usage.credits_used).toBe('number');
		expect(Date.parse(num.end_time)).toBeGreaterThanOrEqual(Date.parse(num.start_time));
		const total = Object.values(run.data).reduce(
			(s: number, p: any) => s + p.usage.credits_used,
			0,
		);
		expect(run.usage.credits_used).toBeCloseTo(total, 5);
		expect(run.data['Total amount'].value).toEqual({
			amount: expect.any(Number),
			currency: expect.any(String),
		});
		const contracts = (await alice.get('/agents/2/runs/1005')).json;
		expect(contracts.data['Governing law'].metadata.url_citations[0]).toMatchObject({
			url: expect.stringMatching(/^https:/),
		});
		expect(Array.isArray(contracts.data.Parties.value)).toBe(true);
	});

	test('page-based billing: usage null (service note 21)', async () => {
		const dave = client(emu, DEMO_KEYS.dave);
		const list = flattenRuns(
			(await dave.get('/agents/5/runs?page_number=0&page_size=10')).json.runs,
		);
		expect((await dave.get(`/agents/5/runs/${list[0].run_id}`)).json.usage).toBeNull();
	});

	test('404s: unknown Run, Run of another Agent, another workspace', async () => {
		expect(await alice.get('/agents/1/runs/5').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'Run 5 not found' },
		]);
		expect((await alice.get('/agents/2/runs/1002')).json).toEqual({ detail: 'Run 1002 not found' });
		expect((await client(emu, DEMO_KEYS.bob).get('/agents/1/runs/1002')).json).toEqual({
			detail: 'Agent 1 not found',
		});
	});

	test('DELETE answers 204 without a body; the Run is gone', async () => {
		const run = emu.createRun(1, [{ name: 'to-delete.pdf' }]);
		const r = await alice.del(`/agents/1/runs/${run.run_id}`);
		expect(r.status).toBe(204);
		expect(r.text).toBe('');
		expect((await alice.get(`/agents/1/runs/${run.run_id}`)).status).toBe(404);
		expect((await alice.del(`/agents/1/runs/${run.run_id}`)).json).toEqual({
			detail: `Run ${run.run_id} not found`,
		});
		expect(emu.deleteRun(1, 1001)).toBe(true);
		expect((await alice.get('/agents/1/runs/1001')).status).toBe(404);
	});
});

describe('progression over time', () => {
	test('Prompts complete one by one; data holds only finished ones (clock-driven)', async () => {
		// 4 Prompts over 400 s: Prompt i is done at +100*(i+1) s. Seconds, not milliseconds, so
		// that the real time a busy machine spends between requests cannot finish them (CI
		// failed so under load: Expected "running", Received "success").
		emu.knobs.runDurationMs = 400_000;
		const created = (
			await alice.form('/agents/1/runs', filesForm([{ name: 'invoice_777.pdf', content: 'x' }]))
		).json;
		emu.knobs.runDurationMs = 400;
		const read = async () => (await alice.get(`/agents/1/runs/${created.run_id}`)).json;
		expect(Object.keys((await read()).data).length).toBeLessThan(4);
		emu.advanceTime(100_000);
		const seen: number[] = [];
		try {
			for (let i = 0; i < 4; i++) {
				const run = await read();
				seen.push(Object.keys(run.data).length);
				if (i < 3) {
					expect(run.status).toBe('running');
					expect(run.completed).toBeNull();
				}
				emu.advanceTime(100_000);
			}
		} finally {
			emu.advanceTime(-500_000);
		}
		expect(seen[0]).toBeGreaterThanOrEqual(1);
		expect(seen).toEqual([...seen].sort());
		expect(seen[3]).toBe(4);
	});

	test('with a short runDurationMs, a real wait finishes the Run', async () => {
		emu.knobs.runDurationMs = 150;
		try {
			const created = (
				await alice.form('/agents/1/runs', filesForm([{ name: 'invoice_778.pdf', content: 'x' }]))
			).json;
			await sleep(250);
			const run = (await alice.get(`/agents/1/runs/${created.run_id}`)).json;
			expect(run.status).toBe('success');
			expect(run.completed).toMatch(/Z$/);
			expect(Object.keys(run.data)).toHaveLength(4);
			expect(run.data['Invoice number'].value).toBe('INV-778');
		} finally {
			emu.knobs.runDurationMs = 400;
		}
	});

	test('runOutcome failed / never; holdRun and finishRun', async () => {
		const failed = emu.createRun(4, [{ name: 'a.pdf' }], { outcome: 'failed', durationMs: 0 });
		expect(failed.status).toBe('failed');
		expect((failed.data as any)['Supplier'].status).toBe('failed');
		expect((failed.data as any)['PO number'].status).toBe('success');

		const never = emu.createRun(4, [{ name: 'b.pdf' }], { outcome: 'never', durationMs: 30 });
		await sleep(60);
		const stuck = (await alice.get(`/agents/4/runs/${never.run_id}`)).json;
		expect(stuck.status).toBe('running');
		expect(Object.keys(stuck.data)).toEqual(['PO number', 'Line items']);
		const finished = emu.finishRun(4, never.run_id as number);
		expect(finished).toMatchObject({ status: 'success', completed: expect.any(String) });

		const held = emu.createRun(4, [{ name: 'c.pdf' }], { durationMs: 10_000 });
		emu.holdRun(4, held.run_id as number);
		emu.advanceTime(20_000);
		try {
			expect((await alice.get(`/agents/4/runs/${held.run_id}`)).json.status).toBe('running');
			const f = emu.finishRun(4, held.run_id as number, 'failed');
			expect(f.status).toBe('failed');
			expect((f.data as any).Supplier.status).toBe('failed');
			expect(() => emu.holdRun(4, held.run_id as number)).toThrow(/already finished/);
			// Final states are final (service note 17).
			expect(emu.finishRun(4, held.run_id as number, 'success').status).toBe('failed');
		} finally {
			emu.advanceTime(-20_000);
		}
	});

	test('promptFailureRate fails Prompts deterministically inside a successful Run', async () => {
		const run = emu.createRun(1, [{ name: 'x.pdf' }], { durationMs: 0, promptFailureRate: 1 });
		expect(run.status).toBe('success');
		expect(
			Object.values(run.data as Record<string, any>).every(
				(p) => p.status === 'failed' && p.value === null,
			),
		).toBe(true);
	});

	test('failedPrompts: a partly readable document — the named Prompts fail, the others answer, the Run ends success', async () => {
		const created = emu.createRun(1, [{ name: 'faded.pdf' }], {
			durationMs: 50,
			failedPrompts: ['Total amount', 'Vendor'],
		});
		await sleep(100);
		const run = (await alice.get(`/agents/1/runs/${created.run_id}`)).json;
		expect(run.status).toBe('success');
		const statusOf = Object.fromEntries(
			Object.entries(run.data as Record<string, { status: string; value: unknown }>).map(
				([name, result]) => [name, [result.status, result.value === null]],
			),
		);
		expect(statusOf).toEqual({
			'Invoice number': ['success', false],
			'Invoice date': ['success', false],
			Vendor: ['failed', true],
			'Total amount': ['failed', true],
		});
	});

	test('results are deterministic under the seed', async () => {
		const other = await startEmulator({ seed: 11, seedDemoData: true });
		try {
			const a = (await alice.get('/agents/1/runs/1003')).json;
			const b = (await client(other, DEMO_KEYS.alice).get('/agents/1/runs/1003')).json;
			// Seeded Runs are placed relative to startup, so only times differ.
			const values = (run: any) =>
				Object.entries(run.data).map(([k, v]: [string, any]) => [k, v.value, v.metadata, v.usage]);
			expect(values(b)).toEqual(values(a));
		} finally {
			await other.stop();
		}
	});

	test('createRun helper: backdated Runs are already finished and listed', async () => {
		const run = emu.createRun(2, [{ name: 'MSA 2026-05-01.pdf' }], {
			createdAt: emu.now() - 60_000,
			userDefinedId: 'ext-1',
		});
		expect(run).toMatchObject({ status: 'success', user_defined_id: 'ext-1' });
		expect((run.data as any)['Effective date'].value).toBe('2026-05-01');
		const listed = flattenRuns(
			(await alice.get(`/agents/2/runs?page_number=0&page_size=100&run_id=${run.run_id}`)).json
				.runs,
		);
		expect(listed[0].run_id).toBe(run.run_id);
	});
});
