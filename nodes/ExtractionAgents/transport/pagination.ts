import type { IDataObject, NodeApiError } from 'n8n-workflow';
import { unexpectedAnswer } from './answers';
import { serviceRequest } from './serviceRequest';
import type { ServiceContext } from './types';
import type { RequestSubject } from './subjects';

export const MAX_PAGE_SIZE = 1000;

export interface ListLimit {
	returnAll: boolean;
	/** Ignored when returnAll is true. */
	limit: number;
}

function malformed(context: ServiceContext, what: string, itemIndex?: number): NodeApiError {
	return unexpectedAnswer(context, what, 'The response did not have the expected list in it.', {
		itemIndex,
	});
}

/**
 * The page-number paginator for every paged list (Agents, Runs, API keys, usage).
 * `pickItems` takes one page's body and returns its elements (and tolerates the shape
 * variants of docs/design/service-notes.md #11 and #12, e.g. a bare array of Agents). Pages are read until enough
 * items are collected or `total_pages` says there are no more; a page without
 * `total_pages` (a bare array has none) is followed by the next one while it is full,
 * so nothing is cut off. A page that repeats the previous one ends the list: a service
 * that ignores `page_number` would otherwise be read for ever. With `idOf`, an item
 * already collected (listed again as the list shifted between pages) is kept once.
 */
export async function listAllPages<T = IDataObject>(
	context: ServiceContext,
	request: {
		path: string;
		qs?: IDataObject;
		subject?: RequestSubject;
		itemIndex?: number;
		/** Per attempt of each page (ServiceRequest.timeoutMs). */
		timeoutMs: number;
		what: string;
		idOf?: (item: T) => unknown;
	},
	pickItems: (body: unknown) => T[] | undefined,
	limit: ListLimit,
): Promise<T[]> {
	const wanted = limit.returnAll ? Infinity : Math.max(0, limit.limit);
	const pageSize = limit.returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(1, wanted));
	const collected: T[] = [];
	const seenIds = new Set<unknown>();
	let previousPage: string | undefined;
	for (let pageNumber = 0; collected.length < wanted; pageNumber++) {
		const { body } = await serviceRequest<IDataObject>(context, {
			method: 'GET',
			path: request.path,
			qs: { ...request.qs, page_number: pageNumber, page_size: pageSize },
			subject: request.subject,
			itemIndex: request.itemIndex,
			timeoutMs: request.timeoutMs,
		});
		const items = pickItems(body);
		if (!items) throw malformed(context, request.what, request.itemIndex);
		const page = JSON.stringify(items);
		if (items.length > 0 && page === previousPage) break;
		previousPage = page;
		for (const item of items) {
			if (collected.length >= wanted) break;
			if (request.idOf) {
				const id = request.idOf(item);
				if (seenIds.has(id)) continue;
				seenIds.add(id);
			}
			collected.push(item);
		}
		const rawTotal = Array.isArray(body) ? undefined : (body as IDataObject)?.total_pages;
		const totalPages = rawTotal === undefined || rawTotal === null ? NaN : Number(rawTotal);
		const lastPage = Number.isFinite(totalPages)
			? pageNumber + 1 >= totalPages
			: items.length < pageSize;
		if (items.length === 0 || lastPage) break;
	}
	return collected;
}

/** Reads `key` of a list page, or the page itself when the service answers a bare array. */
export function itemsUnder<T = IDataObject>(key: string): (body: unknown) => T[] | undefined {
	return (body) => {
		if (Array.isArray(body)) return body as T[];
		const items = (body as IDataObject | undefined)?.[key];
		return Array.isArray(items) ? (items as T[]) : undefined;
	};
}

/**
 * The cursor paginator (access logs). The end is a missing or empty `next_cursor`, or
 * an empty page (docs/design/service-notes.md #30); a cursor given twice is an error.
 */
export async function listAllByCursor<T = IDataObject>(
	context: ServiceContext,
	request: {
		path: string;
		body: IDataObject;
		itemIndex?: number;
		/** Per attempt of each page (ServiceRequest.timeoutMs). */
		timeoutMs: number;
		subject?: RequestSubject;
		what: string;
	},
	itemsKey: string,
	limit: ListLimit,
): Promise<T[]> {
	const wanted = limit.returnAll ? Infinity : Math.max(0, limit.limit);
	const pageSize = limit.returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(1, wanted));
	const collected: T[] = [];
	let cursor: string | undefined;
	const seenCursors = new Set<string>();
	while (collected.length < wanted) {
		const { body } = await serviceRequest<IDataObject>(context, {
			method: 'PUT',
			path: request.path,
			body: { ...request.body, page_size: pageSize, ...(cursor ? { cursor } : {}) },
			// The query only reads, so repeating it after a dropped connection is safe.
			idempotency: 'idempotent',
			subject: request.subject,
			itemIndex: request.itemIndex,
			timeoutMs: request.timeoutMs,
		});
		const items = (body as IDataObject | undefined)?.[itemsKey];
		if (!Array.isArray(items)) throw malformed(context, request.what, request.itemIndex);
		collected.push(...(items as T[]).slice(0, wanted - collected.length));
		const next = (body as IDataObject).next_cursor;
		if (items.length === 0 || typeof next !== 'string' || next === '') break;
		if (seenCursors.has(next)) {
			// Following it again would loop; stopping quietly would pass part of the events for all.
			throw unexpectedAnswer(
				context,
				request.what,
				`The service repeated a cursor it had already given, so the rest cannot be read (${collected.length} read so far). Narrow Start Time and End Time, or try again later.`,
				{ itemIndex: request.itemIndex },
			);
		}
		seenCursors.add(next);
		cursor = next;
	}
	return collected;
}
