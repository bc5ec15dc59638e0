/**
 * What the trigger remembers, and for how long: a pending Run kept through one failed or
 * lagging answer, a Run emitted before kept however many others are emitted since, the full
 * lookback with a Run stamped ahead, the activation's rule with n8n's clock stepped back, and
 * a state saved by 0.3.0 (docs/design/trigger-rules.md, "When things go wrong").
 */
import type { IDataObject } from 'n8n-workflow';
import {
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	listPath,
	newAgent,
	pendingRunIds,
	runIdsOf,
	runPath,
	simulatedClock,
	triggerParameters,
	useEmulator,
} from './helpers';

const MINUTE = 60_000;

/** Polls `polls` times; every Run id emitted, in order. */
async function emittedOver(poller: ReturnType<typeof createPoller>, polls: number) {
	const emitted: number[] = [];
	for (let poll = 0; poll < polls; poll++) emitted.push(...runIdsOf(await poller.poll()));
	return emitted;
}

describe('Extraction Agents Trigger: a pending Run through one failed or lagging answer', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	afterEach(() => {
		ctx.emulator.clearFaults();
		ctx.emulator.knobs.runsMissingFromLists = [];
		ctx.emulator.knobs.latencyMs = 0;
	});

	/**
	 * A pending Run, finished, that this poll's list answer leaves out (a lagging replica): the
	 * poll reads it alone, and asks the list with the `run_id` filter when that read says 404.
	 */
	async function pendingLeftOutOnce(name: string) {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, name);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const running = heldRun(emulator, agentId);
		await expectNothing(poller);
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([running]);
		emulator.finishRun(agentId, running);
		emulator.knobs.runsMissingFromLists = [running];
		emulator.afterRequest({ method: 'GET', path: listPath(agentId) }, () => {
			emulator.knobs.runsMissingFromLists = [];
		});
		return { agentId, running, poller };
	}

	it.each([
		['answers 500', '500' as const, 1],
		['is rate-limited past its retries', '429' as const, 6],
	])(
		'a pending Run whose single read answers 404 while the run_id list read %s stays pending, and is emitted once it reads again',
		async (_title, kind, times) => {
			const { emulator } = ctx;
			const { agentId, running, poller } = await pendingLeftOutOnce(`run_id list ${kind}`);
			emulator.injectFaults([
				{ match: { method: 'GET', path: runPath(agentId, running) }, kind: '404' },
				{
					match: { method: 'GET', path: listPath(agentId), query: { run_id: String(running) } },
					kind,
					retryAfter: '0',
					times,
				},
			]);
			const emitted = await emittedOver(poller, 3);
			expect(emulator.pendingFaults).toEqual([]);
			expect(emitted).toEqual([running]);
		},
	);

	/** A pending Run, finished, whose read a slow service left for the next poll (readFirst). */
	async function pendingReadFirst(name: string) {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, name);
		const poller = createPoller({
			parameters: triggerParameters(agentId),
			credentials,
			pollBudgetMs: 6_000,
		});
		await expectNothing(poller);
		const running = heldRun(emulator, agentId);
		await expectNothing(poller);
		emulator.finishRun(agentId, running);
		// The list read takes the poll's budget: the Run's read is left for the next poll, which
		// makes it first, before it reads the list.
		emulator.knobs.latencyMs = 3_800;
		await expectNothing(poller);
		emulator.knobs.latencyMs = 0;
		expect((poller.nodeStaticData?.agents as IDataObject)[agentId]).toMatchObject({
			readFirst: [running],
		});
		return { agentId, running, poller };
	}

	it('a pending Run read first after a slow poll, whose read answers 404 once and whose run_id list answer leaves it out once, is emitted', async () => {
		const { emulator } = ctx;
		const { agentId, running, poller } = await pendingReadFirst('404 and one lagging answer');
		// Its read answers 404 (a proxy, a deploy), and the list asked with the run_id filter
		// lags and leaves it out: one answer, not two in a row.
		emulator.injectFaults([
			{ match: { method: 'GET', path: runPath(agentId, running) }, kind: '404' },
		]);
		emulator.knobs.runsMissingFromLists = [running];
		emulator.afterRequest(
			{ method: 'GET', path: listPath(agentId), query: { run_id: String(running) } },
			() => {
				emulator.knobs.runsMissingFromLists = [];
			},
		);
		const emitted = await emittedOver(poller, 3);
		expect(emulator.pendingFaults).toEqual([]);
		expect(emitted).toEqual([running]);
	});

	it('a pending Run read first after a slow poll and deleted meanwhile is dropped once two list answers in a row leave it out, and no longer read', async () => {
		const { emulator } = ctx;
		const { agentId, running, poller } = await pendingReadFirst('read first, deleted');
		emulator.deleteRun(agentId, running);
		await expectNothing(poller);
		await expectNothing(poller);
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([]);
		const seq = emulator.lastSeq;
		await expectNothing(poller);
		expect(
			emulator.requestsSince(seq).some((entry) => runPath(agentId, running).test(entry.path)),
		).toBe(false);
	});
});

describe('Extraction Agents Trigger: a Run emitted before stays emitted', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		ctx.emulator.knobs.runsMissingFromLists = [];
		clock?.restore();
		clock = undefined;
	});

	const leftOutOf = (poller: ReturnType<typeof createPoller>, agentId: number) =>
		((poller.nodeStaticData?.agents as Record<string, IDataObject>)[agentId].leftOut ??
			'') as string;

	it('a Run deleted after it was emitted is remembered while a read could list it as new, and forgotten after', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'deleted after emission');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock = simulatedClock();
		const deleted = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([deleted]);
		emulator.deleteRun(agentId, deleted);
		await expectNothing(poller);
		expect(leftOutOf(poller, agentId)).toMatch(new RegExp(`^${deleted.toString(36)}:`));
		// A Run every 2 minutes less a second moves the watermark at every poll, by no whole
		// number of minutes (what the Run's time is stored in).
		const kept: boolean[] = [];
		for (let poll = 1; poll <= 40; poll++) {
			clock.advance(2 * MINUTE - 1_000);
			const made = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([made]);
			kept.push(leftOutOf(poller, agentId) !== '');
		}
		// Kept for the hour of the lookback (plus the clock margin and the minute it is stored
		// in), then forgotten.
		expect(kept.slice(0, 33)).not.toContain(false);
		expect(kept.slice(37)).not.toContain(true);
	});

	it('a Run left out of two list answers in a row and listed again after 200 other Runs were emitted is not emitted twice', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, '200 others between');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		const first = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([first]);
		emulator.knobs.runsMissingFromLists = [first];
		await expectNothing(poller);
		await expectNothing(poller);
		const others = emulator.addHistoricalRuns(agentId, 200, {
			createdBefore: emulator.now() + 1,
			spacingMs: 1,
		});
		expect(runIdsOf(await poller.poll())).toHaveLength(others.length);
		emulator.knobs.runsMissingFromLists = [];
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: the lookback with a Run stamped ahead', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		clock = undefined;
	});

	it('a Run listed 58 minutes after its created time is emitted though its Agent has a Run stamped 2 hours ahead', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'one Run 2 h ahead, one listed late');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock = simulatedClock();
		const ahead = Number(
			emulator.createRun(agentId, [{ name: 'ahead.pdf' }], {
				createdAt: emulator.now() + 120 * MINUTE,
				hold: true,
			}).run_id,
		);
		emulator.finishRun(agentId, ahead);
		const slowUpload = Number(
			emulator.createRun(agentId, [{ name: 'slow upload.pdf' }], {
				durationMs: 1,
				listedAt: emulator.now() + 58 * MINUTE,
			}).run_id,
		);
		expect(runIdsOf(await poller.poll())).toEqual([ahead]);
		clock.advance(57 * MINUTE);
		await expectNothing(poller);
		clock.advance(MINUTE + 1_000);
		expect(runIdsOf(await poller.poll())).toEqual([slowUpload]);
		await expectNothing(poller);
	});
});

describe("Extraction Agents Trigger: n8n's clock stepped back", () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		clock = undefined;
		ctx.emulator.clearFaults();
	});

	it('a Run finished after a failed activation poll is emitted when n8n’s clock steps back 3 minutes before the next poll', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'clock stepped back');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		clock = simulatedClock();
		emulator.injectFaults([{ match: { method: 'GET', path: listPath(agentId) }, kind: '500' }]);
		await expect(poller.poll()).rejects.toThrow();
		clock.advance(MINUTE);
		const after = finishedRun(emulator, agentId).run_id;
		// NTP corrects the n8n host's clock 3 minutes back; the service's clock stays.
		clock.step(-3 * MINUTE);
		emulator.advanceTime(3 * MINUTE);
		try {
			expect(await emittedOver(poller, 3)).toEqual([after]);
		} finally {
			emulator.advanceTime(-3 * MINUTE);
		}
	});
});

describe('Extraction Agents Trigger: a state saved by 0.3.0', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		clock?.restore();
		clock = undefined;
	});

	it('loads and goes on: its emitted Runs stay emitted, its pending Run is emitted when it finishes, a new Run is emitted; its list of Runs emitted is dropped once none can be listed as new', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'saved by 0.3.0');
		const parameters = triggerParameters(agentId, { includeFullRun: false });
		const poller = createPoller({ parameters, credentials });
		await expectNothing(poller);
		const emitted = finishedRun(emulator, agentId).run_id;
		const running = heldRun(emulator, agentId);
		expect(runIdsOf(await poller.poll())).toEqual([emitted]);
		// What 0.3.0 saved (state version 3): `seen` encoded, the Runs emitted across Agents in
		// `recentlyEmitted`; here `seen` has forgotten the emitted Run (two list answers in a
		// row left it out), so only `recentlyEmitted` knows it.
		const key = `node:${poller.nodeName}`;
		const saved = poller.staticData[key] as IDataObject;
		const agent = (saved.agents as Record<string, IDataObject>)[agentId];
		const state030: IDataObject = {
			version: 3,
			activatedAt: saved.activatedAt,
			scope: saved.scope,
			newAgentsAreHistory: false,
			agents: {
				[agentId]: {
					watermark: agent.watermark,
					seen: running.toString(36),
					pending: agent.pending,
					listOrder: agent.listOrder,
					listCount: agent.listCount,
					listOldest: agent.listOldest,
				},
			},
			recentlyEmitted: [emitted],
		};
		const upgraded = createPoller({
			parameters,
			credentials,
			staticData: { ...poller.staticData, [key]: state030 },
			firstPollActivation: 'init',
		});
		await expectNothing(upgraded);
		emulator.finishRun(agentId, running);
		const fresh = finishedRun(emulator, agentId).run_id;
		expect(await emittedOver(upgraded, 2)).toEqual([running, fresh]);
		await expectNothing(upgraded);
		expect(upgraded.nodeStaticData).toHaveProperty('recentlyEmitted', [emitted]);
		// 80 minutes on, a new Run moves the lookback past every Run that list can hold.
		clock = simulatedClock();
		clock.advance(80 * MINUTE);
		const later = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await upgraded.poll())).toEqual([later]);
		// That read moved more than an hour at once: the next reaches back to where it started.
		await expectNothing(upgraded);
		expect(upgraded.nodeStaticData).not.toHaveProperty('recentlyEmitted');
	});
});
