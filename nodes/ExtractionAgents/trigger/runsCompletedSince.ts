import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { fetchRun, isRunFinished, type Run } from '../helpers/runs';
import {
	detectOrder,
	fetchRunPage as fetchListPage,
	refuseRepeatedFirstPage,
} from '../helpers/runList';
import { serviceTimestampMillis } from '../helpers/timestamps';
import type { PollBudget } from './pollBudget';
import {
	compareRuns,
	createdOf,
	isNewRun,
	isPendingTooLong,
	LOOKBACK_MS,
	PENDING_GIVE_UP_MS,
	seenNear,
	type AgentPollState,
	type PendingRun,
} from './pollState';

/** Page size while polling: one page usually covers every Run created since the last poll. */
export const POLL_PAGE_SIZE = 100;
/**
 * Reads of the same pages within one poll, at most: page numbers shift when a Run is
 * deleted or created between two page reads, so pages are read again until two reads agree.
 */
export const MAX_LIST_PASSES = 3;
/**
 * Polls in a row in which one Run's read fails with a 5xx, a dropped connection or an answer
 * cut off before that failure is taken as the Run's own (not the service's): from then on
 * it no longer fails the poll.
 */
export const FAILURES_BEFORE_RUN_IS_BLAMED = 3;

/** A Run emitted from its list data because its single read failed: the failure, for the user. */
export const READ_ERROR_FIELD = 'read_error';

/** A page of the Agent's Runs; the trigger needs `total_pages` to know it has seen them all. */
function fetchRunPage(
	context: IPollFunctions,
	agentId: number,
	pageNumber: number,
	pageSize: number,
	filter: IDataObject = {},
) {
	return fetchListPage(context, { agentId, qs: filter }, pageNumber, pageSize, {
		totalRequired: true,
	});
}

/** What a read of the list learnt about it, for the next read (AgentPollState's list fields). */
export interface ListShape {
	listOrder?: 'newest-first' | 'oldest-first';
	listCount?: number;
	listOldest?: number;
}

interface ListRead {
	runs: Run[];
	pages: number;
	shiftProof: boolean;
	shape: ListShape;
}

/**
 * One read of every Run created at or after `since`, reading as few pages as the list's
 * order allows: from the front when newest-first, from the back when oldest-first, all
 * pages when the order cannot be told. Returns every Run on the pages read. With the order
 * and length the last read learnt (`known`), an oldest-first list is read from its last page
 * at once (one request); a page that says otherwise falls back to reading page 0 first.
 */
async function readRunsSince(
	context: IPollFunctions,
	agentId: number,
	since: number,
	pageSize: number,
	known: ListShape & { need: number },
): Promise<ListRead> {
	if (known.listOrder === 'oldest-first' && known.listCount !== undefined) {
		const fromEnd = await readOldestFirstFromEnd(context, agentId, since, pageSize, known);
		if (fromEnd) return fromEnd;
	}
	const runs: Run[] = [];
	const reachesBack = (page: Run[]) => page.some((run) => createdOf(run) < since);
	const first = await fetchRunPage(context, agentId, 0, pageSize);
	runs.push(...first.runs);
	const firstOrder = detectOrder(first.runs);
	if (first.totalPages <= 1 || first.runs.length === 0) {
		return {
			runs,
			pages: 1,
			shiftProof: true,
			shape: {
				...(firstOrder !== 'unknown' ? { listOrder: firstOrder } : {}),
				listCount: first.runs.length,
				...(firstOrder === 'oldest-first' ? { listOldest: Number(first.runs[0].run_id) } : {}),
			},
		};
	}

	let pages = 1;
	const order = firstOrder;
	if (order === 'newest-first') {
		let page = first;
		for (
			let pageNumber = 1;
			!reachesBack(page.runs) && pageNumber < page.totalPages;
			pageNumber++
		) {
			page = await fetchRunPage(context, agentId, pageNumber, pageSize);
			refuseRepeatedFirstPage(context, { agentId }, pageNumber, page.runs, first.runs);
			runs.push(...page.runs);
			pages++;
		}
		return { runs, pages, shiftProof: pages <= 1, shape: { listOrder: order } };
	} else if (order === 'oldest-first') {
		let reachedBack = false;
		let count: number | undefined;
		for (let pageNumber = first.totalPages - 1; pageNumber > 0 && !reachedBack; pageNumber--) {
			const page = await fetchRunPage(context, agentId, pageNumber, pageSize);
			refuseRepeatedFirstPage(context, { agentId }, pageNumber, page.runs, first.runs);
			if (pageNumber === page.totalPages - 1) count ??= pageNumber * pageSize + page.runs.length;
			runs.push(...page.runs);
			pages++;
			reachedBack = reachesBack(page.runs);
		}
		// Read from the back, a deletion only moves Runs onto the page read next, never onto
		// one already read; a Run created meanwhile goes on the end and is new next poll. Only
		// page 0, read first, can go stale: it matters when the new Runs reach back to it.
		return {
			runs,
			pages,
			shiftProof: reachedBack,
			shape: {
				listOrder: order,
				...(count !== undefined ? { listCount: count } : {}),
				listOldest: Number(first.runs[0].run_id),
			},
		};
	}
	// No order to rely on: read every Run, in the largest pages the API allows.
	// Only those pages count: page 0 above is part of them.
	const all = await readAllPages(context, agentId);
	runs.push(...all.runs);
	pages = all.pages;
	return { runs, pages, shiftProof: pages <= 1, shape: {} };
}

/**
 * A page size that leaves at least `need` Runs on the last page of a list of `count` Runs
 * (or makes it a full page), so that one page holds the newest Runs and one older: the
 * preferred size when it does, else the nearest that does; undefined when none does.
 */
export function pageSizeForLastPage(
	count: number,
	need: number,
	preferred: number,
): number | undefined {
	const fits = (size: number) => size >= need && (count % size === 0 || count % size >= need);
	if (count <= preferred || fits(preferred)) return preferred;
	for (let step = 1; step < MAX_PAGE_SIZE; step++) {
		for (const size of [preferred + step, preferred - step])
			if (size >= 1 && size <= MAX_PAGE_SIZE && fits(size)) return size;
	}
	return undefined;
}

/**
 * An oldest-first list read from the page the last read found last: one request while the
 * list is much as it was. Undefined when the page says the list changed more than that (it
 * is no longer the last page, it is not in oldest-first order, it holds the list's oldest
 * Run, as a service ignoring `page_number` would answer): the caller reads it from page 0.
 */
async function readOldestFirstFromEnd(
	context: IPollFunctions,
	agentId: number,
	since: number,
	preferred: number,
	known: ListShape & { need: number },
): Promise<ListRead | undefined> {
	const count = known.listCount ?? 0;
	const size = pageSizeForLastPage(count, known.need, preferred);
	if (size === undefined) return undefined;
	let last = Math.max(0, Math.ceil(count / size) - 1);
	let page = await fetchRunPage(context, agentId, last, size);
	if (page.totalPages > last + 1) {
		// The list grew past that page (many new Runs): read back from its new last page.
		last = page.totalPages - 1;
		page = await fetchRunPage(context, agentId, last, size);
	}
	if (page.totalPages !== last + 1 || (last > 0 && page.runs.length < 2)) return undefined;
	if (last > 0 && detectOrder(page.runs) !== 'oldest-first') return undefined;
	if (
		last > 0 &&
		(known.listOldest === undefined ||
			page.runs.some((run) => Number(run.run_id) === known.listOldest))
	)
		return undefined;
	const runs = [...page.runs];
	let pages = 1;
	let reachedBack = last === 0 || runs.some((run) => createdOf(run) < since);
	for (let pageNumber = last - 1; pageNumber >= 0 && !reachedBack; pageNumber--) {
		const earlier = await fetchRunPage(context, agentId, pageNumber, size);
		runs.push(...earlier.runs);
		pages++;
		reachedBack = pageNumber === 0 || earlier.runs.some((run) => createdOf(run) < since);
	}
	return {
		runs,
		pages,
		// As reading from the back above: a deletion moves Runs onto the page read next.
		shiftProof: true,
		shape: {
			listOrder: 'oldest-first',
			listCount: last * size + page.runs.length,
			listOldest: known.listOldest,
		},
	};
}

async function readAllPages(
	context: IPollFunctions,
	agentId: number,
): Promise<{ runs: Run[]; pages: number }> {
	const first = await fetchRunPage(context, agentId, 0, MAX_PAGE_SIZE);
	const runs = [...first.runs];
	for (let pageNumber = 1; pageNumber < first.totalPages; pageNumber++) {
		const page = await fetchRunPage(context, agentId, pageNumber, MAX_PAGE_SIZE);
		refuseRepeatedFirstPage(context, { agentId }, pageNumber, page.runs, first.runs);
		runs.push(...page.runs);
	}
	return { runs, pages: Math.max(1, first.totalPages) };
}

/**
 * Every Run of the Agent created at or after `since`. One page is one answer, so it cannot
 * shift under the reader; when the Runs span several pages, the pages are read again until
 * two reads find the same Runs (at most MAX_LIST_PASSES), and the union is returned: a Run
 * that slid onto a page already read, because another was deleted, is found the second time.
 */
export async function runsListedSince(
	context: IPollFunctions,
	agentId: number,
	since: number,
	pageSize = POLL_PAGE_SIZE,
	known: ListShape & { need: number } = { need: 2 },
): Promise<{ runs: Run[]; shape: ListShape }> {
	const found = new Map<number, Run>();
	let previous: string | undefined;
	let shape: ListShape = {};
	for (let pass = 0; pass < MAX_LIST_PASSES; pass++) {
		const read = await readRunsSince(
			context,
			agentId,
			since,
			pageSize,
			pass === 0 ? known : { need: known.need },
		);
		shape = read.shape;
		for (const run of read.runs) found.set(Number(run.run_id), run); // a later read has the fresher status
		if (read.shiftProof) break;
		const ids = read.runs
			.filter((run) => createdOf(run) >= since)
			.map((run) => Number(run.run_id))
			.sort((a, b) => a - b)
			.join(',');
		if (ids === previous) break;
		previous = ids;
	}
	return { runs: [...found.values()], shape };
}

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

/** Every Run of the Agent, for manual mode ("Fetch Test Event"). */
export async function allRunsOf(context: IPollFunctions, agentId: number): Promise<Run[]> {
	return (await readAllPages(context, agentId)).runs;
}

/** Consecutive failed reads per Run in this n8n process (a failed poll commits no state). */
const failedReads = new Map<string, number>();
const FAILED_READS_TRACKED = 10_000;

function countFailedRead(key: string): number {
	const count = (failedReads.get(key) ?? 0) + 1;
	failedReads.delete(key);
	if (failedReads.size >= FAILED_READS_TRACKED)
		failedReads.delete(failedReads.keys().next().value as string);
	failedReads.set(key, count);
	return count;
}

type RunRead =
	| { run: Run }
	| { gone: true }
	/** `retryLater`: a passing failure, not yet FAILURES_BEFORE_RUN_IS_BLAMED times in a row. */
	| { failure: Error; retryLater: boolean };

/**
 * One Run's single read, sorted by whom a failure concerns. 401 (the key) and 429 (the
 * account) concern every request: the poll fails. A 5xx, a dropped connection or an answer
 * cut off concerns this Run until shown otherwise: the list was just read, so the service is
 * up. The Run stays pending and the other Runs go on; once the same Run has failed
 * FAILURES_BEFORE_RUN_IS_BLAMED polls in a row it is emitted from its list data with the
 * error. Any other 4xx concerns this Run only, at once. 404: the Run was deleted.
 */
async function readRun(
	context: IPollFunctions,
	agentId: number,
	runId: number,
	failureKey: string,
): Promise<RunRead> {
	const read = await fetchRun(context, agentId, runId).then(
		(run) => ({ run, failure: undefined }),
		(failure: unknown) => ({ run: undefined, failure }),
	);
	if (read.run) {
		failedReads.delete(failureKey);
		return { run: read.run };
	}
	const { failure } = read;
	// Not a failed request (e.g. the execution was cancelled): nothing to sort.
	if (!(failure instanceof NodeApiError)) throw failure;
	const status = Number(failure.httpCode);
	if (status === 404) return { gone: true };
	if (status === 401 || status === 429) throw failure;
	const passing = !failure.httpCode || status >= 500;
	const retryLater = passing && countFailedRead(failureKey) < FAILURES_BEFORE_RUN_IS_BLAMED;
	return { failure, retryLater };
}

/** The Run as the list shows it (GET runs filtered by run_id), when its single read fails. */
async function listedRun(
	context: IPollFunctions,
	agentId: number,
	runId: number,
): Promise<Run | undefined> {
	const { runs } = await fetchRunPage(context, agentId, 0, 10, { run_id: runId });
	return runs.find((run) => Number(run.run_id) === runId);
}

function withReadError(run: Run, failure: Error): Run {
	return { ...run, [READ_ERROR_FIELD]: failure.message };
}

export interface AgentPollOptions {
	/** Read each Run found finished in the list once more, for the details only the single read has. */
	includeFullRun: boolean;
	budget: PollBudget;
	/** Identifies this trigger node in this n8n process (workflow and node id). */
	triggerKey: string;
	now: number;
}

export interface AgentPollResult {
	state: AgentPollState;
	/** Runs that finished since the last poll, in the order they were created. */
	finished: Run[];
	/** The budget ran out before every pending Run was read: the next poll goes on here. */
	stoppedEarly: boolean;
	/** Runs this read found that no read had found before (finished or running). */
	discovered: number;
}

/** Drops pending Runs still running days after they were created, with a line in n8n's log. */
export function withoutStalePending(
	context: IPollFunctions,
	agentId: number,
	pending: PendingRun[],
	now: number,
): PendingRun[] {
	return pending.filter((entry) => {
		if (!isPendingTooLong(entry, now)) return true;
		context.logger.warn(
			`Extraction Agents Trigger: Run ${entry[0]} of Agent ${agentId} is still running ${Math.floor(PENDING_GIVE_UP_MS / 86_400_000)}+ days after it was created; it is no longer checked and will not be emitted`,
			{ agentId, runId: entry[0] },
		);
		return false;
	});
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
	// A busy Agent has many Runs within the lookback: then read them in the largest pages.
	const pageSize = previous.seen.length > POLL_PAGE_SIZE / 2 ? MAX_PAGE_SIZE : POLL_PAGE_SIZE;
	const { runs: listed, shape } = await runsListedSince(
		context,
		agentId,
		previous.watermark - LOOKBACK_MS,
		pageSize,
		{
			listOrder: previous.listOrder,
			listCount: previous.listCount,
			listOldest: previous.listOldest,
			// The Runs of the lookback, and one older to show the page reaches back past it.
			need: previous.seen.length + 2,
		},
	);
	const seen = new Set(previous.seen);
	const finished: Run[] = [];
	const listedFinished: Run[] = [];
	const pending = new Map<number, number>();
	let discovered = 0;
	for (const run of listed) {
		if (!isNewRun(run, previous, seen)) continue;
		if (isRunFinished(run)) listedFinished.push(run);
		else pending.set(Number(run.run_id), createdOf(run));
		discovered++;
	}

	let stoppedEarly = false;
	const failureKey = (runId: number) => `${options.triggerKey}:${agentId}:${runId}`;
	// Pending Runs, least recently read first; those left for the next poll keep their place.
	const stillPending: PendingRun[] = [];
	const readThisPoll: PendingRun[] = [];
	for (const entry of withoutStalePending(context, agentId, previous.pending, options.now)) {
		const [runId] = entry;
		if (pending.has(runId)) continue;
		if (options.budget.isSpent()) {
			stillPending.push(entry);
			stoppedEarly = true;
			continue;
		}
		const read = await readRun(context, agentId, runId, failureKey(runId));
		if ('gone' in read) continue; // deleted while pending: nothing left to emit
		if ('run' in read) {
			if (isRunFinished(read.run)) finished.push(read.run);
			else readThisPoll.push(entry);
			continue;
		}
		if (read.retryLater) {
			readThisPoll.push(entry);
			continue;
		}
		const fromList = await listedRun(context, agentId, runId).catch(() => undefined);
		if (fromList && isRunFinished(fromList)) {
			finished.push(withReadError(fromList, read.failure));
			continue;
		}
		context.logger.warn(
			`Extraction Agents Trigger: Run ${runId} of Agent ${agentId} could not be read (${read.failure.message}); it stays pending and the other Runs go on`,
			{ agentId, runId },
		);
		readThisPoll.push(entry);
	}

	// Runs first seen finished: emitted from the list, or from their single read (last, so
	// that a poll cut short by its budget leaves them pending, to be read next poll).
	for (const run of listedFinished) {
		const runId = Number(run.run_id);
		if (!options.includeFullRun) {
			finished.push(run);
			continue;
		}
		if (options.budget.isSpent()) {
			// Read next poll, as a pending Run (its single read is the full read).
			pending.set(runId, createdOf(run));
			stoppedEarly = true;
			continue;
		}
		const read = await readRun(context, agentId, runId, failureKey(runId));
		if ('run' in read) {
			// A single read that lags the list (still running) would be dropped by the status
			// filter and never emitted: the Run stays pending until its read shows it finished.
			if (isRunFinished(read.run)) finished.push(read.run);
			else pending.set(runId, createdOf(run));
		} else if ('gone' in read) {
			finished.push(run); // it finished, then was deleted: its list data is all there is
		} else if (read.retryLater) {
			pending.set(runId, createdOf(run)); // read again next poll, as a pending Run
		} else {
			finished.push(withReadError(run, read.failure));
		}
	}

	let watermark = previous.watermark;
	for (const run of listed) watermark = Math.max(watermark, createdOf(run));
	// Every Run within the lookback of the new watermark was on the pages read (they reach
	// back past the old one), so the Runs read are exactly the ones to remember.
	const nextSeen = seenNear(listed, watermark);
	finished.sort(compareRuns);
	return {
		finished,
		stoppedEarly,
		discovered,
		state: {
			watermark,
			seen: nextSeen,
			pending: [...stillPending, ...[...pending.entries()], ...readThisPoll],
			...shape,
			// The floor matters only until the lookback has moved past it.
			...(previous.floor !== undefined && previous.floor > watermark - LOOKBACK_MS
				? { floor: previous.floor }
				: {}),
		},
	};
}

/** Whether `run` finished with one of the chosen statuses; "other" is any status added to the API later. */
export function hasChosenStatus(run: Run, statuses: string[]): boolean {
	const status = String(run.status);
	if (statuses.includes(status)) return true;
	return statuses.includes('other') && !['success', 'failed', 'running'].includes(status);
}

/** When the Run finished, for "Fetch Test Event" (its creation when `completed` is null). */
export function finishedAtOf(run: Run): number {
	return serviceTimestampMillis(run.completed) ?? createdOf(run);
}
