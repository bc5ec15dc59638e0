import { sleep } from 'n8n-workflow';

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
