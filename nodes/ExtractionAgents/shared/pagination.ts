import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { serviceRequest, type ServiceContext } from './transport';
import type { RequestSubject } from './subjects';

export const MAX_PAGE_SIZE = 1000;

export interface ListLimit {
	returnAll: boolean;
	/** Ignored when returnAll is true. */
	limit: number;
}

function malformed(context: ServiceContext, what: string, itemIndex?: number): NodeApiError {
	return new NodeApiError(
		context.getNode(),
		{ message: `Unexpected answer from the service for ${what}` },
		{
			message: `Unexpected answer from the service for ${what}`,
			description: 'The response did not have the expected fields. Check that the Base URL points at the Extraction Agents service.',
			itemIndex,
		},
	);
}

/**
 * The page-number paginator for every paged list (Agents, Runs, API keys, usage).
 * `pickItems` takes one page's body and returns its elements (and tolerates the shape
 * variants gaps.md names, e.g. a bare array of Agents). Pages are read until enough
 * items are collected or `total_pages` says there are no more.
 */
export async function listAllPages<T = IDataObject>(
	context: ServiceContext,
	request: { path: string; qs?: IDataObject; subject?: RequestSubject; itemIndex?: number; what: string },
	pickItems: (body: unknown) => T[] | undefined,
	limit: ListLimit,
): Promise<T[]> {
	const wanted = limit.returnAll ? Infinity : Math.max(0, limit.limit);
	const pageSize = limit.returnAll ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(1, wanted));
	const collected: T[] = [];
	for (let pageNumber = 0; collected.length < wanted; pageNumber++) {
		const { body } = await serviceRequest<IDataObject>(context, {
			method: 'GET',
			path: request.path,
			qs: { ...request.qs, page_number: pageNumber, page_size: pageSize },
			subject: request.subject,
			itemIndex: request.itemIndex,
		});
		const items = pickItems(body);
		if (!items) throw malformed(context, request.what, request.itemIndex);
		collected.push(...items.slice(0, wanted - collected.length));
		const totalPages = Array.isArray(body) ? 1 : Number((body as IDataObject)?.total_pages);
		const lastPage = !Number.isFinite(totalPages) || pageNumber + 1 >= totalPages;
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
 * an empty page (gaps.md #17).
 */
export async function listAllByCursor<T = IDataObject>(
	context: ServiceContext,
	request: { path: string; body: IDataObject; itemIndex?: number; subject?: RequestSubject; what: string },
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
		});
		const items = (body as IDataObject | undefined)?.[itemsKey];
		if (!Array.isArray(items)) throw malformed(context, request.what, request.itemIndex);
		collected.push(...(items as T[]).slice(0, wanted - collected.length));
		const next = (body as IDataObject).next_cursor;
		if (items.length === 0 || typeof next !== 'string' || next === '' || seenCursors.has(next)) break;
		seenCursors.add(next);
		cursor = next;
	}
	return collected;
}
