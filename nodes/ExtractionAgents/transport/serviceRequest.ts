import type { IN8nHttpFullResponse } from 'n8n-workflow';
import { buildHttpRequest } from './buildRequest';
import { cancelSignalOf, executionCancelledError, sleepUnlessCancelled } from './cancellation';
import { classifyAnswer, classifyThrown, type AttemptOutcome } from './classifyAnswer';
import { CREDENTIAL_TYPE, resolveApiRoot } from './credential';
import { toNodeApiError, type RequestFailure } from './errors';
import { watchUpload, withUploadSignal } from './uploadWatch';
import { rateLimitGateOf, type RateLimitGate } from './rateLimitGate';
import {
	FAILURE_FACTS,
	type FailureFacts,
	isIdempotent,
	mayHaveBeenProcessed,
	retryAfterMs,
	retryDelayMs,
	RETRY_LIMITS,
	type RetryQuestion,
} from './retry';
import type { ServiceContext, ServiceRequest, ServiceResponse } from './types';

/** What every attempt of one request shares. */
interface RequestPlan {
	context: ServiceContext;
	request: ServiceRequest;
	apiRoot: string;
	signal: AbortSignal | undefined;
	timeoutMs: number;
	idempotent: boolean;
	/** Holds every request of the execution back while the service asks to wait (a 429). */
	gate: RateLimitGate;
	/** The caller's own limit, or the context's (the trigger's poll budget), whichever is first. */
	deadlineMs: number | undefined;
}

/**
 * The one way the nodes talk to the service: authenticated through the credential,
 * with a timeout, retried where that is safe (see retry.ts), and with every failure
 * turned into an error that says what to fix (see errors.ts). One attempt is built
 * (buildRequest.ts), sent, and its answer classified (classifyAnswer.ts); a failure
 * is retried or reported here.
 */
export async function serviceRequest<T = unknown>(
	context: ServiceContext,
	request: ServiceRequest,
): Promise<ServiceResponse<T>> {
	const plan = await planRequest(context, request);
	// Set once an attempt failed in a way the service may have acted on (retry.ts).
	let earlierAttemptMayHaveWorked = false;
	for (let retries = 0; ; retries++) {
		await waitUntilSendable(plan, retries);
		const outcome = await sendAttempt<T>(plan, retries, earlierAttemptMayHaveWorked);
		if (outcome.kind === 'answer') return outcome.response;
		const question = retryQuestion(request, outcome, retries);
		if (mayHaveBeenProcessed(question)) earlierAttemptMayHaveWorked = true;
		await waitBeforeRetry(plan, outcome.failure, question);
	}
}

async function planRequest(context: ServiceContext, request: ServiceRequest): Promise<RequestPlan> {
	const apiRoot = await resolveApiRoot(context, request.itemIndex);
	const gate = rateLimitGateOf(context);
	const limits = [request.deadlineMs, gate.waitsEndBy].filter((ms) => ms !== undefined);
	return {
		context,
		request,
		apiRoot,
		signal: cancelSignalOf(context),
		timeoutMs: request.timeoutMs,
		idempotent: isIdempotent(request.method, request.idempotency),
		gate,
		deadlineMs: limits.length > 0 ? Math.min(...limits) : undefined,
	};
}

/**
 * How long a 429 may hold this request back: what the nodes accept from Retry-After,
 * and never past the plan's limit.
 */
function latestSendMs(plan: RequestPlan): number {
	return Math.min(plan.deadlineMs ?? Infinity, Date.now() + RETRY_LIMITS.maxRetryAfterMs);
}

function reportFailure(plan: RequestPlan, failure: RequestFailure): Error {
	const { context, request } = plan;
	const error = toNodeApiError(
		context.getNode(),
		failure,
		request.subject,
		plan.apiRoot,
		request.itemIndex,
		context.getTimezone(),
	);
	// What the attempt came to: Run → Create tells from it whether the Run may have been made
	// and whether to look for it (actions/run/createOnce.ts).
	const facts: FailureFacts = {
		status: failure.kind === 'http' ? failure.status : undefined,
		networkCode: failure.kind === 'network' ? failure.code : undefined,
		malformedBody: failure.kind === 'malformed',
	};
	error.context[FAILURE_FACTS] = facts;
	return error;
}

function cancelled(plan: RequestPlan): Error {
	return executionCancelledError(plan.context.getNode(), plan.request.itemIndex);
}

/** Waits while the execution is rate limited; fails when that wait would pass the plan's limit. */
async function waitUntilSendable(plan: RequestPlan, retries: number): Promise<void> {
	if (plan.signal?.aborted) throw cancelled(plan);
	const gateState = await plan.gate.waitUntilOpen(plan.signal, latestSendMs(plan));
	if (gateState === 'cancelled') throw cancelled(plan);
	if (gateState === 'deadline') {
		throw reportFailure(plan, {
			kind: 'http',
			status: 429,
			body: undefined,
			rateLimitedUntilMs: plan.gate.opensAt,
			method: plan.request.method,
			retries,
			idempotent: plan.idempotent,
		});
	}
}

async function sendAttempt<T>(
	plan: RequestPlan,
	retries: number,
	earlierAttemptMayHaveWorked: boolean,
): Promise<AttemptOutcome<T>> {
	const { context, request } = plan;
	const timeoutMs = attemptTimeoutMs(plan);
	const attempt = { method: request.method, retries, idempotent: plan.idempotent };
	if (timeoutMs <= 0) {
		// No time left before the poll's limit: not sent, and not retried (the limit has passed).
		throw reportFailure(plan, { kind: 'network', code: 'ETIMEDOUT', timeoutMs: 0, ...attempt });
	}
	// An upload runs under its own time rules (uploadWatch.ts), not the client's wall clock.
	const watch = request.upload ? watchUpload(request.upload, timeoutMs, plan.signal) : undefined;
	const options = buildHttpRequest(plan.apiRoot, request, timeoutMs, watch?.signal);
	try {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			watch ? withUploadSignal(context, watch.signal) : context,
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
		return classifyAnswer<T>(response, request, options.url, attempt, earlierAttemptMayHaveWorked);
	} catch (error) {
		return classifyThrown<T>(error, context, request, plan.signal, {
			...attempt,
			timeoutMs,
			uploadStop: watch?.stopped(),
		});
	} finally {
		watch?.end();
		request.upload?.closePass();
	}
}

/**
 * One attempt's timeout: the Request Timeout, cut to the time left before the context's
 * limit on waits (the trigger's poll budget, limitWaitsOf): n8n's durable scheduler abandons
 * a poll that outlives its budget and commits nothing, so no request may outlive it.
 */
function attemptTimeoutMs(plan: RequestPlan): number {
	const limit = plan.gate.waitsEndBy;
	return limit === undefined ? plan.timeoutMs : Math.min(plan.timeoutMs, limit - Date.now());
}

function retryQuestion(
	request: ServiceRequest,
	outcome: Extract<AttemptOutcome<unknown>, { kind: 'failure' }>,
	retries: number,
): RetryQuestion {
	const { failure } = outcome;
	return {
		method: request.method,
		idempotency: request.idempotency,
		retries,
		status: failure.kind === 'http' ? failure.status : undefined,
		networkCode: failure.kind === 'network' ? failure.code : undefined,
		malformedBody: failure.kind === 'malformed',
		retryAfterHeader: outcome.retryAfterHeader,
	};
}

/** Waits as long as retry.ts says before the next attempt, or fails with `failure`. */
async function waitBeforeRetry(
	plan: RequestPlan,
	failure: RequestFailure,
	question: RetryQuestion,
): Promise<void> {
	const rateLimited = failure.kind === 'http' && failure.status === 429;
	if (rateLimited) {
		const askedMs = retryAfterMs(question.retryAfterHeader);
		if (askedMs !== undefined) {
			// The service named a time: every request of this execution waits for it at the
			// gate, and one that cannot wait that long fails now (a retry before that time
			// would only be refused again).
			plan.gate.closeUntil(Date.now() + askedMs);
			if (plan.gate.opensAt > latestSendMs(plan)) {
				failure.rateLimitedUntilMs = plan.gate.opensAt;
				throw reportFailure(plan, failure);
			}
		}
	}
	const delay = retryDelayMs(question);
	if (
		delay === undefined ||
		(plan.deadlineMs !== undefined && Date.now() + delay > plan.deadlineMs)
	)
		throw reportFailure(plan, failure);
	if (rateLimited) {
		// Every request of this execution waits at the gate before its next attempt.
		plan.gate.closeUntil(Date.now() + delay);
		return;
	}
	if (!(await sleepUnlessCancelled(delay, plan.signal))) throw cancelled(plan);
}
