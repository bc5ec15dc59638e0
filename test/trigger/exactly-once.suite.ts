/**
 * Issue 4, items 1, 2 and 7: every Run that finishes after activation is emitted exactly
 * once, in the poll right after it finished, whatever the list order or shape, and across
 * an n8n restart.
 */
import type { ListOrder, RunsListShape } from '../emulator';
import { useHarness } from '../harness';
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

useHarness();
const ctx = useEmulator({ runDurationMs: 60_000 });

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

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
 * order across 10 polls. The Agent has 250 older Runs, so the list spans several pages
 * (page size 100) and the new Runs straddle page boundaries when listed oldest-first.
 */
async function fiftyRunsInRandomOrder(layout: Layout, seed: number): Promise<void> {
	const { emulator, credentials } = ctx;
	const agentId = await newAgent(emulator, `fifty ${layout.listOrder} ${layout.runsListShape}`);
	emulator.addHistoricalRuns(agentId, 250, { createdBefore: emulator.now() - 60_000 });
	const poller = createPoller({ parameters: triggerParameters(agentId), credentials });

	// Activation: 250 finished Runs exist; nothing is emitted, the state is stored.
	await expectNothing(poller);
	expect(poller.nodeStaticData).toMatchObject({ version: 1 });

	const random = seededRandom(seed);
	const all: number[] = [];
	const unfinished = new Set<number>();
	const emitted: number[] = [];
	let lastCreatedAt = 0;
	for (let poll = 0; poll < 10; poll++) {
		// Five new Runs; two share one millisecond, and one shares the millisecond of the
		// newest Run the previous poll saw (a Run the watermark must not hide).
		const now = emulator.now();
		const createdAts = [lastCreatedAt || now, now, now, undefined, undefined];
		for (const createdAt of createdAts) {
			const id = heldRun(emulator, agentId, `poll-${poll}.pdf`, createdAt);
			all.push(id);
			unfinished.add(id);
		}
		lastCreatedAt = now;

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
	it('activation emits nothing, then 50 Runs finishing in random order across 10 polls give 50 items (newest-first, nested)', withLayout(
		{ listOrder: 'newest-first', runsListShape: 'nested' },
		() => fiftyRunsInRandomOrder({ listOrder: 'newest-first', runsListShape: 'nested' }, 1),
	));

	it('the same with the list oldest-first', withLayout(
		{ listOrder: 'oldest-first', runsListShape: 'nested' },
		() => fiftyRunsInRandomOrder({ listOrder: 'oldest-first', runsListShape: 'nested' }, 2),
	));

	it('the same with the list in no order at all', withLayout(
		{ listOrder: 'random', runsListShape: 'nested' },
		() => fiftyRunsInRandomOrder({ listOrder: 'random', runsListShape: 'nested' }, 3),
	));

	it('the same with a flat `runs` array (newest-first and oldest-first)', async () => {
		await withLayout({ listOrder: 'newest-first', runsListShape: 'flat' }, () =>
			fiftyRunsInRandomOrder({ listOrder: 'newest-first', runsListShape: 'flat' }, 4),
		)();
		await withLayout({ listOrder: 'oldest-first', runsListShape: 'flat' }, () =>
			fiftyRunsInRandomOrder({ listOrder: 'oldest-first', runsListShape: 'flat' }, 5),
		)();
	});

	for (const listOrder of ['newest-first', 'oldest-first', 'random'] as const) {
		it(`a burst of 230 Runs between two polls (more than two pages) is emitted whole, ${listOrder}`, withLayout(
			{ listOrder, runsListShape: 'nested' },
			async () => {
				const { emulator, credentials } = ctx;
				const agentId = await newAgent(emulator, `burst ${listOrder}`);
				emulator.addHistoricalRuns(agentId, 150, { createdBefore: emulator.now() - 60_000 });
				const poller = createPoller({ parameters: triggerParameters(agentId, { includeFullRun: false }), credentials });
				await expectNothing(poller);

				const burst: number[] = [];
				for (let i = 0; i < 230; i++) burst.push(finishedRun(emulator, agentId, i % 7 === 0 ? 'failed' : 'success'));
				const seq = emulator.lastSeq;
				const ids = runIdsOf(await poller.poll());
				expect(ids).toHaveLength(230);
				expect(sorted(ids)).toEqual(sorted(burst));
				const { lists } = classify(emulator.requestsSince(seq));
				console.log(`burst of 230 new Runs, ${listOrder}: ${lists.length} list page(s) read`);
				await expectNothing(poller);
			},
		));
	}

	it('a Run already running at activation is emitted once when it finishes; finished history never is', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'running at activation');
		const old = finishedRun(emulator, agentId);
		const running = heldRun(emulator, agentId);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });

		await expectNothing(poller);
		await expectNothing(poller);
		emulator.finishRun(agentId, running);
		expect(runIdsOf(await poller.poll())).toEqual([running]);
		await expectNothing(poller);
		expect(runIdsOf(await poller.poll())).not.toContain(old);
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
		const madeWhileDown = finishedRun(emulator, agentId);
		const runningWhileDown = heldRun(emulator, agentId);

		// n8n comes back: a new Workflow, a new node instance, the stored (JSON) static data.
		const stored = JSON.parse(JSON.stringify(before.staticData));
		const after = createPoller({ parameters, credentials, staticData: stored });
		const seq = emulator.lastSeq;
		const first = runIdsOf(await after.poll());
		expect(sorted(first)).toEqual(sorted([runs[3], madeWhileDown]));
		// Not a second activation: no full scan of the history (page_size 1000) was needed.
		expect(classify(emulator.requestsSince(seq)).lists.every((entry) => entry.query.page_size !== '1000')).toBe(true);

		await expectNothing(after);
		emulator.finishRun(agentId, runs[4], 'failed');
		emulator.finishRun(agentId, runs[5]);
		emulator.finishRun(agentId, runningWhileDown);
		expect(sorted(runIdsOf(await after.poll()))).toEqual(sorted([runs[4], runs[5], runningWhileDown]));
		await expectNothing(after);

		// A second restart from the latest state: still nothing new.
		const again = createPoller({ parameters, credentials, staticData: after.staticData });
		await expectNothing(again);
	});
});
