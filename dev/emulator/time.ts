/**
 * Timestamps. The spec says some timestamps carry a UTC offset or Z and some carry none (service note 3:
 * those without are UTC). The emulator deliberately emits a MIX, so clients must parse all three:
 *
 * | Style  | Example                            | Used for                                                   |
 * |--------|------------------------------------|------------------------------------------------------------|
 * | naive  | 2026-03-01T10:00:00.123456         | Agent, Prompt, template and guidelines created/updated; usage records' created |
 * | offset | 2026-03-01T10:00:00.123456+00:00   | Run created/updated; Prompt result start_time/end_time     |
 * | zulu   | 2026-03-01T10:00:00.123Z           | Run completed; API key created_at/expires_at               |
 *
 * Everything is UTC. Microsecond digits are derived from the millisecond value (stable), so a
 * timestamp at a later millisecond always sorts after one at an earlier millisecond.
 */

/** The extra microseconds (0..999) shown after a millisecond value; stable per millisecond. */
export function microExtra(ms: number): number {
	return ((ms % 1_000_003) * 7919) % 1000;
}

/** Epoch microseconds of a stored millisecond time, matching what the naive/offset styles show. */
export function toMicros(ms: number): number {
	return ms * 1000 + microExtra(ms);
}

function core(ms: number): string {
	return new Date(ms).toISOString().slice(0, 19);
}

function micros6(ms: number): string {
	const millis = ((ms % 1000) + 1000) % 1000;
	return String(millis).padStart(3, '0') + String(microExtra(ms)).padStart(3, '0');
}

/** "2026-03-01T10:00:00.123456" (no offset: UTC, service note 3). */
export function tsNaive(ms: number): string {
	return `${core(ms)}.${micros6(ms)}`;
}

/** "2026-03-01T10:00:00.123456+00:00". */
export function tsOffset(ms: number): string {
	return `${core(ms)}.${micros6(ms)}+00:00`;
}

/** "2026-03-01T10:00:00.123Z". */
export function tsZulu(ms: number): string {
	return new Date(ms).toISOString();
}

/** Usage records carry their own microseconds. */
export function tsNaiveFromMicros(us: number): string {
	const ms = Math.floor(us / 1000);
	const frac = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
	return `${core(ms)}.${frac}`;
}

const ISO_RE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Parses an ISO 8601 date or date-time into epoch microseconds, or null when invalid.
 * No offset means UTC (service note 3). A date alone means midnight UTC (as pydantic accepts dates).
 */
export function parseIsoMicros(text: string): number | null {
	const m = ISO_RE.exec(text.trim());
	if (!m) return null;
	const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', off] = m;
	const year = Number(y);
	const month = Number(mo);
	const day = Number(d);
	const hour = Number(h);
	const minute = Number(mi);
	const second = Number(s);
	if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
		return null;
	const baseMs = Date.UTC(year, month - 1, day, hour, minute, second);
	const check = new Date(baseMs);
	if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null; // e.g. Feb 30
	let offsetMin = 0;
	if (off && off.toUpperCase() !== 'Z') {
		const sign = off.startsWith('-') ? -1 : 1;
		const digits = off.slice(1).replace(':', '');
		const oh = Number(digits.slice(0, 2));
		const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
		if (oh > 23 || om > 59) return null;
		offsetMin = sign * (oh * 60 + om);
	}
	const fracUs = frac ? Number(frac.padEnd(6, '0').slice(0, 6)) : 0;
	return (baseMs - offsetMin * 60_000) * 1000 + fracUs;
}

/** Parses into epoch milliseconds (microseconds truncated), or null. */
export function parseIsoMs(text: string): number | null {
	const us = parseIsoMicros(text);
	return us === null ? null : Math.floor(us / 1000);
}

/** Start of March 2026 (UTC): Runs created before it have completed null (service note 19). */
export const MARCH_2026_MS = Date.UTC(2026, 2, 1);
