import type { IExecuteFunctions, NodeApiError, NodeOperationError } from 'n8n-workflow';
import { RunWaiter } from '../helpers/runWaiter';
import type { Run } from '../helpers/runs';
import { ItemStopped, type ItemOutcome } from './itemPool';

/** A Run one item created, named in the error if the node stops on another item. */
interface CreatedRun {
	itemIndex: number;
	run: Run;
	/** One of the item's Runs, one per file (Runs → One Run per File). */
	perFile?: boolean;
}

/**
 * The Runs the items of one execution created: every one is waited for together in one
 * loop (RunWaiter) that holds no item's place, and every one is named when the node
 * stops on another item's failure, so that no Run is left unknown to the user.
 */
export class CreatedRuns {
	private readonly created: CreatedRun[] = [];

	/** The Runs waited for that finished, with their items (an item sends one Run per file from 1.5). */
	private readonly finishedRuns: CreatedRun[] = [];

	/** Whether any item waited for its Run. */
	private anyWaited = false;

	private readonly waiter: RunWaiter;

	/** `stopSignal`: the items stop (ItemPool); waits are given up, the Runs go on in the service. */
	constructor(context: IExecuteFunctions, stopSignal: AbortSignal) {
		this.waiter = new RunWaiter(
			context,
			context.getExecutionCancelSignal?.(),
			stopSignal,
			(run) => new ItemStopped(`Stopped waiting for Run ${run.run_id}`),
		);
	}

	record(itemIndex: number, run: Run, perFile = false): void {
		this.created.push({ itemIndex, run, perFile });
	}

	/** Waits for the Run together with every other item's Run. */
	async waitFor(itemIndex: number, run: Run, timeoutMs: number): Promise<Run> {
		this.anyWaited = true;
		const finished = await this.waiter.waitFor(run, { timeoutMs, itemIndex });
		this.finishedRuns.push({ itemIndex, run: finished });
		return finished;
	}

	/** How many Runs the items created. */
	get createdCount(): number {
		return this.created.length;
	}

	get waited(): boolean {
		return this.anyWaited;
	}

	/** The Runs waited for that finished (in whatever status), in item order. */
	get finished(): Run[] {
		return [...this.finishedRuns].sort((a, b) => a.itemIndex - b.itemIndex).map(({ run }) => run);
	}

	/** Whether the item created a Run. */
	hasRun(itemIndex: number): boolean {
		return this.created.some((created) => created.itemIndex === itemIndex);
	}

	/**
	 * The error the node fails with: the failure of the lowest-index failing item, told
	 * what the other items already did.
	 */
	failureToThrow(outcomes: ItemOutcome[]): NodeApiError | NodeOperationError | undefined {
		const firstFailed = outcomes.findIndex((outcome) => outcome?.kind === 'failed');
		if (firstFailed < 0) return undefined;
		const error = (outcomes[firstFailed] as Extract<ItemOutcome, { kind: 'failed' }>).error;
		// With one Run per file, the failing item's other files' Runs too: all but the failed one.
		const failedRunId = (error.context.errorItemFields as { run_id?: unknown } | undefined)?.run_id;
		const others = this.created.filter(
			(created) =>
				created.itemIndex !== firstFailed ||
				(created.perFile === true && created.run.run_id !== failedRunId),
		);
		const ofOtherItems = others.every((created) => created.itemIndex !== firstFailed);
		const withRun = new Set(this.created.map((created) => created.itemIndex));
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
				`Other ${ofOtherItems ? 'items' : 'files and items'} had already created ${others.length} Run(s), which go on in the service: ${lines.join('; ')}. Fetch them with Run → Get or the Extraction Agents Trigger rather than uploading those files again.`,
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
