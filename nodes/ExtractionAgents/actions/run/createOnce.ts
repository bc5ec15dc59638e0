import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { hasBehaviour } from '../../descriptions/versions';
import { newestRuns } from '../../helpers/newestRuns';
import type { Run } from '../../helpers/runs';
import { parseServiceTimestamp } from '../../helpers/timestamps';
import { UPLOAD_NOT_SENT_WHOLE } from '../../transport/classifyAnswer';
import {
	cancelSignalOf,
	executionCancelledError,
	sleepUnlessCancelled,
} from '../../transport/cancellation';
import type { MultipartBody } from '../../transport/multipart';
import {
	FAILURE_FACTS,
	type FailureFacts,
	mayHaveBeenProcessed,
	RETRY_LIMITS,
} from '../../transport/retry';
import { serviceRequest } from '../../transport/serviceRequest';
// How far the service's clock may be from n8n's, as the trigger allows: a Run's `created` that
// much earlier than the node's first attempt may still be the Run that attempt made.
import { CLOCK_MARGIN_MS } from '../../trigger/pollState';
import { asNodeError } from '../itemPool';

/*
 * Nothing twice, two cases. A creation that failed midway (a 5xx, a dropped connection) is
 * settled here, by the node: only it knows the attempt failed, and the Agent's newest Runs may
 * show the Run it made. The same email delivered again, or an execution run again from n8n's
 * list, is not: the node would have to skip a Run made by an execution whose rows may never
 * have been written. The examples put n8n's Remove Duplicates (across executions, by the
 * email's or file's ID) before the node for that, where the workflow shows it.
 *
 * The node sends a Run again only where it knows none was made: its upload broke before the
 * last byte was sent (the service never had the whole body). After a 5xx or a connection
 * lost once the body was sent, a Run missing from the list proves nothing (the service may
 * list a Run late: docs/design/trigger-rules.md, "A Run listed late"), so it is never sent
 * again; a Run the list shows is used instead of an error.
 */

/**
 * How many of the Agent's newest Runs are read to find the Run a failed creation may have
 * made: the items sent at once (at most 20) and other workflows' Runs of the same minutes fit.
 * A Run beyond them is not found, and the error stands: never a Run twice.
 */
export const NEWEST_RUNS_SEARCHED = 50;

/**
 * How many of the Agent's newest Runs an execution retried from n8n's list searches for the
 * Runs the failed execution made: one page of the largest size the API allows, since the
 * retry may come days and many Runs later.
 */
export const RETRY_RUNS_SEARCHED = 1000;

export interface CreateRunRequest {
	agentId: number;
	body: MultipartBody;
	/** The user_defined_id sent with the Run, if any. */
	userDefinedId: string | undefined;
	/** The names of the files sent, in order: a Run found by its ID must hold these. */
	fileNames: string[];
	itemIndex: number;
	timeoutMs: number;
	/** Throws when the node has stopped (another item failed): nothing more is created. */
	throwIfStopped(): void;
}

/** What the Agent's newest Runs tell about the Run a failed creation was to make. */
type Lookup =
	| { kind: 'found'; run: Run }
	/** No Run carries the ID with these files (it may still be listed later). */
	| { kind: 'not listed' }
	/** The service does not show user_defined_id on Runs (gaps.md #10): the list cannot tell. */
	| { kind: 'cannot tell' }
	/** The list could not be read. */
	| { kind: 'unreadable' };

/**
 * How long after a failed creation the node looks at the Agent's list a second time: the
 * service lists a Run when its upload ends, and a list may lag that for a moment.
 */
export const LIST_SETTLE_MS = 5_000;

/** The Runs this execution's node already made or took (another item's Run is never its own). */
const runsTaken = new WeakMap<object, Set<string>>();

function takenBy(context: IExecuteFunctions): Set<string> {
	let taken = runsTaken.get(context);
	if (!taken) runsTaken.set(context, (taken = new Set()));
	return taken;
}

async function pause(
	context: IExecuteFunctions,
	request: CreateRunRequest,
	ms: number,
): Promise<void> {
	if (ms <= 0) return;
	if (!(await sleepUnlessCancelled(ms, cancelSignalOf(context))))
		throw executionCancelledError(context.getNode(), request.itemIndex);
}

/**
 * The Run the failed attempt made, if the list shows it: the same User-Defined ID, the same
 * files, created no earlier than the first attempt (less the clock margin), and not a Run this
 * execution already has (two items may share an ID, e.g. a sender's address).
 */
function isTheRunSent(
	context: IExecuteFunctions,
	run: Run,
	request: CreateRunRequest,
	userDefinedId: string,
	firstAttemptMs: number,
): boolean {
	if (run.user_defined_id !== userDefinedId) return false;
	if (takenBy(context).has(String(run.run_id))) return false;
	if (JSON.stringify(run.files ?? []) !== JSON.stringify(request.fileNames)) return false;
	const created = parseServiceTimestamp(run.created);
	return created !== null && created.toMillis() >= firstAttemptMs - CLOCK_MARGIN_MS;
}

/**
 * Whether the User-Defined ID is the name of one of the files sent (a Drive file's name, a
 * form's upload): two documents can share it (every scan named Scan.pdf), and the Agent's list
 * shows only names, so a Run found by it may be another document's. Such an ID is never used
 * to take a listed Run. A numbered ID of One Run per File (`<id>#2`) counts by its `<id>`.
 */
function idIsAFileName(userDefinedId: string, fileNames: string[]): boolean {
	const id = userDefinedId.replace(/#\d+$/, '').trim().toLowerCase();
	return fileNames.some((name) => name.trim().toLowerCase() === id);
}

/** What the Agent's newest Runs say; 'unreadable' when the list cannot be read. */
async function lookFor(
	context: IExecuteFunctions,
	request: CreateRunRequest,
	userDefinedId: string,
	firstAttemptMs: number,
	searched = NEWEST_RUNS_SEARCHED,
): Promise<Lookup> {
	const runs = await readNewestRuns(context, request, searched);
	if (runs === undefined) return { kind: 'unreadable' };
	const found = runs.find((run) =>
		isTheRunSent(context, run, request, userDefinedId, firstAttemptMs),
	);
	if (found) return { kind: 'found', run: found };
	// A service that leaves the field out shows none of its Runs with it; an Agent with no Runs
	// at all cannot show it either.
	const reported = runs.some((run) => Object.prototype.hasOwnProperty.call(run, 'user_defined_id'));
	return reported ? { kind: 'not listed' } : { kind: 'cannot tell' };
}

async function readNewestRuns(
	context: IExecuteFunctions,
	request: CreateRunRequest,
	searched: number,
): Promise<Run[] | undefined> {
	try {
		return await newestRuns(
			context,
			{ agentId: request.agentId, itemIndex: request.itemIndex },
			searched,
		);
	} catch {
		return undefined;
	}
}

/**
 * POST runs, made at most once. The transport never repeats a POST that creates a Run
 * (transport/retry.ts). From node version 1.5: an upload that broke before its last byte was
 * sent made no Run, and is sent again (at most RETRY_LIMITS.transientRetries times); after a
 * 5xx or a connection lost once the body was sent, a Run sent with a User-Defined ID is looked
 * for among the Agent's newest Runs (now, and LIST_SETTLE_MS after the failure) and used if
 * listed; otherwise the first error stands, told what the list showed. Returns the body of the
 * Run.
 */
export async function createRunOnce(
	context: IExecuteFunctions,
	request: CreateRunRequest,
): Promise<unknown> {
	const gated = hasBehaviour(context.getNode(), 'createRetriedByUserDefinedId');
	const sentId = gated && request.userDefinedId ? request.userDefinedId : undefined;
	const namesAFile = sentId !== undefined && idIsAFileName(sentId, request.fileNames);
	const userDefinedId = namesAFile ? undefined : sentId;
	const firstAttemptMs = Date.now();
	// An execution retried from n8n's list starts again at this node, past any Remove
	// Duplicates before it: a Run the failed execution made for these files is used, not made
	// again (any time before: that execution may be days old).
	if (userDefinedId !== undefined && context.getMode() === 'retry') {
		const earlier = await lookFor(
			context,
			request,
			userDefinedId,
			Number.NEGATIVE_INFINITY,
			RETRY_RUNS_SEARCHED,
		);
		if (earlier.kind === 'found') {
			takenBy(context).add(String(earlier.run.run_id));
			return earlier.run;
		}
	}
	for (let retries = 0; ; retries++) {
		// Another item failed meanwhile (without Continue On Fail): create nothing more.
		request.throwIfStopped();
		const attempt = await sendOnce(context, request);
		if (attempt.kind === 'answer') {
			const runId = (attempt.body as { run_id?: unknown } | null)?.run_id;
			if (runId !== undefined) takenBy(context).add(String(runId));
			return attempt.body;
		}
		if (attempt.kind === 'not sent') {
			if (!gated || retries >= RETRY_LIMITS.transientRetries) throw attempt.error;
			await pause(context, request, RETRY_LIMITS.baseBackoffMs * 2 ** retries);
			continue;
		}
		const { error } = attempt;
		const facts = error.context[FAILURE_FACTS] as FailureFacts | undefined;
		if (!facts || !mayHaveBeenProcessed(facts)) throw error;
		if (namesAFile && sentId !== undefined) throw withFileNameIdNote(error, sentId);
		if (userDefinedId === undefined) throw error;
		const failedAtMs = Date.now();
		// The Run, if made, is listed once the service has stored it: a short wait first.
		await pause(context, request, RETRY_LIMITS.baseBackoffMs);
		let lookup = await lookFor(context, request, userDefinedId, firstAttemptMs);
		if (lookup.kind === 'not listed') {
			await pause(context, request, failedAtMs + LIST_SETTLE_MS - Date.now());
			lookup = await lookFor(context, request, userDefinedId, firstAttemptMs);
		}
		if (lookup.kind === 'found') {
			takenBy(context).add(String(lookup.run.run_id));
			return lookup.run;
		}
		throw withLookupNote(error, lookup, userDefinedId);
	}
}

/** One POST; a failure comes back (not thrown) as the transport's error. */
async function sendOnce(
	context: IExecuteFunctions,
	request: CreateRunRequest,
): Promise<
	| { kind: 'answer'; body: unknown }
	| { kind: 'failed'; error: NodeApiError }
	| { kind: 'not sent'; error: NodeOperationError }
> {
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
		if (error instanceof NodeOperationError && error.context[UPLOAD_NOT_SENT_WHOLE] === true)
			return { kind: 'not sent', error };
		throw asNodeError(context.getNode(), error, request.itemIndex);
	}
}

/** The failure, told why the node did not look for its Run by an ID that is a file's name. */
function withFileNameIdNote(error: NodeApiError, userDefinedId: string): NodeApiError {
	const note = `The User-Defined ID "${userDefinedId}" is the file’s name, which two documents can share, so the node did not take a Run of the Agent with it for this file’s: check the Agent’s Runs before running the item again. To let the node find its own Run after such an error, give each document its own ID (the email's or the Drive file's ID).`;
	error.description = [error.description, note].filter(Boolean).join(' ');
	return error;
}

/** The failure, told what the look among the Agent's newest Runs found. */
function withLookupNote(
	error: NodeApiError,
	lookup: Exclude<Lookup, { kind: 'found' }>,
	userDefinedId: string,
): NodeApiError {
	const note =
		lookup.kind === 'not listed'
			? `No Run of the Agent with the User-Defined ID "${userDefinedId}" and these files is listed yet; the service may still list it later, so the node did not send the files again: check the Agent's Runs before running the item again.`
			: lookup.kind === 'cannot tell'
				? 'The service does not show User-Defined IDs on its Runs, so the node could not tell whether the Run was made.'
				: 'The node could not read the Agent’s Runs to tell whether the Run was made.';
	error.description = [error.description, note].filter(Boolean).join(' ');
	return error;
}
