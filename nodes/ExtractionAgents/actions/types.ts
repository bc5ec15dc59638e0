import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import type { ItemBatch } from './itemBatch';

/** Lookups shared by the items of one execution (e.g. an Agent's templates). */
export type ExecutionCache = Map<string, Promise<unknown>>;

export interface Operation {
	description: INodeProperties[];
	/** Handles one input item; the router adds pairedItem and continueOnFail. */
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		item: INodeExecutionData,
		cache: ExecutionCache,
		batch: ItemBatch,
	): Promise<INodeExecutionData[]>;
	/**
	 * Set by operations whose items are independent and safe to send side by side
	 * (Options → Items in Parallel); the others handle one item after another.
	 */
	itemsInParallel?: boolean;
}

/**
 * The "Operation" parameter of a resource, checked against the resource's operations:
 * an option whose value names no operation, or a default that is none, fails to compile.
 */
export interface OperationSelector<OperationName extends string> extends INodeProperties {
	name: 'operation';
	type: 'options';
	options: Array<{ name: string; value: OperationName; description: string; action: string }>;
	default: OperationName;
}
