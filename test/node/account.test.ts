import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';
import { executeNode, listSearch, useHarness } from '../../dev/harness';
import { requestLines, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator();

describe('API Key', () => {
	it('creates a key whose secret is in the output once, and then works as a credential', async () => {
		const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
		const created = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'create', name: 'n8n test', expiresAt },
		});
		expect(created.error).toBeUndefined();
		const key = created.items[0].json as {
			id: string;
			api_key: string;
			expires_at: string;
			status: string;
		};
		expect(key.api_key).toBeTruthy();
		expect(Date.parse(key.expires_at)).toBe(Date.parse(expiresAt));

		const got = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'get', keyId: key.id },
		});
		expect(got.items[0].json).toMatchObject({ id: key.id, name: 'n8n test', status: 'active' });
		expect(got.items[0].json).not.toHaveProperty('api_key');

		const withNewKey = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, apiKey: key.api_key },
			parameters: { resource: 'apiKey', operation: 'getAll', returnAll: true },
		});
		expect(withNewKey.items.map((item) => item.json.id)).toContain(key.id);
	});

	it('lists only the caller’s keys, up to Limit', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'getAll', limit: 1 },
		});
		expect(result.items).toHaveLength(1);
		const all = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'getAll', returnAll: true },
		});
		expect(all.items.map((item) => item.json.id)).not.toContain('ak_demo_bob');
	});

	it('picks a key from the list of the caller’s keys, and gets and deletes it by the picked ID', async () => {
		const created = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'create', name: 'picked key' },
		});
		const keyId = String(created.items[0].json.id);
		const picker = await listSearch({
			nodeType: 'extractionAgents',
			method: 'searchApiKeys',
			filter: 'PICKED',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'get' },
		});
		expect(picker.results).toEqual([{ name: `picked key (${keyId})`, value: keyId }]);
		const fromList = { __rl: true, mode: 'list', value: keyId, cachedResultName: 'picked key' };
		const got = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'get', keyId: fromList },
		});
		expect(got.items[0].json).toMatchObject({ id: keyId, name: 'picked key' });
		const deleted = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'apiKey',
				operation: 'delete',
				keyId: { __rl: true, mode: 'id', value: keyId },
			},
		});
		expect(deleted.items[0].json).toEqual({ deleted: true, id: keyId });
	});

	it('still runs a workflow saved with the API Key ID as plain text (before it became a picker)', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'delete', keyId: 'ak_saved_long_ago' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ deleted: true, id: 'ak_saved_long_ago' });
	});

	it('another user’s key is not found', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'get', keyId: 'ak_demo_bob' },
		});
		expect(result.error?.message).toBe('API key "ak_demo_bob" not found');
	});

	it('deleting is idempotent: a missing key also succeeds', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', operation: 'delete', keyId: 'ak_does_not_exist' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ deleted: true, id: 'ak_does_not_exist' });
	});

	it.each([
		[{ operation: 'create', name: '  ' }, 'Name is empty'],
		[
			{ operation: 'create', name: 'x', expiresAt: '2020-01-01T00:00:00Z' },
			/^Expires At .* is in the past$/,
		],
		[{ operation: 'get', keyId: ' ' }, 'API Key ID is empty'],
		[{ operation: 'delete', keyId: 'a/b' }, '"a/b" is not a valid API key ID'],
	])('refuses %j before any request', async (parameters, message) => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'apiKey', ...parameters },
		});
		if (typeof message === 'string') expect(result.error?.message).toBe(message);
		else expect(result.error?.message).toMatch(message);
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});
});

describe('Usage → Get Many', () => {
	beforeAll(() => ctx.emulator.seedUsage(2500));

	it('returns all records over several pages of 1000', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'usage', operation: 'getAll', returnAll: true },
		});
		expect(result.error).toBeUndefined();
		const pages = ctx.emulator.requestsSince(seq);
		expect(pages.every((entry) => entry.query.page_size === '1000')).toBe(true);
		expect(result.items.length).toBeGreaterThan(1000);
		expect(pages.length).toBe(Math.ceil(result.items.length / 1000));
		for (const item of result.items.slice(0, 5)) expect(item.json).toHaveProperty('credits_used');
	});

	it.each([
		[
			'picked from the Agent list',
			{ __rl: true, mode: 'list', value: '2', cachedResultName: 'Contracts' },
		],
		['by ID', { __rl: true, mode: 'id', value: '2' }],
		['as saved before it was a picker (a number)', 2],
	])('filters by an Agent %s', async (_how, agentId) => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'usage', operation: 'getAll', limit: 5, filters: { agentId } },
		});
		expect(result.error).toBeUndefined();
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.query.agent_id)).toEqual(['2']);
		for (const item of result.items) expect(item.json.agent_id).toBe(2);
	});

	it('explains the Workspace ID and User filters', () => {
		const filters = new ExtractionAgents().description.properties.find(
			(property) =>
				property.name === 'filters' && property.displayOptions?.show?.resource?.includes('usage'),
		);
		const options = (filters?.options ?? []) as Array<{ name: string; description?: string }>;
		for (const name of ['workspaceId', 'user'])
			expect(options.find((option) => option.name === name)?.description).toBeTruthy();
	});

	it('stops at Limit with one request', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'usage', operation: 'getAll', limit: 7 },
		});
		expect(result.items).toHaveLength(7);
		expect(ctx.emulator.requestsSince(seq)).toHaveLength(1);
	});

	it('sends the inclusive date range and the filters, and returns only matching records', async () => {
		const after = new Date(Date.now() - 10 * 86_400_000).toISOString();
		const before = new Date(Date.now() - 2 * 86_400_000).toISOString();
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'usage',
				operation: 'getAll',
				returnAll: true,
				filters: { createdAfter: after, createdBefore: before, workspaceId: 1 },
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBeGreaterThan(0);
		for (const item of result.items) {
			const created = Date.parse(String(item.json.created).replace(/(\d)$/, '$1Z'));
			expect(created).toBeGreaterThanOrEqual(Date.parse(after) - 1);
			expect(created).toBeLessThanOrEqual(Date.parse(before) + 1);
			expect(item.json.workspace_id).toBe(1);
		}
		const [first] = ctx.emulator.requestsSince(seq);
		expect(first.query).toMatchObject({ workspace_id: '1' });
		expect(Date.parse(first.query.created_gte)).toBe(Date.parse(after));
	});

	it('refuses a range whose start is after its end', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'usage',
				operation: 'getAll',
				filters: { createdAfter: '2026-05-01T00:00:00Z', createdBefore: '2026-04-01T00:00:00Z' },
			},
		});
		expect(result.error?.message).toBe('Created After is later than Created Before');
	});
});

describe('Access Log → Query', () => {
	const start = () => new Date(Date.now() - 30 * 86_400_000).toISOString();

	it('follows the cursor to return all events (Enterprise)', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: start(),
				returnAll: true,
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items.length).toBeGreaterThan(0);
		for (const item of result.items.slice(0, 3)) expect(item.json).toHaveProperty('http_path');
		const bodies = ctx.emulator
			.requestsSince(seq)
			.map((entry) => entry.body as { cursor?: string; time_range: unknown });
		expect(bodies[0].time_range).toBeDefined();
		expect(bodies[0].cursor).toBeUndefined();
	});

	it('stops at Limit and filters by user', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: start(),
				limit: 3,
				filters: { users: 'alice@acme.example' },
			},
		});
		expect(result.items).toHaveLength(3);
		for (const item of result.items) expect(item.json.user).toBe('alice@acme.example');
	});

	it('tells a non-Enterprise account that access logs need the Enterprise plan', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, apiKey: ctx.emulator.keys.bob },
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: start(),
				returnAll: true,
			},
		});
		expect(result.error?.message).toBe('Access logs need the Enterprise plan');
	});

	it('refuses a start after the end before any request', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: '2026-05-02T00:00:00Z',
				endTime: '2026-05-01T00:00:00Z',
			},
		});
		expect(result.error?.message).toBe('Start Time is later than End Time');
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});
});
