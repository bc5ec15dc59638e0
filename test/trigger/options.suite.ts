/**
 * The trigger's parameters: Statuses, Simplify and Include Full Run.
 */
import type { IDataObject } from 'n8n-workflow';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	itemsOf,
	newAgent,
	runIdsOf,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const PROMPTS = ['Invoice number', 'Invoice date', 'Vendor', 'Total amount']; // the Invoices Agent's, copied
/** The sheet-ready row's columns: one or more per Prompt in order (`Total amount › currency`), then the Run's. */
function promptsThenRunFields(item: IDataObject): boolean {
	const keys = Object.keys(item);
	const promptOf = (key: string) =>
		PROMPTS.findIndex((name) => key === name || key.startsWith(`${name} › `));
	const promptColumns = keys.slice(0, keys.length - SHEET_RUN_FIELDS.length);
	const order = promptColumns.map(promptOf);
	return (
		order.every((index, n) => index >= 0 && (n === 0 || index >= order[n - 1])) &&
		new Set(order).size === PROMPTS.length &&
		keys.slice(promptColumns.length).join() === SHEET_RUN_FIELDS.join()
	);
}
const SHEET_RUN_FIELDS = [
	'run_id',
	'status',
	'run_url',
	'files',
	'user_defined_id',
	'created',
	'completed',
	'failed_prompts',
	'credits_used',
	'agent_id',
];
describe('Extraction Agents Trigger: parameters', () => {
	it('Statuses = Failed: only failed Runs are emitted; successful ones are dropped, not kept pending', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'failed only');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { statuses: ['failed'] }),
			credentials,
		});
		await expectNothing(poller);

		const [a, b, c] = [
			heldRun(emulator, agentId),
			heldRun(emulator, agentId),
			heldRun(emulator, agentId),
		];
		await expectNothing(poller);
		emulator.finishRun(agentId, a, 'success');
		emulator.finishRun(agentId, b, 'failed');
		const newOk = finishedRun(emulator, agentId, { outcome: 'success' }).run_id;
		const newFailed = finishedRun(emulator, agentId, { outcome: 'failed' }).run_id;

		const items = itemsOf(await poller.poll());
		expect(sorted(items.map((item) => Number(item.run_id)))).toEqual(sorted([b, newFailed]));
		expect(items.every((item) => item.status === 'failed')).toBe(true);

		// Only c is still pending, and the list shows it running: nothing is read singly, and
		// the successful Runs are not read again.
		const seq = emulator.lastSeq;
		await expectNothing(poller);
		const reads = classify(emulator.requestsSince(seq)).runReads.map((entry) => entry.path);
		expect(reads).toEqual([]);
		expect(reads.join()).not.toMatch(new RegExp(`/runs/(${a}|${newOk})$`));

		emulator.finishRun(agentId, c, 'success');
		await expectNothing(poller);
		await expectNothing(poller);
	});

	it('refuses an empty Statuses selection with a clear message', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'no status');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { statuses: [] }),
			credentials,
		});
		await expect(poller.poll()).rejects.toThrow('No status selected');
	});

	describe('Simplify and Include Full Run', () => {
		/** Four pollers from the same stored state each emit the same Run, shaped by their parameters. */
		async function oneRunFourWays() {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, 'shapes');
			const activation = createPoller({ parameters: triggerParameters(agentId), credentials });
			await expectNothing(activation);
			const runId = Number(
				emulator.createRun(agentId, [{ name: 'INV-4711.pdf' }], {
					durationMs: 0,
					userDefinedId: 'mail-42',
				}).run_id,
			);
			const shapes: Record<string, { item: IDataObject; requests: number }> = {};
			for (const simplify of [true, false]) {
				for (const includeFullRun of [true, false]) {
					const poller = createPoller({
						parameters: triggerParameters(agentId, { simplify, includeFullRun }),
						credentials,
						staticData: activation.staticData,
					});
					const seq = emulator.lastSeq;
					const items = itemsOf(await poller.poll());
					expect(items.map((item) => item.run_id)).toEqual([runId]);
					shapes[`${simplify ? 'simple' : 'raw'}/${includeFullRun ? 'full' : 'listed'}`] = {
						item: items[0],
						requests: classify(emulator.requestsSince(seq)).runReads.length,
					};
				}
			}
			return { agentId, runId, shapes };
		}

		let result: Awaited<ReturnType<typeof oneRunFourWays>>;
		beforeAll(async () => {
			result = await oneRunFourWays();
		});

		it('Simplify on: one sheet-ready row, the Prompt values first in the Agent’s order, then the Run fields', () => {
			const { item } = result.shapes['simple/full'];
			expect(promptsThenRunFields(item)).toEqual(true);
			expect(item).toMatchObject({
				run_id: result.runId,
				agent_id: result.agentId,
				status: 'success',
				files: 'INV-4711.pdf',
				user_defined_id: 'mail-42',
				failed_prompts: '',
			});
			expect(item['Invoice number']).toBe('INV-4711');
			expect(String(item.completed)).toMatch(/(Z|[+-]\d\d:\d\d)$/);
			expect(item).not.toHaveProperty('data');
		});

		it('Simplify off: the Run as the API returns it', () => {
			const { item } = result.shapes['raw/full'];
			expect(item).toMatchObject({
				run_id: result.runId,
				status: 'success',
				order: PROMPTS,
				user_defined_id: 'mail-42',
			});
			const data = item.data as Record<string, IDataObject>;
			expect(Object.keys(data)).toEqual(PROMPTS);
			expect(data['Invoice number']).toMatchObject({ status: 'success', value: 'INV-4711' });
		});

		it('Include Full Run on: usage/credits, per-Prompt timings and citation regions, at one more request', () => {
			const simple = result.shapes['simple/full'];
			const raw = result.shapes['raw/full'];
			expect(typeof simple.item.credits_used).toBe('number');
			expect(raw.item.usage).toEqual({ credits_used: expect.any(Number) });
			const prompt = (raw.item.data as Record<string, IDataObject>)['Invoice number'];
			expect(prompt).toHaveProperty('start_time');
			expect(prompt).toHaveProperty('end_time');
			expect(prompt).toHaveProperty('usage');
			expect(prompt.metadata).toHaveProperty('url_citations');
			expect(((prompt.metadata as IDataObject).citations as IDataObject[])[0]).toHaveProperty(
				'regions',
			);
			expect(simple.requests).toBe(1);
			expect(raw.requests).toBe(1);
		});

		it('Include Full Run off: the listed Run, without usage or timings, at no extra request', () => {
			const simple = result.shapes['simple/listed'];
			const raw = result.shapes['raw/listed'];
			expect(simple.item.credits_used).toBeNull();
			expect(promptsThenRunFields(simple.item)).toEqual(true);
			expect(raw.item).not.toHaveProperty('usage');
			const prompt = (raw.item.data as Record<string, IDataObject>)['Invoice number'];
			expect(prompt).not.toHaveProperty('start_time');
			expect(prompt.metadata).not.toHaveProperty('url_citations');
			expect(((prompt.metadata as IDataObject).citations as IDataObject[])[0]).not.toHaveProperty(
				'regions',
			);
			expect(simple.requests).toBe(0);
			expect(raw.requests).toBe(0);
		});
	});

	it('emits a held Run through the pending path with the same shape as a Run first seen finished', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'pending shape');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const viaPending = heldRun(emulator, agentId);
		await expectNothing(poller);
		emulator.finishRun(agentId, viaPending);
		const viaList = finishedRun(emulator, agentId).run_id;
		const items = itemsOf(await poller.poll());
		expect(sorted(runIdsOf([items.map((json) => ({ json }))]))).toEqual(
			sorted([viaPending, viaList]),
		);
		expect(Object.keys(items[0])).toEqual(Object.keys(items[1]));
		expect(items.every((item) => typeof item.credits_used === 'number')).toBe(true);
	});
});
