import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { parseServiceTimestamp } from './timestamps';

/**
 * A date the user set, as ISO 8601 with offset for the service. A value without an
 * offset is read in the workflow's time zone, as n8n's date fields mean it.
 */
export function userDateToIso(
	context: IExecuteFunctions,
	raw: unknown,
	fieldName: string,
	itemIndex: number,
): string | undefined {
	if (raw === undefined || raw === null || raw === '') return undefined;
	const parsed = parseServiceTimestamp(raw, context.getTimezone());
	if (!parsed) {
		throw new NodeOperationError(context.getNode(), `${fieldName} "${String(raw)}" is not a date`, {
			description:
				'Pick the date in the date field, or write it as year-month-day and time, e.g. 2026-12-31T17:00 (read in the workflow’s time zone) or 2026-12-31T17:00:00Z (UTC).',
			itemIndex,
		});
	}
	return parsed.toUTC().toISO() as string;
}

export function commaList(raw: unknown): string[] {
	if (Array.isArray(raw))
		return raw
			.map(String)
			.map((v) => v.trim())
			.filter(Boolean);
	return String(raw ?? '')
		.split(',')
		.map((value) => value.trim())
		.filter((value) => value !== '');
}
