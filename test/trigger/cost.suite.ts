/**
 * The cost of a poll is a page of the list per Agent while few Runs are
 * new, plus one request per pending Run — not a scan of the Agent's history.
 *
 * One Agent is activated once with a recent finished Run, then gets 20,000 historical
 * Runs (all older than that Run, so they are history to the trigger exactly as if they had
 * been there at activation; adding them after activation only spares the suite the
 * activation's one-time read of 20 pages of 1000 Runs, which takes 10-30 s in the
 * emulator). Every test then makes 5 new finished Runs, with 2 Runs pending, and counts the
 * requests of the next poll in the emulator's request log.
 * The bound of the issue (pages-for-new-Runs + pending + 2; the pages reach back through the
 * Runs of the last LOOKBACK_MS, for Runs listed late) is asserted with Include Full
 * Run OFF; with it ON each emitted Run costs exactly one more read, asserted separately.
 * A new poller carries the stored static data from test to test (like a restart), so the
 * parameter can change without a second activation.
 */
import type { IDataObject } from 'n8n-workflow';
import type { ListOrder } from '../../dev/emulator';
import { LOOKBACK_MS } from '../../nodes/ExtractionAgents/trigger/pollState';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	newAgent,
	runIdsOf,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

const HISTORY = 20_000;
const NEW_RUNS = 5;
const PENDING = 2;

const shared = { agentId: 0, staticData: {} as IDataObject, pending: [] as number[] };

beforeAll(async () => {
	const { emulator, credentials } = ctx;
	shared.agentId = await newAgent(emulator, 'cost');
	finishedRun(emulator, shared.agentId);
	const poller = createPoller({ parameters: triggerParameters(shared.agentId), credentials });
	await expectNothing(poller);
	emulator.addHistoricalRuns(shared.agentId, HISTORY);
	await expectNothing(poller); // the history is not new
	shared.pending = Array.from({ length: PENDING }, () => heldRun(emulator, shared.agentId));
	await expectNothing(poller);
	shared.staticData = poller.staticData;
});

/**
 * Pages of `pageSize` holding the Runs created within LOOKBACK_MS of the newest, plus the one
 * older Run next to them: what a poll must read to be sure no late-listed Run is missed.
 */
function lookbackPages(
	agentId: number,
	listOrder: Exclude<ListOrder, 'random'>,
	pageSize: number,
): number {
	const oldestFirst = ctx.emulator.state.runsOfAgent(agentId);
	const total = oldestFirst.length;
	const newest = oldestFirst[total - 1].createdMs;
	let first = total - 1;
	while (first > 0 && oldestFirst[first].createdMs >= newest - LOOKBACK_MS) first--;
	const positions = [first, total - 1].map((index) =>
		listOrder === 'newest-first' ? total - 1 - index : index,
	);
	return pagesSpanned(Math.min(...positions), Math.max(...positions), pageSize);
}

/** How many pages of `pageSize` hold the list positions [first, last]. */
const pagesSpanned = (first: number, last: number, pageSize: number) =>
	Math.floor(last / pageSize) - Math.floor(first / pageSize) + 1;

async function measure(
	listOrder: Exclude<ListOrder, 'random'>,
	includeFullRun: boolean,
): Promise<void> {
	const { emulator, credentials } = ctx;
	const { agentId, pending } = shared;
	const saved = emulator.knobs.listOrder;
	emulator.knobs.listOrder = listOrder;
	try {
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun }),
			credentials,
			staticData: shared.staticData,
		});
		const fresh = Array.from({ length: NEW_RUNS }, () => finishedRun(emulator, agentId).run_id);

		let seq = emulator.lastSeq;
		const ids = runIdsOf(await poller.poll());
		const requests = emulator.requestsSince(seq);
		expect([...ids].sort()).toEqual([...fresh].sort());

		const { lists, runReads, other } = classify(requests);
		expect(other).toEqual([]);
		const pageSize = Number(lists[0].query.page_size);
		// Where the new Runs sit in the emulator's list.
		const oldestFirst = emulator.state.runsOfAgent(agentId).map((run) => run.runId);
		const total = oldestFirst.length;
		const positions = fresh
			.map((id) => oldestFirst.indexOf(id))
			.map((index) => (listOrder === 'newest-first' ? total - 1 - index : index));
		const newPages = pagesSpanned(Math.min(...positions), Math.max(...positions), pageSize);
		// The trigger also reads back through the Runs created within the lookback of the newest
		// (a Run listed late, after a slow upload, sits among them), down to one older Run.
		const windowPages = lookbackPages(agentId, listOrder, pageSize);
		const bound = Math.max(newPages, windowPages) + PENDING + 2;
		const fullReads = includeFullRun ? ids.length : 0;
		console.log(
			`${listOrder}, ${total} Runs in the list (${HISTORY} historical), ${NEW_RUNS} new, ${PENDING} pending, Include Full Run ${includeFullRun ? 'on' : 'off'}: ` +
				`${requests.length} requests (${lists.length} list page(s) of ${pageSize}, ${runReads.length} single-Run reads); ` +
				`bound: max(pages-for-new-Runs ${newPages}, pages-for-the-lookback ${windowPages}) + pending ${PENDING} + 2 = ${bound}${includeFullRun ? `, plus ${fullReads} full reads` : ''}`,
		);
		expect(requests.length).toBeLessThanOrEqual(bound + fullReads);
		// The pending Runs are listed running: no single read. When on, one full read per
		// emitted Run.
		expect(runReads).toHaveLength(fullReads);
		for (const id of pending)
			expect(runReads.filter((entry) => entry.path.endsWith(`/runs/${id}`))).toHaveLength(0);
		for (const id of fresh)
			expect(runReads.filter((entry) => entry.path.endsWith(`/runs/${id}`))).toHaveLength(
				includeFullRun ? 1 : 0,
			);

		// A poll with nothing new costs the list page(s) and the pending reads only.
		seq = emulator.lastSeq;
		await expectNothing(poller);
		const quiet = emulator.requestsSince(seq).length;
		console.log(
			`${listOrder}: a poll with nothing new costs ${quiet} requests (bound: pages-for-the-lookback ${windowPages} + pending ${PENDING} + 1)`,
		);
		expect(quiet).toBeLessThanOrEqual(windowPages + PENDING + 1);
		shared.staticData = poller.staticData;
	} finally {
		emulator.knobs.listOrder = saved;
	}
}

describe('Extraction Agents Trigger: cost of a poll', () => {
	it('20,000 historical Runs and 5 new ones, newest-first: at most pages-for-new-Runs + pending + 2 requests', () =>
		measure('newest-first', false));
	it('20,000 historical Runs and 5 new ones, oldest-first: at most pages-for-new-Runs + pending + 2 requests', () =>
		measure('oldest-first', false));
	it('with Include Full Run on, each emitted Run costs exactly one more request (newest-first)', () =>
		measure('newest-first', true));
	it('with Include Full Run on, each emitted Run costs exactly one more request (oldest-first)', () =>
		measure('oldest-first', true));
});
