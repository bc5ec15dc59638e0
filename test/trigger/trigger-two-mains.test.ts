/**
 * Two n8n mains under n8n 2.41's durable scheduler (docs/design/trigger-rules.md, "Two n8n mains"): the
 * scheduler runs on every main, each poll goes to whichever main takes its task, and only a
 * poll that emits saves the static data. Simulated with two pollers sharing one stored state
 * and the trigger's identity, main B with its own copy of the node's modules (its own
 * in-process memory: remembered states, counters, the overlap guard).
 */
import { useHarness, createPollerStorage, type PollerStorage } from '../../dev/harness';
import type { ExtractionAgentsTrigger } from '../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node';
import {
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	newAgent,
	runIdsOf,
	seededRandom,
	triggerParameters,
	useEmulator,
} from './helpers';

useHarness();

/** The trigger as another n8n process has it: the same code, its own module state. */
function triggerOfAnotherMain(): ExtractionAgentsTrigger {
	let type: ExtractionAgentsTrigger | undefined;
	jest.isolateModules(() => {
		const loaded =
			require('../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node') as typeof import('../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node');
		type = new loaded.ExtractionAgentsTrigger();
	});
	return type!;
}

let mainBType: ExtractionAgentsTrigger;
beforeAll(() => {
	mainBType = triggerOfAnotherMain();
});

/** Main A (activates the workflow) and main B, polling one trigger from one stored state. */
function twoMains(
	credentials: { apiKey: string; baseUrl: string },
	agentId: number,
	storage: PollerStorage = createPollerStorage(),
) {
	const shared = {
		parameters: triggerParameters(agentId),
		credentials,
		storage,
		workflowId: `two-mains-${agentId}`,
		nodeId: `trigger-${agentId}`,
		scheduler: 'durable' as const,
	};
	const a = createPoller(shared);
	const b = createPoller({ ...shared, nodeType: mainBType, firstPollActivation: 'update' });
	return { a, b, storage };
}

describe('Extraction Agents Trigger: two n8n mains sharing one stored state', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run that finishes between the activation on main A and the first poll on main B is emitted', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'first poll on the other main');
		const { a, b } = twoMains(credentials, agentId);
		await expectNothing(a); // the activation: nothing emitted, so nothing saved
		const between = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await b.poll())).toEqual([between]);
		await expectNothing(a);
		await expectNothing(b);
	});

	it('a Run main A saw running while emitting nothing, and main B emitted, is not emitted again by A', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'emitted by B, pending on A');
		const { a, b } = twoMains(credentials, agentId);
		await expectNothing(a);
		const first = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await a.poll())).toEqual([first]); // saved
		const running = heldRun(emulator, agentId);
		await expectNothing(a); // A remembers it pending: not saved
		await expectNothing(a);
		emulator.finishRun(agentId, running);
		expect(runIdsOf(await b.poll())).toEqual([running]); // saved by B
		await expectNothing(a);
		await expectNothing(b);
	});

	it.each([1, 2, 3, 4, 5, 6])(
		'polls taken by either main at random (seed %i): every Run is emitted exactly once',
		async (seed) => {
			const { emulator, credentials } = ctx;
			const random = seededRandom(seed);
			const agentId = await newAgent(emulator, `random mains ${seed}`);
			const { a, b } = twoMains(credentials, agentId);
			await expectNothing(a);
			const made: number[] = [];
			const running: number[] = [];
			const emitted: number[] = [];
			for (let poll = 0; poll < 24; poll++) {
				const roll = random();
				if (roll < 0.3) made.push(finishedRun(emulator, agentId).run_id);
				else if (roll < 0.5) running.push(heldRun(emulator, agentId));
				else if (roll < 0.7 && running.length > 0) {
					const runId = running.splice(Math.floor(random() * running.length), 1)[0];
					emulator.finishRun(agentId, runId);
					made.push(runId);
				}
				emitted.push(...runIdsOf(await (random() < 0.5 ? a : b).poll()));
			}
			for (const runId of running.splice(0)) {
				emulator.finishRun(agentId, runId);
				made.push(runId);
			}
			emitted.push(...runIdsOf(await a.poll()), ...runIdsOf(await b.poll()));
			expect([...emitted].sort((x, y) => x - y)).toEqual([...made].sort((x, y) => x - y));
		},
	);
});
