/** The API's path prefix; the credential holds only the service's address. */
export const API_PREFIX = '/api/v1/client';

class InvalidBaseUrlError extends Error {}

class InvalidApiKeyError extends Error {}

/**
 * Turns the credential's Base URL into the API root (`https://host/api/v1/client`, or
 * `https://host/prefix/api/v1/client` for a service behind a reverse proxy). Trailing
 * slashes are tolerated, and so is a Base URL that already ends with the API prefix.
 * Refused here, before any request: a value without http(s):// (n8n would send it as a
 * relative URL and fail with an unhelpful message), a user name or password, a query or a
 * fragment, and a web-app link pasted by mistake (see servicePath).
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
	if (url.search !== '' || url.hash !== '') {
		const withoutQuery = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential must not contain a query (?…) or a fragment (#…): enter ${withoutQuery}`,
		);
	}
	const path = servicePath(url, shown);
	return `${url.origin}${path}${API_PREFIX}`;
}

/** Path segments that start a link into the web app (e.g. a Run's run_url), never the service's own path. */
const WEB_APP_SEGMENTS = new Set(['app', 'agents', 'runs']);

/**
 * The path the service lives under: empty for most, a prefix such as `/extraction` behind a
 * reverse proxy. A path that already ends with the API prefix means the same address (people
 * paste it from the API docs); one that goes on after it, or a link into the web app (which
 * would make every request answer 404, read as "Agent not found"), is refused naming what
 * to enter instead.
 */
function servicePath(url: URL, shown: string): string {
	let path = url.pathname.replace(/\/+$/, '');
	const lower = path.toLowerCase();
	const apiAt = lower.indexOf(API_PREFIX);
	if (apiAt >= 0) {
		const before = path.slice(0, apiAt);
		if (lower.length > apiAt + API_PREFIX.length) {
			throw new InvalidBaseUrlError(
				`The Base URL "${shown}" in the Extraction Agents credential goes on after ${API_PREFIX}: enter ${url.origin}${before}`,
			);
		}
		path = before;
	}
	const segments = path.split('/');
	const webAppAt = segments.findIndex((segment) => WEB_APP_SEGMENTS.has(segment.toLowerCase()));
	if (webAppAt >= 0) {
		const prefix = segments.slice(0, webAppAt).join('/');
		throw new InvalidBaseUrlError(
			`The Base URL "${shown}" in the Extraction Agents credential looks like a link into the web app, not the service address: enter the address without /${segments.slice(webAppAt).join('/')}, e.g. ${url.origin}${prefix}`,
		);
	}
	return path;
}

/** The Base URL as messages may show it: a `user:password@` part is replaced by `***@`. */
export function withoutPassword(raw: string): string {
	// Up to the last `@` before the path, as URL parsers read it: a password may hold an `@`.
	return raw.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/*)[^/?#\s]*@/i, '$1***@');
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

/**
 * Whether a request goes to the service's API (the API root itself or a path below it),
 * compared as parsed URLs so that `https://service.example.com.evil.test/…` or a path that
 * merely starts with the same letters does not count.
 */
export function isUnderApiRoot(target: string, apiRoot: string): boolean {
	if (!URL.canParse(target)) return false;
	const url = new URL(target);
	const root = new URL(apiRoot);
	if (url.origin !== root.origin) return false;
	const rootPath = root.pathname.replace(/\/+$/, '');
	return url.pathname === rootPath || url.pathname.startsWith(`${rootPath}/`);
}
