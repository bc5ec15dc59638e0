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
export function promptNamesOf(run: Run): string[] {
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

/**
 * "One item per Prompt result": rows of prompt, status, value, reasoning, citations.
 * A Run with no Prompt results still gives one row (`prompt: null`), so that no input
 * item disappears from the output.
 */
export function promptResultRows(run: Run, simplify: boolean): IDataObject[] {
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

/** The items one Run becomes, per the node's Simplify and Output settings. */
export function runToItemsJson(run: Run, simplify: boolean, mode: RunOutputMode): IDataObject[] {
	if (mode === 'promptResult') return promptResultRows(run, simplify);
	return [simplify ? simplifyRun(run) : run];
}
