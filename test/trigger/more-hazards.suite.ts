/**
 * Schedules that lost, duplicated or blocked Runs before issue 28: a first look spanning
 * polls, a catch-up after days, a Run stamped in the future, an Agent refused for good, a
 * list answer that misses a pending Run, a re-activation during a running poll, a single read
 * that hangs. Each names what it guards in its title.
 */
import type { IDataObject } from 'n8n-workflow';
import { createPollerStorage } from '../../dev/harness';
import { stalledWaitMs } from './model/run';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	listPath,
	newAgent,
	runIdsOf,
	runPath,
	simulatedClock,
	triggerParameters,
	useEmulator,
} from './helpers';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

/** Polls until `count` Runs were emitted or `polls` polls ran; the ids emitted, in order. */
async function pollUntil(
	poller: ReturnType<typeof createPoller>,
	count: number,
	polls: number,
): Promise<number[]> {
	const emitted: number[] = [];
	for (let poll = 0; poll < polls && emitted.length < count; poll++)
		emitted.push(...runIdsOf(await poller.poll()));
	return emitted;
}

describe('Extraction Agents Trigger: a first look that spans polls', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run created and finished after activation, before the look reaches its page (oldest first), is emitted once', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'long history, oldest first');
		emulator.addHistoricalRuns(agentId, 2_500, { createdBefore: emulator.now() - 60 * MINUTE });
		emulator.knobs.listOrder = 'oldest-first';
		try {
			// A slow service and a budget for one page of 1,000: the look spans polls.
			const poller = createPoller({
				parameters: triggerParameters(agentId, { includeFullRun: false }),
				credentials,
				pollBudgetMs: 6_000,
			});
			emulator.knobs.latencyMs = 3_800;
			await expectNothing(poller);
			emulator.knobs.latencyMs = 0;
			// The activation read page 0 only; pages 1 and 2 (the new Run's) are read later.
			expect((poller.nodeStaticData?.agents as IDataObject)[agentId]).toHaveProperty('scanPage');
			const afterActivation = finishedRun(emulator, agentId).run_id;
			const emitted = await pollUntil(poller, 1, 10);
			expect(emitted).toEqual([afterActivation]);
			await expectNothing(poller);
		} finally {
			emulator.knobs.listOrder = 'newest-first';
			emulator.knobs.latencyMs = 0;
		}
	});
});

describe('Extraction Agents Trigger: Catch Up after more than 3 days', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => clock?.restore());

	it('a Run running at deactivation, finished an hour later, is emitted when the workflow is activated again 4 days on', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'reactivated after 4 days');
		const parameters = triggerParameters(agentId);
		const before = createPoller({ parameters, credentials });
		await expectNothing(before);
		const running = heldRun(emulator, agentId);
		await expectNothing(before); // pending at deactivation
		clock = simulatedClock();
		clock.advance(60 * MINUTE);
		emulator.finishRun(agentId, running);
		clock.advance(4 * DAY);
		const again = createPoller({ parameters, credentials, staticData: before.staticData });
		expect(runIdsOf(await again.poll())).toEqual([running]);
		await expectNothing(again);
	});
});

describe('Extraction Agents Trigger: a Run stamped in the future', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run whose created time is 2 hours ahead does not hide the Runs after it', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'one Run 2 h ahead');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		const ahead = Number(
			emulator.createRun(agentId, [{ name: 'ahead.pdf' }], {
				createdAt: emulator.now() + 120 * MINUTE,
				hold: true,
			}).run_id,
		);
		emulator.finishRun(agentId, ahead);
		expect(runIdsOf(await poller.poll())).toEqual([ahead]);
		const next = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([next]);
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: an Agent refused for good (All Agents)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		ctx.emulator.knobs.failingRunLists = {};
	});

	it('an Agent moved in 2 hours after activation takes the rule of a new Agent: its Run created 90 minutes ago is history', async () => {
		const { emulator, credentials } = ctx;
		const refused = await newAgent(emulator, 'Runs refused for good');
		emulator.knobs.failingRunLists = { [refused]: 403 };
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock = simulatedClock();
		clock.advance(120 * MINUTE);
		await expectNothing(poller);
		const moved = await newAgent(emulator, 'moved in');
		const old = Number(
			emulator.createRun(moved, [{ name: 'old.pdf' }], {
				createdAt: emulator.now() - 90 * MINUTE,
				durationMs: 1,
			}).run_id,
		);
		const recent = Number(
			emulator.createRun(moved, [{ name: 'recent.pdf' }], {
				createdAt: emulator.now() - MINUTE,
				durationMs: 1,
			}).run_id,
		);
		const ids = runIdsOf(await poller.poll());
		expect(ids).not.toContain(old);
		expect(ids).toEqual([recent]);
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: a list answer that misses a pending Run', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	afterEach(() => {
		ctx.emulator.knobs.runsMissingFromLists = [];
	});

	it('the Run is emitted once, by one poll', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'list misses a pending Run');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const running = heldRun(emulator, agentId);
		await expectNothing(poller);
		emulator.knobs.runsMissingFromLists = [running];
		await expectNothing(poller);
		emulator.knobs.runsMissingFromLists = [];
		emulator.finishRun(agentId, running);
		expect(runIdsOf(await poller.poll())).toEqual([running]);
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: re-activated with Skip Them while an older poll still runs', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('the Runs that finished while inactive stay skipped; one that finished after the re-activation is emitted', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'skip during a running poll');
		const parameters = triggerParameters(agentId, { onReactivation: 'skip' });
		const storage = createPollerStorage();
		const ids = { workflowId: 'wf-skip-overlap', nodeId: 'node-skip-overlap' };
		const first = createPoller({ parameters, credentials, storage, ...ids });
		await expectNothing(first);
		// The old activation's last poll is still running when the user activates again. After
		// that poll read the list, the service lists a Run that finished 10 minutes before (while
		// the workflow was inactive), and a Run finishes after the re-activation: the poll that
		// takes the skipped activation poll's place keeps the activation's time (poll.ts).
		let whileInactive = 0;
		let afterActivation = 0;
		emulator.afterRequest({ method: 'GET', path: listPath(agentId) }, () => {
			const tenMinutesAgo = emulator.now() - 10 * 60_000;
			whileInactive = Number(
				emulator.createRun(agentId, [{ name: 'doc.pdf' }], {
					createdAt: tenMinutesAgo,
					durationMs: 0,
					outcome: 'success',
				}).run_id,
			);
			afterActivation = finishedRun(emulator, agentId).run_id;
		});
		emulator.knobs.latencyMs = 300;
		const slow = first.poll();
		await new Promise((resolve) => setTimeout(resolve, 50));
		const again = createPoller({ parameters, credentials, storage, ...ids });
		const activation = await again.poll();
		emulator.knobs.latencyMs = 0;
		expect(runIdsOf(await slow)).toEqual([]);
		expect(runIdsOf(activation)).toEqual([]);
		expect(whileInactive).toBeGreaterThan(0);
		expect(runIdsOf(await again.poll())).toEqual([afterActivation]);
		await expectNothing(again);
		const later = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await again.poll())).toEqual([later]);
	});
});

describe('Extraction Agents Trigger: a single read that hangs', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('no request outlives the poll budget: the poll ends within it, with the other Runs emitted', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'one read hangs');
		const pollBudgetMs = 4_500;
		const poller = createPoller({
			parameters: {
				...triggerParameters(agentId),
				options: { includeFullRun: true, requestTimeout: 6 },
			},
			credentials,
			pollBudgetMs,
		});
		await expectNothing(poller);
		const hanging = finishedRun(emulator, agentId).run_id;
		const other = finishedRun(emulator, agentId).run_id;
		emulator.injectFaults([
			{ match: { method: 'GET', path: runPath(agentId, hanging) }, kind: 'stall', times: 10 },
		]);
		const seq = emulator.lastSeq;
		const authenticatedBefore = poller.authenticatedRequests.length;
		const ids = runIdsOf(await poller.poll());
		emulator.clearFaults();
		// Judged by the trigger's own accounting, not the wall clock (a busy machine's timers
		// fire late): the timeouts it gave the attempts that never answered end by 90% of the
		// budget (a trigger that kept the 6 s Request Timeout gives 6,000 ms).
		const requests = emulator.requestsSince(seq);
		expect(requests.filter((request) => request.fault === 'stall').length).toBeGreaterThan(0);
		const waited = stalledWaitMs(
			requests,
			poller.authenticatedRequests.slice(authenticatedBefore),
			6_000,
		);
		expect(waited).toBeLessThanOrEqual(pollBudgetMs * 0.9);
		expect(poller.history.at(-1)).toMatchObject({ ok: true, staticDataSaved: true });
		expect(ids).toEqual([other]);
		const since = emulator.lastSeq;
		expect(runIdsOf(await poller.poll())).toEqual([hanging]);
		expect(classify(emulator.requestsSince(since)).runReads).toHaveLength(1);
		await expectNothing(poller);
	}, 60_000);
});

describe('Extraction Agents Trigger: Fetch Test Event on a long history', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it.each(['newest-first', 'oldest-first'] as const)(
		'reads the page holding the newest Runs, not all 20 pages of 20,000 Runs (%s)',
		async (listOrder) => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, `fetch test event, ${listOrder}`);
			emulator.addHistoricalRuns(agentId, 20_000);
			const newest = finishedRun(emulator, agentId).run_id;
			emulator.knobs.listOrder = listOrder;
			try {
				const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
				const since = emulator.lastSeq;
				expect(runIdsOf(await poller.poll('manual'))).toEqual([newest]);
				expect(classify(emulator.requestsSince(since)).lists.length).toBeLessThanOrEqual(2);
			} finally {
				emulator.knobs.listOrder = 'newest-first';
			}
		},
	);
});

describe('Extraction Agents Trigger: risks at the edges (issue 28, item 4)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		clock = undefined;
		ctx.emulator.knobs.failingRunLists = {};
		ctx.emulator.clearFaults();
	});

	it("the service's clock a minute behind n8n's: a Run made just after activation, on an Agent first read later, is emitted", async () => {
		const { emulator, credentials } = ctx;
		const blocked = await newAgent(emulator, 'clock behind, list failing at activation');
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		emulator.knobs.failingRunLists = { [blocked]: 403 };
		await expectNothing(poller); // the activation: the blocked Agent is not read
		emulator.advanceTime(-MINUTE); // the service stamps a minute behind n8n from now on
		try {
			const madeAfter = finishedRun(emulator, blocked).run_id;
			emulator.knobs.failingRunLists = {};
			expect(runIdsOf(await poller.poll())).toEqual([madeAfter]);
			await expectNothing(poller);
		} finally {
			emulator.advanceTime(MINUTE);
		}
	});

	it('a pending Run whose single read answers 404 for a moment (a proxy, a deploy) is emitted once it reads again', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, '404 for a moment');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const running = heldRun(emulator, agentId);
		await expectNothing(poller);
		emulator.finishRun(agentId, running);
		emulator.injectFaults([
			{ match: { method: 'GET', path: runPath(agentId, running) }, kind: '404' },
		]);
		const first = runIdsOf(await poller.poll());
		expect(emulator.pendingFaults).toEqual([]);
		const emitted = [...first, ...runIdsOf(await poller.poll())];
		expect(emitted).toEqual([running]);
		await expectNothing(poller);
	});

	it('a Run whose created time cannot be read is emitted once when it finishes', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'unreadable created');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		const odd = heldRun(emulator, agentId);
		emulator.state.runs.get(odd)!.createdText = 'yesterday at noon';
		await expectNothing(poller);
		emulator.finishRun(agentId, odd);
		expect(runIdsOf(await poller.poll())).toEqual([odd]);
		await expectNothing(poller);
		const next = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([next]);
		await expectNothing(poller);
	});

	it('Runs counted but listed late, an hour apart: the Agent is read at every poll until the second is listed, and it is emitted then (owedSince refreshed)', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'owed twice');
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock = simulatedClock();
		// A Run counted (n_runs moves) and deleted before any list shows it: owed for an hour.
		const neverListed = Number(
			emulator.createRun(agentId, [{ name: 'gone.pdf' }], {
				durationMs: 1,
				listedAt: emulator.now() + DAY,
			}).run_id,
		);
		for (let minute = 0; minute < 50; minute++) {
			clock.advance(MINUTE);
			await expectNothing(poller);
		}
		emulator.deleteRun(agentId, neverListed);
		// 50 minutes on, another Run is counted whose upload ends (listed) 15 minutes later.
		const late = Number(
			emulator.createRun(agentId, [{ name: 'late.pdf' }], {
				durationMs: 1,
				listedAt: emulator.now() + 15 * MINUTE,
			}).run_id,
		);
		const emittedAt: number[] = [];
		for (let minute = 1; minute <= 20 && emittedAt.length === 0; minute++) {
			clock.advance(MINUTE);
			if (runIdsOf(await poller.poll()).includes(late)) emittedAt.push(minute);
		}
		// Listed 15 minutes on: emitted by the poll a minute later at most.
		expect(emittedAt).toEqual([expect.any(Number)]);
		expect(emittedAt[0]).toBeLessThanOrEqual(16);
	});
});

describe('Extraction Agents Trigger: Catch Up over thousands of Runs', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		clock = undefined;
		ctx.emulator.knobs.latencyMs = 0;
		ctx.emulator.knobs.listOrder = 'newest-first';
	});

	it.each(['newest-first', 'oldest-first'] as const)(
		'3,000 Runs finished while inactive are read across polls within the budget, each emitted once (%s)',
		async (listOrder) => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, `catch up ${listOrder}`);
			emulator.knobs.listOrder = listOrder;
			const parameters = triggerParameters(agentId, { includeFullRun: false });
			const before = createPoller({ parameters, credentials });
			await expectNothing(before);
			clock = simulatedClock();
			clock.advance(120 * MINUTE);
			// Finished while the workflow was inactive: one every 2 s over the last 100 minutes.
			const made = emulator.addHistoricalRuns(agentId, 3_000, {
				createdBefore: emulator.now(),
				spacingMs: 2_000,
			});
			const pollBudgetMs = 2_000;
			const again = createPoller({
				parameters,
				credentials,
				staticData: before.staticData,
				pollBudgetMs,
			});
			emulator.knobs.latencyMs = 60;
			const emitted: number[] = [];
			const listReadsPerPoll: number[] = [];
			for (let poll = 0; poll < 40 && emitted.length < made.length; poll++) {
				const since = emulator.lastSeq;
				emitted.push(...runIdsOf(await again.poll()));
				listReadsPerPoll.push(classify(emulator.requestsSince(since)).lists.length);
			}
			emulator.knobs.latencyMs = 0;
			expect(sorted(emitted)).toEqual(sorted(made));
			// A poll starts pages only within its budget: 60% of it holds about 20 pages of 60 ms
			// (60 pages in one poll before). Counted in the emulator's log, not timed.
			expect(Math.max(...listReadsPerPoll)).toBeLessThanOrEqual(25);
			// Then the read after a catch-up of more than an hour, back to where it started
			// (docs/design/trigger-rules.md, a Run one list answer leaves out): it emits nothing again, and
			// may itself go on across polls on a loaded machine; a Run made meanwhile comes once.
			await expectNothing(again);
			const next = finishedRun(emulator, agentId).run_id;
			const after: number[] = [];
			for (let poll = 0; poll < 3 && after.length === 0; poll++)
				after.push(...runIdsOf(await again.poll()));
			expect(after).toEqual([next]);
			await expectNothing(again);
		},
		120_000,
	);
});

export { sorted };
