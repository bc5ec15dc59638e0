import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	agentLocator,
	runLocator,
	runOutputField,
	simplifyField,
} from '../../descriptions/parameters';
import { agentIdParameter, runIdParameter } from '../../helpers/ids';
import { fetchRun } from '../../helpers/runs';
import { hasBehaviour } from '../../descriptions/versions';
import { runToItemsJson, type RunOutputMode } from '../../helpers/shapeRun';
import type { ItemContext } from '../types';

const properties: INodeProperties[] = [
	agentLocator,
	runLocator,
	...simplifyField({}),
	runOutputField({}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['run'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const runId = runIdParameter(this, itemIndex);
	const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
	const output = this.getNodeParameter('output', itemIndex) as RunOutputMode;
	const run = await fetchRun(this, agentId, runId, itemIndex);
	return runToItemsJson(run, simplify, output, {
		sheetReady: hasBehaviour(this.getNode(), 'sheetReadyRuns'),
		collisionFree: hasBehaviour(this.getNode(), 'collisionFreeColumns'),
	}).map((json) => ({ json }));
}
