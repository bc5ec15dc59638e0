import type { IPollFunctions } from 'n8n-workflow';
import { isRunFinished, type Run } from '../helpers/runs';
import { isPendingTooLong, PENDING_GIVE_UP_MS, type PendingRun } from './pollState';
import { listedRun, readRun, withReadError } from './runReads';
import type { PollBudget } from './pollBudget';

/** Drops pending Runs still running days after they were created, with a line in n8n's log. */
export function withoutStalePending(
	context: IPollFunctions,
	agentId: number,
	pending: PendingRun[],
	now: number,
): PendingRun[] {
	return pending.filter((entry) => {
		if (!isPendingTooLong(entry, now)) return true;
		context.logger.warn(
			`Extraction Agents Trigger: Run ${entry[0]} of Agent ${agentId} is still running ${Math.floor(PENDING_GIVE_UP_MS / 86_400_000)}+ days after it was created; it is no longer checked and will not be emitted`,
			{ agentId, runId: entry[0] },
		);
		return false;
	});
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
 * for the next poll keep their place. A Run the list has just shown running again
 * (`listedRunning`) is not read.
 */
export async function readPendingRuns(
	context: IPollFunctions,
	agentId: number,
	pending: PendingRun[],
	listedRunning: Map<number, number>,
	options: { budget: PollBudget; triggerKey: string; now: number },
): Promise<PendingRunsRead> {
	const finished: Run[] = [];
	const notReached: PendingRun[] = [];
	const readThisPoll: PendingRun[] = [];
	let stoppedEarly = false;
	for (const entry of withoutStalePending(context, agentId, pending, options.now)) {
		const [runId] = entry;
		if (listedRunning.has(runId)) continue;
		if (options.budget.isSpent()) {
			notReached.push(entry);
			stoppedEarly = true;
			continue;
		}
		const read = await readRun(context, agentId, runId, options.triggerKey);
		if ('gone' in read) continue; // deleted while pending: nothing left to emit
		if ('run' in read) {
			if (isRunFinished(read.run)) finished.push(read.run);
			else readThisPoll.push(entry);
			continue;
		}
		if (read.retryLater) {
			readThisPoll.push(entry);
			continue;
		}
		const fromList = await listedRun(context, agentId, runId).catch(() => undefined);
		if (fromList && isRunFinished(fromList)) {
			finished.push(withReadError(fromList, read.failure));
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
