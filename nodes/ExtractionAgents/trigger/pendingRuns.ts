import type { IPollFunctions } from 'n8n-workflow';
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
		`Extraction Agents Trigger: Run ${entry[0]} of Agent ${agentId} is still running ${Math.floor(PENDING_GIVE_UP_MS / 86_400_000)}+ days after it was created; it is no longer checked and will not be emitted`,
		{ agentId, runId: entry[0] },
	);
	return true;
}

/** What a poll's reads of the pending Runs came to. */
interface PendingRunsRead {
	/** Pending Runs found finished. */
	finished: Run[];
	/** Pending Runs not read for the budget: they keep their place at the front. */
	notReached: PendingRun[];
	/** Pending Runs read and still running (or not readable yet): they go to the back. */
	readThisPoll: PendingRun[];
	/** The budget ran out before every pending Run was read. */
	stoppedEarly: boolean;
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
	options: { budget: PollBudget; triggerKey: string; now: number },
): Promise<PendingRunsRead> {
	const finished: Run[] = [];
	const notReached: PendingRun[] = [];
	const readThisPoll: PendingRun[] = [];
	let stoppedEarly = false;
	for (const entry of pending) {
		const [runId] = entry;
		const fromList = listed.get(runId);
		if (fromList && !isRunFinished(fromList)) {
			// The list has just shown it running: that is this poll's read of it.
			if (!givenUp(context, agentId, entry, options.now)) readThisPoll.push(entry);
			continue;
		}
		if (options.budget.isSpent()) {
			notReached.push(entry);
			stoppedEarly = true;
			continue;
		}
		const read = await readRun(context, agentId, runId, options.triggerKey);
		if ('gone' in read) {
			// Deleted while pending: nothing left to emit. Unless the list still shows it (a
			// proxy or a deploy answering 404 for a moment): then it is read again next poll, as
			// after a 5xx, and emitted from its list data after as many polls. Asking the list
			// is a request: with no budget left, this read counts as the poll's, and the Run waits
			// for the next read of the list to show it or not. Read first again instead, it would
			// take the Agent's one request at every poll of a slow service, and its list would
			// never be read.
			if (!fromList && options.budget.isSpent()) {
				readThisPoll.push(entry);
				stoppedEarly = true;
				continue;
			}
			const stillListed =
				fromList ?? (await listedRun(context, agentId, runId).catch(() => undefined));
			if (!stillListed) continue;
			if (retryAfterNotFound(options.triggerKey, agentId, runId)) readThisPoll.push(entry);
			else if (isRunFinished(stillListed)) finished.push(withReadError(stillListed, read.failure));
			else if (!givenUp(context, agentId, entry, options.now)) readThisPoll.push(entry);
			continue;
		}
		if ('run' in read) {
			if (isRunFinished(read.run)) finished.push(read.run);
			else if (!givenUp(context, agentId, entry, options.now)) readThisPoll.push(entry);
			continue;
		}
		if (read.retryLater) {
			readThisPoll.push(entry);
			continue;
		}
		if (options.budget.isSpent()) {
			// Its list data is the next poll's (the read fails again there, counted once more).
			notReached.push(entry);
			stoppedEarly = true;
			continue;
		}
		const listedAlone = await listedRun(context, agentId, runId).catch(() => undefined);
		if (listedAlone && isRunFinished(listedAlone)) {
			finished.push(withReadError(listedAlone, read.failure));
			continue;
		}
		context.logger.warn(
			`Extraction Agents Trigger: Run ${runId} of Agent ${agentId} could not be read (${read.failure.message}); it stays pending and the other Runs go on`,
			{ agentId, runId },
		);
		readThisPoll.push(entry);
	}
	return { finished, notReached, readThisPoll, stoppedEarly };
}
