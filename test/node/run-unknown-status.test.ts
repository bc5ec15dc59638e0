/**
 * docs/design/service-notes.md #23: new enum values pass through. A Run in a status the node does not know
 * (say `cancelled`) is final once it has a `completed` time, so Wait for Completion
 * returns it instead of waiting until its timeout.
 */
import { executeNode, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { agentById, useEmulator } from './fixtures';

useHarness();
// Runs stay running until the test finishes them.
const ctx = useEmulator({ runOutcome: 'never' });
const INVOICES = DEMO_AGENT_IDS.invoices;

async function createRunThatIsCancelled(typeVersion: number) {
	const { emulator } = ctx;
	// The service cancels the Run right after creating it.
	emulator.afterRequest({ method: 'POST', path: new RegExp(`/agents/${INVOICES}/runs$`) }, () => {
		const created = [...emulator.state.runs.values()]
			.filter((run) => run.agentId === INVOICES)
			.at(-1)!;
		emulator.finishRun(INVOICES, created.runId);
		created.reportedStatus = 'cancelled';
	});
	return await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion,
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: agentById(INVOICES),
			waitForCompletion: true,
			timeoutMinutes: 0.25,
		},
		inputItems: [
			{
				json: {},
				binary: {
					data: {
						data: Buffer.from('%PDF-1.4\ncancelled\n%%EOF\n'),
						fileName: 'cancelled.pdf',
						mimeType: 'application/pdf',
					},
				},
			},
		],
	});
}

it('Wait for Completion returns a Run that ends in a status the node does not know, once it has a completed time (version 1.2)', async () => {
	const result = await createRunThatIsCancelled(1.2);
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => [item.json.status, typeof item.json.completed])).toEqual([
		['cancelled', 'string'],
	]);
}, 60_000);

it('version 1.3 ends the wait as soon as the Run is cancelled, with an item error naming the status, not a timeout', async () => {
	const result = await createRunThatIsCancelled(1.3);
	expect(result.error?.message).toMatch(/^Run \d+ ended with the status "cancelled"$/);
}, 60_000);
