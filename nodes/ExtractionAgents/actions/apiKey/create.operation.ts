import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { requireFields } from '../../transport/answers';
import { serviceRequest } from '../../transport/serviceRequest';
import { userDateToIso } from '../../helpers/dates';
import type { ItemContext } from '../types';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. n8n production',
	},
	{
		displayName: 'Expires At',
		name: 'expiresAt',
		type: 'dateTime',
		default: '',
		description: 'When the key stops working. Leave empty for a key that never expires.',
	},
	{
		displayName:
			'The new key’s secret (api_key) is in this node’s output once and can never be read again: store it now, e.g. in an n8n credential',
		name: 'secretNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	{ itemIndex }: ItemContext,
): Promise<INodeExecutionData[]> {
	const name = String(this.getNodeParameter('name', itemIndex, '') ?? '').trim();
	if (name === '' || name.length > 255) {
		throw new NodeOperationError(
			this.getNode(),
			name === '' ? 'Name is empty' : `Name is ${name.length} characters long`,
			{
				description:
					'Give the API key a name of 1 to 255 characters, so you can tell it apart later.',
				itemIndex,
			},
		);
	}
	const expiresAt = userDateToIso(
		this,
		this.getNodeParameter('expiresAt', itemIndex, ''),
		'Expires At',
		itemIndex,
	);
	if (expiresAt && Date.parse(expiresAt) <= Date.now()) {
		throw new NodeOperationError(this.getNode(), `Expires At ${expiresAt} is in the past`, {
			description: 'Choose a future date, or leave it empty for a key that never expires.',
			itemIndex,
		});
	}
	const { body } = await serviceRequest<IDataObject>(this, {
		method: 'POST',
		path: '/api-keys',
		// docs/design/service-notes.md #28: the expiry field is expires_at.
		body: { name, ...(expiresAt ? { expires_at: expiresAt } : {}) },
		itemIndex,
		timeoutMs: requestTimeoutMs(this, itemIndex),
	});
	const key = requireFields(this, body, ['id', 'api_key'], 'the new API key', {
		itemIndex,
		afterCreate:
			'The key may have been created without its secret reaching n8n, and the request was not repeated: list your keys (API Key → Get Many) and delete the new one, then run the item again.',
	});
	return [{ json: key }];
}
