import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { serviceRequest } from '../../transport/serviceRequest';
import { apiKeyIdField } from '../../descriptions/parameters';
import { apiKeyIdParameter } from '../../helpers/apiKeys';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	apiKeyIdField,
	{
		displayName:
			'Deleting the key used by this node’s credential stops the credential from working',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const apiKeyId = apiKeyIdParameter(this, itemIndex);
	// Deleting a key that does not exist also succeeds (docs/design/service-notes.md #29), so a rerun is harmless.
	await serviceRequest(this, {
		method: 'DELETE',
		path: `/api-keys/${encodeURIComponent(apiKeyId)}`,
		subject: { apiKeyId },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	return [{ json: { deleted: true, id: apiKeyId } }];
}
