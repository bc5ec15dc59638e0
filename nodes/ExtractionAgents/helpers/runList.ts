import type { IDataObject } from 'n8n-workflow';
import { unexpectedAnswer } from '../transport/answers';
import { serviceRequest } from '../transport/serviceRequest';
import type { ServiceContext } from '../transport/types';
import { flattenRunList, type Run } from './runs';
import { serviceTimestampMillis } from './timestamps';
import { requestTimeoutMs } from './requestTimeoutOption';

/**
 * Reading an Agent's Run list, for the trigger, the Run picker and Run → Get Many alike: one
 * page, the list's order told from a page, and the guard against a service that ignores
 * `page_number` (every page would be the first: read backwards, an oldest-first list would
 * look as if it had no new Runs, and "newest" would be the oldest).
 */

export const createdOf = (run: Run) => serviceTimestampMillis(run.created) ?? 0;

/** When a finished Run finished: its `completed` time, or its `created` when that is null. */
export const finishedAtOf = (run: Run) => serviceTimestampMillis(run.completed) ?? createdOf(run);

export function compareRuns(a: Run, b: Run): number {
	return createdOf(a) - createdOf(b) || Number(a.run_id) - Number(b.run_id);
}

/** The list order is not promised (docs/design/service-notes.md #13): tell it from the page itself. */
export function detectOrder(runs: Run[]): 'newest-first' | 'oldest-first' | 'unknown' {
	let ascending = true;
	let descending = true;
	for (let index = 1; index < runs.length; index++) {
		const step = compareRuns(runs[index - 1], runs[index]);
		if (step > 0) ascending = false;
		if (step < 0) descending = false;
	}
	if (runs.length < 2 || ascending === descending) return 'unknown';
	return ascending ? 'oldest-first' : 'newest-first';
}

export interface RunListRequest {
	agentId: number;
	qs?: IDataObject;
	itemIndex?: number;
}

export interface RunPage {
	runs: Run[];
	/** NaN when the answer did not say (and `totalRequired` was off). */
	totalPages: number;
}

const what = (agentId: number) => `the Runs of Agent ${agentId}`;

/**
 * One page of the Agent's Runs. `totalRequired`: without `total_pages` the caller cannot
 * tell whether Runs are on further pages (the trigger would rather fail than miss one).
 */
export async function fetchRunPage(
	context: ServiceContext,
	request: RunListRequest,
	pageNumber: number,
	pageSize: number,
	options: { totalRequired?: boolean } = {},
): Promise<RunPage> {
	const { agentId, itemIndex } = request;
	const { body } = await serviceRequest<IDataObject>(context, {
		method: 'GET',
		path: `/agents/${agentId}/runs`,
		qs: { ...request.qs, page_number: pageNumber, page_size: pageSize },
		subject: { agentId },
		itemIndex,
		timeoutMs: requestTimeoutMs(context, itemIndex),
	});
	const runs = flattenRunList(body);
	if (!runs) {
		throw unexpectedAnswer(context, what(agentId), 'The response had no "runs" list.', {
			itemIndex,
		});
	}
	if (Array.isArray(body)) return { runs, totalPages: options.totalRequired ? 1 : NaN };
	const rawTotal = (body as IDataObject).total_pages;
	const totalPages = rawTotal === undefined || rawTotal === null ? NaN : Number(rawTotal);
	if (options.totalRequired && !Number.isFinite(totalPages)) {
		throw unexpectedAnswer(
			context,
			what(agentId),
			'The answer did not say how many pages of Runs there are.',
			{ itemIndex },
		);
	}
	return { runs, totalPages };
}

const idsOf = (runs: Run[]) => runs.map((run) => Number(run.run_id)).join(',');

/**
 * Fails when a page after the first holds exactly the first page's Runs: the service ignores
 * `page_number`, so no page but the first can be read, and going on would be silently wrong.
 */
export function refuseRepeatedFirstPage(
	context: ServiceContext,
	request: RunListRequest,
	pageNumber: number,
	page: Run[],
	firstPage: Run[],
): void {
	if (pageNumber === 0 || page.length === 0 || idsOf(page) !== idsOf(firstPage)) return;
	throw unexpectedAnswer(
		context,
		what(request.agentId),
		`Page ${pageNumber + 1} of the list held the same Runs as page 1: the service ignores the page number, so only the first ${firstPage.length} Runs can be read, and the newest may not be among them.`,
		{
			itemIndex: request.itemIndex,
			afterCreate:
				'Report this to the service; until then, read the Runs one by one with Run → Get.',
		},
	);
}
