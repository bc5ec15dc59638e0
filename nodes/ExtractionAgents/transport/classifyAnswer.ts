import type { IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { executionCancelledError } from './cancellation';
import type { RequestFailure } from './errors';
import { FileReadError } from './multipart';
import type { ServiceContext, ServiceRequest, ServiceResponse } from './types';
import type { UploadStop } from './uploadWatch';

/** What every failure of an attempt carries (errors.ts words its message from it). */
export interface AttemptFacts {
	method: string;
	/** Retries already made (attempts after the first). */
	retries: number;
	idempotent: boolean;
}

/** One attempt's result: the answer to hand back, or a failure for the retry loop to judge. */
export type AttemptOutcome<T> =
	| { kind: 'answer'; response: ServiceResponse<T> }
	| { kind: 'failure'; failure: RequestFailure; retryAfterHeader?: unknown };

/**
 * What the service's answer means. `earlierAttemptMayHaveWorked`: an earlier attempt of
 * this request failed in a way the service may have acted on (retry.ts), so a delete's
 * 404 now means that attempt deleted it.
 */
export function classifyAnswer<T>(
	response: IN8nHttpFullResponse,
	request: ServiceRequest,
	requestUrl: string,
	attempt: AttemptFacts,
	earlierAttemptMayHaveWorked: boolean,
): AttemptOutcome<T> {
	const headers = response.headers as Record<string, unknown>;
	const body = request.upload !== undefined ? parseJsonBody(response.body) : response.body;
	const answer = (): AttemptOutcome<T> => ({
		kind: 'answer',
		response: { statusCode: response.statusCode, headers, body: body as T },
	});
	const status = response.statusCode;
	if (status >= 300 && status < 400) {
		// Redirects are not followed (see buildRequest.ts), so a 3xx means nothing was done here.
		const location = redirectTarget(headers.location, requestUrl);
		return { kind: 'failure', failure: { kind: 'redirect', status, location, ...attempt } };
	}
	if (status < 400) {
		if (request.binaryResponse || isJsonOrEmpty(body)) return answer();
		// The HTTP client hands a body that does not parse as JSON over as text.
		return { kind: 'failure', failure: { kind: 'malformed', status, body, ...attempt } };
	}
	if (status === 411 && request.upload && !request.upload.lengthKnown) {
		throw lengthRequiredError(request);
	}
	if (status === 404 && earlierAttemptMayHaveWorked && request.missingOnRetryMeansDone) {
		// An earlier attempt removed it and its answer was lost on the way back.
		return answer();
	}
	return {
		kind: 'failure',
		failure: { kind: 'http', status, body, ...attempt },
		retryAfterHeader: headers['retry-after'],
	};
}

/**
 * What a request that threw means: a network failure to judge for a retry, or (thrown
 * from here) a cancelled execution, a failure that is not the request's (e.g. the node
 * has no credential set), or an upload stopped by a file that could not be read.
 */
export function classifyThrown<T>(
	error: unknown,
	context: ServiceContext,
	request: ServiceRequest,
	signal: AbortSignal | undefined,
	attempt: AttemptFacts & { timeoutMs: number; uploadStop?: UploadStop },
): AttemptOutcome<T> {
	if (signal?.aborted) throw executionCancelledError(context.getNode(), request.itemIndex);
	const { uploadStop, ...facts } = attempt;
	if (error instanceof NodeOperationError && !(error instanceof NodeApiError)) {
		// Not a failed request: nothing to retry.
		throw new NodeOperationError(context.getNode(), error, { itemIndex: request.itemIndex });
	}
	// A file that could not be read whole, or an answer that refused how it was sent (a 411).
	const readFailure = error instanceof FileReadError ? error : request.upload?.readFailure;
	if (readFailure) {
		// The upload stopped because a file could not be read, not because of the network.
		throw new NodeOperationError(context.getNode(), readFailure.message, {
			description: readFailure.description,
			itemIndex: request.itemIndex,
		});
	}
	if (uploadStop?.kind === 'stalled') throw stalledUploadError(context, request, uploadStop);
	const waiting = request.upload?.waitingFor;
	if (
		waiting &&
		(uploadStop?.kind === 'source' || Date.now() - waiting.sinceMs >= attempt.timeoutMs / 2)
	) {
		// The request failed after the upload had long waited for a file's next bytes: the
		// file's source was too slow, and the service cannot have made a Run from a partial
		// upload. (A failure just as a wait began is the connection's, judged below.)
		throw new NodeOperationError(
			context.getNode(),
			`The upload stopped while waiting for the next bytes of file "${waiting.file.fileName}" from ${waiting.file.source}`,
			{
				description:
					'No Run was made. The file’s source sent nothing for a long time. Try again, or raise Options → Request Timeout.',
				itemIndex: request.itemIndex,
			},
		);
	}
	// An upload the service took whole and did not answer in time: it may have made the Run.
	const unanswered = uploadStop?.kind === 'unanswered';
	const progress = request.upload?.progress;
	if (!unanswered && progress && progress.sentBytes > 0 && progress.completedAt === undefined) {
		// The connection broke while the body was still being sent: the service never got the
		// closing boundary of the multipart body, so it cannot have made a Run from it.
		throw cutUploadError(context, request, progress.sentBytes, networkCodeOf(error));
	}
	const { timeoutMs, ...rest } = facts;
	return {
		kind: 'failure',
		failure: {
			kind: 'network',
			code: unanswered ? 'ETIMEDOUT' : networkCodeOf(error),
			timeoutMs,
			...(unanswered ? { uploadComplete: true } : {}),
			...rest,
		},
	};
}

/**
 * The service refused a body sent without its length (411 Length Required): a file of it came
 * from a link whose host did not announce its length, sent on as it downloaded. Nothing is
 * retried: the link was read once, and its file would come without a length again.
 */
function lengthRequiredError(request: ServiceRequest): FileReadError {
	const sources = (request.upload?.filesOfUnknownLength ?? []).map((file) => file.source);
	return new FileReadError(
		`The Extraction Agents service needs to know the upload’s length before it takes it (411 Length Required), and the file from ${sources.join(', ') || 'a link'} does not say its length`,
		'No Run was made. n8n keeps files in memory here (or in its database), so a link’s file is sent on as it downloads; this link’s host sends the file without announcing its length (in chunks, or compressed). Use a link whose host announces the file’s length, or run n8n in filesystem mode (N8N_DEFAULT_BINARY_DATA_MODE=filesystem), where a link is downloaded whole before its upload.',
	);
}

/** "3.1 MB" */
const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`;

/**
 * An upload the service stopped taking (uploadWatch.ts): it did not get the whole body, so
 * it cannot have made a Run from it.
 */
function stalledUploadError(
	context: ServiceContext,
	request: ServiceRequest,
	stop: Extract<UploadStop, { kind: 'stalled' }>,
): NodeOperationError {
	const seconds = Math.round(stop.idleMs / 1000);
	return new NodeOperationError(
		context.getNode(),
		`The upload to the Extraction Agents service stalled: it took nothing for ${seconds} s after ${megabytes(stop.sentBytes)}${stop.totalBytes === undefined ? '' : ` of ${megabytes(stop.totalBytes)}`}`,
		{
			description: `No Run was made: the service did not get the whole upload. Check the connection between n8n and the service (a proxy or a slow line), then run the item again; if the line is known to pause longer, raise Options → Request Timeout (${seconds} s).`,
			itemIndex: request.itemIndex,
		},
	);
}

/** "3.1 MB", or "16,384 bytes" under a megabyte (where "0.0 MB" would say nothing). */
const amount = (bytes: number): string =>
	bytes >= 1_000_000 ? megabytes(bytes) : `${bytes.toLocaleString('en-US')} bytes`;

/** The context key marking an upload that broke before its last byte: no Run was made. */
export const UPLOAD_NOT_SENT_WHOLE = 'uploadNotSentWhole';

/** An upload whose connection broke before its last byte was sent (`classifyThrown`). */
function cutUploadError(
	context: ServiceContext,
	request: ServiceRequest,
	sentBytes: number,
	code: string,
): NodeOperationError {
	const upload = request.upload;
	const ofTotal = upload && upload.lengthKnown ? ` of ${amount(upload.size)}` : '';
	const error = new NodeOperationError(
		context.getNode(),
		`The connection to the Extraction Agents service broke during the upload, after ${amount(sentBytes)}${ofTotal}`,
		{
			description: `No Run was made: the service did not get the whole upload. Run the item again; if it keeps happening, lower Options → Items in Parallel (a rate limit in front of the service may refuse an upload by closing its connection), and ask whoever runs your n8n to check the connection between n8n and the service (a proxy or an unstable line). (${code})`,
			itemIndex: request.itemIndex,
		},
	);
	error.context[UPLOAD_NOT_SENT_WHOLE] = true;
	return error;
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
