/**
 * "Fetch Test Event" (manual mode) returns the newest finished Run and
 * leaves the trigger's state alone; with no finished Run it says so clearly.
 */
import { NodeOperationError } from 'n8n-workflow';
import {
	createPoller,
	expectNothing,
	heldRun,
	itemsOf,
	newAgent,
	probedTrigger,
	runIdsOf,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

/** An Agent whose newest-created Run is still running and whose last Run to finish is not the newest one. */
async function agentWithFinishedRuns(name: string) {
	const { emulator } = ctx;
	const agentId = await newAgent(emulator, name);
	const early = heldRun(emulator, agentId, 'early.pdf');
	const middle = heldRun(emulator, agentId, 'middle.pdf');
	emulator.advanceTime(5);
	emulator.finishRun(agentId, middle, 'success');
	emulator.advanceTime(5);
	emulator.finishRun(agentId, early, 'failed'); // finished last
	const running = heldRun(emulator, agentId, 'running.pdf'); // created last, not finished
	return { agentId, early, middle, running };
}

describe('Extraction Agents Trigger: Fetch Test Event (manual mode)', () => {
	it('returns the newest finished Run, shaped like a real event, matching the Statuses', async () => {
		const { credentials } = ctx;
		const { agentId, early, middle } = await agentWithFinishedRuns('manual newest');

		const both = itemsOf(
			await createPoller({ parameters: triggerParameters(agentId), credentials }).poll('manual'),
		);
		expect(both).toHaveLength(1);
		expect(both[0]).toMatchObject({
			run_id: early,
			agent_id: agentId,
			status: 'failed',
			files: 'early.pdf',
		});
		expect(typeof both[0].credits_used).toBe('number'); // Include Full Run: the single-Run read

		const successOnly = itemsOf(
			await createPoller({
				parameters: triggerParameters(agentId, { statuses: ['success'] }),
				credentials,
			}).poll('manual'),
		);
		expect(successOnly.map((run) => run.run_id)).toEqual([middle]);
	});

	it('leaves the static data untouched, before activation and after it', async () => {
		const { emulator, credentials } = ctx;
		const { agentId, early, middle, running } = await agentWithFinishedRuns('manual untouched');
		const probe = probedTrigger();
		const poller = createPoller({
			nodeType: probe.type,
			parameters: triggerParameters(agentId),
			credentials,
		});

		// Before activation: manual mode must not count as the activation.
		expect(runIdsOf(await poller.poll('manual'))).toEqual([early]);
		expect(poller.staticData).toEqual({});
		expect(probe.inMemory.at(-1)).toEqual({});
		await expectNothing(poller); // this is the activation
		const activated = structuredClone(poller.staticData);
		expect(activated).not.toEqual({});

		// After activation, with a Run pending: manual mode changes nothing, in memory or stored.
		emulator.finishRun(agentId, running);
		expect(runIdsOf(await poller.poll('manual'))).toEqual([running]);
		expect(poller.staticData).toEqual(activated);
		expect(probe.inMemory.at(-1)).toEqual(activated[`node:${poller.nodeName}`]);

		// The Run manual mode returned is still emitted by the next scheduled poll, once.
		expect(runIdsOf(await poller.poll())).toEqual([running]);
		await expectNothing(poller);
		expect(runIdsOf(await poller.poll('manual'))).toEqual([running]);
		await expectNothing(poller);
		expect([early, middle]).not.toContain(running);
	});

	it('on an Agent without any finished Run, rejects with a clear message', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'manual empty');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });

		const empty = await poller.poll('manual').catch((error: unknown) => error);
		expect(empty).toBeInstanceOf(NodeOperationError);
		expect((empty as NodeOperationError).message).toBe('No finished Run yet');
		expect((empty as NodeOperationError).description).toContain(
			`Agent ${agentId} has no finished Run with a status chosen in Trigger On (Succeeded, Failed)`,
		);

		// A Run that is still running does not count either.
		heldRun(emulator, agentId);
		await expect(poller.poll('manual')).rejects.toThrow('No finished Run yet');

		// Nor does a finished Run of a status not selected.
		const failedOnly = createPoller({
			parameters: triggerParameters(agentId, { statuses: ['failed'] }),
			credentials,
		});
		emulator.createRun(agentId, [{ name: 'ok.pdf' }], { durationMs: 0, outcome: 'success' });
		const wrongStatus = await failedOnly.poll('manual').catch((error: unknown) => error);
		expect((wrongStatus as NodeOperationError).description).toContain(
			'a status chosen in Trigger On (Failed)',
		);
		expect(poller.staticData).toEqual({});
	});
});
