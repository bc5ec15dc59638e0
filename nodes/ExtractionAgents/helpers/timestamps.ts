import { DateTime } from 'luxon';

/**
 * The service's timestamps come with `Z`, with `+00:00` or with no offset at all
 * (docs/design/service-notes.md #3: no offset means UTC). Every timestamp the
 * nodes read or write goes through here so that the rule lives in one place.
 *
 * `zone` is the zone a value without offset is read in: UTC for the service's values,
 * the workflow's time zone for what a user typed into a date field.
 */
export function parseServiceTimestamp(value: unknown, zone = 'utc'): DateTime | null {
	if (value === null || value === undefined || value === '') return null;
	if (DateTime.isDateTime(value)) return value.isValid ? value : null;
	if (value instanceof Date) {
		const parsed = DateTime.fromJSDate(value, { zone: 'utc' });
		return parsed.isValid ? parsed : null;
	}
	if (typeof value !== 'string') return null;
	const parsed = DateTime.fromISO(value.trim(), { zone, setZone: true });
	return parsed.isValid ? parsed : null;
}

/** ISO 8601 with an explicit offset (`2026-03-01T10:00:00.123+00:00`), or null when absent or unreadable. */
export function normalizeServiceTimestamp(value: unknown): string | null {
	const parsed = parseServiceTimestamp(value);
	if (!parsed) return null;
	return parsed.toUTC().toISO({ suppressMilliseconds: true, includeOffset: true });
}

/** Milliseconds since the epoch, for comparing timestamps of different shapes. */
export function serviceTimestampMillis(value: unknown): number | null {
	const parsed = parseServiceTimestamp(value);
	return parsed ? parsed.toMillis() : null;
}
