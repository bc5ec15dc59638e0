/**
 * The emulator against the client API as docs/design/service-notes.md describes it: auth, Agents, API keys, usage, access logs and the
 * generic error shapes. Runs, templated output and faults have their own files.
 */
import { DEMO_KEYS, Emulator, startEmulator } from '../../dev/emulator/index';
import { client } from './test-helpers';

let emu: Emulator;
let alice: ReturnType<typeof client>;
let bob: ReturnType<typeof client>;

beforeAll(async () => {
	emu = await startEmulator({ seed: 7, runDurationMs: 50 });
	alice = client(emu, DEMO_KEYS.alice);
	bob = client(emu, DEMO_KEYS.bob);
});
afterAll(() => emu.stop());

const NAIVE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('authentication (service note 6: 401 with {"detail": "..."})', () => {
	test('missing key', async () => {
		const r = await client(emu, null).get('/agents');
		expect(r.status).toBe(401);
		expect(r.json).toEqual({ detail: 'Invalid or missing API key' });
	});

	test('unknown key and a non-Bearer scheme', async () => {
		expect((await client(emu, 'ea_nope').get('/usage')).json).toEqual({
			detail: 'Invalid or missing API key',
		});
		const basic = await client(emu, null).call('GET', '/agents', {
			headers: { authorization: `Basic ${DEMO_KEYS.alice}` },
		});
		expect(basic.status).toBe(401);
	});

	test('expired key', async () => {
		const r = await client(emu, DEMO_KEYS.carol).get('/agents');
		expect(r.status).toBe(401);
		expect(r.json).toEqual({ detail: 'API key expired' });
	});

	test('a deleted key stops working; a key past expires_at is expired', async () => {
		const created = await alice.send('POST', '/api-keys', { name: 'short-lived' });
		const temp = client(emu, created.json.api_key);
		expect((await temp.get('/agents')).status).toBe(200);
		expect((await alice.del(`/api-keys/${created.json.id}`)).status).toBe(204);
		expect((await temp.get('/agents')).json).toEqual({ detail: 'Invalid or missing API key' });

		const soon = await alice.send('POST', '/api-keys', {
			name: 'expiring',
			expires_at: new Date(emu.now() + 60_000).toISOString(),
		});
		const soonClient = client(emu, soon.json.api_key);
		expect((await soonClient.get('/agents')).status).toBe(200);
		emu.advanceTime(61_000);
		try {
			expect((await soonClient.get('/agents')).json).toEqual({ detail: 'API key expired' });
			expect((await alice.get(`/api-keys/${soon.json.id}`)).json.status).toBe('expired');
		} finally {
			emu.advanceTime(-61_000);
		}
	});
});

describe('Agents', () => {
	test("list is paged (service note 11) and limited to the caller's workspaces", async () => {
		const all = await alice.get('/agents?page_number=0&page_size=50');
		expect(all.status).toBe(200);
		expect(all.json.agents.map((a: any) => a.id)).toEqual([1, 2, 4]);
		expect(all.json).toMatchObject({ total_pages: 1, page_number: 0, page_size: 50 });
		const second = await alice.get('/agents?page_number=1&page_size=2');
		expect(second.json.agents.map((a: any) => a.id)).toEqual([4]);
		expect(second.json.total_pages).toBe(2);
		expect((await bob.get('/agents')).json.agents.map((a: any) => a.name)).toEqual(['Receipts']);
	});

	test('read one Agent with every documented field', async () => {
		const r = await alice.get('/agents/1');
		expect(r.status).toBe(200);
		const a = r.json;
		expect(Object.keys(a).sort()).toEqual(
			[
				'agent_guidelines',
				'created',
				'created_by',
				'id',
				'metadata',
				'n_runs',
				'name',
				'objective',
				'output_templates',
				'prompts',
				'updated',
				'workspace_id',
			].sort(),
		);
		expect(a).toMatchObject({
			id: 1,
			workspace_id: 1,
			name: 'Invoices',
			created_by: 'alice@acme.example',
		});
		expect(a.created).toMatch(NAIVE); // no offset: UTC (service note 3)
		expect(a.agent_guidelines.prompt).toContain('ISO 8601');
		expect(a.prompts.map((p: any) => p.name)).toEqual([
			'Invoice number',
			'Invoice date',
			'Vendor',
			'Total amount',
		]);
		const total = a.prompts[3];
		expect(Object.keys(total).sort()).toEqual(
			[
				'created',
				'documents',
				'id',
				'input_prompt_ids',
				'last_updated_by',
				'model',
				'name',
				'options',
				'updated',
			].sort(),
		);
		expect(total.options).toMatchObject({
			type: 'form',
			fields: ['amount', 'currency'],
			web_search: false,
		});
		expect(a.output_templates.map((t: any) => [t.id, t.filename])).toEqual([
			[11, 'Invoice summary.docx'],
			[12, 'Invoice lines.xlsx'],
		]);
		const contracts = (await alice.get('/agents/2')).json;
		expect(contracts.prompts[4].input_prompt_ids).toEqual([201, 203]);
		expect(contracts.prompts[4].options.prompt).toContain('<extraction-agents-prompt id="201">');
	});

	test("404 for an unknown Agent and for another workspace's Agent; 422 for a non-integer id", async () => {
		expect(await alice.get('/agents/99').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'Agent 99 not found' },
		]);
		expect(await alice.get('/agents/3').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'Agent 3 not found' },
		]);
		const bad = await alice.get('/agents/abc');
		expect(bad.status).toBe(422);
		expect(bad.json.detail[0]).toMatchObject({
			loc: ['path', 'agent_id'],
			type: 'int_parsing',
			input: 'abc',
		});
	});

	test('PATCH replaces metadata entirely; {} clears it', async () => {
		const first = await alice.send('PATCH', '/agents/4', {
			metadata: { a: 1, tags: ['x', 2, true, null], note: null },
		});
		expect(first.status).toBe(200);
		expect(first.json.metadata).toEqual({ a: 1, tags: ['x', 2, true, null], note: null });
		const second = await alice.send('PATCH', '/agents/4', { metadata: { b: 'only' } });
		expect(second.json.metadata).toEqual({ b: 'only' }); // not merged
		expect((await alice.get('/agents/4')).json.metadata).toEqual({ b: 'only' });
		expect((await alice.send('PATCH', '/agents/4', { metadata: {} })).json.metadata).toEqual({});
	});

	test('PATCH validates metadata (422)', async () => {
		const nested = await alice.send('PATCH', '/agents/4', {
			metadata: { ok: 1, bad: { deep: true } },
		});
		expect(nested.status).toBe(422);
		expect(nested.json.detail).toHaveLength(1);
		expect(nested.json.detail[0]).toMatchObject({
			loc: ['body', 'metadata', 'bad'],
			type: 'value_error',
		});
		const listOfObjects = await alice.send('PATCH', '/agents/4', {
			metadata: { list: [1, { no: 1 }] },
		});
		expect(listOfObjects.json.detail[0].loc).toEqual(['body', 'metadata', 'list', 1]);
		expect((await alice.send('PATCH', '/agents/4', { metadata: [1] })).json.detail[0].type).toBe(
			'dict_type',
		);
		expect((await alice.send('PATCH', '/agents/4', {})).json.detail[0]).toMatchObject({
			loc: ['body', 'metadata'],
			type: 'missing',
		});
		const badJson = await alice.call('PATCH', '/agents/4', {
			body: '{"metadata": ',
			headers: { 'content-type': 'application/json' },
		});
		expect(badJson.status).toBe(422);
		expect(badJson.json.detail[0].type).toBe('json_invalid');
		expect(await alice.send('PATCH', '/agents/3', { metadata: {} }).then((r) => r.status)).toBe(
			404,
		);
	});

	test('copy creates a new Agent with the same Prompts and templates (service note 27)', async () => {
		const r = await alice.send('POST', '/agents/2/copy', { name: '  Contracts (copy)  ' });
		expect(r.status).toBe(200);
		const copy = r.json;
		expect(copy.id).not.toBe(2);
		expect(copy).toMatchObject({
			name: 'Contracts (copy)',
			workspace_id: 2,
			n_runs: 0,
			created_by: 'alice@acme.example',
		});
		const original = (await alice.get('/agents/2')).json;
		expect(copy.prompts.map((p: any) => p.name)).toEqual(original.prompts.map((p: any) => p.name));
		expect(copy.output_templates.map((t: any) => t.filename)).toEqual(
			original.output_templates.map((t: any) => t.filename),
		);
		// Input Prompt references follow the copied Prompts.
		const ids = copy.prompts.map((p: any) => p.id);
		expect(copy.prompts[4].input_prompt_ids).toEqual([ids[0], ids[2]]);
		expect(copy.prompts[4].options.prompt).toContain(`id="${ids[0]}"`);
		expect((await alice.get(`/agents/${copy.id}`)).status).toBe(200);
		expect((await alice.get('/agents?page_size=100')).json.agents.map((a: any) => a.id)).toContain(
			copy.id,
		);
		expect((await bob.get(`/agents/${copy.id}`)).status).toBe(404);
	});

	test('copy name rules (422) and 404', async () => {
		const blank = await alice.send('POST', '/agents/1/copy', { name: '   ' });
		expect(blank.status).toBe(422);
		expect(blank.json.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_short' });
		expect((await alice.send('POST', '/agents/1/copy', {})).json.detail[0]).toMatchObject({
			loc: ['body', 'name'],
			type: 'missing',
		});
		expect(
			(await alice.send('POST', '/agents/1/copy', { name: 'x'.repeat(256) })).json.detail[0].type,
		).toBe('string_too_long');
		expect((await alice.send('POST', '/agents/1/copy', { name: 42 })).json.detail[0].type).toBe(
			'string_type',
		);
		expect((await alice.send('POST', '/agents/1/copy', { name: 'x'.repeat(255) })).status).toBe(
			200,
		);
		expect(
			await alice
				.send('POST', '/agents/3/copy', { name: 'mine now' })
				.then((r) => [r.status, r.json]),
		).toEqual([404, { detail: 'Agent 3 not found' }]);
	});
});

describe('API keys', () => {
	test('create returns the secret once; the new key authenticates as its owner', async () => {
		const r = await alice.send('POST', '/api-keys', {
			name: 'n8n',
			expires_at: '2099-01-01T00:00:00Z',
		});
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({
			name: 'n8n',
			status: 'active',
			created_by: 'alice@acme.example',
			expires_at: '2099-01-01T00:00:00.000Z',
		});
		expect(r.json.created_at).toMatch(ZULU);
		expect(typeof r.json.api_key).toBe('string');
		expect(r.json.api_key_hint).toContain('...');
		const mine = client(emu, r.json.api_key);
		const listed = await mine.get('/api-keys?page_number=0&page_size=100');
		expect(listed.json.api_keys.map((k: any) => k.id)).toContain(r.json.id);
		const got = await mine.get(`/api-keys/${r.json.id}`);
		expect(got.status).toBe(200);
		expect(got.json.api_key).toBeUndefined();
	});

	test("list shows only the caller's keys, without secrets, paged", async () => {
		const a = await alice.get('/api-keys?page_number=0&page_size=1');
		expect(a.status).toBe(200);
		expect(a.json.api_keys).toHaveLength(1);
		expect(a.json.total_pages).toBeGreaterThanOrEqual(2);
		const all = (await alice.get('/api-keys?page_number=0&page_size=1000')).json.api_keys;
		expect(
			all.every((k: any) => k.created_by === 'alice@acme.example' && k.api_key === undefined),
		).toBe(true);
		expect(all.map((k: any) => k.id)).toContain('ak_demo_alice');
		expect(all.map((k: any) => k.id)).not.toContain('ak_demo_bob');
		expect(
			(await bob.get('/api-keys?page_number=0&page_size=100')).json.api_keys.map((k: any) => k.id),
		).toEqual(['ak_demo_bob']);
	});

	test("404 for an unknown key and for another user's key", async () => {
		expect(await alice.get('/api-keys/ak_demo_bob').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'API key ak_demo_bob not found' },
		]);
		expect(await alice.get('/api-keys/abc').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'API key abc not found' },
		]);
	});

	test("DELETE is idempotent (204) and never deletes another user's key", async () => {
		const k = await alice.send('POST', '/api-keys', { name: 'to delete' });
		const first = await alice.del(`/api-keys/${k.json.id}`);
		expect(first.status).toBe(204);
		expect(first.text).toBe('');
		expect((await alice.del(`/api-keys/${k.json.id}`)).status).toBe(204);
		expect((await alice.del('/api-keys/never-existed')).status).toBe(204);
		expect((await alice.del('/api-keys/ak_demo_bob')).status).toBe(204);
		expect((await bob.get('/agents')).status).toBe(200);
		expect(emu.state.apiKeys.has('ak_demo_bob')).toBe(true);
	});

	test('422 for a missing name or a bad expires_at (service note 28)', async () => {
		expect((await alice.send('POST', '/api-keys', {})).json.detail[0]).toMatchObject({
			loc: ['body', 'name'],
			type: 'missing',
		});
		const bad = await alice.send('POST', '/api-keys', { name: 'x', expires_at: 'tomorrow' });
		expect(bad.status).toBe(422);
		expect(bad.json.detail[0]).toMatchObject({
			loc: ['body', 'expires_at'],
			type: 'datetime_from_date_parsing',
			input: 'tomorrow',
		});
	});
});

describe('usage', () => {
	test("records of the caller's workspaces, newest first, all fields present", async () => {
		const r = await alice.get('/usage');
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({ page_number: 0, page_size: 50 });
		expect(r.json.records).toHaveLength(50);
		for (const rec of r.json.records) {
			expect(Object.keys(rec).sort()).toEqual([
				'agent_id',
				'created',
				'credits_used',
				'run_id',
				'type',
				'user',
				'validation_id',
				'workspace_id',
			]);
			expect([1, 2]).toContain(rec.workspace_id);
			expect(rec.created).toMatch(NAIVE);
		}
		const created = r.json.records.map((x: any) => x.created);
		expect([...created].sort().reverse()).toEqual(created);
		expect(
			(await bob.get('/usage?page_size=1000')).json.records.every((x: any) => x.workspace_id === 3),
		).toBe(true);
	});

	test('filters: agent_id, workspace_id, user, inclusive created bounds', async () => {
		const byAgent = (await alice.get('/usage?agent_id=1&page_size=1000')).json.records;
		expect(byAgent.length).toBeGreaterThan(0);
		expect(byAgent.every((x: any) => x.agent_id === 1)).toBe(true);
		expect(
			(await alice.get('/usage?workspace_id=2&page_size=1000')).json.records.every(
				(x: any) => x.workspace_id === 2,
			),
		).toBe(true);
		expect((await alice.get('/usage?workspace_id=3&page_size=1000')).json.records).toEqual([]); // bob's workspace
		const frank = (await alice.get('/usage?user=frank%40acme.example&page_size=1000')).json.records;
		expect(frank.length).toBeGreaterThan(0);
		expect(frank.every((x: any) => x.user === 'frank@acme.example')).toBe(true);
		const one = (await alice.get('/usage?page_size=1')).json.records[0];
		const exact = encodeURIComponent(one.created);
		const both = (
			await alice.get(`/usage?created_gte=${exact}&created_lte=${exact}&page_size=1000`)
		).json.records;
		expect(both).toContainEqual(one);
		const withZ = encodeURIComponent(`${one.created}Z`);
		expect(
			(await alice.get(`/usage?created_gte=${withZ}&page_size=1000`)).json.records,
		).toContainEqual(one);
	});

	test('422 for out-of-range paging and invalid dates', async () => {
		const big = await alice.get('/usage?page_size=5000');
		expect(big.status).toBe(422);
		expect(big.json).toEqual({
			detail: [
				{
					loc: ['query', 'page_size'],
					msg: 'Input should be less than or equal to 1000',
					type: 'less_than_equal',
					input: '5000',
					ctx: { le: 1000 },
				},
			],
		});
		expect((await alice.get('/usage?page_number=-1')).json.detail[0]).toMatchObject({
			loc: ['query', 'page_number'],
			type: 'greater_than_equal',
			ctx: { ge: 0 },
		});
		expect((await alice.get('/usage?created_gte=yesterday')).json.detail[0]).toMatchObject({
			loc: ['query', 'created_gte'],
			input: 'yesterday',
		});
		expect((await alice.get('/usage?agent_id=abc')).json.detail[0].type).toBe('int_parsing');
		const zero = await alice.get('/usage?page_size=0');
		expect(zero.status).toBe(200);
		expect(zero.json.records).toEqual([]);
	});

	test('seedUsage bulk-adds records; a finished Run adds an agent_run record', async () => {
		const before = (await alice.get('/usage?page_size=1000')).json.total_pages;
		emu.seedUsage(100_000);
		const after = (await alice.get('/usage?page_size=1000')).json.total_pages;
		expect(after).toBeGreaterThan(before + 40);

		const run = emu.createRun(1, [{ name: 'invoice-555.pdf' }], { durationMs: 0 });
		const recs = (await alice.get(`/usage?agent_id=1&page_size=10`)).json.records;
		expect(recs.find((x: any) => x.run_id === run.run_id)).toMatchObject({
			type: 'agent_run',
			workspace_id: 1,
			user: 'alice@acme.example',
		});
	});
});

describe('access logs', () => {
	const range = { start_time: '2020-01-01T00:00:00Z', end_time: '2100-01-01T00:00:00Z' };

	test('403 unless the Enterprise plan', async () => {
		const r = await bob.send('PUT', '/access-logs/query', { time_range: range });
		expect(r.status).toBe(403);
		expect(r.json).toEqual({ detail: 'Access logs need the Enterprise plan' });
	});

	test('422: time_range required, page_size 1..1000, valid cursor (service note 30)', async () => {
		const missing = await alice.send('PUT', '/access-logs/query', {});
		expect(missing.status).toBe(422);
		expect(missing.json.detail[0]).toMatchObject({ loc: ['body', 'time_range'], type: 'missing' });
		expect(
			(await alice.send('PUT', '/access-logs/query', { time_range: range, page_size: 0 })).json
				.detail[0].type,
		).toBe('greater_than_equal');
		expect(
			(await alice.send('PUT', '/access-logs/query', { time_range: range, page_size: 1001 })).json
				.detail[0].type,
		).toBe('less_than_equal');
		expect(
			(
				await alice.send('PUT', '/access-logs/query', {
					time_range: { start_time: 'x', end_time: range.end_time },
				})
			).json.detail[0].loc,
		).toEqual(['body', 'time_range', 'start_time']);
		expect(
			(await alice.send('PUT', '/access-logs/query', { time_range: range, cursor: '!!' })).json
				.detail[0].loc,
		).toEqual(['body', 'cursor']);
	});

	test('cursor paging walks every event once and ends with next_cursor null', async () => {
		const end = new Date(emu.now() - 1000).toISOString(); // a closed window: stable total
		const body = { time_range: { start_time: range.start_time, end_time: end }, page_size: 100 };
		const first = await alice.send('PUT', '/access-logs/query', body);
		expect(first.status).toBe(200);
		expect(first.json.events).toHaveLength(100); // default would be 100 too
		const seen: number[] = [];
		let page = first.json;
		for (;;) {
			seen.push(...page.events.map((e: any) => e.timestamp_millis));
			if (page.next_cursor === null) break;
			page = (await alice.send('PUT', '/access-logs/query', { ...body, cursor: page.next_cursor }))
				.json;
		}
		expect(seen).toHaveLength(first.json.total_events);
		expect([...seen].sort((a, b) => a - b)).toEqual(seen); // oldest first
		const e = first.json.events[0];
		expect(Object.keys(e).sort()).toEqual([
			'client_ip',
			'http_method',
			'http_path',
			'http_status',
			'metadata',
			'operation',
			'timestamp_millis',
			'user',
			'workspace_id',
		]);
		expect([1, 2]).toContain(e.workspace_id);
	});

	test('every served request is logged; filters by user and client IP', async () => {
		await alice.call('GET', '/agents/1', { headers: { 'x-forwarded-for': '10.9.8.7' } });
		const r = await alice.send('PUT', '/access-logs/query', {
			time_range: range,
			filters: { client_ips: ['10.9.8.7'] },
		});
		expect(r.json.total_events).toBe(1);
		expect(r.json.events[0]).toMatchObject({
			workspace_id: 1,
			user: 'alice@acme.example',
			operation: 'agents.get',
			client_ip: '10.9.8.7',
			http_path: '/api/v1/client/agents/1',
			http_method: 'GET',
			http_status: 200,
			metadata: {},
		});
		expect(emu.state.accessLogs.filter((x) => x.client_ip === '10.9.8.7')).toHaveLength(1);
		const grace = await alice.send('PUT', '/access-logs/query', {
			time_range: range,
			filters: { users: ['grace@acme.example'] },
			page_size: 1000,
		});
		expect(grace.json.events.length).toBeGreaterThan(0);
		expect(grace.json.events.every((x: any) => x.user === 'grace@acme.example')).toBe(true);
	});
});

describe('generic behaviour', () => {
	test('unknown path 404, wrong method 405, health document', async () => {
		expect(await alice.get('/nope').then((r) => [r.status, r.json])).toEqual([
			404,
			{ detail: 'Not Found' },
		]);
		const wrong = await alice.call('PUT', '/agents');
		expect(wrong.status).toBe(405);
		const health = await fetch(emu.url + '/');
		expect(((await health.json()) as { api_url: string }).api_url).toBe(emu.apiUrl);
	});

	test('timestamps mix styles (documented in time.ts)', async () => {
		const run = (await alice.get('/agents/1/runs/1003')).json;
		expect(run.created).toMatch(OFFSET);
		expect(run.completed).toMatch(ZULU);
		expect(run.data['Invoice number'].start_time).toMatch(OFFSET);
		expect((await alice.get('/agents/1')).json.updated).toMatch(NAIVE);
	});

	test('request log records method, path, query, status, user; requestsSince and clearLog', async () => {
		const mark = emu.lastSeq;
		await alice.get('/agents?page_number=0&page_size=3');
		await client(emu, null).get('/agents');
		const entries = emu.requestsSince(mark);
		expect(entries).toHaveLength(2);
		expect(entries[0]).toMatchObject({
			method: 'GET',
			path: '/api/v1/client/agents',
			query: { page_number: '0', page_size: '3' },
			status: 200,
			user: 'alice@acme.example',
			userId: 'alice',
			operation: 'agents.list',
		});
		expect(entries[0].durationMs).toBeGreaterThanOrEqual(0);
		expect(entries[1]).toMatchObject({ status: 401 });
		expect(entries[1].user).toBeUndefined();
		await alice.send('PATCH', '/agents/4', { metadata: { k: 'v' } });
		expect(emu.requestLog[emu.requestLog.length - 1].body).toEqual({ metadata: { k: 'v' } });
		emu.clearLog();
		expect(emu.requestLog).toHaveLength(0);
		await alice.get('/agents');
		expect(emu.requestLog[0].seq).toBeGreaterThan(mark + 2);
	});
});
