/** The API's path prefix; the credential holds only the service's address. */
export const API_PREFIX = '/api/v1/client';

export class InvalidBaseUrlError extends Error {}

export class InvalidApiKeyError extends Error {}

/**
 * Turns the credential's Base URL into the API root (`https://host/api/v1/client`).
 * Trailing slashes are tolerated, and so is a Base URL that already ends with the API
 * prefix (people paste it from the API docs). Everything else is refused here, before
 * any request: a value without http(s):// (n8n would send it as a relative URL and fail
 * with an unhelpful message), and a value with another path, a query or a fragment
 * (usually a web-app link pasted by mistake; the service would answer 404 to every
 * request, which reads like "Agent not found").
 */
export function apiRootFromBaseUrl(baseUrl: unknown): string {
	const raw = typeof baseUrl === 'string' ? baseUrl.trim() : '';
	if (raw === '') {
		throw new InvalidBaseUrlError(
			'The Base URL in the Extraction Agents credential is empty: enter the service address, e.g. https://extraction.example.com',
		);
	}
	const shown = withoutPassword(raw);
	if (!/^https?:\/\/[^/\s]+/i.test(raw)) {
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential must start with http:// or https:// (e.g. https://${shown.replace(/^[a-z]+:\/*/i, '')})`,
		);
	}
	if (!URL.canParse(raw)) {
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential is not a valid address (e.g. https://extraction.example.com)`,
		);
	}
	const url = new URL(raw);
	if (url.username !== '' || url.password !== '') {
		// The API authenticates with the API key only; a password here would only end up in messages.
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential must not contain a user name or password: enter ${url.origin}`,
		);
	}
	let path = url.pathname.replace(/\/+$/, '');
	if (path.toLowerCase() === API_PREFIX) path = '';
	if (path !== '' || url.search !== '' || url.hash !== '') {
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential must be the service address alone, without a path or query: enter ${url.origin}`,
		);
	}
	return `${url.origin}${API_PREFIX}`;
}

/** The Base URL as messages may show it: a `user:password@` part is replaced by `***@`. */
function withoutPassword(raw: string): string {
	return raw.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/*)[^/?#\s@]*@/i, '$1***@');
}

/**
 * The API key as sent in the Authorization header. Spaces or line breaks around it
 * (a copy-paste artefact) are dropped; an empty key, or one with spaces or line breaks
 * inside, is refused before any request (inside an HTTP header it would fail with a
 * confusing network error). The message never repeats the key.
 */
export function apiKeyFromCredential(apiKey: unknown): string {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (key === '') {
		throw new InvalidApiKeyError(
			'The API key in the Extraction Agents credential is empty: paste the key from the web app',
		);
	}
	if (/\s/.test(key)) {
		throw new InvalidApiKeyError(
			'The API key in the Extraction Agents credential contains spaces or line breaks: paste the key again, as one piece',
		);
	}
	return key;
}
