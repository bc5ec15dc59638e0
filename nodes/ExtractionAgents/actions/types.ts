import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';
import type { Run } from '../helpers/runs';
import type { CreatedRuns } from './createdRuns';
import type { ItemOutcome } from './itemPool';

/** Lookups shared by the items of one execution (e.g. an Agent's templates). */
export type ExecutionCache = Map<string, Promise<unknown>>;

/** What an operation gets for the one item it handles (the node's context is `this`). */
export interface ItemContext {
	itemIndex: number;
	item: INodeExecutionData;
	cache: ExecutionCache;
	/**
	 * Called just before a request that creates something: after another item failed
	 * (without Continue On Fail) it throws, so nothing more is created.
	 */
	throwIfStopped(): void;
	/**
	 * Records a Run the item created, to be named if the node stops on another item;
	 * `perFile`: one of the item's Runs, one per file.
	 */
	runCreated(run: Run, perFile?: boolean): void;
	/**
	 * Waits for the Run together with every other item's Run. The item gives up its
	 * place meanwhile, so the next item's upload can start.
	 */
	waitForRun(run: Run, timeoutMs: number): Promise<Run>;
}

/** What the items of one execution did, for an operation to sum up (e.g. in an execution hint). */
export interface ItemsSummary {
	outcomes: ItemOutcome[];
	createdRuns: CreatedRuns;
}

/**
 * One output item that failed on its own while the item's other output items stand (Run →
 * Create, One Run per File, with On Error set to Continue): the router makes it an error item
 * paired with the input item, in its place among the others.
 */
export class FailedOutput {
	constructor(readonly error: NodeApiError | NodeOperationError) {}
}

export type OperationOutput = INodeExecutionData | FailedOutput;

export interface Operation {
	description: INodeProperties[];
	/** Handles one input item; the router adds pairedItem and continueOnFail. */
	execute(this: IExecuteFunctions, item: ItemContext): Promise<OperationOutput[]>;
	/** Called once every item is done, before the node returns or fails. */
	afterItems?(this: IExecuteFunctions, summary: ItemsSummary): void;
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
