/**
 * Rate limits (429 + Retry-After), injected one-shot faults, random faults, latency and a prompt
 * stop() even with stalled requests.
 */
import { DEMO_KEYS, Emulator, startEmulator } from '../../dev/emulator/index';
import { client, filesForm, flattenRuns, rawRequest } from './test-helpers';

let emu: Emulator;
let alice: ReturnType<typeof client>;

beforeAll(async () => {
	emu = await startEmulator({ seed: 5 });
	alice = client(emu, DEMO_KEYS.alice);
});
afterAll(() => emu.stop());
afterEach(() => {
	emu.clearFaults();
	emu.resetRateLimits();
	emu.knobs.faultRate = 0;
	emu.knobs.latencyMs = 0;
	emu.knobs.rateLimitPerMinute = { usage: 600 };
	emu.knobs.retryAfterStyle = 'seconds';
});

const url = (path: string): string => emu.apiUrl + path;
const auth = { authorization: `Bearer ${DEMO_KEYS.alice}` };

describe('rate limits', () => {
	test('GET /usage: 600 a minute a user, then 429 with Retry-After in seconds', async () => {
		const statuses: number[] = [];
		for (let batch = 0; batch < 30; batch++) {
			const replies = await Promise.all(
				Array.from({ length: 20 }, () => fetch(url('/usage?page_size=0'), { headers: auth })),
			);
			for (const r of replies) {
				statuses.push(r.status);
				await r.arrayBuffer();
			}
		}
		expect(statuses.filter((s) => s === 200)).toHaveLength(600);
		const limited = await alice.get('/usage?page_size=0');
		expect(limited.status).toBe(429);
		expect(limited.json.detail).toContain('600');
		const retryAfter = Number(limited.headers.get('retry-after'));
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		// Another family and another user are not affected.
		expect((await alice.get('/agents')).status).toBe(200);
		expect((await client(emu, DEMO_KEYS.bob).get('/usage?page_size=0')).status).toBe(200);
	});

	test('per-family knob; Retry-After as an HTTP date or absent', async () => {
		emu.knobs.rateLimitPerMinute = { agents: 2 };
		expect((await alice.get('/agents')).status).toBe(200);
		expect((await alice.get('/agents/1')).status).toBe(200);
		emu.knobs.retryAfterStyle = 'http-date';
		const asked = emu.now();
		const dated = await alice.get('/agents');
		const answered = emu.now();
		expect(dated.status).toBe(429);
		// The date is when the minute's window lets a call through again: 1 to 60 s after the
		// emulator's clock at the refusal, in whole seconds. Bracketed by the emulator's clock
		// before and after the call, so a busy machine cannot break it.
		const when = Date.parse(dated.headers.get('retry-after')!);
		expect(when).toBeGreaterThanOrEqual(Math.floor((asked + 1000) / 1000) * 1000);
		expect(when).toBeLessThanOrEqual(answered + 60_000);
		emu.knobs.retryAfterStyle = 'absent';
		const bare = await alice.get('/agents');
		expect(bare.status).toBe(429);
		expect(bare.headers.get('retry-after')).toBeNull();
		// The window slides: a minute later the calls pass again.
		emu.advanceTime(61_000);
		try {
			expect((await alice.get('/agents')).status).toBe(200);
		} finally {
			emu.advanceTime(-61_000);
		}
	});
});

describe('injected faults', () => {
	test('status faults: 500/503 JSON, 502/504 HTML; consumed once', async () => {
		emu.injectFaults([{ kind: '503' }, { kind: '502' }, { kind: '500' }, { kind: '504' }]);
		const r503 = await alice.get('/agents');
		expect([r503.status, r503.json]).toEqual([503, { detail: 'Service temporarily unavailable' }]);
		const r502 = await alice.get('/agents');
		expect(r502.status).toBe(502);
		expect(r502.headers.get('content-type')).toContain('text/html');
		expect((await alice.get('/agents')).status).toBe(500);
		expect((await alice.get('/agents')).status).toBe(504);
		expect((await alice.get('/agents')).status).toBe(200);
		expect(emu.requestLog.slice(-5).map((e) => e.fault)).toEqual([
			'503',
			'502',
			'500',
			'504',
			undefined,
		]);
	});

	test('429 with a given Retry-After; match by method and path; times', async () => {
		emu.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '429', retryAfter: '7', times: 2 },
		]);
		expect((await alice.get('/agents/1/runs')).status).toBe(200);
		for (let i = 0; i < 2; i++) {
			const r = await alice.form('/agents/1/runs', filesForm([{ name: 'a.pdf', content: 'x' }]));
			expect(r.status).toBe(429);
			expect(r.headers.get('retry-after')).toBe('7');
		}
		expect(
			(await alice.form('/agents/1/runs', filesForm([{ name: 'a.pdf', content: 'x' }]))).status,
		).toBe(200);
		expect(emu.pendingFaults).toEqual([]);
	});

	test('503 before vs after on POST runs: "after" creates the Run anyway', async () => {
		const count = () => emu.state.agents.get(4)!.nRuns;
		const n0 = count();
		emu.injectFaults([{ kind: '503', match: { method: 'POST' } }]);
		expect(
			(await alice.form('/agents/4/runs', filesForm([{ name: 'before.pdf', content: 'x' }])))
				.status,
		).toBe(503);
		expect(count()).toBe(n0);
		emu.injectFaults([{ kind: '503', match: { method: 'POST' }, timing: 'after' }]);
		expect(
			(await alice.form('/agents/4/runs', filesForm([{ name: 'after.pdf', content: 'x' }]))).status,
		).toBe(503);
		expect(count()).toBe(n0 + 1);
		const listed = flattenRuns(
			(await alice.get('/agents/4/runs?page_number=0&page_size=5')).json.runs,
		);
		expect(listed[0].files).toEqual(['after.pdf']);
	});

	test('reset: the socket closes without a response', async () => {
		emu.injectFaults([{ kind: 'reset' }]);
		const r = await rawRequest(url('/agents'), { headers: auth });
		expect('error' in r).toBe(true);
		await expect(fetch(url('/agents'), { headers: auth }).then((x) => x.status)).resolves.toBe(200);
	});

	test('reset-mid-response: headers and part of the body, then the socket closes', async () => {
		emu.injectFaults([{ kind: 'reset-mid-response' }]);
		const r = await rawRequest(url('/agents'), { headers: auth });
		expect('error' in r).toBe(true);
		expect(emu.requestLog[emu.requestLog.length - 1]).toMatchObject({
			fault: 'reset-mid-response',
			status: 200,
		});
	});

	test('truncated-json: a complete message whose JSON is cut', async () => {
		emu.injectFaults([{ kind: 'truncated-json' }]);
		const r = await rawRequest(url('/agents'), { headers: auth });
		if (!('status' in r)) throw new Error(r.error);
		expect(r.status).toBe(200);
		expect(Number(r.headers['content-length'])).toBe(r.body.length);
		expect(() => JSON.parse(r.body.toString())).toThrow();
		expect(r.body.toString().startsWith('{"agents":[')).toBe(true);
	});

	test('non-json: 200 with an HTML page', async () => {
		emu.injectFaults([{ kind: 'non-json' }]);
		const r = await alice.get('/agents');
		expect(r.status).toBe(200);
		expect(r.json).toBeUndefined();
		expect(r.text).toContain('<html>');
	});

	test('missing-fields: required fields dropped from the real answer', async () => {
		emu.injectFaults([{ kind: 'missing-fields', match: { path: '/runs/' } }]);
		const run = (await alice.get('/agents/1/runs/1003')).json;
		expect(run.run_id).toBeUndefined();
		expect(run.status).toBeUndefined();
		expect(run.data).toBeUndefined();
		expect(run.agent_id).toBe(1);
	});

	test('stall: no answer until the client gives up; stop() closes stalled sockets promptly', async () => {
		emu.injectFaults([{ kind: 'stall' }]);
		const t0 = Date.now();
		const r = await rawRequest(url('/agents'), { headers: auth, timeoutMs: 300 });
		expect(r).toEqual({ error: 'TIMEOUT' });
		expect(Date.now() - t0).toBeGreaterThanOrEqual(280);

		const other = await startEmulator({ seedDemoData: false });
		other.injectFaults([{ kind: 'stall' }]);
		const pending = rawRequest(`${other.apiUrl}/agents`, {
			headers: { authorization: `Bearer ${DEMO_KEYS.alice}` },
		});
		while (other.requestLog.length === 0) await new Promise((res) => setTimeout(res, 50));
		expect(other.requestLog[0]).toMatchObject({ fault: 'stall', status: 0 });
		// The stalled request is never answered and its client has no timeout: a server that
		// waited for it would never close, so stop() resolving at all (jest's test timeout is the
		// only clock) shows it closed the stalled socket, and the client saw its connection end.
		await other.stop();
		expect('error' in (await pending)).toBe(true);
	});
});

describe('random faults and latency', () => {
	async function pattern(e: Emulator): Promise<number[]> {
		const c = client(e, DEMO_KEYS.alice);
		const statuses: number[] = [];
		for (let i = 0; i < 40; i++) statuses.push((await c.get('/agents')).status);
		return statuses;
	}

	test('faultRate draws faults deterministically from the seed', async () => {
		const make = () =>
			startEmulator({ seed: 99, faultRate: 0.3, faultKinds: ['503', '500'], seedDemoData: false });
		const [a, b] = [await make(), await make()];
		try {
			const pa = await pattern(a);
			expect(await pattern(b)).toEqual(pa);
			const faulted = pa.filter((s) => s !== 200).length;
			expect(faulted).toBeGreaterThan(3);
			expect(faulted).toBeLessThan(25);
			expect(new Set(pa)).toEqual(new Set([200, 500, 503]));
		} finally {
			await a.stop();
			await b.stop();
		}
	});

	test('faultMethods / faultPaths restrict random faults', async () => {
		emu.knobs.faultRate = 1;
		emu.knobs.faultKinds = ['503'];
		emu.knobs.faultMethods = ['POST'];
		try {
			expect((await alice.get('/agents')).status).toBe(200);
			expect((await alice.send('POST', '/agents/1/copy', { name: 'x' })).status).toBe(503);
			emu.knobs.faultMethods = undefined;
			emu.knobs.faultPaths = ['/usage'];
			expect((await alice.get('/agents')).status).toBe(200);
			expect((await alice.get('/usage')).status).toBe(503);
		} finally {
			emu.knobs.faultMethods = undefined;
			emu.knobs.faultPaths = undefined;
		}
	});

	test("faultTiming 'random' draws before or after per fault; a 429 is never 'after'", async () => {
		const e = await startEmulator({
			seed: 7,
			faultRate: 1,
			faultKinds: ['503', '429'],
			faultTiming: 'random',
			seedDemoData: false,
			logErrors: false,
		});
		try {
			const c = client(e, DEMO_KEYS.alice);
			for (let i = 0; i < 40; i++) await c.send('POST', '/api-keys', { name: `k${i}` });
			const created = [...e.state.apiKeys.values()].filter((k) => k.name.startsWith('k')).length;
			const faults = e.requestLog.map((r) => r.fault);
			const n503 = faults.filter((f) => f === '503').length;
			const n429 = faults.filter((f) => f === '429').length;
			expect(n503).toBeGreaterThan(5);
			expect(n429).toBeGreaterThan(5);
			// every request got a fault; only some of the 503s ('after') were processed, never a 429
			expect(created).toBeGreaterThan(0);
			expect(created).toBeLessThan(n503);
		} finally {
			await e.stop();
		}
	});

	test("an injected 429 with timing 'after' is still not processed", async () => {
		const before = emu.state.apiKeys.size;
		emu.injectFaults([{ kind: '429', timing: 'after', match: { method: 'POST' } }]);
		expect((await alice.send('POST', '/api-keys', { name: 'never' })).status).toBe(429);
		expect(emu.state.apiKeys.size).toBe(before);
	});

	test('missing-fields with dropFields drops exactly those fields', async () => {
		emu.injectFaults([
			{
				kind: 'missing-fields',
				match: { path: '/agents/1' },
				dropFields: ['id', 'output_templates'],
			},
		]);
		const agent = (await alice.get('/agents/1')).json;
		expect(agent.id).toBeUndefined();
		expect(agent.output_templates).toBeUndefined();
		expect(agent.name).toBe('Invoices');
		expect(agent.metadata).toBeDefined();
	});

	test('uploadBytesPerSecond makes POST runs read its body as over a slow link', async () => {
		emu.knobs.uploadBytesPerSecond = 200_000;
		try {
			const t0 = Date.now();
			const r = await alice.form(
				'/agents/1/runs',
				filesForm([{ name: 'slow.pdf', content: Buffer.alloc(300_000, 1) }]),
			);
			expect(r.status).toBe(200);
			expect(Date.now() - t0).toBeGreaterThanOrEqual(1300);
			expect(emu.requestLog.at(-1)?.upload?.files[0].size).toBe(300_000);
		} finally {
			emu.knobs.uploadBytesPerSecond = null;
		}
	});

	test('latencyMs delays every API answer', async () => {
		emu.knobs.latencyMs = 150;
		const t0 = Date.now();
		expect((await alice.get('/agents')).status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
	});
});
