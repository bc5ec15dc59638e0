/**
 * Every Run that finishes after activation is emitted exactly
 * once, in the poll right after it finished, whatever the list order or shape, and across
 * an n8n restart.
 */
import type { ListOrder, RunsListShape } from '../../dev/emulator';
import { STATE_VERSION } from '../../nodes/ExtractionAgents/trigger/pollState';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	newAgent,
	runIdsOf,
	seededRandom,
	shuffled,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const createdMsOf = (runId: number) => ctx.emulator.state.runs.get(runId)!.createdMs;

interface Layout {
	listOrder: ListOrder;
	runsListShape: RunsListShape;
}

function withLayout(layout: Layout, body: () => Promise<void>): () => Promise<void> {
	return async () => {
		const { knobs } = ctx.emulator;
		const saved = { listOrder: knobs.listOrder, runsListShape: knobs.runsListShape };
		knobs.listOrder = layout.listOrder;
		knobs.runsListShape = layout.runsListShape;
		try {
			await body();
		} finally {
			Object.assign(knobs, saved);
		}
	};
}

/**
 * Item 1 / 2: activation, then 50 Runs created 5 per poll and finished in a shuffled
 * order across 10 polls. The Agent has 273 older Runs, so the list spans several pages
 * (page size 100) and, listed oldest-first, one batch of new Runs straddles the boundary
 * of pages 2 and 3 (positions 298-302).
 */
async function fiftyRunsInRandomOrder(
	layout: Layout,
	seed: number,
	includeFullRun: boolean,
): Promise<void> {
	await withLayout(layout, () => fiftyRuns(layout, seed, includeFullRun))();
}

async function fiftyRuns(layout: Layout, seed: number, includeFullRun: boolean): Promise<void> {
	const { emulator, credentials } = ctx;
	const agentId = await newAgent(emulator, `fifty ${layout.listOrder} ${layout.runsListShape}`);
	emulator.addHistoricalRuns(agentId, 273, { createdBefore: emulator.now() - 60_000 });
	const poller = createPoller({
		parameters: triggerParameters(agentId, { includeFullRun }),
		credentials,
	});

	// Activation: 273 finished Runs exist; nothing is emitted, the state is stored.
	await expectNothing(poller);
	expect(poller.nodeStaticData).toMatchObject({ version: STATE_VERSION });

	const random = seededRandom(seed);
	const all: number[] = [];
	const unfinished = new Set<number>();
	const emitted: number[] = [];
	let newestSeen = 0;
	for (let poll = 0; poll < 10; poll++) {
		// Five new Runs; two share one millisecond, and one shares the millisecond of the
		// newest Run the previous poll saw (the watermark must not hide it).
		const now = emulator.now();
		const createdAts = [newestSeen || now, now, now, undefined, undefined];
		for (const createdAt of createdAts) {
			const id = heldRun(emulator, agentId, `poll-${poll}.pdf`, createdAt);
			all.push(id);
			unfinished.add(id);
			newestSeen = Math.max(newestSeen, createdMsOf(id));
		}

		// Finish a shuffled subset (all of them in the last round), some as failed.
		const candidates = shuffled([...unfinished], random);
		const count = poll === 9 ? candidates.length : Math.floor(random() * (candidates.length + 1));
		const finishing = candidates.slice(0, count);
		for (const id of finishing) {
			emulator.finishRun(agentId, id, random() < 0.3 ? 'failed' : 'success');
			unfinished.delete(id);
		}

		const ids = runIdsOf(await poller.poll());
		// Each Run is emitted in the poll right after it finished: not before, not later.
		expect(sorted(ids)).toEqual(sorted(finishing));
		emitted.push(...ids);
	}

	expect(all).toHaveLength(50);
	expect(emitted).toHaveLength(50);
	expect(new Set(emitted).size).toBe(50);
	expect(sorted(emitted)).toEqual(sorted(all));
	// And never again.
	await expectNothing(poller);
	await expectNothing(poller);
}

describe('Extraction Agents Trigger: each finished Run exactly once', () => {
	// Include Full Run (one more read per emitted Run) is on in the first case only: it
	// does not change which Runs are emitted, and the suite stays fast.
	it('activation emits nothing, then 50 Runs finishing in random order across 10 polls give 50 items (newest-first, nested)', () =>
		fiftyRunsInRandomOrder({ listOrder: 'newest-first', runsListShape: 'nested' }, 1, true));

	it('the same with the list oldest-first', () =>
		fiftyRunsInRandomOrder({ listOrder: 'oldest-first', runsListShape: 'nested' }, 2, false));

	it('the same with the list in no order at all', () =>
		fiftyRunsInRandomOrder({ listOrder: 'random', runsListShape: 'nested' }, 3, false));

	it('the same with a flat `runs` array, oldest-first', () =>
		fiftyRunsInRandomOrder({ listOrder: 'oldest-first', runsListShape: 'flat' }, 4, false));

	for (const listOrder of ['newest-first', 'oldest-first', 'random'] as const) {
		it(
			`a burst of 230 Runs between two polls (more than two pages) is emitted whole, ${listOrder}`,
			withLayout({ listOrder, runsListShape: 'nested' }, async () => {
				const { emulator, credentials } = ctx;
				const agentId = await newAgent(emulator, `burst ${listOrder}`);
				// Ten minutes apart: few Runs within the lookback, so the poll reads pages of 100.
				emulator.addHistoricalRuns(agentId, 150, {
					createdBefore: emulator.now() - 60_000,
					spacingMs: 600_000,
				});
				const poller = createPoller({
					parameters: triggerParameters(agentId, { includeFullRun: false }),
					credentials,
				});
				await expectNothing(poller);

				const burst: number[] = [];
				for (let i = 0; i < 230; i++)
					burst.push(
						finishedRun(emulator, agentId, { outcome: i % 7 === 0 ? 'failed' : 'success' }).run_id,
					);
				const seq = emulator.lastSeq;
				const ids = runIdsOf(await poller.poll());
				expect(ids).toHaveLength(230);
				expect(sorted(ids)).toEqual(sorted(burst));
				// 380 Runs in pages of 100, the 230 new ones newest. What the poll reads is what the
				// order allows: newest-first, the three pages that hold new Runs, read a second time
				// to see that none shifted while paging; oldest-first, page 1 (where the first look
				// found the newest Runs), which says there are 4 pages now, then the three last pages
				// from the back; no order, the whole list in one page of 1000.
				const { lists, runReads } = classify(emulator.requestsSince(seq));
				const pages = lists.map((list) => `${list.query.page_number}/${list.query.page_size}`);
				const expected = {
					'newest-first': ['0/100', '1/100', '2/100', '0/100', '1/100', '2/100'],
					'oldest-first': ['1/100', '3/100', '2/100', '1/100'],
					random: ['0/100', '0/1000'],
				}[listOrder];
				expect(pages).toEqual(expected);
				expect(runReads).toEqual([]);
				await expectNothing(poller);
			}),
		);
	}

	it('a Run already running at activation is emitted once when it finishes; finished history never is', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'running at activation');
		const old = finishedRun(emulator, agentId).run_id;
		const running = heldRun(emulator, agentId);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });

		await expectNothing(poller);
		await expectNothing(poller);
		emulator.finishRun(agentId, running);
		expect(runIdsOf(await poller.poll())).toEqual([running]);
		await expectNothing(poller);
		expect(runIdsOf(await poller.poll())).not.toContain(old);
	});

	it('switching the watched Agent of an active trigger starts afresh on the new Agent: nothing from its past is emitted', async () => {
		const { emulator, credentials } = ctx;
		const first = await newAgent(emulator, 'switch from');
		const second = await newAgent(emulator, 'switch to');
		const poller = createPoller({ parameters: triggerParameters(first), credentials });
		await expectNothing(poller);
		const onFirst = finishedRun(emulator, first).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([onFirst]);

		// Meanwhile the other Agent has a past: Runs finished since this trigger was activated.
		const past = [
			finishedRun(emulator, second).run_id,
			finishedRun(emulator, second, { outcome: 'failed' }).run_id,
		];
		const runningThen = heldRun(emulator, second);

		// The user points the trigger at the other Agent and saves: n8n keeps the static data.
		const switched = createPoller({
			parameters: triggerParameters(second),
			credentials,
			staticData: poller.staticData,
		});
		await expectNothing(switched);
		emulator.finishRun(second, runningThen);
		const next = finishedRun(emulator, second).run_id;
		expect(sorted(runIdsOf(await switched.poll()))).toEqual(sorted([runningThen, next]));
		expect(past).toHaveLength(2);
		await expectNothing(switched);
	});

	it('a new poller given the saved static data (an n8n restart) goes on without re-emitting and without missing', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'restart');
		const parameters = triggerParameters(agentId);
		const before = createPoller({ parameters, credentials });
		await expectNothing(before);

		const runs = [0, 1, 2, 3, 4, 5].map((i) => heldRun(emulator, agentId, `r${i}.pdf`));
		await expectNothing(before); // all six pending
		for (const id of runs.slice(0, 3)) emulator.finishRun(agentId, id);
		expect(sorted(runIdsOf(await before.poll()))).toEqual(sorted(runs.slice(0, 3)));

		// n8n goes down. Meanwhile one pending Run finishes and two new Runs are made, one
		// finishing at once, one still running.
		emulator.finishRun(agentId, runs[3]);
		const madeWhileDown = finishedRun(emulator, agentId).run_id;
		const runningWhileDown = heldRun(emulator, agentId);

		// n8n comes back: a new Workflow, a new node instance, the stored (JSON) static data.
		const stored = JSON.parse(JSON.stringify(before.staticData));
		const after = createPoller({ parameters, credentials, staticData: stored });
		const seq = emulator.lastSeq;
		const first = runIdsOf(await after.poll());
		expect(sorted(first)).toEqual(sorted([runs[3], madeWhileDown]));
		// Not a second activation: no full scan of the history (page_size 1000) was needed.
		expect(
			classify(emulator.requestsSince(seq)).lists.every(
				(entry) => entry.query.page_size !== '1000',
			),
		).toBe(true);

		await expectNothing(after);
		emulator.finishRun(agentId, runs[4], 'failed');
		emulator.finishRun(agentId, runs[5]);
		emulator.finishRun(agentId, runningWhileDown);
		expect(sorted(runIdsOf(await after.poll()))).toEqual(
			sorted([runs[4], runs[5], runningWhileDown]),
		);
		await expectNothing(after);

		// A second restart from the latest state: still nothing new.
		const again = createPoller({ parameters, credentials, staticData: after.staticData });
		await expectNothing(again);
	});
});
