/**
 * From node version 1.3 a Run that ends `failed` (or in any end that is not `success`) is an
 * item error — the error output when it is on, a failed item with "Continue", a stopped
 * workflow otherwise. From 1.4 its error item speaks to whoever reviews the document (which
 * files, which Prompts failed and the service's reason, the Run's link, the Agent's name), in
 * fields a sheet takes as they are; the n8n setup steps stay in the panel and in the error of
 * a stopped workflow (version 1.3's item: test/node/versions.test.ts).
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
const INVOICE_PROMPTS = 'Invoice number, Invoice date, Vendor, Total amount';
/** n8n setup steps: the panel's words, for whoever builds the workflow, never in an error item. */
const SETUP_WORDS = /Options|On Error|Output as Results|Failed Runs|node/;

describe('Run → Create: a Run that ends failed is an item error', () => {
	it('with the error output on, the failed Run goes to the error output, saying for the reviewer which file, which Prompts and why, with the Run’s link; the others to the success output', async () => {
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
		expect(error).toEqual({
			message: '"bad.pdf": none of the 4 Prompts could be answered',
			description: expect.stringContaining('Check that the file is readable'),
			// Version 1.5, One Run per File: the file of the item's output item.
			file_name: 'bad.pdf',
			files: 'bad.pdf',
			failed_prompts: INVOICE_PROMPTS,
			failure_reasons: expect.stringMatching(FAILED_REASON),
			agent_name: null,
			run_url: expect.stringContaining(ctx.emulator.webUrl),
			run_id: expect.any(Number),
			agent_id: INVOICES,
			status: 'failed',
		});
		// One cell per field: text, one reason a line, each without its own full stop.
		expect(String(error.failure_reasons).split('\n')).toHaveLength(4);
		expect(error.failure_reasons).not.toMatch(/\.$/m);
		expect(error.description).toContain(String(error.run_url));
		expect(error.description).not.toMatch(SETUP_WORDS);
	});

	it('one Prompt of four failed: the message counts and names it, the reason is the service’s', async () => {
		ctx.emulator.knobs.runOutcome = 'failed';
		try {
			const { result } = await createRuns(['invoice-39.pdf'], { onError: 'continueErrorOutput' });
			const error = result.outputs[1][0].json.error as Record<string, unknown>;
			expect(error.message).toBe(
				'"invoice-39.pdf": 1 of 4 Prompts could not be answered (Total amount)',
			);
			expect(error.failed_prompts).toBe('Total amount');
			expect(error.failure_reasons).toBe(
				'Total amount: The Prompt "Total amount" could not be evaluated: the model returned no usable answer',
			);
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
		}
	});

	it('an item with several files names them all; the Agent picked From List is named', async () => {
		shapeRunsByFileName(ctx.emulator, { failed: 'scan-1.pdf' }, 1);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({
				agent: { __rl: true, mode: 'list', value: String(INVOICES), cachedResultName: 'Invoices' },
				filesPerRun: 'item',
			}),
			inputItems: [
				{
					json: {},
					binary: {
						data: { data: pdf('scan-1'), fileName: 'scan-1.pdf' },
						attachment_1: { data: pdf('scan-2'), fileName: 'scan-2.pdf' },
					},
				},
			],
			onError: 'continueErrorOutput',
		});
		const error = result.outputs[1][0].json.error as Record<string, unknown>;
		expect(error.message).toBe(
			'"scan-1.pdf", "scan-2.pdf": none of the 4 Prompts could be answered',
		);
		expect(error.files).toBe('scan-1.pdf, scan-2.pdf');
		expect(error.agent_name).toBe('Invoices');
		expect(error.description).toContain(
			'Check that the files are readable and are the kind of document the Agent "Invoices" reads',
		);
	});

	it('without Continue the workflow stops on the failed Run; its error tells whoever built the workflow how to keep such Runs', async () => {
		const { result } = await createRuns(['bad.pdf']);
		const error = result.error as Error & { description?: string };
		expect(error?.message).toBe('"bad.pdf": none of the 4 Prompts could be answered');
		expect(error.description).toContain(ctx.emulator.webUrl);
		expect(error.description).toContain('Options → Failed Runs');
		expect(error.description).toContain('Continue (using error output)');
	});

	it('with Continue (regular output) the failed Run is a failed item with the same fields, flat', async () => {
		const { result } = await createRuns(['bad.pdf', 'ok.pdf'], {
			onError: 'continueRegularOutput',
		});
		expect(result.error).toBeUndefined();
		const [failedItem, okItem] = result.items.map((item) => item.json);
		expect(failedItem).toEqual({
			error: '"bad.pdf": none of the 4 Prompts could be answered',
			description: expect.stringContaining('Check that the file is readable'),
			file_name: 'bad.pdf',
			files: 'bad.pdf',
			failed_prompts: INVOICE_PROMPTS,
			failure_reasons: expect.stringMatching(FAILED_REASON),
			agent_name: null,
			run_url: expect.stringContaining(ctx.emulator.webUrl),
			run_id: expect.any(Number),
			agent_id: INVOICES,
			status: 'failed',
		});
		expect(failedItem.description).not.toMatch(SETUP_WORDS);
		expect([okItem.error, okItem.status]).toEqual([undefined, 'success']);
	});

	it('a Run that ends in a status other than success (cancelled) is an item error too', async () => {
		const { result } = await createRuns(['cancelled.pdf'], {
			onError: 'continueErrorOutput',
			fates: { cancelled: 'cancelled.pdf' },
		});
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		expect(failed[0].json.error).toMatchObject({
			message: '"cancelled.pdf": the Run ended with the status "cancelled"',
			files: 'cancelled.pdf',
			failed_prompts: '',
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

	it('Runs with Failed Prompts → Output as Results: a Run that succeeded with some Prompts failed is a result; its row names the failed Prompts', async () => {
		ctx.emulator.knobs.promptFailureRate = 1;
		try {
			// Version 1.5 sends such a Run to the error output by default (test/node/versions.test.ts).
			const { result } = await createRuns(['partly.pdf'], {
				onError: 'continueErrorOutput',
				parameters: { options: { partlyReadRuns: 'results' } },
			});
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
