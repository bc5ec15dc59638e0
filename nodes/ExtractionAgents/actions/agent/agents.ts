import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
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
	if (!body || typeof body !== 'object' || body.id === undefined) {
		throw new NodeApiError(
			context.getNode(),
			{ message: `Unexpected answer from the service for Agent ${agentId}` },
			{
				message: `Unexpected answer from the service for Agent ${agentId}`,
				description: 'The response had no Agent in it. Check that the Base URL points at the Extraction Agents service.',
				itemIndex,
			},
		);
	}
	return body;
}

/** GET /agents is paged like the other lists (gaps.md #4); a bare array is tolerated. */
export async function listAgents(
	context: ServiceContext,
	limit: ListLimit,
	itemIndex?: number,
): Promise<Agent[]> {
	return await listAllPages<Agent>(
		context,
		{ path: '/agents', itemIndex, what: 'the Agent list' },
		itemsUnder<Agent>('agents'),
		limit,
	);
}
