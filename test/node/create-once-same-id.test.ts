import { executeNode, useHarness } from '../../dev/harness';
import {
	AGENT_RUNS,
	itemWithFiles,
	runsWithUserDefinedId,
	uniqueId,
	uploadOnlyParameters,
	useEmulator,
	useShortBackoff,
} from '../../test/reliability/helpers';

useHarness();
useShortBackoff();
const ctx = useEmulator({ runDurationMs: 200 });

it('1.5: a 503 before the Run was made does not take an earlier execution’s Run with the same User-Defined ID for this item’s', async () => {
	const sender = uniqueId('billing@acme.example'); // e.g. {{ $json.from }}: same for two emails
	const first = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters({ additionalFields: { userDefinedId: sender } }),
		inputItems: [itemWithFiles('invoice-A', 1)],
	});
	expect(first.error).toBeUndefined();
	ctx.emulator.injectFaults([
		{ match: { method: 'POST', path: AGENT_RUNS }, kind: '503', timing: 'before' },
	]);
	const second = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters({ additionalFields: { userDefinedId: sender } }),
		inputItems: [itemWithFiles('invoice-B', 1)],
	});
	const runs = runsWithUserDefinedId(ctx.emulator, sender);
	// invoice-B must have its own Run (or an error): it must not come back as invoice-A's Run.
	expect(second.items[0]?.json.run_id).not.toBe(first.items[0]?.json.run_id);
	expect(second.error?.message).toBe('The Extraction Agents service failed (503)');
	expect(runs).toHaveLength(1);
});
