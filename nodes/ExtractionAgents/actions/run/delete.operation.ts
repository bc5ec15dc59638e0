import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { agentLocator, runLocator } from '../../descriptions/parameters';
import { agentIdParameter, runIdParameter } from '../../helpers/ids';
import { serviceRequest } from '../../transport/serviceRequest';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	agentLocator,
	runLocator,
	{
		displayName: 'Deleting a Run also deletes its uploaded files on the service',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['run'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const agentId = agentIdParameter(this, itemIndex);
	const runId = runIdParameter(this, itemIndex);
	await serviceRequest(this, {
		method: 'DELETE',
		path: `/agents/${agentId}/runs/${runId}`,
		subject: { agentId, runId },
		// DELETE is retried after a 5xx, a timeout or a dropped connection.
		missingOnRetryMeansDone: true,
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	return [{ json: { deleted: true, run_id: runId, agent_id: agentId } }];
}
