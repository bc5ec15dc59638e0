import {
	executeNode,
	listSearch,
	loadOptions,
	testCredential,
	useHarness,
} from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { agentById, requestLines, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator();

const agentOp = (operation: string, parameters: Record<string, unknown> = {}) => ({
	resource: 'agent',
	operation,
	...parameters,
});

describe('Agent → Get', () => {
	it.each([
		['By ID', agentById(DEMO_AGENT_IDS.invoices)],
		[
			'By URL',
			{
				__rl: true,
				mode: 'url',
				value: `https://app.example.com/workspaces/1/agents/${DEMO_AGENT_IDS.invoices}/settings`,
			},
		],
		[
			'From List',
			{
				__rl: true,
				mode: 'list',
				value: String(DEMO_AGENT_IDS.invoices),
				cachedResultName: 'Invoices',
			},
		],
	])('returns the Agent with its Prompts and templates (%s)', async (_mode, agent) => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ id: DEMO_AGENT_IDS.invoices, name: 'Invoices' });
		expect((result.items[0].json.prompts as unknown[]).length).toBe(4);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('gives a short Agent by default: Prompt names and template file names instead of their full settings', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: agentById(DEMO_AGENT_IDS.invoices) }),
		});
		expect(result.items[0].json).toEqual({
			id: DEMO_AGENT_IDS.invoices,
			name: 'Invoices',
			objective: 'Extract the key fields of supplier invoices for accounts payable.',
			n_runs: expect.any(Number),
			prompts: ['Invoice number', 'Invoice date', 'Vendor', 'Total amount'],
			output_templates: ['Invoice summary.docx', 'Invoice lines.xlsx'],
			metadata: expect.any(Object),
		});
	});

	it('gives the Agent as the API returns it with Simplify off', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: agentById(DEMO_AGENT_IDS.invoices), simplify: false }),
		});
		const prompts = result.items[0].json.prompts as Array<{ name: string; options: unknown }>;
		expect(prompts[0]).toMatchObject({ name: 'Invoice number', options: expect.any(Object) });
		expect(result.items[0].json).toHaveProperty('agent_guidelines');
	});

	it('keeps the full Agent for workflows saved with node version 1, where Simplify did not exist', async () => {
		for (const operation of ['get', 'getAll']) {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				typeVersion: 1,
				credentials: ctx.credentials,
				parameters: agentOp(
					operation,
					operation === 'get' ? { agent: agentById(DEMO_AGENT_IDS.invoices) } : { limit: 1 },
				),
			});
			expect(result.error).toBeUndefined();
			const prompts = result.items[0].json.prompts as Array<{ name: string; options: unknown }>;
			expect(prompts[0]).toMatchObject({ name: expect.any(String), options: expect.any(Object) });
			expect(result.items[0].json).toHaveProperty('agent_guidelines');
		}
	});

	it('names the Agent when it does not exist, and says what to check', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: agentById(9999) }),
		});
		const error = result.error as Error & { description?: string; httpCode?: string };
		expect(error.message).toBe('Agent 9999 not found');
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('It may have been deleted');
	});

	it.each([
		['abc', '"abc" is not a valid Agent ID'],
		['0', '"0" is not a valid Agent ID'],
		['', 'Parameter "Agent" is required'],
	])('refuses the ID %j before any request', async (value, message) => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: { __rl: true, mode: 'id', value } }),
		});
		// An empty picker is n8n's own "required" check; the rest is the node's.
		expect(result.error?.message).toContain(message);
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});
});

describe('answers that are web pages', () => {
	it('shows a proxy’s HTML error page by its words, without the tags', async () => {
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: `/agents/${DEMO_AGENT_IDS.invoices}` },
				kind: '502',
				times: 4,
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: agentById(DEMO_AGENT_IDS.invoices) }),
		});
		const error = result.error as Error & { description?: string };
		expect(error?.message).toBe('The Extraction Agents service failed (502)');
		expect(error.description).toContain('The service said: 502 Bad Gateway');
		expect(error.description).not.toMatch(/[<>]/);
	});

	it('shows a maintenance page answered with 200 by its words, without the tags', async () => {
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: `/agents/${DEMO_AGENT_IDS.invoices}` },
				kind: 'non-json',
				times: 4,
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('get', { agent: agentById(DEMO_AGENT_IDS.invoices) }),
		});
		const error = result.error as Error & { description?: string };
		expect(error?.message).toBe(
			'The Extraction Agents service sent an answer the node cannot read',
		);
		expect(error.description).toContain(
			'The answer is a web page: Scheduled maintenance: We will be back soon The service is under maintenance.',
		);
		expect(error.description).not.toMatch(/[<>]/);
	});
});

describe('Agent → Get Many', () => {
	it('returns up to Limit Agents', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('getAll', { limit: 2 }),
		});
		expect(result.items).toHaveLength(2);
	});

	it('gives short Agents by default and the API’s Agents with Simplify off', async () => {
		const short = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('getAll', { limit: 1 }),
		});
		expect(Object.keys(short.items[0].json)).toEqual([
			'id',
			'name',
			'objective',
			'n_runs',
			'prompts',
			'output_templates',
			'metadata',
		]);
		const full = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('getAll', { limit: 1, simplify: false }),
		});
		expect(full.items[0].json).toHaveProperty('agent_guidelines');
	});

	it('returns all Agents the key can see, filtered by name', async () => {
		const all = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('getAll', { returnAll: true }),
		});
		const names = all.items.map((item) => item.json.name);
		expect(names).toEqual(expect.arrayContaining(['Invoices', 'Contracts']));
		const filtered = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('getAll', { returnAll: true, filters: { name: 'INVOICE' } }),
		});
		expect(filtered.items.map((item) => item.json.name)).toEqual(['Invoices']);
	});

	it('shows only Agents of the caller’s workspaces (Bob sees none of Alice’s)', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, apiKey: ctx.emulator.keys.bob },
			parameters: agentOp('getAll', { returnAll: true }),
		});
		expect(result.items.map((item) => item.json.name)).not.toContain('Invoices');
	});
});

describe('Agent → Update Metadata', () => {
	const agent = agentById(DEMO_AGENT_IDS.contracts);

	it('replaces the metadata with key/value pairs', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', {
				agent,
				metadataMode: 'keyValue',
				metadataPairs: { pair: [{ key: 'team', value: 'finance' }] },
			}),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.metadata).toEqual({ team: 'finance' });
	});

	it('refuses key/value mode without any pair, sending nothing (it would wipe the metadata)', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', { agent }),
		});
		const error = result.error as Error & { description?: string };
		expect(error?.message).toBe('No metadata pair to set');
		expect(error.description).toContain('add a pair, or choose Clear All Metadata');
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});

	it('sends nothing from an untouched JSON field: the example is a placeholder, not data', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', { agent, metadataMode: 'json' }),
		});
		expect(result.error?.message).toBe('Metadata (JSON) is empty');
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});

	it('sends pair values that read as numbers, true/false or null typed, and keeps other text (e.g. 01234) as text', async () => {
		const seq = ctx.emulator.lastSeq;
		const pair = (key: string, value: string) => ({ key, value });
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', {
				agent,
				metadataMode: 'keyValue',
				metadataPairs: {
					pair: [
						pair('priority', '42'),
						pair('rate', '-1.5'),
						pair('active', 'true'),
						pair('owner', 'null'),
						pair('zip', '01234'),
						pair('team', 'finance'),
					],
				},
			}),
		});
		expect(result.error).toBeUndefined();
		const sent = ctx.emulator.requestsSince(seq).find((entry) => entry.method === 'PATCH')?.body;
		expect(sent).toEqual({
			metadata: {
				priority: 42,
				rate: -1.5,
				active: true,
				owner: null,
				zip: '01234',
				team: 'finance',
			},
		});
	});

	it('replaces the metadata from JSON with lists of primitives', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', {
				agent,
				metadataMode: 'json',
				metadataJson: '{"tags":["q3","eu"],"priority":2,"active":true,"owner":null}',
			}),
		});
		expect(result.items[0].json.metadata).toEqual({
			tags: ['q3', 'eu'],
			priority: 2,
			active: true,
			owner: null,
		});
	});

	it('clears all metadata by sending {}', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', { agent, metadataMode: 'clear' }),
		});
		expect(result.items[0].json.metadata).toEqual({});
		expect(ctx.emulator.requestsSince(seq).find((entry) => entry.method === 'PATCH')?.body).toEqual(
			{ metadata: {} },
		);
	});

	it.each([
		['{"address":{"city":"Berlin"}}', 'Metadata key "address" holds a nested object'],
		['{"rows":[[1,2]]}', 'Metadata key "rows" holds a nested list'],
		['[1,2]', 'Metadata must be a JSON object'],
		['{"a":', 'Metadata (JSON) is not valid JSON'],
	])('refuses %s before any request', async (metadataJson, message) => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('updateMetadata', { agent, metadataMode: 'json', metadataJson }),
		});
		expect(result.error?.message).toBe(message);
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});
});

describe('Agent → Copy', () => {
	it('copies the Agent under the trimmed new name', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('copy', {
				agent: agentById(DEMO_AGENT_IDS.invoices),
				newName: '  Invoices EU  ',
			}),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.name).toBe('Invoices EU');
		expect(result.items[0].json.id).not.toBe(DEMO_AGENT_IDS.invoices);
	});

	it('refuses a blank name before any request', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: agentOp('copy', { agent: agentById(DEMO_AGENT_IDS.invoices), newName: '   ' }),
		});
		expect(result.error?.message).toBe('New Name is empty');
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});
});

describe('pickers', () => {
	it('lists and searches Agents for the Agent picker', async () => {
		const all = await listSearch({
			nodeType: 'extractionAgents',
			method: 'searchAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'agent', operation: 'get' },
		});
		expect(all.results.map((result) => result.name)).toEqual(
			expect.arrayContaining([`Invoices (${DEMO_AGENT_IDS.invoices})`]),
		);
		const found = await listSearch({
			nodeType: 'extractionAgents',
			method: 'searchAgents',
			filter: 'contr',
			credentials: ctx.credentials,
			parameters: {},
		});
		expect(found.results.map((result) => result.name)).toEqual([
			`Contracts (${DEMO_AGENT_IDS.contracts})`,
		]);
	});

	it('loads the chosen Agent’s output templates by file name', async () => {
		const options = await loadOptions({
			nodeType: 'extractionAgents',
			method: 'getOutputTemplates',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(DEMO_AGENT_IDS.invoices),
			},
		});
		expect(options.map((option) => [option.name, option.value])).toEqual([
			['Invoice summary.docx', 11],
			['Invoice lines.xlsx', 12],
		]);
	});
});

describe('credential', () => {
	it('passes the credential test with a good key', async () => {
		expect(await testCredential(ctx.credentials)).toMatchObject({ status: 'OK' });
	});

	it('a wrong API key fails with what to fix, and the key never appears in the error', async () => {
		const apiKey = 'ea_wrong_key_123456789';
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, apiKey },
			parameters: agentOp('getAll', { limit: 1 }),
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe('The API key was rejected (401)');
		expect(error.description).toContain('Check the API key in the Extraction Agents credential');
		expect(
			JSON.stringify({ message: error.message, description: error.description, error }),
		).not.toContain(apiKey);
	});

	it('an expired key gets the same clear 401 message', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, apiKey: ctx.emulator.keys.carol },
			parameters: agentOp('getAll', { limit: 1 }),
		});
		expect(result.error?.message).toBe('The API key was rejected (401)');
		expect((result.error as Error & { description?: string }).description).toMatch(/expired/i);
	});

	it('a Base URL without http(s):// is refused before any request, saying how to fix it', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { ...ctx.credentials, baseUrl: ctx.emulator.url.replace('http://', '') },
			parameters: agentOp('getAll', { limit: 1 }),
		});
		expect(result.error?.message).toMatch(/must start with http:\/\/ or https:\/\//);
		expect(requestLines(ctx.emulator, seq)).toEqual([]);
	});

	it('tolerates a Base URL with a trailing slash or the /api/v1/client suffix', async () => {
		for (const baseUrl of [`${ctx.emulator.url}/`, `${ctx.emulator.url}/api/v1/client/`]) {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: { ...ctx.credentials, baseUrl },
				parameters: agentOp('getAll', { limit: 1 }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(1);
		}
	});
});
