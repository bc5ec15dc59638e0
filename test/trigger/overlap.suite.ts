/**
 * n8n starts a poll at every poll time even while the previous one is still running
 * (seen in queue mode with a slow service: 165 duplicate emissions before the guard).
 * Two polls from the same saved state must not emit the same Runs.
 */
import {
	createPoller,
	expectNothing,
	heldRun,
	newAgent,
	runIdsOf,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

describe('Extraction Agents Trigger: overlapping polls', () => {
	it('emits each Run once when a poll starts while the previous one still runs', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'overlapping polls');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const runIds = Array.from({ length: 8 }, (_, n) => heldRun(emulator, agentId, `doc-${n}.pdf`));
		await expectNothing(poller);
		for (const runId of runIds) emulator.finishRun(agentId, runId);

		emulator.knobs.latencyMs = 150; // every request slow, so the two polls overlap
		try {
			const [first, second] = await Promise.all([poller.poll(), poller.poll()]);
			const emitted = [...runIdsOf(first), ...runIdsOf(second)];
			expect(emitted.sort((a, b) => a - b)).toEqual([...runIds].sort((a, b) => a - b));
			expect([first, second].filter((result) => result === null)).toHaveLength(1);
		} finally {
			emulator.knobs.latencyMs = 0;
		}
		await expectNothing(poller);
	});
});
