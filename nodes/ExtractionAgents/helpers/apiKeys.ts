import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The API key picker of Get and Delete. Workflows saved before it was a picker hold the
 * ID as plain text; apiKeyIdParameter reads both.
 */
export const apiKeyIdField: INodeProperties = {
	displayName: 'API Key',
	name: 'keyId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'One of your API keys (not its secret)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an API key...',
			typeOptions: { searchListMethod: 'searchApiKeys', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. ak_2x9f…, as listed by Get Many',
		},
	],
};

/** API key IDs are strings (docs/service-notes.md #2); blank ones are refused before a request. */
export function apiKeyIdParameter(context: IExecuteFunctions, itemIndex: number): string {
	const raw = context.getNodeParameter('keyId', itemIndex, '', { extractValue: true }) as unknown;
	const value = raw !== null && typeof raw === 'object' ? (raw as { value?: unknown }).value : raw;
	const id = String(value ?? '').trim();
	if (id === '' || /[\s/?#]/.test(id)) {
		throw new NodeOperationError(
			context.getNode(),
			id === '' ? 'API Key ID is empty' : `"${id.slice(0, 80)}" is not a valid API key ID`,
			{
				description:
					'Choose the key from the list, or enter its ID as listed by API Key → Get Many (its ID, not its secret).',
				itemIndex,
			},
		);
	}
	return id;
}
