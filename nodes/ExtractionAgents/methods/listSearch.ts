import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { listAgents } from '../actions/agent/agents';
import { currentAgentId } from '../shared/ids';
import { listAllPages } from '../shared/pagination';
import { flattenRunList, type Run } from '../shared/runs';
import { serviceTimestampMillis } from '../shared/timestamps';

const PICKER_PAGE = 200;

/** The Agent picker: every Agent the key can see, filtered by name or ID. */
export async function searchAgents(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const agents = await listAgents(this, { returnAll: true, limit: 0 });
	const needle = (filter ?? '').trim().toLowerCase();
	return {
		results: agents
			.filter((agent) => !needle || String(agent.name).toLowerCase().includes(needle) || String(agent.id) === needle)
			.sort((a, b) => String(a.name).localeCompare(String(b.name)))
			.map((agent) => ({ name: `${agent.name} (${agent.id})`, value: String(agent.id) })),
	};
}

/** The Run picker: the chosen Agent's most recent Runs, newest first. */
export async function searchRuns(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const agentId = currentAgentId(this);
	if (agentId === undefined) return { results: [] };
	const needle = (filter ?? '').trim().toLowerCase();
	const runs = await listAllPages<Run>(
		this,
		{ path: `/agents/${agentId}/runs`, subject: { agentId }, what: `the Runs of Agent ${agentId}` },
		flattenRunList,
		{ returnAll: false, limit: PICKER_PAGE },
	);
	return {
		results: runs
			.sort((a, b) => (serviceTimestampMillis(b.created) ?? 0) - (serviceTimestampMillis(a.created) ?? 0))
			.map((run) => ({
				name: `Run ${run.run_id} · ${run.status} · ${(run.files ?? []).join(', ') || 'no files'}`,
				value: String(run.run_id),
				url: run.run_url,
			}))
			.filter((option) => !needle || option.name.toLowerCase().includes(needle)),
	};
}
