/**
 * Engine-level tests of the trigger under n8n 2.41's durable scheduler, which keeps only some
 * of what a poll writes into the node's static data (docs/trigger.md, "n8n's poll
 * scheduling"; proven in real n8n by test/e2e/trigger.e2e.test.ts). The harness's poller
 * stores the static data after every poll that changed it; these tests take back what n8n
 * would not keep, and the trigger must go on from the state the lost poll left.
 */
import { useHarness } from '../../dev/harness';
import {
	createPoller,
	expectNothing,
	finishedRun,
	listPath,
	newAgent,
	runIdsOf,
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
		expect(listReads.map((e) => e.query.page_size)).toEqual(['100']);
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
});
