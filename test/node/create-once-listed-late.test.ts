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

it('1.5: a 504 after the Run was made, the Run listed 8 s late: not sent again, one Run', async () => {
	const id = uniqueId('INV-504');
	ctx.emulator.knobs.lateListing = { rate: 1, delayMs: 8_000 };
	ctx.emulator.injectFaults([
		{ match: { method: 'POST', path: AGENT_RUNS }, kind: '504', timing: 'after' },
	]);
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: 1.5,
		parameters: uploadOnlyParameters({ additionalFields: { userDefinedId: id } }),
		inputItems: [itemWithFiles('invoice', 1)],
	});
	ctx.emulator.knobs.lateListing = null;
	expect(result.error?.message).toBe('The Extraction Agents service failed (504)');
	expect(runsWithUserDefinedId(ctx.emulator, id)).toHaveLength(1);
}, 60_000);
