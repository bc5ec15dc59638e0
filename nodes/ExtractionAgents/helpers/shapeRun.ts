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

/** Prompt names in the Agent's order, then any result the order does not name. */
function promptNamesOf(run: Run): string[] {
	const names = Array.isArray(run.order) ? [...run.order] : [];
	for (const name of Object.keys(run.data ?? {})) if (!names.includes(name)) names.push(name);
	return names;
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
 * deprecated `confidence` is left out on purpose (docs/service-notes.md #22).
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
		failed_prompts: names.filter((name) => data[name]?.status === 'failed'),
		credits_used: creditsOf(run),
	};
	for (const name of names) simplified[promptKey(name)] = data[name]?.value ?? null;
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

/** An object's fields as columns `prefix › field` (nested objects likewise), lists as text. */
function addColumns(row: IDataObject, column: string, value: unknown): void {
	if (value && typeof value === 'object' && !Array.isArray(value)) {
		const fields = Object.entries(value as IDataObject);
		if (fields.length === 0) row[column] = null;
		for (const [field, fieldValue] of fields)
			addColumns(row, `${column}${FIELD_SEPARATOR}${field}`, fieldValue);
		return;
	}
	row[column] = cellText(value);
}

/**
 * "Simplify" from node version 1.2: a row a sheet takes as it is. The Prompt values come
 * first, in the Agent's order; a Prompt whose value is an object becomes one column per
 * field (`Total amount › currency`), a list becomes text (one entry per line); then the
 * Run's identity, with its lists (files, failed Prompts) as text too.
 */
export function sheetRowOfRun(run: Run): IDataObject {
	const data = run.data ?? {};
	const names = promptNamesOf(run);
	const row: IDataObject = {};
	for (const name of names) addColumns(row, promptKey(name), data[name]?.value ?? null);
	row.run_id = run.run_id;
	row.status = run.status;
	row.run_url = run.run_url ?? null;
	row.files = cellText(run.files ?? []);
	row.user_defined_id = run.user_defined_id ?? null;
	row.created = normalizeServiceTimestamp(run.created);
	row.completed = normalizeServiceTimestamp(run.completed);
	row.failed_prompts = cellText(names.filter((name) => data[name]?.status === 'failed'));
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
		const result: PromptResult = data[name] ?? {};
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
function sheetRowsOfPromptResults(run: Run): IDataObject[] {
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
			addColumns(target, 'value', row.value ?? null);
			return [withText(target)];
		}
		if (row.value.length === 0) return [withText({ ...base, entry: null, value: null })];
		return row.value.map((entryValue, index) => {
			const target: IDataObject = { ...base, entry: index + 1 };
			addColumns(target, 'value', entryValue ?? null);
			return withText(target);
		});
	});
}

/**
 * The items one Run becomes, per the node's Simplify and Output settings; `sheetReady`
 * (node version 1.2) shapes simplified Runs as sheetRowOfRun and sheetRowsOfPromptResults do.
 */
export function runToItemsJson(
	run: Run,
	simplify: boolean,
	mode: RunOutputMode,
	options: { sheetReady?: boolean } = {},
): IDataObject[] {
	if (mode === 'promptResult')
		return simplify && options.sheetReady
			? sheetRowsOfPromptResults(run)
			: promptResultRows(run, simplify);
	if (!simplify) return [run];
	return [options.sheetReady ? sheetRowOfRun(run) : simplifyRun(run)];
}
