import type { IDataObject } from 'n8n-workflow';
import type { PromptResult, Run } from './runs';
import { normalizeServiceTimestamp } from './timestamps';

export type RunOutputMode = 'run' | 'promptResult';

const RUN_FIELDS = [
	'run_id',
	'agent_id',
	'status',
	'run_url',
	'files',
	'user_defined_id',
	'created',
	'completed',
	'failed_prompts',
	'credits_used',
];

/**
 * Prompt names in the Agent's order, then any result the order does not name; each once (an
 * order naming a Prompt twice gave two rows, or wrote its column twice).
 */
function promptNamesOf(run: Run): string[] {
	const names: string[] = [];
	const listed = Array.isArray(run.order) ? run.order : [];
	for (const name of [...listed, ...Object.keys(run.data ?? {})])
		if (!names.includes(name)) names.push(name);
	return names;
}

/**
 * The Prompt's result: an own field of `data` only, so that a Prompt the Run does not hold
 * (named `constructor`, `toString`…) reads as missing, not as Object's method.
 */
function resultOf(data: Record<string, PromptResult>, name: string): PromptResult | undefined {
	return Object.prototype.hasOwnProperty.call(data, name) ? data[name] : undefined;
}

/**
 * Sets a column, whatever its name: `row[name] = …` with a Prompt named `__proto__` sets the
 * row's prototype instead, and the value is lost.
 */
function setColumn(row: IDataObject, name: string, value: unknown): void {
	Object.defineProperty(row, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Column names of one row where no value may take another's (node version 1.3): a name
 * already taken gets ` (2)`, ` (3)`…, the first number free. Names are taken in the order
 * the row is built: the row's own fields first, then the Prompts in the Agent's order, an
 * object's fields in their order.
 */
class ColumnNames {
	private readonly taken = new Set<string>();

	constructor(reserved: readonly string[]) {
		for (const name of reserved) this.taken.add(name);
	}

	claim(wanted: string): string {
		let name = wanted;
		for (let number = 2; this.taken.has(name); number++) name = `${wanted} (${number})`;
		this.taken.add(name);
		return name;
	}
}

/** How columns are named: as each version named them, or (1.3) collision-free. */
export interface ColumnOptions {
	/** Node version 1.3 (trigger 1.2): every value keeps a column of its own (ColumnNames). */
	collisionFree?: boolean;
	/** Names the caller adds to the row afterwards (the trigger's `read_error`). */
	reserved?: readonly string[];
}

/** A Prompt named like a Run field ("status") must not overwrite it. */
function promptKey(name: string): string {
	return RUN_FIELDS.includes(name) ? `${name} (prompt)` : name;
}

function creditsOf(run: Run): number | null {
	const usage = run.usage as IDataObject | null | undefined;
	return usage && typeof usage.credits_used === 'number' ? usage.credits_used : null;
}

/**
 * "Simplify": one flat object per Run that maps straight onto a sheet row — the Run's
 * identity, then one key per Prompt holding its value (null while missing). The
 * deprecated `confidence` is left out on purpose (docs/design/service-notes.md #22).
 */
export function simplifyRun(run: Run): IDataObject {
	const data = run.data ?? {};
	const names = promptNamesOf(run);
	const simplified: IDataObject = {
		run_id: run.run_id,
		agent_id: run.agent_id,
		status: run.status,
		run_url: run.run_url ?? null,
		files: run.files ?? [],
		user_defined_id: run.user_defined_id ?? null,
		created: normalizeServiceTimestamp(run.created),
		completed: normalizeServiceTimestamp(run.completed),
		failed_prompts: names.filter((name) => resultOf(data, name)?.status === 'failed'),
		credits_used: creditsOf(run),
	};
	for (const name of names)
		setColumn(simplified, promptKey(name), resultOf(data, name)?.value ?? null);
	return simplified;
}

/** Separator of a Prompt and a field of its value in a column name: `Total amount › currency`. */
const FIELD_SEPARATOR = ' › ';

/** A value a sheet cell shows as it is: text, a number, true/false or empty. */
function isCellValue(value: unknown): boolean {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * A value as one cell's text: list entries one per line (`, ` between plain values), an
 * object's fields as `name: value`. Never JSON: a sheet shows it as it reads.
 */
function cellText(value: unknown): string | number | boolean | null {
	if (value === undefined || value === null) return null;
	if (isCellValue(value)) return value as string | number | boolean;
	if (Array.isArray(value)) {
		const entries = value.map((entry) => cellText(entry));
		const separator = value.every(isCellValue) ? ', ' : '\n';
		return entries.map((entry) => (entry === null ? '' : String(entry))).join(separator);
	}
	return Object.entries(value as IDataObject)
		.map(([key, field]) => `${key}: ${String(cellText(field) ?? '')}`)
		.join(', ');
}

/**
 * An object's fields as columns `prefix › field` (nested objects likewise), lists as text.
 * With `names` (1.3) each column takes a name of its own; without, a later column of the same
 * name overwrote an earlier one.
 */
function addColumns(row: IDataObject, column: string, value: unknown, names?: ColumnNames): void {
	if (value && typeof value === 'object' && !Array.isArray(value)) {
		const fields = Object.entries(value as IDataObject);
		if (fields.length === 0) setColumn(row, names ? names.claim(column) : column, null);
		for (const [field, fieldValue] of fields)
			addColumns(row, `${column}${FIELD_SEPARATOR}${field}`, fieldValue, names);
		return;
	}
	setColumn(row, names ? names.claim(column) : column, cellText(value));
}

/**
 * "Simplify" from node version 1.2: a row a sheet takes as it is. The Prompt values come
 * first, in the Agent's order; a Prompt whose value is an object becomes one column per
 * field (`Total amount › currency`), a list becomes text (one entry per line); then the
 * Run's identity, with its lists (files, failed Prompts) as text too.
 */
export function sheetRowOfRun(run: Run, options: ColumnOptions = {}): IDataObject {
	const data = run.data ?? {};
	const names = promptNamesOf(run);
	const row: IDataObject = {};
	const columns = options.collisionFree
		? new ColumnNames([...RUN_FIELDS, ...(options.reserved ?? [])])
		: undefined;
	for (const name of names)
		addColumns(row, promptKey(name), resultOf(data, name)?.value ?? null, columns);
	row.run_id = run.run_id;
	row.status = run.status;
	row.run_url = run.run_url ?? null;
	row.files = cellText(run.files ?? []);
	row.user_defined_id = run.user_defined_id ?? null;
	row.created = normalizeServiceTimestamp(run.created);
	row.completed = normalizeServiceTimestamp(run.completed);
	row.failed_prompts = cellText(names.filter((name) => resultOf(data, name)?.status === 'failed'));
	row.credits_used = creditsOf(run);
	row.agent_id = run.agent_id;
	return row;
}

/**
 * "One item per Prompt result": rows of prompt, status, value, reasoning, citations.
 * A Run with no Prompt results still gives one row (`prompt: null`), so that no input
 * item disappears from the output.
 */
function promptResultRows(run: Run, simplify: boolean): IDataObject[] {
	const data = run.data ?? {};
	const names = promptNamesOf(run);
	if (names.length === 0) {
		return [
			{
				run_id: run.run_id,
				agent_id: run.agent_id,
				user_defined_id: run.user_defined_id ?? null,
				status: run.status,
				run_url: run.run_url ?? null,
				prompt: null,
				value: null,
				reasoning: null,
				citations: [],
			},
		];
	}
	return names.map((name) => {
		const result: PromptResult = resultOf(data, name) ?? {};
		const metadata = (result.metadata ?? {}) as IDataObject;
		const row: IDataObject = {
			run_id: run.run_id,
			agent_id: run.agent_id,
			user_defined_id: run.user_defined_id ?? null,
			prompt: name,
			status: result.status ?? 'pending',
			value: result.value ?? null,
			reasoning: (metadata.reasoning as string | undefined) ?? null,
			citations: simplify
				? ((metadata.citations as IDataObject[] | undefined) ?? []).map((citation) => ({
						file: citation.file ?? null,
						pages: Array.isArray(citation.pages) ? citation.pages : [],
					}))
				: ((metadata.citations as IDataObject[] | undefined) ?? []),
		};
		if (!simplify) {
			row.url_citations = (metadata.url_citations as IDataObject[] | undefined) ?? [];
			row.start_time = normalizeServiceTimestamp(result.start_time);
			row.end_time = normalizeServiceTimestamp(result.end_time);
			row.credits_used =
				((result.usage as IDataObject | undefined)?.credits_used as number | undefined) ?? null;
			row.metadata = metadata;
		}
		return row;
	});
}

/** Citations as one cell's text: `invoice.pdf p. 1, 2; terms.pdf p. 4`. */
function citationsText(citations: unknown): string {
	if (!Array.isArray(citations)) return '';
	return citations
		.map((citation: IDataObject) => {
			const pages = Array.isArray(citation?.pages) ? citation.pages : [];
			const file = typeof citation?.file === 'string' ? citation.file : '';
			return pages.length > 0 ? `${file} p. ${pages.join(', ')}`.trim() : file;
		})
		.filter((text) => text !== '')
		.join('; ');
}

/**
 * "One item per Prompt result" from node version 1.2, rows a sheet takes as they are: a
 * Prompt whose value is a list (e.g. line items) gives one row per entry, numbered in
 * `entry`; an object value becomes columns `value › field`; citations are text.
 */
function sheetRowsOfPromptResults(run: Run, options: ColumnOptions): IDataObject[] {
	// The row's own fields, and `value` for a value that is not an object.
	const ownFields = ['run_id', 'agent_id', 'user_defined_id', 'prompt', 'status', 'entry'];
	const columnsOf = () =>
		options.collisionFree ? new ColumnNames([...ownFields, 'reasoning', 'citations']) : undefined;
	return promptResultRows(run, true).flatMap((row) => {
		const base: IDataObject = {
			run_id: row.run_id,
			agent_id: row.agent_id,
			user_defined_id: row.user_defined_id,
			prompt: row.prompt,
			status: row.status,
		};
		const withText = (target: IDataObject): IDataObject => {
			target.reasoning = row.reasoning;
			target.citations = citationsText(row.citations);
			return target;
		};
		if (!Array.isArray(row.value)) {
			const target: IDataObject = { ...base, entry: null };
			addColumns(target, 'value', row.value ?? null, columnsOf());
			return [withText(target)];
		}
		if (row.value.length === 0) return [withText({ ...base, entry: null, value: null })];
		return row.value.map((entryValue, index) => {
			const target: IDataObject = { ...base, entry: index + 1 };
			addColumns(target, 'value', entryValue ?? null, columnsOf());
			return withText(target);
		});
	});
}

/**
 * The items one Run becomes, per the node's Simplify and Output settings; `sheetReady`
 * (node version 1.2) shapes simplified Runs as sheetRowOfRun and sheetRowsOfPromptResults do,
 * `collisionFree` (1.3) names their columns so that none takes another's value.
 */
export function runToItemsJson(
	run: Run,
	simplify: boolean,
	mode: RunOutputMode,
	options: { sheetReady?: boolean } & ColumnOptions = {},
): IDataObject[] {
	if (mode === 'promptResult')
		return simplify && options.sheetReady
			? sheetRowsOfPromptResults(run, options)
			: promptResultRows(run, simplify);
	if (!simplify) return [run];
	return [options.sheetReady ? sheetRowOfRun(run, options) : simplifyRun(run)];
}

/**
 * The Prompt columns of the Run's sheet-ready row (sheetRowOfRun, collision-free names): the
 * values a partly read Run's error item carries, named as the success output names them.
 */
export function valuesReadOf(run: Run): IDataObject {
	const row = sheetRowOfRun(run, { collisionFree: true });
	const values: IDataObject = {};
	for (const [column, value] of Object.entries(row)) {
		if (column === 'run_id') break;
		setColumn(values, column, value);
	}
	return values;
}
