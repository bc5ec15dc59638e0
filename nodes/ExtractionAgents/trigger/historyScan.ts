import type { IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { isRunFinished, type Run } from '../helpers/runs';
import { createdOf, detectOrder } from '../helpers/runList';
import type { PollBudget } from './pollBudget';
import { LOOKBACK_MS, type AgentPollState } from './pollState';
import { fetchRunPage, type ListShape } from './runsListedSince';

/**
 * The first look at an Agent: every page of its Runs (the largest the API allows), to find
 * the newest `created` and the Runs still running; Runs created before `floor` only, when
 * set. Reads at least one page, then stops when the budget is spent: the state says which
 * page is next, so a history of any size is read across polls instead of never.
 */
export async function continueHistoryScan(
	context: IPollFunctions,
	agentId: number,
	scanning: AgentPollState,
	budget: PollBudget,
): Promise<AgentPollState> {
	const { floor } = scanning;
	let watermark = scanning.watermark;
	let stamps = new Map<number, number>(scanning.scanSeen ?? []);
	const pending = new Map<number, number>(scanning.pending);
	let firstPage: Run[] | undefined;
	for (let pageNumber = scanning.scanPage ?? 0; ; ) {
		const { runs, totalPages } = await fetchRunPage(context, agentId, pageNumber, MAX_PAGE_SIZE);
		if (pageNumber === 0) firstPage = runs;
		for (const run of runs) {
			const created = createdOf(run);
			if (floor !== undefined && created >= floor) continue; // new, not history: discovered by the poll
			watermark = Math.max(watermark, created);
			stamps.set(Number(run.run_id), created);
			if (!isRunFinished(run)) pending.set(Number(run.run_id), created);
		}
		stamps = new Map([...stamps].filter(([, created]) => created >= watermark - LOOKBACK_MS));
		pageNumber++;
		const base = {
			watermark,
			pending: [...pending.entries()],
			...(floor !== undefined ? { floor } : {}),
		};
		if (runs.length === 0 || pageNumber >= totalPages)
			return {
				...base,
				seen: [...stamps.keys()],
				...shapeOfScan(firstPage, runs, (pageNumber - 1) * MAX_PAGE_SIZE + runs.length),
			};
		if (budget.isSpent())
			return { ...base, seen: [], scanPage: pageNumber, scanSeen: [...stamps.entries()] };
	}
}

/**
 * What a first look learnt about the list for the next read: its order, told from page 0
 * (when the look read it) or the last page, its length, and the Run it lists first.
 */
function shapeOfScan(firstPage: Run[] | undefined, lastPage: Run[], count: number): ListShape {
	const order = detectOrder(firstPage && firstPage.length > 1 ? firstPage : lastPage);
	if (order === 'unknown') return {};
	if (order === 'newest-first') return { listOrder: order };
	if (!firstPage || firstPage.length === 0) return {};
	return { listOrder: order, listCount: count, listOldest: Number(firstPage[0].run_id) };
}
