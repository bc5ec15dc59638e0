import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { fetchAgent, listAgents } from '../helpers/agents';
import { templateKindOf, templateNameOf } from '../helpers/templates';
import { currentAgentId } from '../helpers/ids';
import { newestRuns } from '../helpers/newestRuns';
import { itemsUnder, listAllPages } from '../transport/pagination';
import type { Run } from '../helpers/runs';
import { requestTimeoutMs } from '../helpers/requestTimeoutOption';

const PICKER_PAGE = 200;

/** The Agent picker: every Agent the key can see, filtered by name or ID. */
export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const agents = await listAgents(this, { returnAll: true, limit: 0 });
	const needle = (filter ?? '').trim().toLowerCase();
	return {
		results: agents
			.filter(
				(agent) =>
					!needle ||
					String(agent.name).toLowerCase().includes(needle) ||
					String(agent.id) === needle,
			)
			.sort((a, b) => String(a.name).localeCompare(String(b.name)))
			.map((agent) => ({ name: `${agent.name} (${agent.id})`, value: String(agent.id) })),
	};
}

/** The API key picker: the caller's keys (only they are visible), filtered by name or ID. */
export async function searchApiKeys(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const keys = await listAllPages<IDataObject>(
		this,
		{
			path: '/api-keys',
			timeoutMs: requestTimeoutMs(this, undefined),
			what: 'the API key list',
			idOf: (key) => key.id,
		},
		itemsUnder('api_keys'),
		{ returnAll: true, limit: Infinity },
	);
	const needle = (filter ?? '').trim().toLowerCase();
	return {
		results: keys
			.map((key) => ({
				name: `${String(key.name ?? 'unnamed')} (${String(key.id)})`,
				value: String(key.id),
			}))
			.filter((option) => !needle || option.name.toLowerCase().includes(needle))
			.sort((a, b) => a.name.localeCompare(b.name)),
	};
}

/**
 * The Run picker: the chosen Agent's Runs, newest first whatever the list's order,
 * PICKER_PAGE at a time (the token is how many were shown already). A whole number
 * is looked up as a Run ID with the list's run_id filter, so any Run can be found.
 */
export async function searchRuns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const agentId = currentAgentId(this);
	if (agentId === undefined) return { results: [] };
	const needle = (filter ?? '').trim().toLowerCase();
	if (/^\d+$/.test(needle)) {
		const runs = await newestRuns(this, { agentId, qs: { run_id: Number(needle) } }, 1);
		return { results: runs.map(runOption) };
	}
	const shown = Math.max(0, Number(paginationToken) || 0);
	const runs = await newestRuns(this, { agentId }, shown + PICKER_PAGE);
	return {
		results: runs
			.slice(shown)
			.map(runOption)
			.filter((option) => !needle || option.name.toLowerCase().includes(needle)),
		paginationToken: runs.length === shown + PICKER_PAGE ? String(shown + PICKER_PAGE) : undefined,
	};
}

function runOption(run: Run) {
	return {
		name: `Run ${run.run_id} · ${run.status} · ${(run.files ?? []).join(', ') || 'no files'}`,
		value: String(run.run_id),
		url: run.run_url,
	};
}

/** The Output Template picker: the chosen Agent's templates by file name, filtered by name or ID. */
export async function searchOutputTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const agentId = currentAgentId(this);
	if (agentId === undefined) return { results: [] };
	const agent = await fetchAgent(this, agentId);
	const needle = (filter ?? '').trim().toLowerCase();
	return {
		results: (agent.output_templates ?? [])
			.map((template) => {
				const kind = templateKindOf(template.filename);
				const name = templateNameOf(template);
				return {
					name: kind === 'word' ? `${name} (Word)` : kind === 'excel' ? `${name} (Excel)` : name,
					value: String(template.id),
				};
			})
			.filter(
				(option) =>
					!needle || option.name.toLowerCase().includes(needle) || option.value === needle,
			),
	};
}
