import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { requireFields } from '../transport/answers';
import { itemsUnder, listAllPages, type ListLimit } from '../transport/pagination';
import { serviceRequest } from '../transport/serviceRequest';
import type { ServiceContext } from '../transport/types';
import { hasBehaviour } from '../descriptions/versions';
import { requestTimeoutMs } from './requestTimeoutOption';

export interface Agent extends IDataObject {
	id: number;
	name: string;
	output_templates?: Array<{ id: number; filename: string }>;
}

/** Whether Agent → Get / Get Many simplify: the parameter, else its default for the node's version. */
export function simplifiesAgents(context: IExecuteFunctions, itemIndex: number): boolean {
	return context.getNodeParameter(
		'simplify',
		itemIndex,
		hasBehaviour(context.getNode(), 'agentSimplifyByDefault'),
	) as boolean;
}

/** "Simplify": what a person needs to pick or report on an Agent, one line per list. */
export function simplifyAgent(agent: Agent): IDataObject {
	const names = (list: unknown, key: string) =>
		Array.isArray(list) ? list.map((entry) => (entry as IDataObject | null)?.[key] ?? null) : [];
	return {
		id: agent.id,
		name: agent.name ?? null,
		objective: agent.objective ?? null,
		n_runs: agent.n_runs ?? null,
		prompts: names(agent.prompts, 'name'),
		output_templates: names(agent.output_templates, 'filename'),
		metadata: agent.metadata ?? {},
	};
}

export async function fetchAgent(
	context: ServiceContext,
	agentId: number,
	itemIndex?: number,
): Promise<Agent> {
	const { body } = await serviceRequest<Agent>(context, {
		method: 'GET',
		path: `/agents/${agentId}`,
		subject: { agentId },
		itemIndex,
		timeoutMs: requestTimeoutMs(context, itemIndex),
	});
	return requireFields(context, body, ['id'], `Agent ${agentId}`, { itemIndex }) as Agent;
}

/** GET /agents is paged like the other lists (docs/design/service-notes.md #11); a bare array is tolerated. */
export async function listAgents(
	context: ServiceContext,
	limit: ListLimit,
	itemIndex?: number,
): Promise<Agent[]> {
	return await listAllPages<Agent>(
		context,
		{
			path: '/agents',
			itemIndex,
			timeoutMs: requestTimeoutMs(context, itemIndex),
			what: 'the Agent list',
			idOf: (agent) => agent.id,
		},
		itemsUnder<Agent>('agents'),
		limit,
	);
}
