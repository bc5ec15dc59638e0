import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import * as accessLog from './accessLog';
import * as agent from './agent';
import * as apiKey from './apiKey';
import * as run from './run';
import * as usage from './usage';
import type { ExecutionCache, Operation } from './types';

const resources: Record<string, Record<string, Operation | unknown>> = { accessLog, agent, apiKey, run, usage };

function operationFor(context: IExecuteFunctions, resource: string, operation: string): Operation {
	const candidate = resources[resource]?.[operation] as Operation | undefined;
	if (!candidate || typeof candidate.execute !== 'function') {
		throw new NodeOperationError(context.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	return candidate;
}

/**
 * Runs the chosen operation once per input item. Every output item is paired with
 * the input item it came from; with "Continue On Fail" a failing item becomes an
 * error item and the others go on.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operationFor(this, resource, operation);
	const cache: ExecutionCache = new Map();
	const returnData: INodeExecutionData[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await handler.execute.call(this, itemIndex, items[itemIndex], cache);
			// Operations return fresh items: pair them in place (a copy per item costs ~0.1 s per 100,000).
			for (const result of results) {
				result.pairedItem = { item: itemIndex };
				returnData.push(result);
			}
		} catch (error) {
			const nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			if (this.continueOnFail()) {
				returnData.push({
					json: { error: nodeError.message, ...(nodeError.description ? { description: nodeError.description } : {}) },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
			throw nodeError;
		}
	}
	return [returnData];
}
