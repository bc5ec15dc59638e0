import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { listAgents } from './actions/agent/agents';
import { listSearch } from './methods';
import { agentLocator, simplifyField } from './shared/descriptions';
import { parseResourceId } from './shared/ids';
import { requestOptionsField } from './shared/requestOptions';
import { fetchRun, isRunFinished, type Run } from './shared/runs';
import { simplifyRun } from './shared/shapeRun';
import { serviceTimestampMillis } from './shared/timestamps';
import {
	allRunsOf,
	initialAgentState,
	runsCompletedSince,
	type AgentPollState,
} from './trigger/runsCompletedSince';

interface TriggerState extends IDataObject {
	version?: number;
	/** When the trigger was first activated (n8n's clock): the start for Agents seen later. */
	activatedAt?: number;
	agents?: Record<string, AgentPollState>;
}

const STATE_VERSION = 1;

export class ExtractionAgentsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Extraction Agents Trigger',
		name: 'extractionAgentsTrigger',
		icon: { light: 'file:icons/extractionAgents.svg', dark: 'file:icons/extractionAgents.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ "Runs finished: " + ($parameter["agentScope"] === "all" ? "all Agents" : "one Agent") }}',
		description: 'Starts the workflow when a Run of an Extraction Agent finishes',
		defaults: { name: 'Extraction Agents Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: [
			{
				displayName: 'Watch',
				name: 'agentScope',
				type: 'options',
				default: 'one',
				options: [
					{ name: 'One Agent', value: 'one' },
					{ name: 'All Agents', value: 'all', description: 'Every Agent the API key can see, including ones added later' },
				],
			},
			{ ...agentLocator, displayOptions: { show: { agentScope: ['one'] } } },
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: ['success', 'failed'],
				options: [
					{ name: 'Success', value: 'success' },
					{ name: 'Failed', value: 'failed' },
				],
				description: 'Fire for Runs that finished with these statuses',
			},
			simplifyField({}),
			{
				displayName: 'Include Full Run',
				name: 'includeFullRun',
				type: 'boolean',
				default: true,
				description:
					'Whether to read each finished Run once more for the details only the single-Run read has: credits used, per-Prompt timings, citation regions and web citations (one extra request per Run)',
			},
			requestOptionsField,
		],
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		if (this.getMode() === 'manual') return await pollForFinishedRuns.call(this);
		// n8n starts a poll at every poll time even while the previous one still runs (a
		// slow service, many pending Runs). Both would start from the same saved state and
		// emit the same Runs, so a poll that finds another one running skips its turn.
		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		if (pollsInProgress.has(key)) return null;
		pollsInProgress.add(key);
		try {
			return await pollForFinishedRuns.call(this);
		} finally {
			pollsInProgress.delete(key);
		}
	}
}

/** Trigger polls under way in this n8n process (polls run on the main instance only). */
const pollsInProgress = new Set<string>();

async function pollForFinishedRuns(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const statuses = this.getNodeParameter('statuses', []) as string[];
	const simplify = this.getNodeParameter('simplify', true) as boolean;
	const includeFullRun = this.getNodeParameter('includeFullRun', true) as boolean;
	if (statuses.length === 0) {
		throw new NodeOperationError(this.getNode(), 'No status selected', {
			description: 'Choose Success, Failed or both under Statuses.',
		});
	}
	const scope = this.getNodeParameter('agentScope', 'one') as string;
	const agentIds = await watchedAgentIds(this, scope);

	if (this.getMode() === 'manual') {
		const run = await newestFinishedRun(this, agentIds, statuses);
		return [[{ json: await shape(this, run, simplify, includeFullRun) }]];
	}

	const stored = this.getWorkflowStaticData('node') as TriggerState;
	const firstActivation = stored.version !== STATE_VERSION || !stored.agents;
	const activatedAt = firstActivation ? Date.now() : (stored.activatedAt as number);
	const previousAgents = firstActivation ? {} : (stored.agents as Record<string, AgentPollState>);
	const nextAgents: Record<string, AgentPollState> = {};
	const finished: Run[] = [];

	// All requests first; the state is assigned only at the end, so a poll that fails
	// half-way leaves it as it was and the next poll emits what this one would have.
	for (const agentId of agentIds) {
		const previous = previousAgents[String(agentId)];
		if (!previous) {
			const runs = await allRunsOf(this, agentId);
			if (firstActivation || scope === 'one') {
				// Activation: the Agent's history is the past; Runs still running are pending.
				// The watermark comes from the service's own timestamps (no clock skew).
				// The same when the user points an active trigger at another Agent (n8n keeps
				// the static data): that Agent's past is not news, however old the activation.
				nextAgents[String(agentId)] = initialAgentState(runs, 0);
				continue;
			}
			// An Agent that appeared after activation ("All Agents"): its Runs created
			// since activation are new, older ones still running are pending.
			const before = runs.filter((run) => (serviceTimestampMillis(run.created) ?? 0) < activatedAt);
			const result = await runsCompletedSince(this, agentId, initialAgentState(before, activatedAt));
			nextAgents[String(agentId)] = result.state;
			finished.push(...result.finished);
			continue;
		}
		const result = await runsCompletedSince(this, agentId, previous);
		nextAgents[String(agentId)] = result.state;
		finished.push(...result.finished);
	}

	const items: INodeExecutionData[] = [];
	for (const run of finished.filter((candidate) => statuses.includes(String(candidate.status)))) {
		items.push({ json: await shape(this, run, simplify, includeFullRun) });
	}

	stored.version = STATE_VERSION;
	stored.activatedAt = activatedAt;
	stored.agents = nextAgents;
	return items.length > 0 ? [items] : null;
}

async function watchedAgentIds(context: IPollFunctions, scope: string): Promise<number[]> {
	if (scope === 'all') {
		const agents = await listAgents(context, { returnAll: true, limit: 0 });
		return agents.map((agent) => Number(agent.id));
	}
	return [
		parseResourceId(
			context.getNode(),
			context.getNodeParameter('agent', '', { extractValue: true }) as string,
			'Agent',
		),
	];
}

async function shape(context: IPollFunctions, run: Run, simplify: boolean, includeFullRun: boolean): Promise<IDataObject> {
	const full = includeFullRun ? await fetchRun(context, Number(run.agent_id), Number(run.run_id)) : run;
	return simplify ? simplifyRun(full) : full;
}

/** "Fetch Test Event": the newest finished Run, without touching the trigger's state. */
async function newestFinishedRun(context: IPollFunctions, agentIds: number[], statuses: string[]): Promise<Run> {
	let newest: Run | undefined;
	for (const agentId of agentIds) {
		for (const run of await allRunsOf(context, agentId)) {
			if (!isRunFinished(run) || !statuses.includes(String(run.status))) continue;
			const finishedAt = serviceTimestampMillis(run.completed) ?? serviceTimestampMillis(run.created) ?? 0;
			const newestAt = newest ? (serviceTimestampMillis(newest.completed) ?? serviceTimestampMillis(newest.created) ?? 0) : -1;
			if (finishedAt > newestAt) newest = run;
		}
	}
	if (!newest) {
		throw new NodeOperationError(context.getNode(), 'No finished Run yet', {
			description: `${agentIds.length === 1 ? `Agent ${agentIds[0]} has` : 'The watched Agents have'} no Run that finished with status ${statuses.join(' or ')}. Upload a file (Extraction Agents → Run → Create), wait for it to finish, then fetch again.`,
		});
	}
	return newest;
}
