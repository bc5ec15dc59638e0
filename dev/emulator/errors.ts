/**
 * FastAPI-style errors. 422 bodies are `{"detail": [issue, ...]}` (spec "Validation error body");
 * every other error is `{"detail": "<message>"}` (service note 5).
 */

export interface ValidationIssue {
	loc: Array<string | number>;
	msg: string;
	type: string;
	input?: unknown;
	ctx?: Record<string, unknown>;
}

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
		readonly headers: Record<string, string> = {},
	) {
		super(
			typeof body === 'object' && body && 'detail' in body
				? JSON.stringify((body as { detail: unknown }).detail)
				: String(status),
		);
	}
}

export const notFound = (message: string): ApiError => new ApiError(404, { detail: message });
export const unauthorized = (message: string): ApiError =>
	new ApiError(401, { detail: message }, { 'www-authenticate': 'Bearer' });
export const forbidden = (message: string): ApiError => new ApiError(403, { detail: message });
export const conflict = (message: string): ApiError => new ApiError(409, { detail: message });
export const validationError = (issues: ValidationIssue[]): ApiError =>
	new ApiError(422, { detail: issues });

/** Collects validation issues so that one 422 reports all of them, like pydantic does. */
export class Issues {
	readonly list: ValidationIssue[] = [];

	add(issue: ValidationIssue): void {
		this.list.push(issue);
	}

	get any(): boolean {
		return this.list.length > 0;
	}

	throwIfAny(): void {
		if (this.any) throw validationError(this.list);
	}
}

// ---------------------------------------------------------------------------------------------
// Builders for the pydantic issue types the emulator uses
// ---------------------------------------------------------------------------------------------

export const issue = {
	missing: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Field required',
		type: 'missing',
		input,
	}),
	intParsing: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid integer, unable to parse string as an integer',
		type: 'int_parsing',
		input,
	}),
	intType: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid integer',
		type: 'int_type',
		input,
	}),
	stringType: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid string',
		type: 'string_type',
		input,
	}),
	dictType: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid dictionary',
		type: 'dict_type',
		input,
	}),
	listType: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid list',
		type: 'list_type',
		input,
	}),
	ge: (loc: Array<string | number>, input: unknown, ge: number): ValidationIssue => ({
		loc,
		msg: `Input should be greater than or equal to ${ge}`,
		type: 'greater_than_equal',
		input,
		ctx: { ge },
	}),
	le: (loc: Array<string | number>, input: unknown, le: number): ValidationIssue => ({
		loc,
		msg: `Input should be less than or equal to ${le}`,
		type: 'less_than_equal',
		input,
		ctx: { le },
	}),
	stringTooShort: (loc: Array<string | number>, input: unknown, min: number): ValidationIssue => ({
		loc,
		msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`,
		type: 'string_too_short',
		input,
		ctx: { min_length: min },
	}),
	stringTooLong: (loc: Array<string | number>, input: unknown, max: number): ValidationIssue => ({
		loc,
		msg: `String should have at most ${max} characters`,
		type: 'string_too_long',
		input,
		ctx: { max_length: max },
	}),
	datetime: (loc: Array<string | number>, input: unknown): ValidationIssue => ({
		loc,
		msg: 'Input should be a valid datetime or date, invalid format',
		type: 'datetime_from_date_parsing',
		input,
		ctx: { error: 'invalid format' },
	}),
	jsonInvalid: (position: number, error: string): ValidationIssue => ({
		loc: ['body', position],
		msg: 'JSON decode error',
		type: 'json_invalid',
		input: {},
		ctx: { error },
	}),
	valueError: (loc: Array<string | number>, input: unknown, message: string): ValidationIssue => ({
		loc,
		msg: `Value error, ${message}`,
		type: 'value_error',
		input,
		ctx: { error: message },
	}),
};

// ---------------------------------------------------------------------------------------------
// Query-parameter parsing (values arrive as strings; `input` in issues is the raw string)
// ---------------------------------------------------------------------------------------------

export interface IntRule {
	ge?: number;
	le?: number;
	default?: number;
}

/** Parses an integer query parameter, adding issues as pydantic would. */
export function queryInt(
	query: Record<string, string>,
	name: string,
	rule: IntRule,
	issues: Issues,
): number | undefined {
	const raw = query[name];
	if (raw === undefined) return rule.default;
	if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
		issues.add(issue.intParsing(['query', name], raw));
		return undefined;
	}
	const value = Number(raw);
	if (rule.ge !== undefined && value < rule.ge) {
		issues.add(issue.ge(['query', name], raw, rule.ge));
		return undefined;
	}
	if (rule.le !== undefined && value > rule.le) {
		issues.add(issue.le(['query', name], raw, rule.le));
		return undefined;
	}
	return value;
}

/** Parses an integer path parameter (422 int_parsing when not an integer, like FastAPI). */
export function pathInt(params: Record<string, string>, name: string): number {
	const raw = params[name];
	if (!/^\d+$/.test(raw)) throw validationError([issue.intParsing(['path', name], raw)]);
	return Number(raw);
}

/** The usual page_number (>= 0, default 0) / page_size (0..1000, default 50) pair. */
export function queryPaging(
	query: Record<string, string>,
	issues: Issues,
	defaults: { pageSize: number } = { pageSize: 50 },
): { pageNumber: number; pageSize: number } {
	const pageNumber = queryInt(query, 'page_number', { ge: 0, default: 0 }, issues);
	const pageSize = queryInt(
		query,
		'page_size',
		{ ge: 0, le: 1000, default: defaults.pageSize },
		issues,
	);
	return { pageNumber: pageNumber ?? 0, pageSize: pageSize ?? defaults.pageSize };
}

/** Slices one page. page_size 0 gives an empty page and total_pages 0. */
export function paginate<T>(
	items: T[],
	pageNumber: number,
	pageSize: number,
): { items: T[]; totalPages: number } {
	if (pageSize === 0) return { items: [], totalPages: 0 };
	const start = pageNumber * pageSize;
	return {
		items: items.slice(start, start + pageSize),
		totalPages: Math.ceil(items.length / pageSize),
	};
}
