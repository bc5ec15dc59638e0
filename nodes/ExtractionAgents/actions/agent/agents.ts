import type { IDataObject } from 'n8n-workflow';
import { requireFields } from '../../shared/answers';
import { itemsUnder, listAllPages, type ListLimit } from '../../shared/pagination';
import { serviceRequest, type ServiceContext } from '../../shared/transport';

export interface Agent extends IDataObject {
	id: number;
	name: string;
	output_templates?: Array<{ id: number; filename: string }>;
}

export async function fetchAgent(context: ServiceContext, agentId: number, itemIndex?: number): Promise<Agent> {
	const { body } = await serviceRequest<Agent>(context, {
		method: 'GET',
		path: `/agents/${agentId}`,
		subject: { agentId },
		itemIndex,
	});
	return requireFields(context, body, ['id'], `Agent ${agentId}`, { itemIndex }) as Agent;
}

/** GET /agents is paged like the other lists (gaps.md #4); a bare array is tolerated. */
export async function listAgents(
	context: ServiceContext,
	limit: ListLimit,
	itemIndex?: number,
): Promise<Agent[]> {
	return await listAllPages<Agent>(
		context,
		{ path: '/agents', itemIndex, what: 'the Agent list', idOf: (agent) => agent.id },
		itemsUnder<Agent>('agents'),
		limit,
	);
}
