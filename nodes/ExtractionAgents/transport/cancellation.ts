import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/** The execution's cancel signal; pollers and the editor's pickers have none. */
export function cancelSignalOf(context: object): AbortSignal | undefined {
	const withSignal = context as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

export function executionCancelledError(node: INode, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(node, 'The execution was cancelled', { itemIndex });
}

/**
 * Waits `ms`, in short slices so that a cancelled execution stops within half a
 * second even on n8n versions whose `sleep` takes no AbortSignal.
 * Resolves false when the signal fired.
 */
export async function sleepUnlessCancelled(ms: number, signal?: AbortSignal): Promise<boolean> {
	let remaining = ms;
	while (remaining > 0) {
		if (signal?.aborted) return false;
		const slice = Math.min(remaining, 500);
		try {
			await sleep(slice, signal);
		} catch {
			return false;
		}
		remaining -= slice;
	}
	return !signal?.aborted;
}
