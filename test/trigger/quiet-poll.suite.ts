/**
 * What a poll with nothing new costs with Watch = All Agents (issue 21, item 10): the Agent
 * listing, one list read per Agent whose Run counter (`n_runs`) moved or that has a pending
 * Run, and a sweep that reads every Agent once per SWEEP_INTERVAL_MS whatever the counter
 * says, so that exactly-once never rests on it. Requests are counted in the emulator's log.
 */
import type { Emulator } from '../../dev/emulator';
import { SWEEP_INTERVAL_MS } from '../../nodes/ExtractionAgents/trigger/pollState';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	listReadsByAgent,
	newAgent,
	runIdsOf,
	simulatedClock,
	triggerParameters,
	useEmulator,
} from './helpers';

const MINUTE = 60_000;
const allAgents = () => triggerParameters(undefined, { agentScope: 'all', includeFullRun: false });

/** Every Agent alice's key lists (the demo ones and those the test made). */
const watchedAgentIds = (emulator: Emulator) =>
	emulator.state.agentsOf(emulator.state.users.get('alice')!).map((agent) => agent.id);

/** New Agents with `runs` older Runs each, ten minutes apart (more than a page of 100). */
async function agentsWithHistory(emulator: Emulator, count: number, runs: number) {
	const agents: number[] = [];
	for (let n = 0; n < count; n++) {
		const agentId = await newAgent(emulator, `quiet ${n}`);
		emulator.addHistoricalRuns(agentId, runs, {
			createdBefore: emulator.now() - 60 * MINUTE,
			spacingMs: 10 * MINUTE,
		});
		agents.push(agentId);
	}
	return agents;
}

describe('Extraction Agents Trigger: a quiet poll, the service leaving n_runs out', () => {
	const ctx = useEmulator({
		runDurationMs: 60_000,
		listOrder: 'oldest-first',
		agentRunCounter: 'absent',
	});

	it('each Agent’s list is read once per poll, one page, though its Runs span several pages listed oldest-first', async () => {
		const { emulator, credentials } = ctx;
		await agentsWithHistory(emulator, 3, 250);
		const poller = createPoller({ parameters: allAgents(), credentials });
		await expectNothing(poller);
		await expectNothing(poller); // learns each list's order and length
		const seq = emulator.lastSeq;
		await expectNothing(poller);
		const requests = emulator.requestsSince(seq);
		const reads = listReadsByAgent(requests);
		console.log(
			`quiet poll, ${watchedAgentIds(emulator).length} Agents, n_runs left out: ${requests.length} requests (${classify(requests).agentLists.length} Agent listing, ${classify(requests).lists.length} list reads)`,
		);
		for (const agentId of watchedAgentIds(emulator))
			expect([agentId, reads.get(agentId)]).toEqual([agentId, 1]);
		expect(classify(requests).agentLists).toHaveLength(1);
		expect(requests).toHaveLength(1 + watchedAgentIds(emulator).length);

		// And a Run made on one of them is emitted by the next poll.
		const agentId = watchedAgentIds(emulator).at(-1)!;
		const fresh = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([fresh]);
	});
});

describe('Extraction Agents Trigger: a quiet poll, n_runs counting every Run made', () => {
	const ctx = useEmulator({ runDurationMs: 60_000, listOrder: 'oldest-first' });

	it('costs the Agent listing only; an Agent whose counter moved is read, and its Run emitted by the first poll after it finished', async () => {
		const { emulator, credentials } = ctx;
		const [busy, other] = await agentsWithHistory(emulator, 2, 250);
		const poller = createPoller({ parameters: allAgents(), credentials });
		await expectNothing(poller);
		let seq = emulator.lastSeq;
		await expectNothing(poller);
		let requests = emulator.requestsSince(seq);
		expect(classify(requests).agentLists).toHaveLength(1);
		expect(requests).toHaveLength(1);

		// A Run made on one Agent: its counter moves, that Agent alone is read.
		const running = heldRun(emulator, busy);
		seq = emulator.lastSeq;
		await expectNothing(poller);
		expect([...listReadsByAgent(emulator.requestsSince(seq))]).toEqual([[busy, 1]]);
		// Pending: read (its single read) until it finishes, emitted by the first poll after.
		emulator.finishRun(busy, running);
		expect(runIdsOf(await poller.poll())).toEqual([running]);
		const fresh = finishedRun(emulator, other).run_id;
		seq = emulator.lastSeq;
		expect(runIdsOf(await poller.poll())).toEqual([fresh]);
		expect([...listReadsByAgent(emulator.requestsSince(seq))]).toEqual([[other, 1]]);
		seq = emulator.lastSeq;
		await expectNothing(poller);
		requests = emulator.requestsSince(seq);
		console.log(
			`quiet poll, ${watchedAgentIds(emulator).length} Agents, n_runs unmoved: ${requests.length} request(s)`,
		);
		expect(requests).toHaveLength(1);
	});
});

describe('Extraction Agents Trigger: a Run counted before it is listed', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => clock?.restore());

	it('an Agent whose counter moved for a Run not yet listed is read at each poll until it is, and the Run is emitted by the first poll after; then quiet again', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'counted first, listed later');
		clock = simulatedClock();
		const poller = createPoller({ parameters: allAgents(), credentials });
		await expectNothing(poller);
		const late = Number(
			emulator.createRun(agentId, [{ name: 'slow upload.pdf' }], {
				durationMs: 1,
				listedAt: emulator.now() + 5 * MINUTE,
			}).run_id,
		);
		const reads: number[] = [];
		const emitted: number[] = [];
		for (let minute = 1; minute <= 7; minute++) {
			clock.advance(MINUTE);
			const seq = emulator.lastSeq;
			emitted.push(...runIdsOf(await poller.poll()));
			reads.push(listReadsByAgent(emulator.requestsSince(seq)).get(agentId) ?? 0);
		}
		// Minutes 1-4: not listed yet, read each poll; minute 5: listed, read and emitted; then
		// the counter is explained and the Agent is left alone.
		expect(emitted).toEqual([late]);
		expect(reads).toEqual([1, 1, 1, 1, 1, 0, 0]);
	});
});

describe('Extraction Agents Trigger: what the counter does not show', () => {
	const ctx = useEmulator({ runDurationMs: 60_000, agentRunCounter: 'existing' });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => clock?.restore());

	it('a Run made and another deleted between two polls on the same Agent (counter unchanged) is emitted by the sweep within the interval, once', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'made one, deleted one');
		const old = finishedRun(emulator, agentId).run_id;
		clock = simulatedClock();
		const poller = createPoller({ parameters: allAgents(), credentials });
		await expectNothing(poller);
		clock.advance(MINUTE);
		const counterBefore = emulator.state.runsOfAgent(agentId).length;
		const made = finishedRun(emulator, agentId).run_id;
		emulator.deleteRun(agentId, old);
		expect(emulator.state.runsOfAgent(agentId)).toHaveLength(counterBefore);

		const emitted: number[] = [];
		let minutes = 0;
		while (minutes <= SWEEP_INTERVAL_MS / MINUTE + 1 && !emitted.includes(made)) {
			emitted.push(...runIdsOf(await poller.poll()));
			clock.advance(MINUTE);
			minutes++;
		}
		console.log(`a Run hidden from the counter: emitted after ${minutes} simulated minute(s)`);
		expect(emitted).toEqual([made]);
		expect(minutes).toBeLessThanOrEqual(SWEEP_INTERVAL_MS / MINUTE + 1);
		for (let n = 0; n < 3; n++) {
			await expectNothing(poller);
			clock.advance(SWEEP_INTERVAL_MS / 2);
		}
	});
});

describe('Extraction Agents Trigger: the sweep', () => {
	const ctx = useEmulator({ runDurationMs: 60_000, agentRunCounter: 'existing' });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => clock?.restore());

	it('over one interval, polled every minute, every Agent is read at least once, and the reads are spread over the polls', async () => {
		const { emulator, credentials } = ctx;
		for (let n = 0; n < 40; n++) await newAgent(emulator, `swept ${n}`);
		clock = simulatedClock();
		const poller = createPoller({ parameters: allAgents(), credentials });
		await expectNothing(poller);
		const seq = emulator.lastSeq;
		const perPoll: number[] = [];
		for (let minute = 1; minute <= SWEEP_INTERVAL_MS / MINUTE; minute++) {
			clock.advance(MINUTE);
			const before = emulator.lastSeq;
			await expectNothing(poller);
			perPoll.push(classify(emulator.requestsSince(before)).lists.length);
		}
		const reads = listReadsByAgent(emulator.requestsSince(seq));
		const agents = watchedAgentIds(emulator);
		console.log(
			`${agents.length} quiet Agents polled every minute for ${SWEEP_INTERVAL_MS / MINUTE} minutes: ${perPoll.reduce((a, b) => a + b, 0)} list reads, at most ${Math.max(...perPoll)} in one poll`,
		);
		for (const agentId of agents) expect(reads.get(agentId) ?? 0).toBeGreaterThanOrEqual(1);
		expect(Math.max(...perPoll)).toBeLessThanOrEqual(8);
	});
});
