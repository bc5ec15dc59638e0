import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { fetchRun, type Run } from '../helpers/runs';
import { fetchRunPage } from './runsListedSince';

/**
 * Polls in a row in which one Run's read fails with a 5xx, a dropped connection or an answer
 * cut off before that failure is taken as the Run's own (not the service's): from then on
 * it no longer fails the poll.
 */
const FAILURES_BEFORE_RUN_IS_BLAMED = 3;

/** A Run emitted from its list data because its single read failed: the failure, for the user. */
export const READ_ERROR_FIELD = 'read_error';

/** Consecutive failed reads per Run in this n8n process (a failed poll commits no state). */
const failedReads = new Map<string, number>();
const FAILED_READS_TRACKED = 10_000;

function countFailedRead(key: string): number {
	const count = (failedReads.get(key) ?? 0) + 1;
	failedReads.delete(key);
	if (failedReads.size >= FAILED_READS_TRACKED)
		failedReads.delete(failedReads.keys().next().value as string);
	failedReads.set(key, count);
	return count;
}

type RunRead =
	| { run: Run }
	| { gone: true; failure: Error }
	/** `retryLater`: a passing failure, not yet FAILURES_BEFORE_RUN_IS_BLAMED times in a row. */
	| { failure: Error; retryLater: boolean };

/**
 * One Run's single read, sorted by whom a failure concerns. 401 (the key) and 429 (the
 * account) concern every request: the poll fails. A 5xx, a dropped connection or an answer
 * cut off concerns this Run until shown otherwise: the list was just read, so the service is
 * up. The Run stays pending and the other Runs go on; once the same Run has failed
 * FAILURES_BEFORE_RUN_IS_BLAMED polls in a row it is emitted from its list data with the
 * error. Any other 4xx concerns this Run only, at once. 404: the Run was deleted.
 */
export async function readRun(
	context: IPollFunctions,
	agentId: number,
	runId: number,
	/** The trigger reading (its workflow and node id): failed reads are counted per trigger. */
	triggerKey: string,
): Promise<RunRead> {
	const failureKey = `${triggerKey}:${agentId}:${runId}`;
	const read = await fetchRun(context, agentId, runId).then(
		(run) => ({ run, failure: undefined }),
		(failure: unknown) => ({ run: undefined, failure }),
	);
	if (read.run) {
		failedReads.delete(failureKey);
		return { run: read.run };
	}
	const { failure } = read;
	// Not a failed request (e.g. the execution was cancelled): nothing to sort.
	if (!(failure instanceof NodeApiError)) throw failure;
	const status = Number(failure.httpCode);
	if (status === 404) return { gone: true, failure };
	if (status === 401 || status === 429) throw failure;
	const passing = !failure.httpCode || status >= 500;
	const retryLater = passing && countFailedRead(failureKey) < FAILURES_BEFORE_RUN_IS_BLAMED;
	return { failure, retryLater };
}

/**
 * A Run whose single read answered 404 while the list still shows it: whether to read it
 * again next poll (not yet FAILURES_BEFORE_RUN_IS_BLAMED polls in a row).
 */
export function retryAfterNotFound(triggerKey: string, agentId: number, runId: number): boolean {
	return countFailedRead(`${triggerKey}:${agentId}:${runId}`) < FAILURES_BEFORE_RUN_IS_BLAMED;
}

/** The Run as the list shows it (GET runs filtered by run_id), when its single read fails. */
export async function listedRun(
	context: IPollFunctions,
	agentId: number,
	runId: number,
): Promise<Run | undefined> {
	const { runs } = await fetchRunPage(context, agentId, 0, 10, { run_id: runId });
	return runs.find((run) => Number(run.run_id) === runId);
}

export function withReadError(run: Run, failure: Error): Run {
	return { ...run, [READ_ERROR_FIELD]: failure.message };
}
