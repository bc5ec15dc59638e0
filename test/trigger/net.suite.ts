/**
 * The reconciliation pass (docs/design/trigger-rules.md, "The net"): Runs that every fast rule
 * misses are emitted once by the next sweeps of their Agent's whole list, and a Run pending
 * across a long pause is not given up while its list shows it finished (issue 42, the two
 * losses of its first bullet).
 */
import type { IDataObject } from 'n8n-workflow';
import {
	createPoller,
	expectNothing,
	heldRun,
	listPath,
	newAgent,
	pendingRunIds,
	runIdsOf,
	simulatedClock,
	triggerParameters,
	useEmulator,
} from './helpers';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Polls `polls` times, `everyMs` apart (simulated time); every Run id emitted, in order. */
async function emittedOver(
	poller: ReturnType<typeof createPoller>,
	clock: ReturnType<typeof simulatedClock>,
	polls: number,
	everyMs: number,
) {
	const emitted: number[] = [];
	for (let poll = 0; poll < polls; poll++) {
		clock.advance(everyMs);
		emitted.push(...runIdsOf(await poller.poll()));
	}
	return emitted;
}

/** A poller loading what 0.4.x would have saved of `poller`'s state: the same, without the pass's fields. */
function upgradedFrom04(
	poller: ReturnType<typeof createPoller>,
	parameters: ReturnType<typeof triggerParameters>,
	credentials: Parameters<typeof createPoller>[0]['credentials'],
) {
	const key = `node:${poller.nodeName}`;
	const saved = structuredClone(poller.staticData[key]) as IDataObject;
	for (const agent of Object.values(saved.agents as Record<string, IDataObject>)) {
		delete agent.net;
		delete agent.done;
	}
	delete saved.netAgent;
	return createPoller({
		parameters,
		credentials,
		staticData: { ...poller.staticData, [key]: saved },
		firstPollActivation: 'init',
	});
}

describe('Extraction Agents Trigger: the reconciliation pass', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });
	let clock: ReturnType<typeof simulatedClock> | undefined;
	afterEach(() => {
		ctx.emulator.knobs.runsMissingFromLists = [];
		ctx.emulator.knobs.singleReadLagMs = 0;
		clock?.restore();
		clock = undefined;
	});

	it.each([true, false])(
		'a Run running for 2 hours that the activation poll’s list answer leaves out, finished 3 minutes after activation, is emitted once (Include Full Run %s)',
		async (includeFullRun) => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, `old Run left out at activation ${includeFullRun}`);
			clock = simulatedClock();
			const old = heldRun(emulator, agentId, 'old.pdf', emulator.now() - 120 * MINUTE);
			emulator.createRun(agentId, [{ name: 'newer.pdf' }], {
				createdAt: emulator.now() - 10 * MINUTE,
				durationMs: MINUTE,
			});
			// The activation poll's one list answer leaves the old Run out (a lagging replica).
			emulator.knobs.runsMissingFromLists = [old];
			emulator.afterRequest({ method: 'GET', path: listPath(agentId) }, () => {
				emulator.knobs.runsMissingFromLists = [];
			});
			const poller = createPoller({
				parameters: triggerParameters(agentId, { includeFullRun }),
				credentials,
			});
			await expectNothing(poller);
			clock.advance(3 * MINUTE);
			emulator.finishRun(agentId, old);
			// Every 10 minutes for 3 hours: the net's bound for one small Agent.
			expect(await emittedOver(poller, clock, 18, 10 * MINUTE)).toEqual([old]);
		},
	);

	it('a Run the fast rules miss that the first sweep’s list answer leaves out too is emitted once by the second sweep', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'left out of the first sweep too');
		clock = simulatedClock();
		const old = heldRun(emulator, agentId, 'old.pdf', emulator.now() - 120 * MINUTE);
		emulator.createRun(agentId, [{ name: 'newer.pdf' }], {
			createdAt: emulator.now() - 10 * MINUTE,
			durationMs: MINUTE,
		});
		// Left out of every answer in pages of 1,000 up to the first sweep's: the activation
		// poll's first look, then the pass's first page.
		emulator.knobs.runsMissingFromLists = [old];
		let pagesOf1000 = 0;
		emulator.afterRequest(
			{ method: 'GET', path: listPath(agentId), query: { page_size: '1000' } },
			() => {
				if (++pagesOf1000 === 2) emulator.knobs.runsMissingFromLists = [];
			},
			2,
		);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		clock.advance(3 * MINUTE);
		emulator.finishRun(agentId, old);
		expect(await emittedOver(poller, clock, 18, 10 * MINUTE)).toEqual([old]);
		expect(pagesOf1000).toBe(2);
	});

	it('a Run the fast rules emitted is not emitted again by the sweeps, nor a Run that finished 2 minutes before activation', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'emitted once, history stays history');
		clock = simulatedClock();
		emulator.createRun(agentId, [{ name: 'history.pdf' }], {
			createdAt: emulator.now() - 3 * MINUTE,
			durationMs: MINUTE,
		});
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock.advance(MINUTE);
		const fresh = Number(
			emulator.createRun(agentId, [{ name: 'fresh.pdf' }], { durationMs: 1 }).run_id,
		);
		clock.advance(MINUTE);
		expect(runIdsOf(await poller.poll())).toEqual([fresh]);
		const seq = emulator.lastSeq;
		// 3 hours: three sweeps of the Agent's list, each of which lists both Runs finished.
		expect(await emittedOver(poller, clock, 18, 10 * MINUTE)).toEqual([]);
		const sweeps = emulator
			.requestsSince(seq)
			.filter((entry) => listPath(agentId).test(entry.path) && entry.query.page_size === '1000');
		expect(sweeps.length).toBeGreaterThanOrEqual(2);
	});

	it('a Run emitted before n8n’s clock was set back 6 hours is not emitted again by the sweeps after', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'emitted once, clock set back');
		clock = simulatedClock();
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		clock.advance(MINUTE);
		const fresh = Number(
			emulator.createRun(agentId, [{ name: 'fresh.pdf' }], { durationMs: 1 }).run_id,
		);
		clock.advance(MINUTE);
		expect(runIdsOf(await poller.poll())).toEqual([fresh]);
		// Four sweeps: `done` forgets the Run once two sweeps have judged it.
		expect(await emittedOver(poller, clock, 30, 10 * MINUTE)).toEqual([]);
		// n8n's clock set back 6 hours (a restored VM), before the Run finished; the sweeps go on.
		clock.step(-360 * MINUTE);
		expect(await emittedOver(poller, clock, 30, 10 * MINUTE)).toEqual([]);
	});

	it.each([
		['made 2 minutes before, so still among the Runs it remembers (`seen`)', false],
		['running for 2 hours behind a newer Run, so no longer among the Runs it remembers', true],
	])(
		'after an upgrade from 0.4.x (a state without the pass’s `net` and `done`), a Run 0.4.x emitted 2 minutes before is not emitted again by the sweeps: %s',
		async (_, long) => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, `emitted by 0.4.x just before the upgrade ${long}`);
			clock = simulatedClock();
			const parameters = triggerParameters(agentId, { includeFullRun: false });
			const old = long ? heldRun(emulator, agentId, 'old.pdf', emulator.now() - 120 * MINUTE) : 0;
			if (long)
				emulator.createRun(agentId, [{ name: 'newer.pdf' }], {
					createdAt: emulator.now() - 10 * MINUTE,
					durationMs: MINUTE,
				});
			const poller = createPoller({ parameters, credentials });
			await expectNothing(poller);
			clock.advance(MINUTE);
			if (long) emulator.finishRun(agentId, old);
			const emitted = long
				? old
				: Number(emulator.createRun(agentId, [{ name: 'emitted.pdf' }], { durationMs: 1 }).run_id);
			clock.advance(MINUTE);
			expect(runIdsOf(await poller.poll())).toEqual([emitted]);
			// n8n is updated and restarted 2 minutes later: the Run finished within the clock margin.
			clock.advance(2 * MINUTE);
			const upgraded = upgradedFrom04(poller, parameters, credentials);
			// Its first poll at once, then 3 hours: the sweeps of the Agent's list each list the Run
			// finished.
			await expectNothing(upgraded);
			expect(await emittedOver(upgraded, clock, 18, 10 * MINUTE)).toEqual([]);
		},
	);

	it('after an upgrade from 0.4.x, a Run emitted just after it is emitted once when a re-activation with Skip Them follows 2 minutes later and its activation poll fails', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'emitted after the upgrade, then Skip Them');
		clock = simulatedClock();
		const parameters = triggerParameters(agentId, { includeFullRun: false });
		const poller = createPoller({ parameters, credentials });
		await expectNothing(poller);
		clock.advance(3 * MINUTE);
		const upgraded = upgradedFrom04(poller, parameters, credentials);
		await expectNothing(upgraded);
		clock.advance(MINUTE);
		const run = Number(emulator.createRun(agentId, [{ name: 'r.pdf' }], { durationMs: 1 }).run_id);
		clock.advance(MINUTE);
		const emitted = runIdsOf(await upgraded.poll());
		expect(emitted).toEqual([run]);
		// Re-activated with Skip Them 2 minutes on; its activation poll's list read is refused, so
		// a later poll stands in for it and reads the Run's page.
		clock.advance(2 * MINUTE);
		const reactivated = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false, onReactivation: 'skip' }),
			credentials,
			staticData: upgraded.staticData,
			firstPollActivation: 'activate',
		});
		emulator.injectFaults([{ match: { path: listPath(agentId) }, kind: '403' }]);
		await expect(reactivated.poll()).rejects.toThrow();
		expect(await emittedOver(reactivated, clock, 5, 10 * MINUTE)).toEqual([]);
	});

	it('after an upgrade from 0.4.x, a Run its first poll gives up (running 3 days) that finishes 40 minutes later is emitted by the sweeps', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'given up at the upgrade, finished later');
		clock = simulatedClock();
		const parameters = triggerParameters(agentId, { includeFullRun: false });
		const running = heldRun(emulator, agentId, 'slow.pdf', emulator.now() - 3 * DAY + 10 * MINUTE);
		const poller = createPoller({ parameters, credentials });
		await expectNothing(poller);
		clock.advance(MINUTE);
		await expectNothing(poller);
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([running]);
		// Upgraded 20 minutes on: its first poll finds the Run running for more than 3 days.
		clock.advance(20 * MINUTE);
		const upgraded = upgradedFrom04(poller, parameters, credentials);
		await expectNothing(upgraded);
		expect(pendingRunIds(upgraded.nodeStaticData, agentId)).toEqual([]);
		clock.advance(40 * MINUTE);
		emulator.finishRun(agentId, running);
		expect(await emittedOver(upgraded, clock, 30, 10 * MINUTE)).toEqual([running]);
	});

	it('an Agent whose list is refused from some poll on does not hold the pass up for the other Agents (All Agents)', async () => {
		const { emulator, credentials } = ctx;
		// The pass takes Agents in GET /agents' order: the refused one comes first either way.
		const refusedBefore = await newAgent(emulator, 'refused after activation (1)');
		const agentId = await newAgent(emulator, 'old Run left out, beside a refused Agent');
		const refusedAfter = await newAgent(emulator, 'refused after activation (2)');
		clock = simulatedClock();
		const old = heldRun(emulator, agentId, 'old.pdf', emulator.now() - 120 * MINUTE);
		emulator.createRun(agentId, [{ name: 'newer.pdf' }], {
			createdAt: emulator.now() - 10 * MINUTE,
			durationMs: MINUTE,
		});
		emulator.knobs.runsMissingFromLists = [old];
		emulator.afterRequest({ method: 'GET', path: listPath(agentId) }, () => {
			emulator.knobs.runsMissingFromLists = [];
		});
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await poller.poll();
		emulator.knobs.failingRunLists = { [refusedBefore]: 403, [refusedAfter]: 403 };
		clock.advance(3 * MINUTE);
		emulator.finishRun(agentId, old);
		try {
			const emitted = await emittedOver(poller, clock, 18, 10 * MINUTE);
			expect(emitted.filter((runId) => runId === old)).toEqual([old]);
		} finally {
			emulator.knobs.failingRunLists = {};
		}
	});

	it('a Run pending across a pause of 4 days, whose single read still says running while its list shows it finished, is emitted once the read catches up', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'pending across 4 days, read lagging');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		clock = simulatedClock();
		const running = heldRun(emulator, agentId);
		clock.advance(MINUTE);
		await expectNothing(poller);
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([running]);
		// n8n is down 4 days; the Run finishes shortly before the first poll after, and its
		// single read lags the list by 10 minutes.
		clock.advance(4 * DAY);
		emulator.finishRun(agentId, running);
		emulator.knobs.singleReadLagMs = 10 * MINUTE;
		clock.advance(MINUTE);
		expect(await emittedOver(poller, clock, 12, 2 * MINUTE)).toEqual([running]);
	});
});
