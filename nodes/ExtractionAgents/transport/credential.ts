import { NodeOperationError } from 'n8n-workflow';
import { apiKeyFromCredential, apiRootFromBaseUrl } from './baseUrl';
import type { ServiceContext } from './types';

export const CREDENTIAL_TYPE = 'extractionAgentsApi';

/**
 * The API root from the credential, which is checked here so that a Base URL or an
 * API key that cannot work is refused before any request (the credential's own
 * authenticate checks the same for n8n's credential test).
 */
export async function resolveApiRoot(context: ServiceContext, itemIndex?: number): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	let apiRoot: string;
	try {
		apiRoot = apiRootFromBaseUrl(credentials.baseUrl);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message, {
			description: 'Open the Extraction Agents credential and correct its Base URL.',
			itemIndex,
		});
	}
	try {
		apiKeyFromCredential(credentials.apiKey);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message, {
			description:
				'Open the Extraction Agents credential and paste the API key again (Settings → API keys in the web app).',
			itemIndex,
		});
	}
	return apiRoot;
}
