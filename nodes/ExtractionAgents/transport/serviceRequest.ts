import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { apiKeyFromCredential, apiRootFromBaseUrl } from './baseUrl';
import { sleepUnlessCancelled } from './cancellation';
import { toNodeApiError, type RequestFailure } from './errors';
import type { MultipartBody } from './multipart';
import { requestTimeoutMs } from './requestTimeout';
import { rateLimitGateOf } from './rateLimitGate';
import {
	isIdempotent,
	mayHaveBeenProcessed,
	retryAfterMs,
	retryDelayMs,
	RETRY_LIMITS,
	type Idempotency,
	type RetryQuestion,
} from './retry';
import type { RequestSubject } from './subjects';

export const CREDENTIAL_TYPE = 'extractionAgentsApi';

/** Every n8n context the nodes send requests from. */
export type ServiceContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Relative to the API root, e.g. `/agents/12/runs`. */
	path: string;
	qs?: IDataObject;
	/** A JSON body. */
	body?: IDataObject;
	/** A streamed multipart/form-data body (Create Run); sent instead of `body`. */
	upload?: MultipartBody;
	/** Defaults by method: GET and DELETE are idempotent, everything else creates. */
	idempotency?: Idempotency;
	subject?: RequestSubject;
	/**
	 * For deletes: a 404 on a retry after an attempt the service may have carried out (a
	 * 5xx, a time-out, a dropped connection) means that attempt deleted it and its answer
	 * was lost, so it counts as success. A 404 on the first attempt, or after attempts the
	 * service cannot have acted on (a 429, a refused connection), is still "not found".
	 */
	missingOnRetryMeansDone?: boolean;
	/** Binary downloads (templated output). */
	binaryResponse?: boolean;
	/**
	 * Per attempt. Left unset, it comes from the node's "Request Timeout" option (60 s
	 * by default) plus 1 s per MB of an upload: see requestTimeout.ts.
	 */
	timeoutMs?: number;
	/**
	 * Epoch ms past which the request is neither retried nor held back by a 429 of its
	 * execution: the caller's own limit (a Run's Wait timeout). It then fails at once
	 * with the failure it had, or "rate limited until …".
	 */
	deadlineMs?: number;
	itemIndex?: number;
}

export interface ServiceResponse<T = unknown> {
	statusCode: number;
	headers: Record<string, unknown>;
	body: T;
}

function cancelSignalOf(context: ServiceContext): AbortSignal | undefined {
	const withSignal = context as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

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

function networkCodeOf(error: unknown): string {
	const candidates = [error, (error as { cause?: unknown })?.cause];
	for (const candidate of candidates) {
		const code = (candidate as { code?: unknown })?.code;
		if (typeof code === 'string' && code !== '') return code;
	}
	const message = String((error as Error)?.message ?? '');
	if (/timeout/i.test(message)) return 'ETIMEDOUT';
	if (/socket hang up|aborted/i.test(message)) return 'ECONNRESET';
	return 'ENETWORK';
}

function cancelledError(context: ServiceContext, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(context.getNode(), 'The execution was cancelled', { itemIndex });
}

/**
 * The one way the nodes talk to the service: authenticated through the credential,
 * with a timeout, retried where that is safe (see retry.ts), and with every failure
 * turned into an error that says what to fix (see errors.ts).
 */
export async function serviceRequest<T = unknown>(
	context: ServiceContext,
	request: ServiceRequest,
): Promise<ServiceResponse<T>> {
	const apiRoot = await resolveApiRoot(context, request.itemIndex);
	const signal = cancelSignalOf(context);
	const upload = request.upload;
	const isUpload = upload !== undefined;
	const timeoutMs =
		request.timeoutMs ?? requestTimeoutMs(context, request.itemIndex, upload?.size ?? 0);
	const idempotent = isIdempotent(request.method, request.idempotency);

	const gate = rateLimitGateOf(context);
	// The caller's own limit, or the context's (the trigger's poll budget), whichever is first.
	const limits = [request.deadlineMs, gate.waitsEndBy].filter((ms) => ms !== undefined);
	const deadlineMs = limits.length > 0 ? Math.min(...limits) : undefined;
	// How long a 429 may hold this request back: what the nodes accept from Retry-After,
	// and never past that limit.
	const latestSendMs = () =>
		Math.min(deadlineMs ?? Infinity, Date.now() + RETRY_LIMITS.maxRetryAfterMs);

	// Set once an attempt failed in a way the service may have acted on (retry.ts).
	let earlierAttemptMayHaveWorked = false;
	for (let retries = 0; ; retries++) {
		if (signal?.aborted) throw cancelledError(context, request.itemIndex);
		const gateState = await gate.waitUntilOpen(signal, latestSendMs());
		if (gateState === 'cancelled') throw cancelledError(context, request.itemIndex);
		if (gateState === 'deadline') {
			const rateLimited: RequestFailure = {
				kind: 'http',
				status: 429,
				body: undefined,
				rateLimitedUntilMs: gate.opensAt,
				method: request.method,
				retries,
				idempotent,
			};
			throw toNodeApiError(
				context.getNode(),
				rateLimited,
				request.subject,
				apiRoot,
				request.itemIndex,
				context.getTimezone(),
			);
		}
		const options: IHttpRequestOptions = {
			method: request.method,
			url: `${apiRoot}${request.path}`,
			qs: request.qs,
			body: (upload ?? request.body) as IHttpRequestOptions['body'],
			json: !isUpload,
			timeout: timeoutMs,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// The service never redirects its API; following redirects would also make
			// axios keep a copy of every uploaded byte in memory (docs/service-notes.md #9).
			disableFollowRedirect: true,
			headers: upload
				? {
						'Content-Type': upload.type,
						'Content-Length': String(upload.size),
						Accept: 'application/json',
					}
				: { Accept: request.binaryResponse ? '*/*' : 'application/json' },
			...(request.binaryResponse ? { encoding: 'arraybuffer' as const } : {}),
		};

		let failure: RequestFailure;
		let retryAfterHeader: unknown;
		const attempt = { method: request.method, retries, idempotent };
		try {
			const response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				options,
			)) as IN8nHttpFullResponse;
			const body = isUpload ? parseJsonBody(response.body) : response.body;
			if (response.statusCode >= 300 && response.statusCode < 400) {
				// Redirects are not followed (see above), so a 3xx means nothing was done here.
				failure = {
					kind: 'redirect',
					status: response.statusCode,
					location: redirectTarget(
						(response.headers as Record<string, unknown>).location,
						options.url,
					),
					...attempt,
				};
			} else if (response.statusCode < 400) {
				if (request.binaryResponse || isJsonOrEmpty(body)) {
					return {
						statusCode: response.statusCode,
						headers: response.headers as Record<string, unknown>,
						body: body as T,
					};
				}
				// The HTTP client hands a body that does not parse as JSON over as text.
				failure = { kind: 'malformed', status: response.statusCode, body, ...attempt };
			} else if (
				response.statusCode === 404 &&
				earlierAttemptMayHaveWorked &&
				request.missingOnRetryMeansDone
			) {
				// An earlier attempt removed it and its answer was lost on the way back.
				return {
					statusCode: response.statusCode,
					headers: response.headers as Record<string, unknown>,
					body: body as T,
				};
			} else {
				failure = { kind: 'http', status: response.statusCode, body, ...attempt };
				retryAfterHeader = (response.headers as Record<string, unknown>)['retry-after'];
			}
		} catch (error) {
			if (signal?.aborted) throw cancelledError(context, request.itemIndex);
			if (error instanceof NodeOperationError && !(error instanceof NodeApiError)) {
				// Not a failed request (e.g. the node has no credential set): nothing to retry.
				throw new NodeOperationError(context.getNode(), error, { itemIndex: request.itemIndex });
			}
			if (upload?.readFailure) {
				// The upload stopped because a file could not be read, not because of the network.
				throw new NodeOperationError(context.getNode(), upload.readFailure.message, {
					description:
						'The upload stopped before the file was sent whole, so the service made no Run from it. Check the node that produced the file (was it changed or removed meanwhile?), then run the item again.',
					itemIndex: request.itemIndex,
				});
			}
			failure = { kind: 'network', code: networkCodeOf(error), timeoutMs, ...attempt };
		}

		if (failure.kind === 'http' && failure.status === 429) {
			const askedMs = retryAfterMs(retryAfterHeader);
			if (askedMs !== undefined) {
				// The service named a time: every request of this execution waits for it at the
				// gate, and one that cannot wait that long fails now (a retry before that time
				// would only be refused again).
				gate.closeUntil(Date.now() + askedMs);
				if (gate.opensAt > latestSendMs()) {
					failure.rateLimitedUntilMs = gate.opensAt;
					throw toNodeApiError(
						context.getNode(),
						failure,
						request.subject,
						apiRoot,
						request.itemIndex,
						context.getTimezone(),
					);
				}
			}
		}
		const rateLimited = failure.kind === 'http' && failure.status === 429;
		const question: RetryQuestion = {
			method: request.method,
			idempotency: request.idempotency,
			retries,
			status: failure.kind === 'http' ? failure.status : undefined,
			networkCode: failure.kind === 'network' ? failure.code : undefined,
			malformedBody: failure.kind === 'malformed',
			retryAfterHeader,
		};
		if (mayHaveBeenProcessed(question)) earlierAttemptMayHaveWorked = true;
		const delay = retryDelayMs(question);
		if (delay === undefined || (deadlineMs !== undefined && Date.now() + delay > deadlineMs)) {
			throw toNodeApiError(
				context.getNode(),
				failure,
				request.subject,
				apiRoot,
				request.itemIndex,
				context.getTimezone(),
			);
		}
		if (rateLimited) {
			// Every request of this execution waits at the gate at the top of the loop.
			gate.closeUntil(Date.now() + delay);
			continue;
		}
		if (!(await sleepUnlessCancelled(delay, signal)))
			throw cancelledError(context, request.itemIndex);
	}
}

/** Where a redirect points, absolute, without any user name or password in it. */
function redirectTarget(header: unknown, requestUrl: string): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' || value.trim() === '' || !URL.canParse(value.trim(), requestUrl))
		return undefined;
	const target = new URL(value.trim(), requestUrl);
	target.username = '';
	target.password = '';
	return target.href;
}

/**
 * A JSON answer arrives parsed (an object or an array); one that did not parse arrives
 * as text. An empty body is fine (e.g. 204 of a DELETE).
 */
function isJsonOrEmpty(body: unknown): boolean {
	if (body === undefined || body === null) return true;
	if (typeof body === 'string') return body.trim() === '';
	if (Buffer.isBuffer(body)) return body.length === 0;
	return typeof body === 'object' || typeof body === 'number' || typeof body === 'boolean';
}

/** The upload is sent without `json: true` (it is not JSON), so its answer arrives as text. */
function parseJsonBody(body: unknown): unknown {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof text !== 'string') return text;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
