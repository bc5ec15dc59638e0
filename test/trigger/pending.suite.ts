/**
 * Runs deleted while pending, Runs that stay running for a long time, and
 * finished Runs whose `completed` is null (docs/design/service-notes.md #19).
 */
import {
	classify,
	createPoller,
	expectNothing,
	heldRun,
	itemsOf,
	newAgent,
	pendingRunIds,
	runIdsOf,
	runPath,
	triggerParameters,
	useEmulator,
} from './helpers';

const ctx = useEmulator({ runDurationMs: 60_000 });

describe('Extraction Agents Trigger: pending Runs', () => {
	it('drops a Run deleted while pending, silently, and stops reading it', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'deleted while pending');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);

		const doomed = heldRun(emulator, agentId, 'doomed.pdf');
		const kept = heldRun(emulator, agentId, 'kept.pdf');
		await expectNothing(poller);
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual(
			expect.arrayContaining([doomed, kept]),
		);

		expect(emulator.deleteRun(agentId, doomed)).toBe(true);
		emulator.finishRun(agentId, kept);
		let seq = emulator.lastSeq;
		// No error; the other pending Run is emitted as usual.
		expect(runIdsOf(await poller.poll())).toEqual([kept]);
		const reads = classify(emulator.requestsSince(seq)).runReads;
		expect(
			reads
				.filter((entry) => runPath(agentId, doomed).test(entry.path))
				.map((entry) => entry.status),
		).toEqual([404]);
		expect(poller.history.at(-1)).toMatchObject({ ok: true, staticDataSaved: true });
		expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([]);

		// The deleted Run is forgotten: the next poll does not ask for it again.
		seq = emulator.lastSeq;
		await expectNothing(poller);
		expect(
			emulator.requestsSince(seq).some((entry) => runPath(agentId, doomed).test(entry.path)),
		).toBe(false);
	});

	it('drops a Run that finished and was deleted before it was ever listed, without error', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'deleted unseen');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const gone = heldRun(emulator, agentId);
		emulator.finishRun(agentId, gone);
		emulator.deleteRun(agentId, gone);
		await expectNothing(poller);
	});

	it('emits a Run that stays running across 20 polls once, when it finally finishes, reading only the list while it shows the Run running', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'long runner');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);

		const slow = heldRun(emulator, agentId, 'slow.pdf');
		for (let poll = 0; poll < 20; poll++) {
			const seq = emulator.lastSeq;
			await expectNothing(poller);
			const { lists, runReads } = classify(emulator.requestsSince(seq));
			expect(lists).toHaveLength(1);
			// The list shows it running at every poll: that is its read (issue 28: 20 running
			// Runs cost 21 requests a poll before).
			expect(runReads.map((entry) => entry.path)).toEqual([]);
		}
		emulator.finishRun(agentId, slow, 'failed');
		const items = itemsOf(await poller.poll());
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ run_id: slow, status: 'failed' });
		for (let poll = 0; poll < 3; poll++) await expectNothing(poller);
	});

	it('counts a Run with `completed` null as finished by its status, whether first listed finished or pending', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'completed null');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { simplify: false }),
			credentials,
		});
		await expectNothing(poller);

		// 1. A finished Run with completed null, first seen in the list (an old-style Run
		//    imported after activation: created just now, completed null).
		const [listed] = emulator.addHistoricalRuns(agentId, 1, {
			createdBefore: emulator.now() + 1,
			spacingMs: 1,
			completedNull: true,
		});
		// 2. A Run seen running, which then finishes with completed null.
		const pending = heldRun(emulator, agentId);
		emulator.state.runs.get(pending)!.completedNull = true;
		const first = itemsOf(await poller.poll());
		expect(first.map((run) => [run.run_id, run.status, run.completed])).toEqual([
			[listed, 'success', null],
		]);

		emulator.finishRun(agentId, pending, 'failed');
		expect(emulator.getRun(agentId, pending)).toMatchObject({ status: 'failed', completed: null });
		const second = itemsOf(await poller.poll());
		expect(second.map((run) => [run.run_id, run.status, run.completed])).toEqual([
			[pending, 'failed', null],
		]);
		await expectNothing(poller);
	});
});
