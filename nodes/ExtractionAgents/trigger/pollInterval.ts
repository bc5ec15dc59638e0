import type { IDataObject, IPollFunctions } from 'n8n-workflow';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A custom cron expression is not parsed: an hour stands for it. */
const CUSTOM_INTERVAL_MS = HOUR;

/**
 * The longest time between two polls the trigger's Poll Times allow, as far as the node can
 * tell (the shortest of the configured intervals; a custom cron expression counts as an
 * hour): how far back the poll before this one may have been.
 */
export function pollIntervalMs(context: IPollFunctions): number {
	let items: IDataObject[] = [];
	try {
		items = context.getNodeParameter('pollTimes.item', []) as IDataObject[];
	} catch {
		// No Poll Times (a context that has none): n8n's default, every minute.
	}
	const intervals = items.map(intervalOf);
	return intervals.length > 0 ? Math.min(...intervals) : MINUTE;
}

function intervalOf(item: IDataObject): number {
	switch (item.mode) {
		case 'everyMinute':
			return MINUTE;
		case 'everyHour':
			return HOUR;
		case 'everyX': {
			const value = Number(item.value);
			const unit = item.unit === 'hours' ? HOUR : MINUTE;
			return Number.isFinite(value) && value > 0 ? value * unit : MINUTE;
		}
		case 'everyDay':
			return DAY;
		case 'everyWeek':
			return 7 * DAY;
		case 'everyMonth':
			return 31 * DAY;
		default:
			return CUSTOM_INTERVAL_MS;
	}
}
