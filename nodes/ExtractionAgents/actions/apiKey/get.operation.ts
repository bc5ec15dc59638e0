import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requireFields } from '../../transport/answers';
import { serviceRequest } from '../../transport/serviceRequest';
import { apiKeyIdField } from '../../descriptions/parameters';
import { apiKeyIdParameter } from '../../helpers/apiKeys';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [apiKeyIdField];

export const description = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const apiKeyId = apiKeyIdParameter(this, itemIndex);
	const { body } = await serviceRequest<IDataObject>(this, {
		method: 'GET',
		path: `/api-keys/${encodeURIComponent(apiKeyId)}`,
		subject: { apiKeyId },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	return [{ json: requireFields(this, body, ['id'], `API key "${apiKeyId}"`, { itemIndex }) }];
}
