import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/**
 * The budget when n8n gives none (before 2.41, `getPollBudgetMs` does not exist): about a
 * once-a-minute poll interval, so a long catch-up spreads over polls instead of overlapping
 * the next one (which then skips its turn).
 */
const SELF_IMPOSED_POLL_BUDGET_MS = 60_000;
/**
 * Share of the budget spent starting new requests. The rest covers the requests already
 * under way (each may wait for a 429's Retry-After) and the return to n8n.
 */
const BUDGET_SHARE_FOR_NEW_WORK = 0.6;
/** Share of the budget by which every wait (a 429's Retry-After) must have ended. */
const BUDGET_SHARE_FOR_WAITS = 0.9;

export interface PollBudget {
	/** Whether to stop starting new requests and commit what is done. */
	isSpent(): boolean;
	/** No wait may end later than this (epoch ms): past it, n8n may abandon the poll. */
	waitDeadlineMs: number;
}

/**
 * n8n 2.41 abandons a poll that outlives its budget (`getPollBudgetMs()` on the poll
 * context), and an abandoned poll commits nothing, so the next one would repeat the same
 * work. The trigger stops in time instead, emits what it finished and commits its progress.
 */
export function pollBudget(context: IPollFunctions, startedAt = Date.now()): PollBudget {
	const withBudget = context as Partial<Pick<IPollFunctions, 'getPollBudgetMs'>>;
	const given =
		typeof withBudget.getPollBudgetMs === 'function' ? withBudget.getPollBudgetMs() : undefined;
	const budgetMs = typeof given === 'number' && given > 0 ? given : SELF_IMPOSED_POLL_BUDGET_MS;
	const stopAt = startedAt + budgetMs * BUDGET_SHARE_FOR_NEW_WORK;
	return {
		isSpent: () => Date.now() >= stopAt,
		waitDeadlineMs: startedAt + budgetMs * BUDGET_SHARE_FOR_WAITS,
	};
}

/**
 * Whether a request failed because the budget ran out under it: no answer (a timeout, cut to
 * the time left in the budget by the transport) once the budget is spent. A read that goes
 * on across polls then stops there, as if it had not started the request, instead of failing
 * the poll: otherwise a page that takes longer than what is left would fail every poll.
 */
export function ranOutOfBudget(error: unknown, budget: PollBudget): boolean {
	return error instanceof NodeApiError && !error.httpCode && budget.isSpent();
}

/**
 * The budget for a step that must make progress whatever is left: the first time it is asked,
 * it is not spent (the step's first request starts), then as `budget`.
 */
export function firstRequestFree(budget: PollBudget): PollBudget {
	let asked = false;
	return {
		waitDeadlineMs: budget.waitDeadlineMs,
		isSpent: () => {
			const first = !asked;
			asked = true;
			return !first && budget.isSpent();
		},
	};
}
