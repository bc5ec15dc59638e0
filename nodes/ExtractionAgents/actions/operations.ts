import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	DEFAULT_ITEMS_IN_PARALLEL,
	MAX_ITEMS_IN_PARALLEL,
	OPERATIONS_WITH_ITEMS_IN_PARALLEL,
	defaultItemsInParallel,
} from '../descriptions/options';
import * as accessLog from './accessLog';
import * as agent from './agent';
import * as apiKey from './apiKey';
import * as run from './run';
import * as usage from './usage';
import type { Operation } from './types';

/**
 * Every resource's operations, by the values users save in workflows: the compiler
 * knows each one (cf. Airtable's node.type.ts), from the modules themselves.
 */
export const operationsByResource = {
	accessLog: accessLog.operations,
	agent: agent.operations,
	apiKey: apiKey.operations,
	run: run.operations,
	usage: usage.operations,
} satisfies Record<string, Record<string, Operation>>;

export function operationFor(
	context: IExecuteFunctions,
	resource: string,
	operation: string,
): Operation {
	const operations: Record<string, Operation> | undefined =
		operationsByResource[resource as keyof typeof operationsByResource];
	// Own properties only: "toString" is not an operation.
	if (!operations || !Object.prototype.hasOwnProperty.call(operations, operation)) {
		throw new NodeOperationError(
			context.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	return operations[operation];
}

const ITEMS_IN_PARALLEL_PARAMETER = 'options.itemsInParallel';

/**
 * How many items of the operation work at once: Options → Items in Parallel for the
 * operations that allow it (descriptions/options.ts), one otherwise. The option is a
 * whole number from 1 to 20 (by default one on version 1, ten from 1.1), read once for
 * the execution (it shapes how all items are run, so it is not per item).
 */
export function itemsInParallelFor(
	context: IExecuteFunctions,
	resource: string,
	operation: string,
): number {
	const listed = Object.prototype.hasOwnProperty.call(OPERATIONS_WITH_ITEMS_IN_PARALLEL, resource);
	if (!listed || !OPERATIONS_WITH_ITEMS_IN_PARALLEL[resource].includes(operation)) return 1;
	const fallback = defaultItemsInParallel(context.getNode());
	const raw = context.getNodeParameter(ITEMS_IN_PARALLEL_PARAMETER, 0, fallback);
	const count = raw === undefined || raw === null || raw === '' ? fallback : Number(raw);
	if (!Number.isInteger(count) || count < 1 || count > MAX_ITEMS_IN_PARALLEL) {
		throw new NodeOperationError(
			context.getNode(),
			`Items in Parallel "${String(raw).slice(0, 40)}" is not a whole number from 1 to ${MAX_ITEMS_IN_PARALLEL}`,
			{
				description: `Set Options → Items in Parallel to how many items to send at once, e.g. ${DEFAULT_ITEMS_IN_PARALLEL}.`,
			},
		);
	}
	return count;
}
