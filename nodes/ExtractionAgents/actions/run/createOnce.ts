import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { hasBehaviour } from '../../descriptions/versions';
import { newestRuns } from '../../helpers/newestRuns';
import type { Run } from '../../helpers/runs';
import {
	cancelSignalOf,
	executionCancelledError,
	sleepUnlessCancelled,
} from '../../transport/cancellation';
import type { MultipartBody } from '../../transport/multipart';
import {
	FAILURE_FACTS,
	type FailureFacts,
	isTransient,
	mayHaveBeenProcessed,
	RETRY_LIMITS,
} from '../../transport/retry';
import { serviceRequest } from '../../transport/serviceRequest';
import { asNodeError } from '../itemPool';

/*
 * Nothing twice, two cases. A creation that failed midway (a 5xx, a dropped connection) is
 * settled here, by the node: only it knows the attempt failed, and the Agent's newest Runs say
 * whether its User-Defined ID was made. The same email delivered again, or an execution run
 * again from n8n's list, is not: the node would have to skip a Run made by an execution whose
 * rows may never have been written. The examples put n8n's Remove Duplicates (across
 * executions, by the email's or file's ID) before the node for that, where the workflow shows it.
 */

/**
 * How many of the Agent's newest Runs are read to find the Run a failed creation may have
 * made: the items sent at once (at most 20) and other workflows' Runs of the same minutes fit.
 */
export const NEWEST_RUNS_SEARCHED = 50;

export interface CreateRunRequest {
	agentId: number;
	body: MultipartBody;
	/** The user_defined_id sent with the Run, if any. */
	userDefinedId: string | undefined;
	itemIndex: number;
	timeoutMs: number;
	/** Throws when the node has stopped (another item failed): nothing more is created. */
	throwIfStopped(): void;
}

/** What the Agent's newest Runs tell about the Run a failed creation was to make. */
type Lookup =
	| { kind: 'found'; run: Run }
	/** No Run carries the ID, and the service shows the ID on Runs: none was made. */
	| { kind: 'not made' }
	/** The service does not show user_defined_id on Runs (gaps.md #10): the list cannot tell. */
	| { kind: 'cannot tell' }
	/** The list could not be read. */
	| { kind: 'unreadable' };

/**
 * How long after a failed creation the Agent's list must still miss the Run for the node to
 * send it again. The service lists a Run when its upload ends, before it answers; 5 s covers a
 * list that lags that for a moment. A Run listed later still could be made twice.
 */
export const LIST_SETTLE_MS = 5_000;

async function pause(
	context: IExecuteFunctions,
	request: CreateRunRequest,
	ms: number,
): Promise<void> {
	if (ms <= 0) return;
	if (!(await sleepUnlessCancelled(ms, cancelSignalOf(context))))
		throw executionCancelledError(context.getNode(), request.itemIndex);
}

/** What the Agent's newest Runs say; 'unreadable' when the list cannot be read. */
async function lookFor(
	context: IExecuteFunctions,
	request: CreateRunRequest,
	userDefinedId: string,
): Promise<Lookup> {
	const runs = await readNewestRuns(context, request);
	if (runs === undefined) return { kind: 'unreadable' };
	const found = runs.find((run) => run.user_defined_id === userDefinedId);
	if (found) return { kind: 'found', run: found };
	// A service that leaves the field out shows none of its Runs with it; an Agent with no Runs
	// at all cannot show it either, so the node cannot tell and keeps the error.
	const reported = runs.some((run) => Object.prototype.hasOwnProperty.call(run, 'user_defined_id'));
	return reported ? { kind: 'not made' } : { kind: 'cannot tell' };
}

async function readNewestRuns(
	context: IExecuteFunctions,
	request: CreateRunRequest,
): Promise<Run[] | undefined> {
	try {
		return await newestRuns(
			context,
			{ agentId: request.agentId, itemIndex: request.itemIndex },
			NEWEST_RUNS_SEARCHED,
		);
	} catch {
		return undefined;
	}
}

/**
 * POST runs, made at most once. The transport never repeats a POST that creates a Run
 * (transport/retry.ts): after a 5xx or a dropped connection the service may have made the Run.
 * From node version 1.5, a Run sent with a User-Defined ID can be told apart: after such a
 * failure the node reads the Agent's newest Runs; a Run carrying the ID is the one it made
 * (used as if the POST had answered), and when none does, in two list answers the second
 * LIST_SETTLE_MS after the failure, while the service shows the ID on its Runs, nothing was
 * made, so the POST is sent again after a 502/503/504 or a dropped connection (at most
 * RETRY_LIMITS.transientRetries times). Where the list cannot tell (the
 * service leaves the ID out, or the list cannot be read), the first error stands, as before.
 * Returns the body of the Run.
 */
export async function createRunOnce(
	context: IExecuteFunctions,
	request: CreateRunRequest,
): Promise<unknown> {
	const userDefinedId =
		hasBehaviour(context.getNode(), 'createRetriedByUserDefinedId') && request.userDefinedId
			? request.userDefinedId
			: undefined;
	for (let retries = 0; ; retries++) {
		// Another item failed meanwhile (without Continue On Fail): create nothing more.
		request.throwIfStopped();
		const attempt = await sendOnce(context, request);
		if (attempt.kind === 'answer') return attempt.body;
		const { error } = attempt;
		const facts = error.context[FAILURE_FACTS] as FailureFacts | undefined;
		if (userDefinedId === undefined || !facts || !mayHaveBeenProcessed(facts)) throw error;
		const failedAtMs = Date.now();
		// The Run, if made, is listed once the service has stored it: a short wait first.
		await pause(context, request, RETRY_LIMITS.baseBackoffMs * 2 ** retries);
		let lookup = await lookFor(context, request, userDefinedId);
		if (lookup.kind === 'not made') {
			// Absent from one list answer is not proof: a list may miss a new Run for a moment
			// (a replica behind, a Run listed late). Only a second answer, LIST_SETTLE_MS after
			// the failure, that misses it too counts as "not made".
			await pause(context, request, failedAtMs + LIST_SETTLE_MS - Date.now());
			lookup = await lookFor(context, request, userDefinedId);
		}
		if (lookup.kind === 'found') return lookup.run;
		if (lookup.kind === 'not made' && isTransient(facts) && retries < RETRY_LIMITS.transientRetries)
			continue;
		throw withLookupNote(error, lookup, userDefinedId, retries);
	}
}

/** One POST; a failure comes back (not thrown) as the transport's NodeApiError. */
async function sendOnce(
	context: IExecuteFunctions,
	request: CreateRunRequest,
): Promise<{ kind: 'answer'; body: unknown } | { kind: 'failed'; error: NodeApiError }> {
	try {
		const response = await serviceRequest(context, {
			method: 'POST',
			path: `/agents/${request.agentId}/runs`,
			upload: request.body,
			subject: { agentId: request.agentId },
			itemIndex: request.itemIndex,
			timeoutMs: request.timeoutMs,
		});
		return { kind: 'answer', body: response.body };
	} catch (error) {
		if (error instanceof NodeApiError) return { kind: 'failed', error };
		throw asNodeError(context.getNode(), error, request.itemIndex);
	}
}

/** The failure, told what the look among the Agent's newest Runs found. */
function withLookupNote(
	error: NodeApiError,
	lookup: Exclude<Lookup, { kind: 'found' }>,
	userDefinedId: string,
	retries: number,
): NodeApiError {
	const note =
		lookup.kind === 'not made'
			? `No Run of the Agent has the User-Defined ID "${userDefinedId}", so none was made${retries > 0 ? `; the node sent the files ${retries + 1} times` : ''}.`
			: lookup.kind === 'cannot tell'
				? 'The service does not show User-Defined IDs on its Runs, so the node could not tell whether the Run was made.'
				: 'The node could not read the Agent’s Runs to tell whether the Run was made.';
	error.description = [error.description, note].filter(Boolean).join(' ');
	return error;
}
