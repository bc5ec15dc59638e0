import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** API key IDs are strings (docs/design/service-notes.md #2); blank ones are refused before a request. */
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
