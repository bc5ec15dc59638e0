/**
 * The one loop that waits for every Run of an execution must never leave a wait unsettled.
 * It needs nothing newer than Node.js 20.0 (n8n does not enforce the package's `engines`;
 * AbortSignal.any came with 20.3), and any error inside it rejects every wait with a message
 * saying what happened, so the execution ends instead of hanging with Timeout and Cancel no
 * longer working.
 */
import * as cancellation from '../../nodes/ExtractionAgents/transport/cancellation';
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 5000 });

describe('the wait loop', () => {
	const twoDocuments = [
		{ binary: { data: { data: pdf('one'), fileName: 'one.pdf' } } },
		{ binary: { data: { data: pdf('two'), fileName: 'two.pdf' } } },
	];

	it('waits on a Node.js without AbortSignal.any', async () => {
		const any = AbortSignal.any;
		(AbortSignal as { any?: unknown }).any = undefined;
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 5 }),
				inputItems: twoDocuments,
				// A loop that hangs is caught by the harness long before the Runs' Timeout.
				timeoutMs: 30_000,
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.status)).toEqual(['success', 'success']);
		} finally {
			AbortSignal.any = any;
		}
	});

	it('an error inside the loop fails every waiting item with a clear message instead of hanging', async () => {
		const sleep = jest
			.spyOn(cancellation, 'sleepUnlessCancelled')
			.mockRejectedValue(new Error('clock broke'));
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 5 }),
				inputItems: twoDocuments,
				continueOnFail: true,
				timeoutMs: 30_000,
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.error)).toEqual([
				expect.stringMatching(/^Waiting for Run \d+ stopped because of an error in the node$/),
				expect.stringMatching(/^Waiting for Run \d+ stopped because of an error in the node$/),
			]);
			expect(String(result.items[0].json.description)).toContain('The Run goes on in the service');
			expect(String(result.items[0].json.description)).toContain('clock broke');
			expect(result.items[0].json.run_id).toEqual(expect.any(Number));
		} finally {
			sleep.mockRestore();
		}
	});
});
