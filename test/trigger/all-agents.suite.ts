/**
 * Watch = All Agents: every Agent the API key can see, re-listed each poll, so an Agent
 * made after activation is picked up with the Runs it gets from then on.
 */
import { DEMO_AGENT_IDS } from '../../dev/emulator';
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

// Its own emulator: every Agent of alice's workspaces is watched here, so no other test's Runs may interfere.
const ctx = useEmulator({ runDurationMs: 60_000 });

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('Extraction Agents Trigger: All Agents', () => {
	it('picks up an Agent created after activation and the Runs it gets, each once', async () => {
		const { emulator, credentials } = ctx;
		const existing = await newAgent(emulator, 'existing');
		finishedRun(emulator, existing); // history
		const runningAtActivation = heldRun(emulator, existing);
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all' }),
			credentials,
		});
		await expectNothing(poller);

		// A Run on a demo Agent and one on the existing copy.
		const onInvoices = finishedRun(emulator, DEMO_AGENT_IDS.invoices).run_id;
		const onContracts = heldRun(emulator, DEMO_AGENT_IDS.contracts);
		emulator.finishRun(existing, runningAtActivation);
		expect(sorted(runIdsOf(await poller.poll()))).toEqual(
			sorted([onInvoices, runningAtActivation]),
		);

		// A new Agent (POST copy, as a user would make it), with a Run that finishes at once,
		// one still running, and one backdated to before activation (the past: never emitted).
		const later = await newAgent(emulator, 'made later', DEMO_AGENT_IDS.contracts);
		const laterDone = finishedRun(emulator, later).run_id;
		const laterRunning = heldRun(emulator, later);
		const before = Number(
			emulator.createRun(later, [{ name: 'old.pdf' }], {
				createdAt: Date.now() - 3_600_000,
				durationMs: 1,
			}).run_id,
		);
		// One from before activation that is still running: emitted when it finishes, as on any Agent.
		const oldRunning = heldRun(emulator, later, 'old-running.pdf', Date.now() - 3_600_000);
		let seq = emulator.lastSeq;
		const picked = itemsOf(await poller.poll());
		expect(picked.map((item) => [item.agent_id, item.run_id])).toEqual([[later, laterDone]]);
		expect(classify(emulator.requestsSince(seq)).agentLists.length).toBeGreaterThanOrEqual(1); // re-listed
		expect(picked.map((item) => item.run_id)).not.toContain(before);

		await expectNothing(poller);
		emulator.finishRun(later, laterRunning, 'failed');
		emulator.finishRun(later, oldRunning);
		emulator.finishRun(DEMO_AGENT_IDS.contracts, onContracts);
		const last = itemsOf(await poller.poll());
		expect(last.map((item) => [item.agent_id, item.run_id, item.status]).sort()).toEqual(
			[
				[DEMO_AGENT_IDS.contracts, onContracts, 'success'],
				[later, laterRunning, 'failed'],
				[later, oldRunning, 'success'],
			].sort(),
		);
		seq = emulator.lastSeq;
		await expectNothing(poller);
		await expectNothing(poller);
		// Every poll lists the Agents again (new Agents are found without reactivating).
		expect(classify(emulator.requestsSince(seq)).agentLists.length).toBeGreaterThanOrEqual(2);

		// And after a restart, the Agent found later is not treated as new a second time.
		const restarted = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all' }),
			credentials,
			staticData: poller.staticData,
		});
		await expectNothing(restarted);
	});
});
