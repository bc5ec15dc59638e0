/**
 * On Error → "Continue (using error output)": n8n-core moves an item to the error output
 * only when the node marks it as failed the way n8n reads it. Every failing item — and only
 * those — must reach the error output with its message, description and, where the item had
 * created a Run, the Run's fields; "Continue" (regular output) keeps the error item's shape.
 */
import { executeNode, useHarness } from '../../dev/harness';
import {
	createRunParameters,
	INVOICES,
	pdf,
	runById,
	shapeRunsByFileName,
	useEmulator,
} from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 300 });

const file = (fileName: string) => ({ binary: { data: { data: pdf(fileName), fileName } } });

describe('On Error → Continue (using error output)', () => {
	it('Run → Create: the Run that went missing and the Run that timed out go to the error output with their Run fields and file names; the good Run to the success output', async () => {
		shapeRunsByFileName(ctx.emulator, { deleted: 'gone.pdf', held: 'slow.pdf' }, 3);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ timeoutMinutes: 0.05 }),
			inputItems: [file('ok.pdf'), file('gone.pdf'), file('slow.pdf')],
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.json.status, item.json.files])).toEqual([
			['success', 'ok.pdf'],
		]);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		const [gone, slow] = failed.map((item) => item.json);
		// n8n reads an item as failed only when its json holds `error` alone (or with `message`):
		// the message, the description and the Run's fields are in `error`.
		expect(Object.keys(gone)).toEqual(['error']);
		expect(gone.error).toMatchObject({
			message: expect.stringMatching(new RegExp(`^Run \\d+ of Agent ${INVOICES} not found$`)),
			agent_id: INVOICES,
			status: 'running',
			run_id: expect.any(Number),
			files: 'gone.pdf',
			agent_name: null,
			description: expect.stringContaining('It may have been deleted'),
		});
		expect(slow.error).toMatchObject({
			message: expect.stringMatching(/^Run \d+ did not finish within 3 seconds$/),
			agent_id: INVOICES,
			status: 'running',
			run_url: expect.stringContaining(ctx.emulator.webUrl),
			files: 'slow.pdf',
			description: expect.stringContaining('Fetch it later with Run → Get'),
		});
	});

	it('Run → Get: a missing Run goes to the error output with the message and description, the found Run to the success output', async () => {
		const found = ctx.emulator.createRun(INVOICES, [{ name: 'found.pdf' }], { durationMs: 0 });
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: String(INVOICES) },
				run: '={{ $json.runId }}',
			},
			inputItems: [{ json: { runId: Number(found.run_id) } }, { json: { runId: 987654 } }],
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success.map((item) => item.json.run_id)).toEqual([Number(found.run_id)]);
		expect(failed).toHaveLength(1);
		expect(failed[0].pairedItem).toEqual({ item: 1 });
		// n8n adds the input item's fields to an item on the error output.
		expect(failed[0].json).toEqual({
			runId: 987654,
			error: {
				message: `Run 987654 of Agent ${INVOICES} not found`,
				description: expect.stringContaining('It may have been deleted'),
			},
		});
	});

	it('On Error → Continue (regular output) keeps the error item’s shape on the one output', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: String(INVOICES) },
				run: runById(987654),
			},
			continueOnFail: true,
		});
		expect(result.outputs).toHaveLength(1);
		expect(Object.keys(result.items[0].json).sort()).toEqual(['description', 'error']);
		expect(result.items[0].error).toBeUndefined();
	});
});

/**
 * Settings the node reads once, before any item runs (Options → Items in Parallel, the
 * operation): when one is wrong, every item fails with its message. n8n passes a node's
 * input through unchanged when `execute` itself throws with On Error set, so the node
 * must route the failure per item itself.
 */
describe('A setting read before the items run fails every item', () => {
	const twoItems = [{ json: { parallel: 50, n: 1 } }, { json: { parallel: 50, n: 2 } }];
	const getWithParallelFromExpression = {
		resource: 'run',
		operation: 'get',
		agent: { __rl: true, mode: 'id', value: String(INVOICES) },
		run: runById(1),
		options: { itemsInParallel: '={{ $json.parallel }}' },
	};
	const OUT_OF_RANGE = 'Items in Parallel "50" is not a whole number from 1 to 20';

	it('Items in Parallel 50 from an expression, error output: both items on the error output with the message, none on the success output', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: getWithParallelFromExpression,
			inputItems: twoItems,
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		expect(result.error).toBeUndefined();
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of failed)
			expect(item.json.error).toMatchObject({
				message: OUT_OF_RANGE,
				description: expect.stringContaining('Options → Items in Parallel'),
			});
		expect(ctx.emulator.requestsSince(seq)).toHaveLength(0);
	});

	it('Items in Parallel 50 from an expression, Continue (regular output): each item becomes an error item', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: getWithParallelFromExpression,
			inputItems: twoItems,
			continueOnFail: true,
		});
		expect(result.items.map((item) => [item.json.error, item.pairedItem])).toEqual([
			[OUT_OF_RANGE, { item: 0 }],
			[OUT_OF_RANGE, { item: 1 }],
		]);
		expect(result.error).toBeUndefined();
	});

	it('Items in Parallel 50 from an expression, neither option: the node fails with the message', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: getWithParallelFromExpression,
			inputItems: twoItems,
		});
		expect(result.error?.message).toBe(OUT_OF_RANGE);
	});

	it('an operation that names none (a workflow from a newer version of the node), error output: both items on the error output', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: { ...getWithParallelFromExpression, operation: 'getEverything' },
			inputItems: twoItems,
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success).toEqual([]);
		expect(result.error).toBeUndefined();
		expect(failed.map((item) => [item.json.error, item.pairedItem])).toEqual([
			[{ message: 'The operation "getEverything" of "run" is not supported' }, { item: 0 }],
			[{ message: 'The operation "getEverything" of "run" is not supported' }, { item: 1 }],
		]);
	});
});
