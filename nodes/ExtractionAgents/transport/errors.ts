import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { DateTime } from 'luxon';
import { API_PREFIX } from './baseUrl';
import { MAX_FILE_BYTES, MAX_FILES_PER_RUN, formatBytes } from './serviceLimits';
import { describeSubject, pickedAgentName, type RequestSubject } from './subjects';

interface FailureBase {
	method: string;
	/** Retries already made (attempts after the first). */
	retries: number;
	/** Whether the transport may repeat this request (retry.ts). */
	idempotent: boolean;
}

/**
 * A response the service refused, a 2xx whose body is not the JSON it should be
 * (cut off, or a proxy's HTML page), or a request that never got a response.
 */
export type RequestFailure =
	| (FailureBase & {
			kind: 'http';
			status: number;
			body: unknown;
			/** A 429 whose wait is longer than the nodes wait (or than the caller's own limit). */
			rateLimitedUntilMs?: number;
	  })
	| (FailureBase & { kind: 'malformed'; status: number; body: unknown })
	| (FailureBase & { kind: 'redirect'; status: number; location?: string })
	| (FailureBase & {
			kind: 'network';
			code: string;
			timeoutMs?: number;
			/** A timed-out upload whose every byte the service had taken (transport/uploadWatch.ts). */
			uploadComplete?: boolean;
	  });

const MAX_DETAIL_LINES = 20;

/**
 * FastAPI's 422 body (`detail` as a list of `{loc, msg, input}`) becomes one line per
 * problem, e.g. `files.3: File too large (input: "x.pdf")`. Other statuses carry
 * `detail` as a string (docs/design/service-notes.md #5), but an object, a list or no body at all is
 * tolerated too.
 */
function serviceDetail(body: unknown): string {
	let parsed = body;
	if (Buffer.isBuffer(parsed)) parsed = parsed.toString('utf8');
	if (typeof parsed === 'string') {
		const text = parsed;
		try {
			parsed = JSON.parse(text);
		} catch {
			return (textOfWebPage(text) ?? text.trim()).slice(0, 300);
		}
	}
	if (!parsed || typeof parsed !== 'object') return '';
	const detail =
		(parsed as { detail?: unknown }).detail ?? (parsed as { message?: unknown }).message;
	if (typeof detail === 'string') return detail;
	if (Array.isArray(detail)) {
		const lines = detail.slice(0, MAX_DETAIL_LINES).map(validationLine);
		if (detail.length > MAX_DETAIL_LINES)
			lines.push(`… and ${detail.length - MAX_DETAIL_LINES} more`);
		return lines.join('\n');
	}
	if (detail && typeof detail === 'object') return JSON.stringify(detail);
	return '';
}

const HTML_ENTITIES: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	'#39': "'",
	nbsp: ' ',
};

/**
 * The words of an HTML page (a proxy's error page, a maintenance page): its title, then
 * its text without tags. Undefined when the text is not HTML.
 */
function textOfWebPage(text: string): string | undefined {
	if (!/^\s*<(!doctype|html|head|body)\b/i.test(text)) return undefined;
	const words = (html: string) =>
		html
			.replace(/<[^>]*>/g, ' ')
			.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_entity, name: string) => HTML_ENTITIES[name])
			.replace(/[<>]/g, ' ')
			.replace(/\s+/g, ' ')
			.trim();
	const title = words(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? '');
	const body = words(text.replace(/<(head|script|style)\b[\s\S]*?<\/\1>/gi, ' '));
	if (!title) return body;
	return body === '' || body.startsWith(title) ? body || title : `${title}: ${body}`;
}

function validationLine(entry: unknown): string {
	if (!entry || typeof entry !== 'object') return String(entry);
	const { loc, msg, input } = entry as { loc?: unknown; msg?: unknown; input?: unknown };
	const where = Array.isArray(loc)
		? loc
				.filter((part, index) => !(index === 0 && ['body', 'query', 'path'].includes(String(part))))
				.join('.')
		: '';
	let line = `${where ? `${where}: ` : ''}${typeof msg === 'string' ? msg : 'invalid value'}`;
	if (input !== undefined && (typeof input !== 'object' || input === null)) {
		const shown = String(input);
		line += ` (input: ${JSON.stringify(shown.length > 80 ? `${shown.slice(0, 77)}...` : shown)})`;
	}
	return line;
}

interface MappedError {
	message: string;
	description: string;
}

/** The service's names of request fields, as the node's fields are labelled. */
const FIELD_LABELS: Record<string, string> = {
	page_size: 'Limit',
	page_number: 'Page',
	files: 'Files',
	user_defined_id: 'User-Defined ID',
	due_date: 'Due Date',
	metadata: 'Metadata',
	name: 'Name',
	run_id: 'Run ID',
	status: 'Status',
	workspace_id: 'Workspace ID',
	user_id: 'User',
	format: 'Format',
	start_date: 'Start Date',
	end_date: 'End Date',
	agent_id: 'Agent',
};

/**
 * A 422 names the node's fields, not the API's: `page_size` is Limit, `files.3` is file 4 of
 * Files. One problem is the message itself; several are listed in the description.
 */
function refusedValues(detail: string): MappedError {
	const lines = detail
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) =>
			line.replace(
				/^([a-z_]+)(?:\.(\d+))?(\.[\w.]+)?: /,
				(whole, field: string, index?: string) => {
					const label = FIELD_LABELS[field];
					if (!label) return whole;
					return index !== undefined ? `${label} (file ${Number(index) + 1}): ` : `${label}: `;
				},
			),
		);
	if (lines.length === 0)
		return {
			message: 'The Extraction Agents service refused a value the node sent (422)',
			description: 'The service gave no details. Check the node’s fields.',
		};
	if (lines.length === 1)
		return {
			message: `The Extraction Agents service refused a value: ${lines[0]} (422)`,
			description: 'Change that field of the node and run it again.',
		};
	return {
		message: `The Extraction Agents service refused ${lines.length} values (422)`,
		description: `Change these fields of the node and run it again: ${lines.join('; ')}`,
	};
}

/**
 * A moment as people read it in the workflow's time zone (the one its Schedule Triggers
 * use): `2026-11-24 14:05:30 (Europe/Berlin)`.
 */
function localTime(ms: number, timeZone: string | undefined): string {
	const time = DateTime.fromMillis(Math.ceil(ms / 1000) * 1000, { zone: timeZone ?? 'UTC' });
	const shown = time.isValid ? time : DateTime.fromMillis(ms, { zone: 'UTC' });
	return `${shown.toFormat('yyyy-MM-dd HH:mm:ss')} (${shown.zoneName})`;
}

/**
 * A request that creates something (a Run, an API key, an Agent's copy) is never repeated
 * (retry.ts): the user checks whether it was made before running the item again.
 */
const NOT_REPEATED =
	'It may have been done anyway, so the node did not try again (that could make it twice). Look in the web app (for a new Run: the Agent’s Runs) before you run this item again.';

function mapHttpFailure(
	failure: Extract<RequestFailure, { kind: 'http' }>,
	subject: RequestSubject | undefined,
	timeZone: string | undefined,
	agentName: string | undefined,
): MappedError {
	const detail = serviceDetail(failure.body);
	const said = detail ? `The service said: ${detail}` : 'The service gave no details.';
	const name = describeSubject(subject, agentName);
	switch (failure.status) {
		case 400:
			return {
				message: 'The Extraction Agents service could not read what the node sent (400)',
				description: `Look for unusual characters in the node's fields (such as a line break in a name), remove them and run the item again. ${said}`,
			};
		case 401:
			return {
				message: 'The API key was rejected (401)',
				description: `Check the API key in the Extraction Agents credential: it may be mistyped, expired or deleted. ${said}`,
			};
		case 403:
			if (subject?.accessLogs) {
				return {
					message: 'Access logs need the Enterprise plan',
					description: `The account of this API key is not on the Enterprise plan, so the access-log query is not available to it. ${said}`,
				};
			}
			return {
				message: subject ? `Not allowed to access ${name} (403)` : 'Not allowed (403)',
				description: `The user of the credential's API key lacks permission for this: ask an admin of the workspace, or use a key of a user who has it. ${said}`,
			};
		case 404:
			if (!subject)
				return {
					message: 'The Extraction Agents service has nothing at this address (404)',
					description: `Check the Base URL in the credential: it must be the service's address. ${said}`,
				};
			return {
				message: `${name} not found`,
				description: `It may have been deleted, or the credential's API key cannot see it (Agents live in workspaces; API keys are visible only to the user who created them). Pick it again From List. ${said}`,
			};
		case 409:
		case 425:
			// Only a Run's templated output is refused for being unfinished.
			if (subject?.runId === undefined) return unexpectedStatus(failure.status, said);
			return {
				message: `${name} is not finished yet`,
				description: `The Run is still running. Try again once it has finished, or keep Wait for Completion on in Extract Data From Files. ${said}`,
			};
		case 413:
			return {
				message: 'The upload is larger than the service accepts (413)',
				description: `Send fewer or smaller files per Run (at most ${MAX_FILES_PER_RUN} files, each at most ${formatBytes(MAX_FILE_BYTES)}). ${said}`,
			};
		case 422:
			return refusedValues(detail);
		case 429:
			if (failure.rateLimitedUntilMs !== undefined) {
				const until = localTime(failure.rateLimitedUntilMs, timeZone);
				return {
					message: `The Extraction Agents service got too many requests from this API key and asked the node to wait until ${until} (429)`,
					description: `That is longer than this item can wait, so it was not sent again. Run the workflow again after ${until}, or send fewer items at once (Options → Items in Parallel). ${said}`,
				};
			}
			return {
				message:
					'The Extraction Agents service got too many requests from this API key and asked the node to slow down (429)',
				description: `The node waited as asked and tried again ${failure.retries} time(s). Send fewer items at once (Options → Items in Parallel), or run the workflow again in a minute. ${said}`,
			};
		default:
			if (failure.status >= 500) {
				return {
					message: `The Extraction Agents service failed (${failure.status})`,
					description: !failure.idempotent
						? `${NOT_REPEATED} ${said}`
						: failure.retries > 0
							? `The node tried ${failure.retries} more time(s). Try again in a few minutes. ${said}`
							: `The node did not try again: this error is inside the service. Try again later; if it keeps happening, contact the service's support. ${said}`,
				};
			}
			return unexpectedStatus(failure.status, said);
	}
}

function unexpectedStatus(status: number, said: string): MappedError {
	return {
		message: `The Extraction Agents service answered with an unexpected error (${status})`,
		description: `${said} Try again; if it keeps happening, send this message to the service's support.`,
	};
}

/** What the transport did about a failure it cannot see the outcome of. */
function repeatNote(failure: RequestFailure): string {
	if (!failure.idempotent) return ` ${NOT_REPEATED}`;
	return failure.retries > 0 ? ` The node tried ${failure.retries} more time(s).` : '';
}

/** Values of secret-looking JSON fields (a new API key's `api_key`, tokens) in a cut-off answer. */
const SECRET_FIELDS =
	/("(?:api_key|[a-z_]*secret[a-z_]*|[a-z_]*token[a-z_]*|authorization|password)"\s*:\s*")[^"]*("?)/gi;

/** A 2xx whose body is not JSON: cut off mid-way, or a proxy's or maintenance page. */
function mapMalformedFailure(failure: Extract<RequestFailure, { kind: 'malformed' }>): MappedError {
	const raw = Buffer.isBuffer(failure.body)
		? failure.body.toString('utf8')
		: String(failure.body ?? '');
	const page = textOfWebPage(raw);
	const text = (page ?? raw).replace(SECRET_FIELDS, '$1[hidden]$2').replace(/\s+/g, ' ').trim();
	const shown = text.length > 120 ? `${text.slice(0, 117)}...` : text;
	return {
		message: 'The Extraction Agents service sent an answer the node cannot read',
		description: `The answer (${failure.status}) was cut off on the way, or did not come from the Extraction Agents service.${repeatNote(failure)} If this keeps happening, check that the Base URL in the credential is the service's address. ${page !== undefined ? 'The answer is a web page' : 'The answer starts with'}: ${shown}`,
	};
}

/**
 * A 3xx: the nodes never follow redirects (an upload would be buffered and sent twice,
 * and a Delete or a download answered by a redirect would pass for done). The usual
 * cause is a Base URL typed as http:// where the service redirects to https://.
 */
function mapRedirectFailure(failure: Extract<RequestFailure, { kind: 'redirect' }>): MappedError {
	if (!failure.location) {
		return {
			message: `The service answered with a redirect (${failure.status}) without saying where to`,
			description:
				'Nothing was done at this address. Check the Base URL in the Extraction Agents credential: it must be the address the service answers on itself, e.g. https://extraction.example.com.',
		};
	}
	const target = new URL(failure.location);
	const sameApi = target.pathname.toLowerCase().startsWith(API_PREFIX);
	return {
		message: `The service redirected the request to ${failure.location} (${failure.status})`,
		description: sameApi
			? `The node does not follow redirects, so nothing was done. The service lives at another address (often https:// where the Base URL says http://): open the Extraction Agents credential and enter ${target.origin} as the Base URL.`
			: `The node does not follow redirects, so nothing was done. That address is not the service's API (perhaps a login page or a proxy): check the Base URL in the Extraction Agents credential, e.g. https://extraction.example.com.`,
	};
}

/** The server name of an address, for a message ("extraction.example.com"). */
function hostOf(address: string): string {
	try {
		return new URL(address).hostname;
	} catch {
		return address;
	}
}

/** The server name and port of an address ("127.0.0.1:9"), the port only when it is written. */
function hostAndPortOf(address: string): string {
	try {
		return new URL(address).host;
	} catch {
		return address;
	}
}

function mapNetworkFailure(
	failure: Extract<RequestFailure, { kind: 'network' }>,
	apiRoot: string,
): MappedError {
	const notRepeated = repeatNote(failure);
	// The Base URL as the credential holds it, not the API path the node adds to it.
	const baseUrl = apiRoot.endsWith(API_PREFIX) ? apiRoot.slice(0, -API_PREFIX.length) : apiRoot;
	switch (failure.code) {
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return {
				message: `Could not reach the Extraction Agents service at ${baseUrl}`,
				description: `No server named "${hostOf(apiRoot)}" could be found. Check the Base URL in the Extraction Agents credential for a typo${failure.code === 'EAI_AGAIN' ? ', and that this n8n can reach the internet (the name could not be looked up just now)' : ''}. (${failure.code})`,
			};
		case 'ECONNREFUSED':
			return {
				message: `Could not reach the Extraction Agents service at ${baseUrl}`,
				description: `Nothing answered at ${hostAndPortOf(apiRoot)}. Check the Base URL in the Extraction Agents credential (its address and port), and that the service is running; then try again. (${failure.code})`,
			};
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return {
				message: `The Extraction Agents service did not answer within ${Math.round((failure.timeoutMs ?? 0) / 1000)} s`,
				description: `${failure.uploadComplete ? 'It had the whole upload but gave no answer in time.' : 'The request timed out.'}${notRepeated} If this keeps happening, raise Options → Request Timeout (Seconds).`,
			};
		default:
			return {
				message: 'The connection to the Extraction Agents service was interrupted',
				description: `The network connection broke before the answer came.${notRepeated} If it keeps happening, ask whoever runs your n8n to check its network or proxy. (${failure.code})`,
			};
	}
}

/**
 * The one place a failed request becomes a NodeApiError. The error is built from a
 * plain object holding only the status and the service's message: never from the
 * HTTP client's error, which carries the request headers and with them the API key.
 */
export function toNodeApiError(
	node: INode,
	failure: RequestFailure,
	subject: RequestSubject | undefined,
	apiRoot: string,
	itemIndex?: number,
	timeZone?: string,
): NodeApiError {
	const mapped =
		failure.kind === 'http'
			? mapHttpFailure(failure, subject, timeZone, pickedAgentName(node, subject?.agentId))
			: failure.kind === 'malformed'
				? mapMalformedFailure(failure)
				: failure.kind === 'redirect'
					? mapRedirectFailure(failure)
					: mapNetworkFailure(failure, apiRoot);
	const errorResponse: JsonObject = {
		message: mapped.message,
		...(failure.kind === 'http'
			? { httpCode: String(failure.status), detail: serviceDetail(failure.body) }
			: failure.kind === 'malformed'
				? { responseStatus: String(failure.status) }
				: failure.kind === 'redirect'
					? { httpCode: String(failure.status), location: failure.location ?? '' }
					: { networkCode: failure.code }),
	};
	return new NodeApiError(node, errorResponse, {
		message: mapped.message,
		description: mapped.description,
		httpCode:
			failure.kind === 'http' || failure.kind === 'redirect' ? String(failure.status) : undefined,
		itemIndex,
		// n8n 2.41 reads why a request failed (e.g. it backs a polling trigger off on a rate
		// limit, for as long as the service asked); older n8n versions ignore the option.
		failure: whyItFailed(failure),
	});
}

/** Why the request failed, in n8n-workflow's terms (`Failure`), where the status says so. */
function whyItFailed(failure: RequestFailure, now = Date.now()): Failure | undefined {
	if (failure.kind === 'network' || failure.kind === 'malformed') {
		return { cause: 'temporarily-unavailable' };
	}
	if (failure.kind === 'redirect') return { cause: 'configuration-invalid' };
	const { status } = failure;
	if (status === 429) {
		const until = failure.rateLimitedUntilMs;
		return until !== undefined && until > now
			? { cause: 'rate-limited', retryAfterMs: until - now, resetsAtEpochMs: until }
			: { cause: 'rate-limited' };
	}
	if (status === 401) return { cause: 'credential-invalid' };
	if (status === 403 || status === 404) return { cause: 'configuration-invalid' };
	if (status >= 500) return { cause: 'temporarily-unavailable' };
	return undefined;
}
