import { listAllPages, MAX_PAGE_SIZE } from '../transport/pagination';
import type { ServiceContext } from '../transport/types';
import { flattenRunList, type Run } from './runs';
import {
	createdOf,
	detectOrder,
	fetchRunPage,
	refuseRepeatedFirstPage,
	type RunListRequest,
} from './runList';
import { requestTimeoutMs } from './requestTimeoutOption';

export type { RunListRequest };

/** Newest first by `created`, then by ID; each Run once (a list may repeat one across pages). */
export function sortNewestFirst(runs: Run[]): Run[] {
	const unique = new Map<number, Run>();
	for (const run of runs) if (!unique.has(Number(run.run_id))) unique.set(Number(run.run_id), run);
	return [...unique.values()].sort(
		(a, b) => createdOf(b) - createdOf(a) || Number(b.run_id) - Number(a.run_id),
	);
}

const what = (agentId: number) => `the Runs of Agent ${agentId}`;

/**
 * The `count` newest Runs of an Agent, newest first. The list's order is not promised
 * (docs/design/service-notes.md #13), so it is told from the first page the way the trigger tells it: on an
 * oldest-first list the newest Runs are on the last pages, which are read backwards;
 * when the order cannot be told, every page is read.
 */
export async function newestRuns(
	context: ServiceContext,
	request: RunListRequest,
	count: number,
): Promise<Run[]> {
	const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, count));
	const first = await fetchRunPage(context, request, 0, pageSize);
	const knownTotal = Number.isFinite(first.totalPages);
	const onlyPage = knownTotal ? first.totalPages <= 1 : first.runs.length < pageSize;
	if (onlyPage) return sortNewestFirst(first.runs).slice(0, count);

	const order = detectOrder(first.runs);
	if (order === 'newest-first' && first.runs.length >= count)
		return sortNewestFirst(first.runs).slice(0, count);
	if (order === 'oldest-first' && knownTotal) {
		const runs: Run[] = [];
		for (
			let pageNumber = first.totalPages - 1;
			pageNumber > 0 && runs.length < count;
			pageNumber--
		) {
			const page = await fetchRunPage(context, request, pageNumber, pageSize);
			refuseRepeatedFirstPage(context, request, pageNumber, page.runs, first.runs);
			runs.push(...page.runs);
		}
		if (runs.length < count) runs.push(...first.runs);
		return sortNewestFirst(runs).slice(0, count);
	}
	const listing = {
		path: `/agents/${request.agentId}/runs`,
		qs: request.qs,
		subject: { agentId: request.agentId },
		itemIndex: request.itemIndex,
		timeoutMs: requestTimeoutMs(context, request.itemIndex),
		what: what(request.agentId),
		idOf: (run: Run) => run.run_id,
	};
	const runs =
		order === 'newest-first'
			? await listAllPages<Run>(context, listing, flattenRunList, {
					returnAll: false,
					limit: count,
				})
			: await listAllPages<Run>(context, listing, flattenRunList, {
					returnAll: true,
					limit: Infinity,
				});
	return sortNewestFirst(runs).slice(0, count);
}
