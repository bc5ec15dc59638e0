/**
 * Per-user, per-endpoint-family rate limits (spec "Limits": GET /usage 600 a minute a user; the
 * other values are unknown, service note 7). A sliding one-minute window; rejected requests do not count.
 */
import type { EmulatorKnobs, EndpointFamily } from './types';

const WINDOW_MS = 60_000;

export type RateDecision = { ok: true } | { ok: false; limit: number; retryAfterSeconds: number };

export function limitFor(
	knobs: Pick<EmulatorKnobs, 'rateLimitPerMinute'>,
	family: EndpointFamily,
): number | undefined {
	const setting = knobs.rateLimitPerMinute;
	if (setting === null || setting === undefined) return undefined;
	return typeof setting === 'number' ? setting : setting[family];
}

export class RateLimiter {
	private readonly hits = new Map<string, number[]>();

	check(
		userId: string,
		family: EndpointFamily,
		limit: number | undefined,
		now: number,
	): RateDecision {
		if (limit === undefined || !Number.isFinite(limit)) return { ok: true };
		const key = `${userId}\u0000${family}`;
		let times = this.hits.get(key);
		if (!times) this.hits.set(key, (times = []));
		while (times.length && times[0] <= now - WINDOW_MS) times.shift();
		if (times.length >= limit) {
			const oldest = times[0] ?? now; // limit 0: nothing ever passes
			const retryAfterSeconds = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
			return { ok: false, limit, retryAfterSeconds };
		}
		times.push(now);
		return { ok: true };
	}

	reset(): void {
		this.hits.clear();
	}
}
