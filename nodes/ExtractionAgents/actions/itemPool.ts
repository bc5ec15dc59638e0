import type { INode } from 'n8n-workflow';
import type { OperationOutput } from './types';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What happened to one item. */
export type ItemOutcome =
	| { kind: 'done'; items: OperationOutput[] }
	| { kind: 'failed'; error: NodeApiError | NodeOperationError }
	/** Not started, or its wait given up, because another item failed first. */
	| { kind: 'stopped' };

/** Thrown into an item that is stopped because another item failed first. */
export class ItemStopped extends Error {}

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
 * Runs the items of one execution side by side, at most `parallel` at once. Without
 * Continue On Fail (`stopOnFailure`), the first failure stops the pool: no new item
 * starts, and `stopSignal` tells the items at work (requests already sent are let
 * finish, so nothing is created without the node knowing it).
 */
export class ItemPool {
	private readonly slots: Slots;

	private readonly stopController = new AbortController();

	private readonly releases = new Map<number, () => void>();

	constructor(
		private readonly node: INode,
		parallel: number,
		private readonly stopOnFailure: boolean,
	) {
		this.slots = new Slots(Math.max(1, parallel));
	}

	/** Fires when an item failed and the others are to stop. */
	get stopSignal(): AbortSignal {
		return this.stopController.signal;
	}

	/** Throws into the item when the pool has stopped: it then counts as not sent. */
	throwIfStopped(): void {
		if (this.stopController.signal.aborted) throw new ItemStopped('Stopped before sending');
	}

	/** The item gives up its place (while it only waits), so the next item can start. */
	releasePlace(itemIndex: number): void {
		this.releases.get(itemIndex)?.();
	}

	/** Runs `work` for every item index and returns each item's outcome, in input order. */
	async runItems(
		count: number,
		work: (itemIndex: number) => Promise<OperationOutput[]>,
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
				if (error instanceof ItemStopped) {
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
		const nodeError = asNodeError(this.node, error, itemIndex);
		if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
		return nodeError;
	}
}

/** The error as the node's own kind (an expression's error, say, becomes a NodeOperationError). */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(node, error as Error, itemIndex === undefined ? {} : { itemIndex });
}
