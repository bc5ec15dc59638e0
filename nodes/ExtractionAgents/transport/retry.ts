import type { IHttpRequestMethods } from 'n8n-workflow';

/**
 * Whether repeating a request after an unclear outcome (a 5xx, a dropped connection,
 * a timeout or an answer cut off) is safe. POSTs that create things (Runs, API keys, copies) are not: the
 * service may have done the work before failing, and a retry would duplicate it.
 * The access-log query is a PUT that only reads, so it is.
 */
export type Idempotency = 'idempotent' | 'creates';

export const RETRY_LIMITS = {
	/** Attempts after the first, for 429 (the service did not process the request). */
	rateLimitedRetries: 5,
	/** Attempts after the first, for 502/503/504, dropped connections, timeouts and bodies cut off. */
	transientRetries: 3,
	/** Longest wait the nodes accept from Retry-After before retrying anyway. */
	maxRetryAfterMs: 60_000,
	baseBackoffMs: 500,
};

const TRANSIENT_STATUSES = new Set([502, 503, 504]);
const TRANSIENT_NETWORK_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'ECONNREFUSED',
	'ERR_STREAM_PREMATURE_CLOSE',
	// axios: the answer's body stopped mid-way (the connection dropped while it came in).
	'ERR_BAD_RESPONSE',
	'EAI_AGAIN',
]);

export function isIdempotent(method: IHttpRequestMethods, idempotency?: Idempotency): boolean {
	if (idempotency) return idempotency === 'idempotent';
	return method === 'GET' || method === 'DELETE' || method === 'HEAD';
}

/** `Retry-After` is seconds or an HTTP date (docs/design/service-notes.md #7); absent means "back off". */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

function backoffMs(retryNumber: number): number {
	const base = RETRY_LIMITS.baseBackoffMs * 2 ** retryNumber;
	return Math.round(base / 2 + Math.random() * base);
}

export interface RetryQuestion {
	method: IHttpRequestMethods;
	idempotency?: Idempotency;
	/** Retries already made for this request. */
	retries: number;
	status?: number;
	retryAfterHeader?: unknown;
	networkCode?: string;
	/** A 2xx whose body is not the JSON it should be (cut off, or a proxy's page). */
	malformedBody?: boolean;
}

/** What a failed attempt came to, as far as retrying it goes (kept on the error: FAILURE_FACTS). */
export type FailureFacts = Pick<RetryQuestion, 'status' | 'networkCode' | 'malformedBody'>;

/** The key of an error's context under which serviceRequest keeps its FailureFacts. */
export const FAILURE_FACTS = 'failureFacts';

/** A 502/503/504, a dropped or timed-out connection, or an answer cut off: the service had a moment. */
export function isTransient(facts: FailureFacts): boolean {
	return (
		facts.malformedBody === true ||
		(facts.status !== undefined && TRANSIENT_STATUSES.has(facts.status)) ||
		(facts.networkCode !== undefined && TRANSIENT_NETWORK_CODES.has(facts.networkCode))
	);
}

/** How long to wait before repeating a failed request, or undefined to give up. */
export function retryDelayMs(question: RetryQuestion): number | undefined {
	if (question.status === 429) {
		if (question.retries >= RETRY_LIMITS.rateLimitedRetries) return undefined;
		const asked = retryAfterMs(question.retryAfterHeader);
		return Math.min(asked ?? backoffMs(question.retries), RETRY_LIMITS.maxRetryAfterMs);
	}
	if (!isTransient(question)) return undefined;
	if (!isIdempotent(question.method, question.idempotency)) return undefined;
	if (question.retries >= RETRY_LIMITS.transientRetries) return undefined;
	return backoffMs(question.retries);
}

/** Failures where the request never reached the service: nothing can have been done. */
const NEVER_SENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether the service may have carried out a request that failed: a 5xx, a time-out, a
 * dropped connection or an answer cut off came after the request was sent. A 429 was not
 * processed (the service refuses before handling it) and a refused or unresolved
 * connection never reached it. Only after such an unclear outcome may a retry's 404 mean
 * that the first attempt already deleted the thing.
 */
export function mayHaveBeenProcessed(question: FailureFacts & Partial<RetryQuestion>): boolean {
	if (question.malformedBody === true) return true;
	if (question.status !== undefined) return question.status >= 500;
	if (question.networkCode !== undefined)
		return !NEVER_SENT_NETWORK_CODES.has(question.networkCode);
	return false;
}
