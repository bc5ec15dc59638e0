import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import { CreatedRuns } from './createdRuns';
import { ItemPool } from './itemPool';
import { itemsInParallelFor, operationFor } from './operations';
import type { ExecutionCache, ItemContext } from './types';

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
		runCreated: (run) => createdRuns.record(itemIndex, run),
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
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operationFor(this, resource, operation);
	const cache: ExecutionCache = new Map();
	const continueOnFail = this.continueOnFail();
	const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const parallel = itemsInParallelFor(this, resource, operation);
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
