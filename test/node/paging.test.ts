/**
 * Paged lists on services that page differently from the emulator's defaults: a bare
 * array of Agents (docs/design/service-notes.md #11), a service that ignores page_number, an access-log
 * cursor that comes back again.
 */
import { executeNode, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });
const ALICE = 'alice@acme.example';
const BULK_AGENTS = 1001;

beforeAll(() => {
	// More Agents than one page of 1,000 holds.
	const { state } = ctx.emulator;
	const template = state.visibleAgent(state.userByEmail(ALICE)!, DEMO_AGENT_IDS.purchaseOrders)!;
	for (let index = 0; index < BULK_AGENTS; index++) {
		state.addAgent({
			...template,
			id: state.nextId.agent++,
			name: `Bulk agent ${index}`,
			prompts: [],
			templates: [],
			metadata: {},
		});
	}
	// More access-log events than two pages of 1,000 hold.
	const now = Date.now();
	for (let index = 0; index < 2500; index++) {
		state.addAccessLog({
			timestamp_millis: now - 60_000 + index,
			workspace_id: 1,
			user: ALICE,
			operation: 'agents.list',
			client_ip: '203.0.113.7',
			http_path: '/api/v1/client/agents',
			http_method: 'GET',
			http_status: 200,
			metadata: {},
		});
	}
});

afterEach(() => {
	Object.assign(ctx.emulator.knobs, {
		agentsListShape: 'object',
		ignorePageNumber: false,
		omitTotalPages: false,
		repeatAccessLogCursor: false,
	});
});

const agentPages = (seq: number) =>
	ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.path === '/api/v1/client/agents')
		.map((entry) => entry.query.page_number);

describe('paged lists', () => {
	it('reads on while a bare-array page of Agents is full', async () => {
		ctx.emulator.knobs.agentsListShape = 'bare-array';
		const visible = ctx.emulator.state.agentsOf(ctx.emulator.state.userByEmail(ALICE)!).length;
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'agent', operation: 'getAll', returnAll: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(visible);
		expect(agentPages(seq)).toEqual(['0', '1']);
	});

	it('stops when a service that ignores page_number repeats a page, and returns each Agent once', async () => {
		Object.assign(ctx.emulator.knobs, { ignorePageNumber: true });
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'agent', operation: 'getAll', returnAll: true },
		});
		expect(result.error).toBeUndefined();
		const ids = result.items.map((item) => item.json.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids).toHaveLength(1000);
		expect(agentPages(seq)).toEqual(['0', '1']);
	});

	it('stops on a repeated page when the service also leaves out total_pages', async () => {
		Object.assign(ctx.emulator.knobs, { ignorePageNumber: true, omitTotalPages: true });
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { resource: 'agent', operation: 'getAll', limit: 3000 },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1000);
		expect(agentPages(seq)).toEqual(['0', '1']);
	});

	it('Run → Get Many with a Limit fails, saying why, on a service that ignores page_number and lists oldest first (instead of returning the oldest Runs as the newest)', async () => {
		const agentId = DEMO_AGENT_IDS.contracts;
		for (let n = 0; n < 30; n++)
			ctx.emulator.createRun(agentId, [{ name: `c${n}.pdf` }], { durationMs: 0 });
		Object.assign(ctx.emulator.knobs, { ignorePageNumber: true, listOrder: 'oldest-first' });
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: {
					resource: 'run',
					operation: 'getAll',
					agent: { __rl: true, mode: 'id', value: String(agentId) },
					limit: 5,
				},
			});
			expect(result.items).toEqual([]);
			expect(result.error?.message).toBe(
				`The Extraction Agents service sent an incomplete answer for the Runs of Agent ${agentId}`,
			);
			expect((result.error as Error & { description?: string }).description).toMatch(
				/held the same Runs as page 1: the service ignores the page number/,
			);
		} finally {
			ctx.emulator.knobs.listOrder = 'newest-first';
		}
	});

	it('fails, saying so, when the access-log cursor comes back again instead of ending with part of the events', async () => {
		ctx.emulator.knobs.repeatAccessLogCursor = true;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: new Date(Date.now() - 3_600_000).toISOString(),
				returnAll: true,
			},
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the access-log query',
		);
		expect((result.error as Error & { description?: string }).description).toContain(
			'repeated a cursor',
		);
	});
});
