import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllAndLimit, simplifyAgentFields } from '../../descriptions/parameters';
import { listLimitParameters } from '../../helpers/listLimit';
import { listAgents, simplifiesAgents, simplifyAgent } from '../../helpers/agents';
import type { ItemContext } from '../types';

const properties: INodeProperties[] = [
	...returnAllAndLimit({}),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Name Contains',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Only Agents whose name contains this text (not case-sensitive)',
			},
		],
	},
	...simplifyAgentFields,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const { returnAll, limit } = listLimitParameters(this, itemIndex);
	const simplify = simplifiesAgents(this, itemIndex);
	const nameFilter = String(
		(this.getNodeParameter('filters', itemIndex, {}) as { name?: string }).name ?? '',
	)
		.trim()
		.toLowerCase();
	// The API has no name filter: read every page when filtering, then cut to the limit.
	const agents = await listAgents(
		this,
		{ returnAll: returnAll || nameFilter !== '', limit },
		itemIndex,
	);
	return agents
		.filter(
			(agent) =>
				nameFilter === '' ||
				String(agent.name ?? '')
					.toLowerCase()
					.includes(nameFilter),
		)
		.slice(0, limit)
		.map((agent) => ({ json: simplify ? simplifyAgent(agent) : agent }));
}
