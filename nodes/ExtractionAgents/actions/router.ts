import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { ItemBatch, itemsInParallel } from './itemBatch';
import * as accessLog from './accessLog';
import * as agent from './agent';
import * as apiKey from './apiKey';
import * as run from './run';
import * as usage from './usage';
import type { ExecutionCache, Operation } from './types';

/** Every resource's operations, by the values users save in workflows. */
export const resources = {
	accessLog: accessLog.operations,
	agent: agent.operations,
	apiKey: apiKey.operations,
	run: run.operations,
	usage: usage.operations,
} satisfies Record<string, Record<string, Operation>>;

/** Resource → its operations' names, as the compiler knows them (cf. Airtable's node.type.ts). */
export type ExtractionAgentsNodeType = {
	[Resource in keyof typeof resources]: keyof (typeof resources)[Resource];
};

function operationFor(context: IExecuteFunctions, resource: string, operation: string): Operation {
	const operations: Record<string, Operation> | undefined =
		resources[resource as keyof typeof resources];
	// Own properties only: "toString" is not an operation.
	if (!operations || !Object.prototype.hasOwnProperty.call(operations, operation)) {
		throw new NodeOperationError(
			context.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	return operations[operation];
}

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

/**
 * Runs the chosen operation for every input item — several at once where the operation
 * allows it (see itemBatch.ts) — and returns the results in input order. Every output
 * item is paired with the input item it came from; with "Continue On Fail" a failing
 * item becomes an error item and the others go on; without it the node fails on the
 * lowest-index failing item.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operationFor(this, resource, operation);
	const cache: ExecutionCache = new Map();
	const continueOnFail = this.continueOnFail();
	const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const parallel = handler.itemsInParallel ? itemsInParallel(this) : 1;
	const batch = new ItemBatch(this, parallel, !continueOnFail);

	const outcomes = await batch.runItems(
		items.length,
		async (itemIndex) =>
			await handler.execute.call(this, itemIndex, items[itemIndex], cache, batch),
	);
	if (!continueOnFail) {
		const failure = batch.failureToThrow(outcomes);
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
