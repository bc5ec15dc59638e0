/**
 * Deterministic pseudo-randomness. Every choice the emulator makes "at random" (results, faults,
 * random list order, seeded history) comes from here, keyed by the seed and stable identifiers, so
 * that a given seed always produces the same answers regardless of request order.
 */

/** mulberry32: tiny, fast 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** FNV-1a over a string, finished with a murmur-style mix: a 32-bit hash. */
export function hashString(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	h ^= h >>> 16;
	return h >>> 0;
}

/** A PRNG keyed by the given parts, e.g. rngFor(seed, 'result', runId, promptId). */
export function rngFor(...parts: Array<string | number>): () => number {
	return mulberry32(hashString(parts.join('\u0001')));
}

/** A single deterministic float in [0, 1) for the given parts. */
export function chance(...parts: Array<string | number>): number {
	return rngFor(...parts)();
}

export function pick<T>(rng: () => number, items: readonly T[]): T {
	return items[Math.floor(rng() * items.length)];
}

/** Integer in [min, max] (inclusive). */
export function intBetween(rng: () => number, min: number, max: number): number {
	return min + Math.floor(rng() * (max - min + 1));
}

export function round2(value: number): number {
	return Math.round(value * 100) / 100;
}
