import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import {
	DEFAULT_ITEMS_IN_PARALLEL,
	MAX_ITEMS_IN_PARALLEL,
	defaultItemsInParallel,
} from '../descriptions/options';
import { RunWaiter } from '../helpers/runWaiter';
import type { Run } from '../helpers/runs';

/** A Run one item created, named in the error if the node stops on another item. */
interface CreatedRun {
	itemIndex: number;
	run: Run;
}

/** What happened to one item. */
export type ItemOutcome =
	| { kind: 'done'; items: INodeExecutionData[] }
	| { kind: 'failed'; error: NodeApiError | NodeOperationError }
	/** Not started, or its wait given up, because another item failed first. */
	| { kind: 'stopped' };

/** Thrown into an item whose Run was still being waited for when the batch stopped. */
class BatchStopped extends Error {}

/** Limits how many items work at once; waiters are served in the order they asked. */
class Slots {
	private free: number;

	private readonly queue: Array<() => void> = [];

	constructor(size: number) {
		this.free = size;
	}

	async acquire(): Promise<void> {
		if (this.free > 0) {
			this.free--;
			return;
		}
		await new Promise<void>((resolve) => this.queue.push(resolve));
	}

	release(): void {
		const next = this.queue.shift();
		if (next) next();
		else this.free++;
	}
}

/**
 * The items of one execution, run side by side: at most `parallel` items work at once
 * (an upload, a read, a download), while every created Run is waited for together in
 * one loop (RunWaiter) that holds no item's place. Without Continue On Fail, the first
 * failure stops the batch: no new item starts, waits are given up (the Runs go on in
 * the service), and requests already sent are let finish, so no Run is created
 * without the node knowing it.
 */
export class ItemBatch {
	private readonly slots: Slots;

	private readonly stopController = new AbortController();

	private readonly releases = new Map<number, () => void>();

	private readonly waiter: RunWaiter;

	readonly createdRuns: CreatedRun[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		parallel: number,
		private readonly stopOnFailure: boolean,
	) {
		this.slots = new Slots(Math.max(1, parallel));
		this.waiter = new RunWaiter(
			context,
			context.getExecutionCancelSignal?.(),
			this.stopController.signal,
			(run) => new BatchStopped(`Stopped waiting for Run ${run.run_id}`),
		);
	}

	/**
	 * Called by an item just before a request that creates something: after another item
	 * failed (without Continue On Fail) nothing more is created.
	 */
	throwIfStopped(): void {
		if (this.stopController.signal.aborted) throw new BatchStopped('Stopped before sending');
	}

	/** Records a Run an item created, to be named if the node stops on another item. */
	runCreated(itemIndex: number, run: Run): void {
		this.createdRuns.push({ itemIndex, run });
	}

	/**
	 * Waits for the Run together with every other item's Run. The item gives up its
	 * place meanwhile, so the next item's upload can start.
	 */
	async waitForRun(itemIndex: number, run: Run, options: { timeoutMs: number }): Promise<Run> {
		this.releases.get(itemIndex)?.();
		return await this.waiter.waitFor(run, { timeoutMs: options.timeoutMs, itemIndex });
	}

	/** Runs `work` for every item index and returns each item's outcome, in input order. */
	async runItems(
		count: number,
		work: (itemIndex: number) => Promise<INodeExecutionData[]>,
	): Promise<ItemOutcome[]> {
		const outcomes: ItemOutcome[] = new Array(count);
		const one = async (itemIndex: number): Promise<void> => {
			await this.slots.acquire();
			let held = true;
			const release = () => {
				if (!held) return;
				held = false;
				this.slots.release();
			};
			this.releases.set(itemIndex, release);
			try {
				if (this.stopController.signal.aborted) {
					outcomes[itemIndex] = { kind: 'stopped' };
					return;
				}
				outcomes[itemIndex] = { kind: 'done', items: await work(itemIndex) };
			} catch (error) {
				if (error instanceof BatchStopped) {
					outcomes[itemIndex] = { kind: 'stopped' };
					return;
				}
				outcomes[itemIndex] = { kind: 'failed', error: this.asNodeError(error, itemIndex) };
				if (this.stopOnFailure) this.stopController.abort();
			} finally {
				this.releases.delete(itemIndex);
				release();
			}
		};
		await Promise.all(Array.from({ length: count }, (_, itemIndex) => one(itemIndex)));
		return outcomes;
	}

	private asNodeError(error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
		const nodeError =
			error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.context.getNode(), error as Error, { itemIndex });
		if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
		return nodeError;
	}

	/**
	 * The error the node fails with: the failure of the lowest-index failing item, told
	 * what the other items already did, so that no Run is left unknown to the user.
	 */
	failureToThrow(outcomes: ItemOutcome[]): NodeApiError | NodeOperationError | undefined {
		const firstFailed = outcomes.findIndex((outcome) => outcome?.kind === 'failed');
		if (firstFailed < 0) return undefined;
		const error = (outcomes[firstFailed] as Extract<ItemOutcome, { kind: 'failed' }>).error;
		const others = this.createdRuns.filter((created) => created.itemIndex !== firstFailed);
		const withRun = new Set(this.createdRuns.map((created) => created.itemIndex));
		const notSent = outcomes.filter(
			(outcome, itemIndex) => outcome?.kind === 'stopped' && !withRun.has(itemIndex),
		).length;
		const notes: string[] = [];
		if (others.length > 0) {
			const lines = others
				.sort((a, b) => a.itemIndex - b.itemIndex)
				.map(
					({ itemIndex, run }) =>
						`item ${itemIndex + 1}: Run ${run.run_id}${run.run_url ? ` (${run.run_url})` : ''}`,
				);
			notes.push(
				`Other items had already created ${others.length} Run(s), which go on in the service: ${lines.join('; ')}. Fetch them with Run → Get or the Extraction Agents Trigger rather than uploading those files again.`,
			);
		}
		if (notSent > 0)
			notes.push(
				`Nothing was sent for ${notSent} other item(s): run them again once this is fixed.`,
			);
		if (notes.length > 0)
			error.description = [error.description, ...notes].filter(Boolean).join(' ');
		return error;
	}
}

const ITEMS_IN_PARALLEL_PARAMETER = 'options.itemsInParallel';

/**
 * Options → Items in Parallel of the action node: a whole number from 1 to 20 (by default
 * one on version 1, ten from 1.1), read once
 * for the execution (it shapes how all items are run, so it is not per item).
 */
export function itemsInParallel(context: IExecuteFunctions): number {
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
