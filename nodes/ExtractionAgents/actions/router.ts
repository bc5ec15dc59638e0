import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { CreatedRuns } from './createdRuns';
import { asNodeError, ItemPool } from './itemPool';
import { itemsInParallelFor, operationFor } from './operations';
import { FailedOutput, type ExecutionCache, type ItemContext, type Operation } from './types';

/**
 * The json of a failed item: the message, what to do, and the Run's fields where the item
 * had created a Run. With the regular output (Continue) these are flat fields, as in 0.1.0.
 * n8n moves an item to the error output only when its json holds `error` alone or `error`
 * and `message` (n8n 1.x; 2.x also accepts `details`), and `item.error` makes both replace
 * the json with the message alone: so on the error output `error` is an object holding
 * them all, e.g. `{{ $json.error.message }}` and `{{ $json.error.run_url }}`.
 */
function errorItemJson(
	error: NodeApiError | NodeOperationError,
	toErrorOutput: boolean,
): IDataObject {
	const fields: IDataObject = {
		...(error.description ? { description: error.description } : {}),
		...((error.context.errorItemFields as IDataObject | undefined) ?? {}),
	};
	return toErrorOutput
		? { error: { message: error.message, ...fields } }
		: { error: error.message, ...fields };
}

/** One item's context: while its Run is waited for, the item gives up its place in the pool. */
function itemContextOf(
	itemIndex: number,
	item: INodeExecutionData,
	cache: ExecutionCache,
	pool: ItemPool,
	createdRuns: CreatedRuns,
): ItemContext {
	return {
		itemIndex,
		item,
		cache,
		throwIfStopped: () => pool.throwIfStopped(),
		runCreated: (run, perFile) => createdRuns.record(itemIndex, run, perFile),
		waitForRun: async (run, timeoutMs) => {
			pool.releasePlace(itemIndex);
			return await createdRuns.waitFor(itemIndex, run, timeoutMs);
		},
	};
}

/**
 * Runs the chosen operation for every input item — several at once where the operation
 * allows it (see itemPool.ts), every created Run waited for together (createdRuns.ts) —
 * and returns the results in input order. Every output item is paired with the input
 * item it came from; with "Continue On Fail" a failing item becomes an error item and
 * the others go on; without it the node fails on the lowest-index failing item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
	let handler: Operation;
	let parallel: number;
	try {
		// Read once for all items: a wrong value fails every item. Thrown from here, n8n would
		// pass the input through unchanged on the success output under On Error.
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		handler = operationFor(this, resource, operation);
		parallel = itemsInParallelFor(this, resource, operation);
	} catch (error) {
		const failure = asNodeError(this.getNode(), error);
		if (!continueOnFail) throw failure;
		return [
			items.map((_, itemIndex) => ({
				json: errorItemJson(failure, toErrorOutput),
				pairedItem: { item: itemIndex },
			})),
		];
	}
	const cache: ExecutionCache = new Map();
	const pool = new ItemPool(this.getNode(), parallel, !continueOnFail);
	const createdRuns = new CreatedRuns(this, pool.stopSignal);

	const outcomes = await pool.runItems(
		items.length,
		async (itemIndex) =>
			await handler.execute.call(
				this,
				itemContextOf(itemIndex, items[itemIndex], cache, pool, createdRuns),
			),
	);
	handler.afterItems?.call(this, { outcomes, createdRuns });
	if (!continueOnFail) {
		const failure = createdRuns.failureToThrow(outcomes);
		if (failure) throw failure;
	}

	const returnData: INodeExecutionData[] = [];
	outcomes.forEach((outcome, itemIndex) => {
		if (outcome.kind === 'done') {
			// Operations return fresh items: pair them in place (a copy per item costs ~0.1 s per 100,000).
			for (const result of outcome.items) {
				if (result instanceof FailedOutput) {
					returnData.push({
						json: errorItemJson(result.error, toErrorOutput),
						pairedItem: { item: itemIndex },
					});
					continue;
				}
				result.pairedItem = { item: itemIndex };
				returnData.push(result);
			}
		} else if (outcome.kind === 'failed') {
			returnData.push({
				json: errorItemJson(outcome.error, toErrorOutput),
				pairedItem: { item: itemIndex },
			});
		}
	});
	return [returnData];
}
