import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { isRunFinished, type Run } from '../helpers/runs';
import { isPendingTooLong, PENDING_GIVE_UP_MS, type PendingRun } from './pollState';
import { listedRun, readRun, retryAfterNotFound, withReadError } from './runReads';
import type { PollBudget } from './pollBudget';

/**
 * Whether a pending Run that a read has just shown running is given up: still running days
 * after it was created, with a line in n8n's log. Only a read decides: a Run pending across
 * a long pause (a re-activation days later, n8n down, its Agent unreadable) may have finished
 * meanwhile, and is read first.
 */
function givenUp(
	context: IPollFunctions,
	agentId: number,
	entry: PendingRun,
	now: number,
): boolean {
	if (!isPendingTooLong(entry, now)) return false;
	context.logger.warn(
		`Extraction Agents Trigger: Run ${entry[0]} of Agent ${agentId} is still running ${Math.floor(PENDING_GIVE_UP_MS / 86_400_000)}+ days after it was created; it is no longer read at every poll (if it finishes, the trigger's sweep of the Agent's whole Run list emits it)`,
		{ agentId, runId: entry[0] },
	);
	return true;
}

/**
 * givenUp, for a pending Run whose single read has just said running: only when its list does
 * not show it finished. A single read lagging the list (a read replica) says running for a Run
 * that finished: it stays pending until the read shows it finished, however long it was
 * pending (a pause of days; issue 42). The list is asked (the `run_id` filter) when this poll's
 * read of it did not reach the Run; with no budget left, or no answer, the Run waits.
 */
async function givenUpWhileListedRunning(
	context: IPollFunctions,
	agentId: number,
	entry: PendingRun,
	fromList: Run | undefined,
	options: PendingReadOptions,
): Promise<boolean> {
	if (!isPendingTooLong(entry, options.now)) return false;
	let listed = fromList;
	if (!listed) {
		if (options.budget.isSpent()) return false;
		const answer = await askList(context, agentId, entry[0]);
		if (answer.failed) return false;
		listed = answer.run;
	}
	if (listed && isRunFinished(listed)) return false;
	return givenUp(context, agentId, entry, options.now);
}

/** What a poll's reads of the pending Runs came to. */
interface PendingRunsRead {
	/** Pending Runs found finished. */
	finished: Run[];
	/** Pending Runs not read for the budget: they keep their place at the front. */
	notReached: PendingRun[];
	/** Pending Runs read and still running (or not readable yet): they go to the back. */
	readThisPoll: PendingRun[];
	/**
	 * Pending Runs whose read answered 404 and that one list answer left out (AgentPollState's
	 * `notFound`): dropped if the next answer leaves them out too.
	 */
	notFound: number[];
	/** The budget ran out before every pending Run was read. */
	stoppedEarly: boolean;
}

/** How the pending Runs are read this poll. */
export interface PendingReadOptions {
	budget: PollBudget;
	triggerKey: string;
	now: number;
	/**
	 * The oldest `created` this poll's list read reached back to, when it was read whole before
	 * the pending Runs: a pending Run created since that it did not list was left out by it.
	 */
	listedSince?: number;
	/** Pending Runs the last poll's answers already left out once after a 404 (`notFound`). */
	notFoundBefore?: ReadonlySet<number>;
}

/**
 * Reads again the Runs still running at the last poll, least recently read first; those left
 * for the next poll keep their place. A Run the list has just shown (`listed`) still running
 * is not read; one it shows finished is read, and that read is the full one (what a Run seen
 * running has always been emitted with, Include Full Run or not).
 */
export async function readPendingRuns(
	context: IPollFunctions,
	agentId: number,
	pending: PendingRun[],
	listed: Map<number, Run>,
	options: PendingReadOptions,
): Promise<PendingRunsRead> {
	const result: PendingRunsRead = {
		finished: [],
		notReached: [],
		readThisPoll: [],
		notFound: [],
		stoppedEarly: false,
	};
	for (const entry of pending) {
		const fromList = listed.get(entry[0]);
		if (fromList && !isRunFinished(fromList)) {
			// The list has just shown it running: that is this poll's read of it.
			if (!givenUp(context, agentId, entry, options.now)) result.readThisPoll.push(entry);
			continue;
		}
		if (options.budget.isSpent()) {
			result.notReached.push(entry);
			result.stoppedEarly = true;
			continue;
		}
		const outcome = await readPendingRun(context, agentId, entry, fromList, options);
		if (outcome.finished) result.finished.push(outcome.finished);
		else if (outcome.keep === 'notReached') result.notReached.push(entry);
		else if (outcome.keep) result.readThisPoll.push(entry);
		if (outcome.notFound) result.notFound.push(entry[0]);
		if (outcome.stoppedEarly) result.stoppedEarly = true;
	}
	return result;
}

/** What one pending Run's read came to: emitted, kept (and where), or dropped (neither). */
interface PendingOutcome {
	finished?: Run;
	keep?: true | 'notReached';
	notFound?: true;
	stoppedEarly?: true;
}

async function readPendingRun(
	context: IPollFunctions,
	agentId: number,
	entry: PendingRun,
	fromList: Run | undefined,
	options: PendingReadOptions,
): Promise<PendingOutcome> {
	const [runId] = entry;
	const read = await readRun(context, agentId, runId, options.triggerKey);
	if ('gone' in read) return await afterNotFound(context, agentId, entry, fromList, options, read);
	if ('run' in read) {
		if (isRunFinished(read.run)) return { finished: read.run };
		return (await givenUpWhileListedRunning(context, agentId, entry, fromList, options))
			? {}
			: { keep: true };
	}
	if (read.retryLater) return { keep: true };
	// Its list data is the next poll's (the read fails again there, counted once more).
	if (options.budget.isSpent()) return { keep: 'notReached', stoppedEarly: true };
	const listedAlone = await askList(context, agentId, runId);
	if (listedAlone.run && isRunFinished(listedAlone.run))
		return { finished: withReadError(listedAlone.run, read.failure) };
	context.logger.warn(
		`Extraction Agents Trigger: Run ${runId} of Agent ${agentId} could not be read (${read.failure.message}); it stays pending and the other Runs go on`,
		{ agentId, runId },
	);
	return { keep: true };
}

/**
 * A pending Run whose single read answered 404: deleted, or a proxy or a deploy answering 404
 * for a moment. It is dropped only when two list answers in a row leave it out (the answer
 * with the `run_id` filter, and this poll's list read reaching back to it or the last poll's
 * `run_id` answer): one answer may lag for a moment (docs/design/trigger-rules.md, "One Run that cannot be
 * read"). A list request that fails is no answer: the Run stays pending. While the list shows
 * it, it is read again next poll, as after a 5xx, and emitted from its list data after as many
 * polls. Asking the list is a request: with no budget left, this read counts as the poll's, and
 * the Run waits for the next poll. Read first again instead, it would take the Agent's one
 * request at every poll of a slow service, and its list would never be read.
 */
async function afterNotFound(
	context: IPollFunctions,
	agentId: number,
	[runId, created]: PendingRun,
	fromList: Run | undefined,
	options: PendingReadOptions,
	read: { failure: Error },
): Promise<PendingOutcome> {
	let stillListed = fromList;
	if (!stillListed) {
		if (options.budget.isSpent()) return { keep: true, stoppedEarly: true };
		const answer = await askList(context, agentId, runId);
		if (answer.failed) return { keep: true };
		stillListed = answer.run;
	}
	if (!stillListed) {
		const leftOutBefore =
			(options.listedSince !== undefined && created >= options.listedSince) ||
			options.notFoundBefore?.has(runId) === true;
		return leftOutBefore ? {} : { keep: true, notFound: true };
	}
	if (retryAfterNotFound(options.triggerKey, agentId, runId)) return { keep: true };
	if (isRunFinished(stillListed)) return { finished: withReadError(stillListed, read.failure) };
	return givenUp(context, agentId, [runId, created], options.now) ? {} : { keep: true };
}

/**
 * The Run as the list shows it (GET runs with the `run_id` filter): `run` undefined when the
 * answer leaves it out, `failed` when the request failed (a 5xx, a 429 past its retries, the
 * poll's budget): that says nothing about the Run.
 */
async function askList(
	context: IPollFunctions,
	agentId: number,
	runId: number,
): Promise<{ run?: Run; failed?: true }> {
	const answer = await listedRun(context, agentId, runId).then(
		(run) => ({ run, failure: undefined }),
		(failure: unknown) => ({ run: undefined, failure }),
	);
	if (answer.failure === undefined) return { run: answer.run };
	// Not a failed request (e.g. the execution was cancelled): passed on.
	if (!(answer.failure instanceof NodeApiError)) throw answer.failure;
	return { failed: true };
}
