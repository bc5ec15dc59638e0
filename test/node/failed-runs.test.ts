/**
 * Node version 1.3: a Run that ends `failed` (or in any end that is not `success`) is an
 * item error — the error output when it is on, a failed item with "Continue", a stopped
 * workflow otherwise — carrying the Run's link, its status and the failed Prompts' reasons.
 * Options → Failed Runs → Output as Results keeps the way of 1.2 and before (the Run as a
 * result). A Run that succeeded with some Prompts failed stays a result; its row names them.
 */
import { executeNode, useHarness, type HarnessInputItem } from '../../dev/harness';
import type { INodeParameters } from 'n8n-workflow';
import { createRunParameters, INVOICES, pdf, shapeRunsByFileName, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 300 });

const file = (fileName: string): HarnessInputItem => ({
	json: {},
	binary: { data: { data: pdf(fileName), fileName } },
});

async function createRuns(
	files: string[],
	options: {
		typeVersion?: number;
		onError?: 'continueErrorOutput' | 'continueRegularOutput';
		parameters?: INodeParameters;
		fates?: { failed?: string; cancelled?: string };
	} = {},
) {
	shapeRunsByFileName(ctx.emulator, options.fates ?? { failed: 'bad.pdf' }, files.length);
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion: options.typeVersion,
		parameters: createRunParameters(options.parameters ?? {}),
		inputItems: files.map(file),
		onError: options.onError,
	});
	const hints = (result.runData[result.nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
	return { result, hints };
}

const FAILED_REASON = /Invoice number: The Prompt "Invoice number" could not be evaluated/;

describe('Run → Create, version 1.3: a Run that ends failed is an item error', () => {
	it('with the error output on, the failed Run goes to the error output with its link, status and the failed Prompts’ reasons; the others to the success output', async () => {
		const { result } = await createRuns(['ok.pdf', 'bad.pdf', 'fine.pdf'], {
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.json.files, item.json.status])).toEqual([
			['ok.pdf', 'success'],
			['fine.pdf', 'success'],
		]);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(Object.keys(failed[0].json)).toEqual(['error']);
		const error = failed[0].json.error as Record<string, unknown>;
		expect(error).toMatchObject({
			message: expect.stringMatching(/^Run \d+ failed$/),
			status: 'failed',
			agent_id: INVOICES,
			run_id: expect.any(Number),
			run_url: expect.stringContaining(ctx.emulator.webUrl),
			failed_prompts: expect.stringContaining('Invoice number'),
		});
		expect(error.failure_reasons).toMatch(FAILED_REASON);
		expect(error.description).toMatch(FAILED_REASON);
		// One full stop after the reasons, not the reason's own and another.
		expect(error.description).toMatch(/no usable answer\. See the Run/);
		expect(error.description).toContain(String(error.run_url));
	});

	it('without Continue the workflow stops on the failed Run, naming its link and the reasons', async () => {
		const { result } = await createRuns(['bad.pdf']);
		const error = result.error as Error & { description?: string };
		expect(error?.message).toMatch(/^Run \d+ failed$/);
		expect(error.description).toMatch(FAILED_REASON);
		expect(error.description).toContain(ctx.emulator.webUrl);
		expect(error.description).toContain('Failed Runs');
	});

	it('with Continue (regular output) the failed Run is a failed item holding its status and link', async () => {
		const { result } = await createRuns(['bad.pdf', 'ok.pdf'], {
			onError: 'continueRegularOutput',
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.error ?? null, item.json.status])).toEqual([
			[expect.stringMatching(/^Run \d+ failed$/), 'failed'],
			[null, 'success'],
		]);
		expect(result.items[0].json.run_url).toEqual(expect.stringContaining(ctx.emulator.webUrl));
	});

	it('a Run that ends in a status other than success (cancelled) is an item error too', async () => {
		const { result } = await createRuns(['cancelled.pdf'], {
			onError: 'continueErrorOutput',
			fates: { cancelled: 'cancelled.pdf' },
		});
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		expect(failed[0].json.error).toMatchObject({
			message: expect.stringMatching(/^Run \d+ ended with the status "cancelled"$/),
			status: 'cancelled',
		});
	});

	it('Options → Failed Runs → Output as Results gives the failed Run as a result, as before', async () => {
		const { result } = await createRuns(['bad.pdf'], {
			onError: 'continueErrorOutput',
			parameters: { options: { failedRuns: 'results' } },
		});
		const [success, failed] = result.outputs;
		expect(success.map((item) => item.json.status)).toEqual(['failed']);
		expect(failed ?? []).toEqual([]);
	});

	it('a Run that succeeded with some Prompts failed is a result; its row names the failed Prompts', async () => {
		ctx.emulator.knobs.promptFailureRate = 1;
		try {
			const { result } = await createRuns(['partly.pdf'], { onError: 'continueErrorOutput' });
			const [success, failed] = result.outputs;
			expect(failed ?? []).toEqual([]);
			expect(success).toHaveLength(1);
			expect(success[0].json.status).toBe('success');
			expect(success[0].json.failed_prompts).toEqual(expect.stringContaining('Invoice number'));
		} finally {
			ctx.emulator.knobs.promptFailureRate = 0;
		}
	});
});

describe('Run → Create: an execution hint counts what happened', () => {
	it('3 Runs, one failed, with the error output on: "3 Runs: 2 succeeded, 1 failed → error output"', async () => {
		const { hints } = await createRuns(['ok.pdf', 'bad.pdf', 'fine.pdf'], {
			onError: 'continueErrorOutput',
		});
		expect(hints).toContain('3 Runs: 2 succeeded, 1 failed → error output');
	});

	it('with Continue (regular output) the failed Runs are said to be error items in the output', async () => {
		const { hints } = await createRuns(['ok.pdf', 'bad.pdf'], {
			onError: 'continueRegularOutput',
		});
		expect(hints).toContain('2 Runs: 1 succeeded, 1 failed → error items in the output');
	});

	it('with Output as Results the failed Runs are said to be among the results', async () => {
		const { hints } = await createRuns(['ok.pdf', 'bad.pdf'], {
			parameters: { options: { failedRuns: 'results' } },
		});
		expect(hints).toContain(
			'2 Runs: 1 succeeded, 1 failed → in the results (Failed Runs: Output as Results)',
		);
	});

	it('all Runs succeeded: "2 Runs: 2 succeeded"', async () => {
		const { hints } = await createRuns(['ok.pdf', 'fine.pdf']);
		expect(hints).toContain('2 Runs: 2 succeeded');
	});
});
