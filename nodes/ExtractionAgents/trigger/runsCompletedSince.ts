import type { IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { isRunFinished, type Run } from '../helpers/runs';
import { compareRuns, finishedAtOf } from '../helpers/runList';
import { firstRequestFree, type PollBudget } from './pollBudget';
import {
	CLOCK_MARGIN_MS,
	historyBeforeKept,
	isNewRun,
	pendingStampOf,
	LOOKBACK_MS,
	readsBackTo,
	seenNear,
	stampOf,
	watermarkAfter,
	type AgentPollState,
	type PendingRun,
} from './pollState';
import { readPendingRuns } from './pendingRuns';
import { readRun, withReadError } from './runReads';
import {
	continueListRead,
	POLL_PAGE_SIZE,
	runsListedSince,
	type ListResume,
	type ListShape,
} from './runsListedSince';

export interface AgentPollOptions {
	/** Read each Run found finished in the list once more, for the details only the single read has. */
	includeFullRun: boolean;
	budget: PollBudget;
	/** Identifies this trigger node in this n8n process (workflow and node id). */
	triggerKey: string;
	now: number;
}

interface AgentPollResult {
	state: AgentPollState;
	/** Runs that finished since the last poll, in the order they were created. */
	finished: Run[];
	/** The budget ran out before every pending Run was read: the next poll goes on here. */
	stoppedEarly: boolean;
	/** Runs this read found that no read had found before (finished or running). */
	discovered: number;
	/** Whether the list was read (else only pending Runs were, and the budget ran out). */
	listRead: boolean;
}

/**
 * One poll of one Agent: discover Runs new since the last poll, re-read the pending ones,
 * and return the new state without storing it (the caller commits it with the others).
 * Stops before the budget runs out; what is left stays pending for the next poll.
 */
export async function runsCompletedSince(
	context: IPollFunctions,
	agentId: number,
	previous: AgentPollState,
	options: AgentPollOptions,
): Promise<AgentPollResult> {
	const result = await readAgentRuns(context, agentId, previous, options);
	return previous.pendingAcrossSkip
		? skippingTheMeantime(result, previous.pendingAcrossSkip)
		: result;
}

/**
 * A read's result without the Runs pending before a re-activation that skips, left out of
 * its first look, that turn out to have finished before it (history, known from now on).
 */
function skippingTheMeantime(
	result: AgentPollResult,
	{ historyBefore, runs }: NonNullable<AgentPollState['pendingAcrossSkip']>,
): AgentPollResult {
	const across = new Set(runs);
	const inMeantime = (run: Run) =>
		across.has(Number(run.run_id)) && finishedAtOf(run) < historyBefore - CLOCK_MARGIN_MS;
	const state: AgentPollState = {
		...result.state,
		seen: [
			...new Set([
				...result.state.seen,
				...result.finished.filter(inMeantime).map((run) => Number(run.run_id)),
			]),
		],
	};
	delete state.pendingAcrossSkip;
	const stillPending = state.pending.map(([runId]) => runId).filter((runId) => across.has(runId));
	if (stillPending.length > 0) state.pendingAcrossSkip = { historyBefore, runs: stillPending };
	return { ...result, finished: result.finished.filter((run) => !inMeantime(run)), state };
}

async function readAgentRuns(
	context: IPollFunctions,
	agentId: number,
	previous: AgentPollState,
	options: AgentPollOptions,
): Promise<AgentPollResult> {
	const notFoundBefore = new Set(previous.notFound);
	const owed = await readPendingLeftUnread(context, agentId, previous, options, notFoundBefore);
	if (owed && options.budget.isSpent()) {
		// No budget left for the list: the next poll reads it. Runs emitted stay known.
		const state: AgentPollState = {
			...previous,
			seen: [...new Set([...previous.seen, ...(previous.readFirst ?? [])])],
			pending: [...owed.read.notReached, ...owed.rest, ...owed.read.readThisPoll],
		};
		return {
			finished: owed.read.finished.sort(compareRuns),
			stoppedEarly: true,
			discovered: 0,
			listRead: false,
			state: withMarks(state, owed.read.notReached, owed.read.notFound),
		};
	}
	const { listed, shape, resume, since } = await readList(context, agentId, previous, options);
	const found = newRunsListed(listed, previous, options.now);
	const pendingRead = await readPendingRuns(
		context,
		agentId,
		owed ? owed.rest : previous.pending,
		new Map(listed.map((run) => [Number(run.run_id), run])),
		{
			...options,
			// A read left to go on next poll, or going on from an earlier one, read only part of
			// the list: it is no answer that leaves a Run out.
			listedSince: resume === undefined && !previous.catchUp ? since : undefined,
			notFoundBefore,
		},
	);
	const firstSeen = await readRunsFirstSeenFinished(context, agentId, found.finished, options);
	const finished = [
		...(owed?.read.finished ?? []),
		...pendingRead.finished,
		...firstSeen.finished,
	].sort(compareRuns);
	const pending: PendingRun[] = [
		...pendingRead.notReached,
		...found.running.entries(),
		...firstSeen.notReached,
		...firstSeen.stillPending,
		...pendingRead.readThisPoll,
		...(owed?.read.readThisPoll ?? []),
	];
	const state =
		resume !== undefined || previous.catchUp
			? stateDuringCatchUp(previous, listed, options.now, pending, resume)
			: stateAfterRead(previous, listed, shape ?? {}, options.now, pending);
	return {
		finished,
		stoppedEarly: resume !== undefined || pendingRead.stoppedEarly || firstSeen.stoppedEarly,
		discovered: found.discovered,
		listRead: true,
		state: withMarks(
			state,
			[...pendingRead.notReached, ...firstSeen.notReached],
			[...pendingRead.notFound, ...(owed?.read.notFound ?? [])],
		),
	};
}

/**
 * The Agent's list read back to the lookback (readsBackTo), or the read an earlier poll's
 * budget cut short going on (`catchUp`).
 */
async function readList(
	context: IPollFunctions,
	agentId: number,
	previous: AgentPollState,
	options: AgentPollOptions,
): Promise<{ listed: Run[]; shape?: ListShape; resume?: ListResume; since: number }> {
	const since = readsBackTo(previous);
	if (previous.catchUp) {
		const read = await continueListRead(context, agentId, since, previous.catchUp, options.budget);
		return { listed: read.runs, resume: read.resume, since };
	}
	// A busy Agent has many Runs within the lookback: then read them in the largest pages.
	const pageSize = previous.seen.length > POLL_PAGE_SIZE / 2 ? MAX_PAGE_SIZE : POLL_PAGE_SIZE;
	const read = await runsListedSince(context, agentId, since, options.budget, pageSize, {
		listOrder: previous.listOrder,
		listCount: previous.listCount,
		listOldest: previous.listOldest,
		// The Runs of the lookback, and one older to show the page reaches back past it.
		need: previous.seen.length + 2,
	});
	return { listed: read.runs, shape: read.shape, resume: read.resume, since };
}

/**
 * The pending Runs the last poll left unread for its budget (`readFirst`), read before the
 * list (at least one of them, whatever the budget: the step's first request). Undefined when
 * there are none.
 */
async function readPendingLeftUnread(
	context: IPollFunctions,
	agentId: number,
	previous: AgentPollState,
	options: AgentPollOptions,
	notFoundBefore: ReadonlySet<number>,
) {
	const unread = new Set(previous.readFirst ?? []);
	if (unread.size === 0) return undefined;
	const read = await readPendingRuns(
		context,
		agentId,
		previous.pending.filter(([runId]) => unread.has(runId)),
		new Map(),
		{ ...options, budget: firstRequestFree(options.budget), notFoundBefore },
	);
	return { read, rest: previous.pending.filter(([runId]) => !unread.has(runId)) };
}

/**
 * The state with `readFirst` set to the Runs the budget left unread, and `notFound` to the
 * pending Runs whose read answered 404 and that one list answer left out (none: unset).
 */
function withMarks(
	state: AgentPollState,
	unread: PendingRun[],
	notFound: number[],
): AgentPollState {
	const next: AgentPollState = { ...state };
	delete next.readFirst;
	delete next.notFound;
	if (unread.length > 0) next.readFirst = unread.map(([runId]) => runId);
	if (notFound.length > 0) next.notFound = notFound;
	return next;
}

/** The Runs of a list read that no read had found before: finished, and running (id → `created`). */
function newRunsListed(
	listed: Run[],
	previous: AgentPollState,
	now: number,
): { finished: Run[]; running: Map<number, number>; discovered: number } {
	// A pending Run is known, whatever `seen` says (a list answer that missed it left it out
	// of `seen`): readPendingRuns has it, and it must not be found new as well.
	const seen = new Set([...previous.seen, ...previous.pending.map(([runId]) => runId)]);
	const finished: Run[] = [];
	const running = new Map<number, number>();
	let discovered = 0;
	for (const run of listed) {
		if (!isNewRun(run, previous, seen)) continue;
		if (isRunFinished(run)) finished.push(run);
		else running.set(Number(run.run_id), pendingStampOf(run, now));
		discovered++;
	}
	return { finished, running, discovered };
}

/**
 * Runs first seen finished: emitted from the list, or from their single read (read after the
 * pending Runs, so that a poll cut short by its budget leaves them pending, to be read next
 * poll).
 */
async function readRunsFirstSeenFinished(
	context: IPollFunctions,
	agentId: number,
	listedFinished: Run[],
	options: AgentPollOptions,
): Promise<{
	finished: Run[];
	/** Left unread for the budget: read first next poll. */
	notReached: PendingRun[];
	stillPending: PendingRun[];
	stoppedEarly: boolean;
}> {
	const finished: Run[] = [];
	const notReached: PendingRun[] = [];
	const stillPending: PendingRun[] = [];
	let stoppedEarly = false;
	for (const run of listedFinished) {
		const runId = Number(run.run_id);
		if (!options.includeFullRun) {
			finished.push(run);
			continue;
		}
		if (options.budget.isSpent()) {
			// Read next poll, as a pending Run (its single read is the full read).
			notReached.push([runId, pendingStampOf(run, options.now)]);
			stoppedEarly = true;
			continue;
		}
		const read = await readRun(context, agentId, runId, options.triggerKey);
		if ('run' in read) {
			// A single read that lags the list (still running) would be dropped by the status
			// filter and never emitted: the Run stays pending until its read shows it finished.
			if (isRunFinished(read.run)) finished.push(read.run);
			else stillPending.push([runId, pendingStampOf(run, options.now)]);
		} else if ('gone' in read) {
			finished.push(run); // it finished, then was deleted: its list data is all there is
		} else if (read.retryLater) {
			stillPending.push([runId, pendingStampOf(run, options.now)]); // read again next poll, as a pending Run
		} else {
			finished.push(withReadError(run, read.failure));
		}
	}
	return { finished, notReached, stillPending, stoppedEarly };
}

/**
 * The Agent's state while a read of its list goes on across polls (`resume`), or when such a
 * read has just ended. The watermark stays where it was until the read reaches back to it, so
 * that the Runs on the pages not read yet are still new; the Runs read so far join `seen`
 * (pages read again find them known), and the newest `created` read waits in `catchUp`.
 * When the read ends, the watermark moves there and `seen` keeps every Run the read went
 * through (more than the lookback needs, until the next read trims it).
 */
function stateDuringCatchUp(
	previous: AgentPollState,
	listed: Run[],
	now: number,
	pending: PendingRun[],
	resume: ListResume | undefined,
): AgentPollState {
	const newest = watermarkAfter(previous.catchUp?.watermark ?? previous.watermark, listed, now);
	const since = readsBackTo(previous);
	const seen = [
		...new Set([
			...previous.seen,
			...listed
				.filter((run) => stampOf(run, previous.watermark) >= since)
				.map((run) => Number(run.run_id)),
		]),
	];
	const next: AgentPollState = {
		...previous,
		watermark: resume ? previous.watermark : newest,
		seen,
		pending,
	};
	delete next.catchUp;
	delete next.recheckSince;
	if (resume) {
		next.catchUp = { ...resume, watermark: newest };
		if (previous.recheckSince !== undefined) next.recheckSince = previous.recheckSince;
	} else if (movedPastLookback(previous.watermark, newest)) next.recheckSince = since;
	return next;
}

/**
 * Whether a read that moved the watermark from `before` to `after` leaves Runs that only it
 * could list out of the next read's reach: a Run one of its answers left out (a list that
 * lags for a moment) would never be read again. Only Runs created after the trigger last knew
 * the Agent's Runs (`knownUntil`, n8n's clock, less the clock margin) can be such, unless
 * listed late: after a poll a minute ago, the lookback covers them.
 */
function movedPastLookback(before: number, after: number, knownUntil?: number): boolean {
	return (
		after - LOOKBACK_MS > before &&
		(knownUntil === undefined || after - LOOKBACK_MS > knownUntil - CLOCK_MARGIN_MS)
	);
}

/**
 * The Runs known before a read (`seen`) that its answer left out (a list lagging for a moment,
 * or a deleted Run), with the latest `created` each can have: kept while a read reaching back
 * to `remembered` could list them as new, so that one listed again is not emitted twice
 * (AgentPollState's `leftOut`). Every Run of `seen` was created within the read's reach
 * (readsBackTo), so one not listed was left out.
 */
function leftOutOf(
	previous: AgentPollState,
	listed: Run[],
	now: number,
	remembered: number,
): Array<[number, number]> {
	const listedIds = new Set(listed.map((run) => Number(run.run_id)));
	const known = new Map(previous.leftOut ?? []);
	// Created at the latest when first listed, by a service clock within the margin of n8n's.
	const latestCreated = Math.max(now, previous.watermark) + CLOCK_MARGIN_MS;
	const leftOut: Array<[number, number]> = [];
	for (const runId of previous.seen) {
		if (listedIds.has(runId)) continue;
		const created = known.get(runId) ?? latestCreated;
		if (created >= remembered) leftOut.push([runId, created]);
	}
	return leftOut;
}

/** The Agent's state after a read of its list, with the Runs still pending in their order. */
function stateAfterRead(
	previous: AgentPollState,
	listed: Run[],
	shape: ListShape,
	now: number,
	pending: PendingRun[],
): AgentPollState {
	const watermark = watermarkAfter(previous.watermark, listed, now);
	// A read that moved the watermark past the lookback is checked by the next one, back to
	// where this one started: until then, every Run it read is remembered.
	const recheckSince = movedPastLookback(previous.watermark, watermark, previous.knownUntil)
		? readsBackTo(previous)
		: undefined;
	const remembered = recheckSince ?? watermark - LOOKBACK_MS;
	const leftOut = leftOutOf(previous, listed, now, remembered);
	return {
		watermark,
		// Every Run within the lookback of the new watermark was on the pages read (they reach
		// back past the old one), so the Runs read are the ones to remember; and the Runs that
		// were pending or known, in case answers missed them.
		seen: [
			...new Set([
				...seenNear(listed, watermark, remembered),
				...previous.pending.filter(([, created]) => created >= remembered).map(([runId]) => runId),
				...leftOut.map(([runId]) => runId),
			]),
		],
		pending,
		...(leftOut.length > 0 ? { leftOut } : {}),
		...(recheckSince !== undefined ? { recheckSince } : {}),
		...shape,
		// The floor matters only until the lookback has moved past it, and so does historyBefore.
		...(previous.floor !== undefined && previous.floor > watermark - LOOKBACK_MS
			? { floor: previous.floor }
			: {}),
		...(historyBeforeKept(previous.historyBefore, { watermark, recheckSince })
			? { historyBefore: previous.historyBefore }
			: {}),
		// The reconciliation pass's, as they were (reconcile.ts).
		...(previous.net ? { net: previous.net } : {}),
		...(previous.done ? { done: previous.done } : {}),
	};
}
