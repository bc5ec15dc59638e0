/**
 * Engine-level tests of the trigger under n8n 2.41's durable scheduler, which keeps only some
 * of what a poll writes into the node's static data (docs/design/trigger-rules.md, "n8n's poll
 * scheduling"; proven in real n8n by test/e2e/trigger.e2e.test.ts). The harness's poller
 * stores the static data after every poll that changed it; these tests take back what n8n
 * would not keep, and the trigger must go on from the state the lost poll left.
 */
import { useHarness } from '../../dev/harness';
import { EMITTED_SAVE_GRACE_MS } from '../../nodes/ExtractionAgents/trigger/uncommittedState';
import {
	createPoller,
	expectNothing,
	finishedRun,
	listPath,
	newAgent,
	runIdsOf,
	simulatedClock,
	triggerParameters,
	useEmulator,
} from './helpers';

useHarness();

/** What n8n does with durable poll cursors after an activation poll that emitted nothing. */
function forgetLastPoll(staticData: Record<string, unknown>, kept: Record<string, unknown>) {
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, structuredClone(kept));
}

describe('Extraction Agents Trigger: n8n 2.41’s durable scheduler', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('an activation whose state n8n did not commit (durable poll cursors): the next poll reads no history again, and a Run that finished in between is emitted', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'activation not committed');
		emulator.addHistoricalRuns(agentId, 1100);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		const beforeActivation = structuredClone(poller.staticData);
		await expectNothing(poller);
		forgetLastPoll(poller.staticData, beforeActivation);
		const since = emulator.lastSeq;
		const run = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([run]);
		const listReads = emulator
			.requestsSince(since)
			.filter((e) => listPath(agentId).test(e.path) && e.query.run_id === undefined);
		// One page: the history (1,100 Runs, pages of 1,000) is not read again.
		expect(listReads.map((e) => e.query.page_number)).toEqual(['0']);
		await expectNothing(poller);
	});

	it('a re-activation with Skip Them whose state n8n did not commit: the Run that finished while inactive stays skipped', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'skip not committed');
		const parameters = triggerParameters(agentId, { onReactivation: 'skip' });
		const first = createPoller({ parameters, credentials });
		await expectNothing(first);
		const whileInactive = finishedRun(emulator, agentId).run_id;
		// Re-activated: a new activation of the same workflow, with the stored state.
		const again = createPoller({ parameters, credentials, staticData: first.staticData });
		const stored = structuredClone(again.staticData);
		await expectNothing(again);
		forgetLastPoll(again.staticData, stored);
		await expectNothing(again);
		const later = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await again.poll())).toEqual([later]);
		expect(later).not.toBe(whileInactive);
	});

	describe('a poll handed the static data from before an emitting poll’s save', () => {
		let clock: ReturnType<typeof simulatedClock> | undefined;
		afterEach(() => clock?.restore());

		it('skips its turn: the Run is emitted once, and the next poll emits only what is new', async () => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, 'stale read after emit');
			const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
			await expectNothing(poller);
			const first = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([first]);
			expect(runIdsOf(await poller.poll('trigger', { staticDataBeforeLastSave: true }))).toEqual(
				[],
			);
			await expectNothing(poller);
			const second = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([second]);
		});

		it('a Run that finished meanwhile is emitted by the next poll, once', async () => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, 'stale read right after emit');
			const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
			await expectNothing(poller);
			const first = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([first]);
			const second = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll('trigger', { staticDataBeforeLastSave: true }))).toEqual(
				[],
			);
			expect(runIdsOf(await poller.poll())).toEqual([second]);
			await expectNothing(poller);
		});

		it('when n8n dropped the emitting poll’s result without saving, the Run is emitted again once the save is past due (never lost)', async () => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, 'emit dropped');
			const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
			await expectNothing(poller);
			clock = simulatedClock();
			const run = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll('trigger', { dropResult: true }))).toEqual([run]);
			clock.advance(60_000);
			await expectNothing(poller);
			clock.advance(EMITTED_SAVE_GRACE_MS);
			expect(runIdsOf(await poller.poll())).toEqual([run]);
			clock.advance(60_000);
			await expectNothing(poller);
		});

		it('still skips its turn when n8n’s clock was set forward 4.75 minutes after the emitting poll: the Run is emitted once', async () => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, 'stale read after a clock step');
			const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
			await expectNothing(poller);
			clock = simulatedClock();
			const run = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([run]);
			// NTP sets the n8n host's clock forward; the service's clock stays.
			clock.step(4.75 * 60_000);
			emulator.advanceTime(-4.75 * 60_000);
			try {
				expect(runIdsOf(await poller.poll('trigger', { staticDataBeforeLastSave: true }))).toEqual(
					[],
				);
				await expectNothing(poller);
			} finally {
				emulator.advanceTime(4.75 * 60_000);
			}
		});
	});
});
