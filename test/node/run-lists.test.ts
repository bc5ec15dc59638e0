/**
 * The Run picker and Run → Get Many show the newest Runs first whatever order the
 * service lists them in (docs/design/service-notes.md #13 promises none).
 */
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';
import { executeNode, listSearch, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS, type ListOrder } from '../../dev/emulator';
import { agentById, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });
const AGENT = DEMO_AGENT_IDS.purchaseOrders;
/** Run ids from the newest to the oldest. */
let newestFirst: number[] = [];

beforeAll(() => {
	// 450 finished Runs a minute apart (more than two picker pages), then one made just now.
	ctx.emulator.addHistoricalRuns(AGENT, 450);
	const latest = ctx.emulator.createRun(AGENT, [{ name: 'latest.pdf' }], { hold: true });
	ctx.emulator.finishRun(AGENT, Number(latest.run_id), 'success');
	newestFirst = [...ctx.emulator.state.runsOfAgent(AGENT)].reverse().map((run) => run.runId);
});

afterEach(() => {
	ctx.emulator.knobs.listOrder = 'newest-first';
});

const pickerParameters = { resource: 'run', operation: 'get', agent: agentById(AGENT) };
const runIdOf = (value: unknown) => Number(value);

describe.each<ListOrder>(['oldest-first', 'newest-first'])(
	'on a service listing Runs %s',
	(order) => {
		beforeEach(() => {
			ctx.emulator.knobs.listOrder = order;
		});

		it('the Run picker shows the newest Runs first, and pages on to older ones', async () => {
			const first = await listSearch({
				nodeType: 'extractionAgents',
				method: 'searchRuns',
				credentials: ctx.credentials,
				parameters: pickerParameters,
			});
			expect(first.results.map((result) => runIdOf(result.value))).toEqual(
				newestFirst.slice(0, 200),
			);
			expect(first.paginationToken).toBeDefined();
			const second = await listSearch({
				nodeType: 'extractionAgents',
				method: 'searchRuns',
				credentials: ctx.credentials,
				parameters: pickerParameters,
				paginationToken: first.paginationToken,
			});
			expect(second.results.map((result) => runIdOf(result.value))).toEqual(
				newestFirst.slice(200, 400),
			);
		});

		it('Run → Get Many with a Limit returns the newest Runs, newest first', async () => {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: { resource: 'run', operation: 'getAll', agent: agentById(AGENT), limit: 5 },
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.run_id)).toEqual(newestFirst.slice(0, 5));
		});
	},
);

describe('the Run picker', () => {
	it('finds a Run by its exact ID with the run_id filter, wherever it is in the list', async () => {
		const oldest = newestFirst[newestFirst.length - 1];
		const seq = ctx.emulator.lastSeq;
		const found = await listSearch({
			nodeType: 'extractionAgents',
			method: 'searchRuns',
			filter: ` ${oldest} `,
			credentials: ctx.credentials,
			parameters: pickerParameters,
		});
		expect(found.results.map((result) => runIdOf(result.value))).toEqual([oldest]);
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.query.run_id)).toEqual([
			String(oldest),
		]);
	});

	it('is reloaded when the Agent changes (it depends on the Agent)', () => {
		const runParameters = new ExtractionAgents().description.properties.filter(
			(property) => property.name === 'run',
		);
		expect(runParameters.length).toBeGreaterThan(0);
		for (const parameter of runParameters)
			expect(parameter.typeOptions?.loadOptionsDependsOn).toEqual(['agent.value']);
	});
});
