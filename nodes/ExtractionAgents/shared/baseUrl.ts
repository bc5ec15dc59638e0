/** The API's path prefix; the credential holds only the service's address. */
export const API_PREFIX = '/api/v1/client';

export class InvalidBaseUrlError extends Error {}

/**
 * Turns the credential's Base URL into the API root (`https://host/api/v1/client`).
 * Trailing slashes are tolerated, and so is a Base URL that already ends with the API
 * prefix (people paste it from the API docs). A value without http(s):// is refused:
 * n8n would otherwise send it as a relative URL and fail with an unhelpful message.
 */
export function apiRootFromBaseUrl(baseUrl: unknown): string {
	const raw = typeof baseUrl === 'string' ? baseUrl.trim() : '';
	if (raw === '') {
		throw new InvalidBaseUrlError(
			'The Base URL in the Extraction Agents credential is empty: enter the service address, e.g. https://extraction.example.com',
		);
	}
	if (!/^https?:\/\/[^/\s]+/i.test(raw)) {
		throw new InvalidBaseUrlError(
			`The Base URL "${raw}" in the Extraction Agents credential must start with http:// or https:// (e.g. https://${raw.replace(/^[a-z]+:\/*/i, '')})`,
		);
	}
	let root = raw.replace(/\/+$/, '');
	if (root.toLowerCase().endsWith(API_PREFIX)) root = root.slice(0, -API_PREFIX.length);
	return `${root}${API_PREFIX}`;
}
