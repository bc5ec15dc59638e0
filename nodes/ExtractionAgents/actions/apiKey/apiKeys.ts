import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const apiKeyIdField: INodeProperties = {
	displayName: 'API Key ID',
	name: 'keyId',
	type: 'string',
	default: '',
	required: true,
	description: 'The ID of the API key as listed by Get Many (not the secret itself)',
};

/** API key IDs are strings (client-api.md); blank ones are refused before a request. */
export function apiKeyIdParameter(context: IExecuteFunctions, itemIndex: number): string {
	const id = String(context.getNodeParameter('keyId', itemIndex, '') ?? '').trim();
	if (id === '' || /[\s/?#]/.test(id)) {
		throw new NodeOperationError(
			context.getNode(),
			id === '' ? 'API Key ID is empty' : `"${id.slice(0, 80)}" is not a valid API key ID`,
			{ description: 'Enter the key’s ID as listed by API Key → Get Many (its ID, not its secret).', itemIndex },
		);
	}
	return id;
}
