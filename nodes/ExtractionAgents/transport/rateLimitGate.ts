import { sleepUnlessCancelled } from './cancellation';

/**
 * One per node execution (or trigger poll): when the service answers 429, every request
 * of that execution — the one refused and all the others its items have in flight or
 * about to send — waits out the same Retry-After, instead of each item finding out on
 * its own and the service getting a new wave of requests it will refuse.
 */
export class RateLimitGate {
	private closedUntilMs = 0;

	/** The latest moment any wait of this context may end (see limitWaitsOf); none when unset. */
	waitsEndBy: number | undefined;

	/** Keeps every request from being sent before `untilMs` (epoch ms). */
	closeUntil(untilMs: number): void {
		this.closedUntilMs = Math.max(this.closedUntilMs, untilMs);
	}

	/** When the gate opens again (epoch ms); in the past when it is open. */
	get opensAt(): number {
		return this.closedUntilMs;
	}

	/**
	 * Waits until the gate is open. Resolves 'cancelled' when the signal fires, and
	 * 'deadline' at once, without waiting, when the gate opens only after `deadlineMs`.
	 */
	async waitUntilOpen(
		signal?: AbortSignal,
		deadlineMs?: number,
	): Promise<'open' | 'cancelled' | 'deadline'> {
		// Another 429 may close the gate again while this request waits: loop until open.
		for (;;) {
			const waitMs = this.closedUntilMs - Date.now();
			if (waitMs <= 0) return 'open';
			if (deadlineMs !== undefined && this.closedUntilMs > deadlineMs) return 'deadline';
			if (!(await sleepUnlessCancelled(waitMs, signal))) return 'cancelled';
		}
	}
}

const gates = new WeakMap<object, RateLimitGate>();

/**
 * No wait for a 429 of this context goes past `deadlineMs` (the trigger's poll budget: n8n
 * abandons a poll that outlives it, committing nothing). A request that would have to wait
 * longer fails at once with the rate limit, and the trigger commits what it has done.
 */
export function limitWaitsOf(context: object, deadlineMs: number): void {
	rateLimitGateOf(context).waitsEndBy = deadlineMs;
}

/** The gate shared by every request made through one n8n context (one node execution). */
export function rateLimitGateOf(context: object): RateLimitGate {
	let gate = gates.get(context);
	if (!gate) {
		gate = new RateLimitGate();
		gates.set(context, gate);
	}
	return gate;
}
