import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import {
	apiKeyFromCredential,
	apiRootFromBaseUrl,
	isUnderApiRoot,
} from '../nodes/ExtractionAgents/transport/baseUrl';

export class ExtractionAgentsApi implements ICredentialType {
	name = 'extractionAgentsApi';

	displayName = 'Extraction Agents API';

	icon: Icon = {
		light: 'file:../nodes/ExtractionAgents/icons/extractionAgents.svg',
		dark: 'file:../nodes/ExtractionAgents/icons/extractionAgents.dark.svg',
	};

	documentationUrl = 'https://github.com/extraction-agents/n8n-nodes-extraction-agents#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An API key from the Extraction Agents web app (Settings → API keys), or one created with the node’s API Key → Create operation',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://extraction.example.com',
			description:
				'The web app’s address as your browser shows it, without /app/… (e.g. https://extraction.example.com), plus the path the service sits under, if any',
		},
	];

	// A function rather than a generic header template so that a Base URL without
	// http(s):// or with a path, and an empty or broken API key, are refused with a
	// message that says what to fix, in the credential test as well as in every node
	// request, before anything is sent.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const apiRoot = apiRootFromBaseUrl(credentials.baseUrl);
		// The node also downloads files from links the workflow gives (Run → Create, Links):
		// the key goes only to the service's API, never to another address.
		const target = `${requestOptions.baseURL ?? ''}${requestOptions.url ?? ''}`;
		if (!isUnderApiRoot(target, apiRoot)) return requestOptions;
		const apiKey = apiKeyFromCredential(credentials.apiKey);
		return {
			...requestOptions,
			headers: {
				...(requestOptions.headers ?? {}),
				Authorization: `Bearer ${apiKey}`,
			},
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ $credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/api\\/v1\\/client$/i, "") + "/api/v1/client" }}',
			url: '/api-keys',
			method: 'GET',
			qs: { page_number: 0, page_size: 1 },
			timeout: 60_000,
			// The nodes never follow redirects, so the test must not either: a redirect
			// that n8n followed would show green for a Base URL every node request fails on.
			disableFollowRedirect: true,
		},
		rules: [
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The service redirects this Base URL to another address (${value}): enter the address it redirects to as the Base URL, usually the https:// one, e.g. https://extraction.example.com`,
				},
			})),
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was rejected: check that it is copied whole and has not expired or been deleted',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Extraction Agents API at this Base URL: enter the service address only, e.g. https://extraction.example.com',
				},
			},
		],
	};
}
