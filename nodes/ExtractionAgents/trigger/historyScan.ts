import type { IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { isRunFinished, type Run } from '../helpers/runs';
import { detectOrder, finishedAtOf } from '../helpers/runList';
import { ranOutOfBudget, type PollBudget } from './pollBudget';
import { serviceTimestampMillis } from '../helpers/timestamps';
import {
	CLOCK_MARGIN_MS,
	historyBeforeKept,
	isHistoryMoment,
	isNewRun,
	pendingStampOf,
	LOOKBACK_MS,
	stampOf,
	type AgentPollState,
	watermarkCap,
	type PendingRun,
} from './pollState';
import { fetchRunPage, type ListShape } from './runsListedSince';

/**
 * The first look at an Agent: every page of its Runs (the largest the API allows), to find
 * the newest `created` and the Runs still running; Runs created before `floor` only, when
 * set. Reads at least one page, then stops when the budget is spent: the state says which
 * page is next, so a history of any size is read across polls instead of never.
 *
 * With `historyBefore` (the Agent was watched when its past became history: activation, a
 * re-activation that skips, a change of what is watched), a page read by a later poll may
 * hold Runs that finished after that moment (the look spans polls, or the Agent's list could
 * not be read at first): a Run that finished (`completed`, else `created`) at or after
 * historyBefore less CLOCK_MARGIN_MS is emitted: from its list data when the list shows it
 * finished and Include Full Run is off (as a Run a read first sees finished), else it stays
 * pending, to be read; the pages the poll of that moment read are history as listed. (Kept
 * pending without Include Full Run, hundreds of Runs listed finished within the margin each
 * took a single read, a few a poll on a slow service, and a Run running at that moment waited
 * behind them for hundreds of polls: generated seed 7300681.)
 *
 * Returns the Agent's state, the Runs to emit now (`finished`), and when the look is done,
 * how many Runs its list held at the last page read (`listed`).
 *
 * After a re-activation that skips the meantime (`before`, pollState.ts firstLookAfterSkip),
 * the Runs the state before it knew (`seen`) stay known, and the look counts the Runs that
 * state had not found, for the Run counter (pollAgents.ts).
 */
export async function continueHistoryScan(
	context: IPollFunctions,
	agentId: number,
	scanning: AgentPollState,
	budget: PollBudget,
	now: number,
	includeFullRun: boolean,
): Promise<{ state: AgentPollState; finished: Run[]; listed?: number }> {
	const { floor, historyBefore } = scanning;
	const look: ScanProgress = {
		watermark: scanning.watermark,
		stamps: new Map<number, number>(scanning.scanSeen ?? []),
		pending: new Map<number, number>(scanning.pending),
		before: scanning.before ? { ...scanning.before } : undefined,
		done: new Map<number, number>(scanning.done ?? []),
		finished: [],
		includeFullRun,
	};
	const firstPageNumber = scanning.scanPage ?? 0;
	let firstPage: Run[] | undefined;
	for (let pageNumber = firstPageNumber; ; ) {
		const read = await fetchRunPage(context, agentId, pageNumber, MAX_PAGE_SIZE).catch(
			(error: unknown) => {
				// After the first page, a page the budget ran out under is read next poll.
				if (pageNumber !== firstPageNumber && ranOutOfBudget(error, budget)) return undefined;
				throw error;
			},
		);
		if (!read)
			return { state: goesOnNextPoll(scanning, look, pageNumber), finished: look.finished };
		const { runs, totalPages } = read;
		if (pageNumber === 0) firstPage = runs;
		takePage(look, runs, scanning, now);
		pageNumber++;
		if (runs.length === 0 || pageNumber >= totalPages) {
			const listed = (pageNumber - 1) * MAX_PAGE_SIZE + runs.length;
			const pending = [...look.pending.entries()];
			return {
				state: {
					watermark: look.watermark,
					...(floor !== undefined ? { floor } : {}),
					...(historyBeforeKept(historyBefore, look) ? { historyBefore } : {}),
					...(look.before ? { before: look.before } : {}),
					...pendingLeftOut(pending, look.before, historyBefore),
					seen: [...new Set([...look.stamps.keys(), ...knownNotPending(scanning)])],
					...shapeOfScan(firstPage, runs, listed),
					...netOf(scanning, look),
				},
				finished: look.finished,
				listed,
			};
		}
		if (budget.isSpent())
			return { state: goesOnNextPoll(scanning, look, pageNumber), finished: look.finished };
	}
}

/** What a first look has taken in so far (the pages read, by this poll and the ones before). */
interface ScanProgress {
	watermark: number;
	/** The Runs near the newest `created` so far (`scanSeen`). */
	stamps: Map<number, number>;
	pending: Map<number, number>;
	before: AgentPollState['before'];
	/**
	 * History the reconciliation pass could take for a miss, and the Runs the look emitted
	 * (AgentPollState's `done`): a page read again after its boundary shifted skips them.
	 */
	done: Map<number, number>;
	/** Runs listed finished since the look's moment, emitted from their list data. */
	finished: Run[];
	/** Include Full Run: a Run is emitted with its single read, so it stays pending. */
	includeFullRun: boolean;
}

/** The look's share of the reconciliation pass's state: where it starts, and `done`. */
function netOf(scanning: AgentPollState, look: ScanProgress): Pick<AgentPollState, 'net' | 'done'> {
	return {
		...(scanning.net ? { net: scanning.net } : {}),
		...(look.done.size > 0 ? { done: [...look.done.entries()] } : {}),
	};
}

/**
 * Takes one page of the look in: the newest `created`, the Runs near it, the Runs still
 * running (and those finished after `historyBefore` less the clock margin, read by a poll
 * after that moment's), and what the state before a re-activation that skips had not found.
 */
function takePage(look: ScanProgress, runs: Run[], scanning: AgentPollState, now: number): void {
	const { floor, historyBefore } = scanning;
	const finishedSince = isHistoryMoment(historyBefore, now)
		? undefined
		: (historyBefore ?? now) - CLOCK_MARGIN_MS;
	const { before } = look;
	// Only the poll of the moment the pass starts from takes what it lists for history; a Run a
	// later page lists finished since is the pass's to find if this look takes it for history.
	const historyFrom = scanning.net?.from === now ? scanning.net.from - CLOCK_MARGIN_MS : undefined;
	const beforeState = before && { ...before, seen: scanning.seen };
	const known = new Set(scanning.seen);
	if (before?.unlisted) before.unlisted = stillUnlisted(before.unlisted, runs);
	for (const run of runs) {
		const created = stampOf(run, look.watermark);
		if (floor !== undefined && created >= floor) continue; // new, not history: discovered by the poll
		look.watermark = Math.max(look.watermark, Math.min(created, watermarkCap(now)));
		// Counted once, though a page boundary shifting between polls may list it twice.
		const counted = look.stamps.has(Number(run.run_id));
		look.stamps.set(Number(run.run_id), created);
		if (before && beforeState && !counted && isNewRun(run, beforeState, known)) before.discovered++;
		const finishedAfter =
			finishedSince !== undefined && isRunFinished(run) && finishedAtOf(run) >= finishedSince;
		// A finished Run the trigger already dealt with (`done`: emitted by a poll of another n8n
		// main before the poll that stands in for a failed activation poll) is not emitted again.
		if (finishedAfter && look.done.has(Number(run.run_id))) continue;
		// A Run seen running (pending, here or before a re-activation that skips) keeps its
		// single read: that read is the full one.
		if (finishedAfter && !look.includeFullRun && !seenRunning(look, run)) {
			look.finished.push(run);
			look.done.set(Number(run.run_id), finishedAtOf(run));
		} else if (!isRunFinished(run) || finishedAfter)
			look.pending.set(Number(run.run_id), pendingStampOf(run, now));
		else if (historyFrom !== undefined) {
			// History that finished within the clock margin before the pass's start: the pass
			// would take it for a Run finished after it (reconcile.ts).
			const completed = serviceTimestampMillis(run.completed);
			if (completed !== null && completed >= historyFrom)
				look.done.set(Number(run.run_id), completed);
		}
	}
	const since = look.watermark - LOOKBACK_MS;
	look.stamps = new Map([...look.stamps].filter(([, created]) => created >= since));
}

/** Whether the trigger saw `run` running: pending in the look, or in the state before a skip. */
function seenRunning(look: ScanProgress, run: Run): boolean {
	const runId = Number(run.run_id);
	return look.pending.has(runId) || (look.before?.pending ?? []).includes(runId);
}

/** The state of a look that goes on next poll at `pageNumber`. */
function goesOnNextPoll(
	scanning: AgentPollState,
	look: ScanProgress,
	pageNumber: number,
): AgentPollState {
	const { floor, historyBefore } = scanning;
	return {
		watermark: look.watermark,
		pending: [...look.pending.entries()],
		...(floor !== undefined ? { floor } : {}),
		...(historyBefore !== undefined ? { historyBefore } : {}),
		...(look.before ? { before: look.before } : {}),
		...netOf(scanning, look),
		seen: scanning.seen,
		scanPage: pageNumber,
		scanSeen: [...look.stamps.entries()],
	};
}

/** The Runs of `unlisted` that `runs` (a page) does not list. */
function stillUnlisted(unlisted: PendingRun[], runs: Run[]): PendingRun[] | undefined {
	const listed = new Set(runs.map((run) => Number(run.run_id)));
	const left = unlisted.filter(([runId]) => !listed.has(runId));
	return left.length > 0 ? left : undefined;
}

/**
 * After a re-activation that skips, the Runs pending before it that no page of the look
 * listed (an answer left them out): still pending, to be read, as a Run listed running
 * would be; one that turns out to have finished before the re-activation is history
 * (`pendingAcrossSkip`, runsCompletedSince.ts).
 */
function pendingLeftOut(
	pending: PendingRun[],
	before: AgentPollState['before'],
	historyBefore: number | undefined,
): Pick<AgentPollState, 'pending' | 'pendingAcrossSkip'> {
	const leftOut = before?.unlisted ?? [];
	if (leftOut.length === 0 || historyBefore === undefined) return { pending };
	return {
		pending: [...pending, ...leftOut],
		pendingAcrossSkip: { historyBefore, runs: leftOut.map(([runId]) => runId) },
	};
}

/**
 * The Runs known before the look that the look remembers as found: those the state before a
 * re-activation that skips knew, but its pending Runs (one that finishes is emitted then).
 */
function knownNotPending(scanning: AgentPollState): number[] {
	const pending = new Set(scanning.before?.pending ?? []);
	return scanning.seen.filter((runId) => !pending.has(runId));
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
