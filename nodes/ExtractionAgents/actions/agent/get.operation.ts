import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { agentLocator, simplifyAgentFields } from '../../descriptions/parameters';
import { agentIdParameter } from '../../helpers/ids';
import { fetchAgent, simplifiesAgents, simplifyAgent } from '../../helpers/agents';
import type { ItemContext } from '../types';

const properties: INodeProperties[] = [agentLocator, ...simplifyAgentFields];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const simplify = simplifiesAgents(this, itemIndex);
	const agent = await fetchAgent(this, agentId, itemIndex);
	return [{ json: simplify ? simplifyAgent(agent) : agent }];
}
