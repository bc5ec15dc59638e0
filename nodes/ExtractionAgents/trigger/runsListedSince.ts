import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import type { Run } from '../helpers/runs';
import { ranOutOfBudget, type PollBudget } from './pollBudget';
import { serviceTimestampMillis } from '../helpers/timestamps';
import {
	createdOf,
	detectOrder,
	fetchRunPage as fetchListPage,
	refuseRepeatedFirstPage,
} from '../helpers/runList';

/** Page size while polling: one page usually covers every Run created since the last poll. */
export const POLL_PAGE_SIZE = 100;
/**
 * Reads of the same pages within one poll, at most: page numbers shift when a Run is
 * deleted or created between two page reads, so pages are read again until two reads agree.
 */
const MAX_LIST_PASSES = 3;
/** A page of the Agent's Runs; the trigger needs `total_pages` to know it has seen them all. */
export function fetchRunPage(
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

/**
 * Whether a Run was created before `since`: a page holding one reaches back past it. A
 * `created` that cannot be read tells nothing (it must not stop the reading early).
 */
function isBefore(run: Run, since: number): boolean {
	const created = serviceTimestampMillis(run.created);
	return created !== null && created < since;
}

/**
 * A page read after others of the same read: undefined when the budget ran out under it, so
 * that the read goes on there next poll instead of failing this one (pollBudget.ts).
 */
async function pageUnlessOutOfBudget(
	context: IPollFunctions,
	agentId: number,
	pageNumber: number,
	pageSize: number,
	budget: PollBudget,
): Promise<Awaited<ReturnType<typeof fetchRunPage>> | undefined> {
	// Any other failure is the transport's NodeApiError (or the cancellation): passed on as is.
	return await fetchRunPage(context, agentId, pageNumber, pageSize).catch((error: unknown) => {
		if (ranOutOfBudget(error, budget)) return undefined;
		throw error;
	});
}

/** What a read of the list learnt about it, for the next read (AgentPollState's list fields). */
export interface ListShape {
	listOrder?: 'newest-first' | 'oldest-first';
	listCount?: number;
	listOldest?: number;
}

/**
 * Where a read of the list that the poll's budget cut short goes on next poll (a catch-up
 * after a long pause: thousands of Runs since the last read): the list's order, the page
 * size, and the next page to read.
 */
export interface ListResume {
	order: 'newest-first' | 'oldest-first' | 'unknown';
	size: number;
	page: number;
}

interface ListRead {
	runs: Run[];
	pages: number;
	shiftProof: boolean;
	shape: ListShape;
	/** Set when the budget ran out before the read reached back to `since`. */
	resume?: ListResume;
}

/**
 * A read of every page, from page 0, left to the next poll (continueListRead): what the list's
 * order cannot spare when the budget is spent before it starts.
 */
const EVERY_PAGE_NEXT_POLL: ListResume = { order: 'unknown', size: MAX_PAGE_SIZE, page: 0 };

/**
 * One read of every Run created at or after `since`, reading as few pages as the list's
 * order allows: from the front when newest-first, from the back when oldest-first, all
 * pages when the order cannot be told. Returns every Run on the pages read. With the order
 * and length the last read learnt (`known`), an oldest-first list is read from its last page
 * at once (one request); a page that says otherwise falls back to reading page 0 first.
 * Only its first request is started whatever the budget: past 60% of it, the rest of the
 * read is left to the next poll (`resume`).
 */
async function readRunsSince(
	context: IPollFunctions,
	agentId: number,
	since: number,
	pageSize: number,
	known: ListShape & { need: number },
	budget: PollBudget,
): Promise<ListRead> {
	if (known.listOrder === 'oldest-first' && known.listCount !== undefined) {
		const fromEnd = await readOldestFirstFromEnd(context, agentId, since, pageSize, known, budget);
		if (fromEnd) return fromEnd;
		// The list changed; the next poll reads it whole when this one has no budget left.
		if (budget.isSpent())
			return { runs: [], pages: 0, shiftProof: false, shape: {}, resume: EVERY_PAGE_NEXT_POLL };
	}
	const runs: Run[] = [];
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

	const read = { context, agentId, since, pageSize, budget, first };
	if (firstOrder === 'newest-first') return await readNewestFirst(read);
	if (firstOrder === 'oldest-first') return await readOldestFirstFromBack(read);
	// No order to rely on: read every Run, in the largest pages the API allows.
	// Only those pages count: page 0 above is part of them (and is one when of that size).
	const all = await readAllPages(
		context,
		agentId,
		budget,
		pageSize === MAX_PAGE_SIZE ? first : undefined,
	);
	runs.push(...all.runs);
	return { runs, pages: all.pages, shiftProof: all.pages <= 1, shape: {}, resume: all.resume };
}

/** A read of the list past its page 0 (`first`), of more than one page. */
interface ListReadFromFirst {
	context: IPollFunctions;
	agentId: number;
	since: number;
	pageSize: number;
	budget: PollBudget;
	first: Awaited<ReturnType<typeof fetchRunPage>>;
}

/** A newest-first list, from the front until a page reaches back past `since`. */
async function readNewestFirst(read: ListReadFromFirst): Promise<ListRead> {
	const { context, agentId, since, pageSize, budget, first } = read;
	const order = 'newest-first';
	const runs = [...first.runs];
	let pages = 1;
	let page = first;
	for (
		let pageNumber = 1;
		!page.runs.some((run) => isBefore(run, since)) && pageNumber < page.totalPages;
		pageNumber++
	) {
		const next = budget.isSpent()
			? undefined
			: await pageUnlessOutOfBudget(context, agentId, pageNumber, pageSize, budget);
		if (!next) {
			const resume: ListResume = { order, size: pageSize, page: pageNumber };
			return { runs, pages, shiftProof: false, shape: { listOrder: order }, resume };
		}
		page = next;
		refuseRepeatedFirstPage(context, { agentId }, pageNumber, page.runs, first.runs);
		runs.push(...page.runs);
		pages++;
	}
	return { runs, pages, shiftProof: pages <= 1, shape: { listOrder: order } };
}

/** An oldest-first list, from its last page back until a page reaches back past `since`. */
async function readOldestFirstFromBack(read: ListReadFromFirst): Promise<ListRead> {
	const { context, agentId, since, pageSize, budget, first } = read;
	const order = 'oldest-first';
	const runs = [...first.runs];
	let pages = 1;
	let reachedBack = false;
	let count: number | undefined;
	for (let pageNumber = first.totalPages - 1; pageNumber > 0 && !reachedBack; pageNumber--) {
		const page = budget.isSpent()
			? undefined
			: await pageUnlessOutOfBudget(context, agentId, pageNumber, pageSize, budget);
		if (!page) {
			const resume: ListResume = { order, size: pageSize, page: pageNumber };
			return { runs, pages, shiftProof: false, shape: {}, resume };
		}
		refuseRepeatedFirstPage(context, { agentId }, pageNumber, page.runs, first.runs);
		if (pageNumber === page.totalPages - 1) count ??= pageNumber * pageSize + page.runs.length;
		runs.push(...page.runs);
		pages++;
		reachedBack = page.runs.some((run) => isBefore(run, since));
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

/**
 * A page size that leaves at least `need` Runs on the last page of a list of `count` Runs
 * (or makes it a full page), so that one page holds the newest Runs and one older: the
 * preferred size when it does, else the nearest that does; undefined when none does.
 */
function pageSizeForLastPage(count: number, need: number, preferred: number): number | undefined {
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
	budget: PollBudget,
): Promise<ListRead | undefined> {
	const count = known.listCount ?? 0;
	const size = pageSizeForLastPage(count, known.need, preferred);
	if (size === undefined) return undefined;
	let last = Math.max(0, Math.ceil(count / size) - 1);
	let page = await fetchRunPage(context, agentId, last, size);
	if (page.totalPages > last + 1) {
		if (budget.isSpent()) return undefined;
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
	let reachedBack = last === 0 || runs.some((run) => isBefore(run, since));
	for (let pageNumber = last - 1; pageNumber >= 0 && !reachedBack; pageNumber--) {
		const earlier = budget.isSpent()
			? undefined
			: await pageUnlessOutOfBudget(context, agentId, pageNumber, size, budget);
		if (!earlier) {
			const resume: ListResume = { order: 'oldest-first', size, page: pageNumber };
			return { runs, pages, shiftProof: false, shape: {}, resume };
		}
		runs.push(...earlier.runs);
		pages++;
		reachedBack = pageNumber === 0 || earlier.runs.some((run) => isBefore(run, since));
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

/** Every page of the list, in the largest pages; page 0 of that size when it was just read. */
async function readAllPages(
	context: IPollFunctions,
	agentId: number,
	budget: PollBudget,
	pageZero?: Awaited<ReturnType<typeof fetchRunPage>>,
): Promise<{ runs: Run[]; pages: number; resume?: ListResume }> {
	if (!pageZero && budget.isSpent()) return { runs: [], pages: 0, resume: EVERY_PAGE_NEXT_POLL };
	const first = pageZero ?? (await fetchRunPage(context, agentId, 0, MAX_PAGE_SIZE));
	const runs = [...first.runs];
	for (let pageNumber = 1; pageNumber < first.totalPages; pageNumber++) {
		const page = budget.isSpent()
			? undefined
			: await pageUnlessOutOfBudget(context, agentId, pageNumber, MAX_PAGE_SIZE, budget);
		if (!page) {
			const resume: ListResume = { order: 'unknown', size: MAX_PAGE_SIZE, page: pageNumber };
			return { runs, pages: pageNumber, resume };
		}
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
 * A read again that the budget leaves no room for is left to the next poll, from page 0
 * (`resume`: the watermark stays until it ends, so that it still finds such a Run).
 */
export async function runsListedSince(
	context: IPollFunctions,
	agentId: number,
	since: number,
	budget: PollBudget,
	pageSize = POLL_PAGE_SIZE,
	known: ListShape & { need: number } = { need: 2 },
): Promise<{ runs: Run[]; shape: ListShape; resume?: ListResume }> {
	const found = new Map<number, Run>();
	let previous: string | undefined;
	let shape: ListShape = {};
	for (let pass = 0; pass < MAX_LIST_PASSES; pass++) {
		if (pass > 0 && budget.isSpent()) {
			const order = shape.listOrder ?? 'unknown';
			const size = order === 'unknown' ? MAX_PAGE_SIZE : pageSize;
			return { runs: [...found.values()], shape, resume: { order, size, page: 0 } };
		}
		const read = await readRunsSince(
			context,
			agentId,
			since,
			pageSize,
			pass === 0 ? known : { need: known.need },
			budget,
		);
		shape = read.shape;
		for (const run of read.runs) found.set(Number(run.run_id), run); // a later read has the fresher status
		// Cut short by the budget: the rest is read next poll (continueListRead).
		if (read.resume) return { runs: [...found.values()], shape, resume: read.resume };
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
 * Goes on with a read of the list that an earlier poll's budget cut short, page by page from
 * where it stopped, until it reaches back to `since` or the budget is spent again. Read from
 * the back (oldest-first), a deletion cannot move a Run onto a page already read; read from
 * the front, a deletion among the pages already read moves Runs onto them, so the page before
 * the one next is read again (the caller knows the Runs it has done). A Run created meanwhile
 * is at the end not yet read (oldest-first) or is found by the next read from the front.
 */
export async function continueListRead(
	context: IPollFunctions,
	agentId: number,
	since: number,
	from: ListResume,
	budget: PollBudget,
): Promise<{ runs: Run[]; resume?: ListResume }> {
	const backwards = from.order === 'oldest-first';
	const runs: Run[] = [];
	let pageNumber = backwards ? from.page : Math.max(0, from.page - 1);
	// Read from the front, the first page is the one read again: one more makes progress.
	const pagesBeforeBudget = backwards || from.page === 0 ? 1 : 2;
	for (let read = 0; ; read++) {
		if (read >= pagesBeforeBudget && budget.isSpent())
			return { runs, resume: { ...from, page: pageNumber } };
		const page =
			read > 0
				? await pageUnlessOutOfBudget(context, agentId, pageNumber, from.size, budget)
				: await fetchRunPage(context, agentId, pageNumber, from.size);
		if (!page) return { runs, resume: { ...from, page: pageNumber } };
		runs.push(...page.runs);
		const reachedBack = page.runs.some((run) => isBefore(run, since));
		const done = backwards
			? pageNumber <= 0 || reachedBack
			: page.runs.length === 0 ||
				pageNumber + 1 >= page.totalPages ||
				(from.order === 'newest-first' && reachedBack);
		if (done) return { runs };
		pageNumber += backwards ? -1 : 1;
	}
}
