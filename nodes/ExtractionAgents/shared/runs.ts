import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { unexpectedAnswer } from './answers';
import { sleepUnlessCancelled } from './cancellation';
import { serviceRequest, type ServiceContext } from './transport';

export interface PromptResult extends IDataObject {
	status?: string;
	value?: IDataObject[keyof IDataObject];
	metadata?: IDataObject;
}

export interface Run extends IDataObject {
	agent_id: number;
	run_id: number;
	status: string;
	run_url?: string;
	files?: string[];
	order?: string[];
	data?: Record<string, PromptResult>;
	created?: string;
	updated?: string;
	completed?: string | null;
	user_defined_id?: string | null;
}

const FINAL_STATUSES = new Set(['success', 'failed']);

/**
 * Runs go `running` → `success` | `failed`, and both are final (gaps.md #12). A status the
 * API adds later (gaps.md #21, e.g. `cancelled`) is final once the Run has a `completed`
 * time: otherwise the trigger would re-read such a Run forever and a wait would time out.
 */
export function isRunFinished(run: Pick<Run, 'status' | 'completed'>): boolean {
	const status = String(run.status);
	return FINAL_STATUSES.has(status) || (status !== 'running' && typeof run.completed === 'string' && run.completed !== '');
}

/** The list's `runs` is an array of arrays (gaps.md #8); a flat array is tolerated. */
export function flattenRunList(body: unknown): Run[] | undefined {
	const runs = Array.isArray(body) ? body : (body as IDataObject | undefined)?.runs;
	if (!Array.isArray(runs)) return undefined;
	return (runs as unknown[]).flat(2).filter((run): run is Run => !!run && typeof run === 'object');
}

/**
 * Checks a Run body has the fields the nodes rely on; a 200 without them is an error.
 * `created`: the body answers the POST that created the Run, which is not repeated.
 */
export function asRun(context: ServiceContext, body: unknown, itemIndex?: number, options: { created?: boolean } = {}): Run {
	const run = body as Run;
	if (!run || typeof run !== 'object' || run.run_id === undefined || run.run_id === null || typeof run.status !== 'string') {
		throw unexpectedAnswer(context, 'the Run', 'The response lacked run_id or status.', {
			itemIndex,
			afterCreate: options.created
				? 'The Run may have been created without the node knowing its ID. The request was not repeated, to avoid a duplicate Run: check the Agent\'s Runs (Run → Get Many) before running the item again.'
				: undefined,
		});
	}
	return run;
}

/**
 * Whether a failed check on a Run being waited for is worth checking again: the
 * service or the network had a moment (5xx, 429 beyond its retries, a timeout, a
 * dropped connection, an answer cut off). A 4xx such as 401 or 404 (the Run was
 * deleted) and a cancelled execution end the wait at once.
 */
function isPassingFailure(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return !error.httpCode || status === 429 || status >= 500;
}

export async function fetchRun(
	context: ServiceContext,
	agentId: number,
	runId: number,
	itemIndex?: number,
): Promise<Run> {
	const { body } = await serviceRequest(context, {
		method: 'GET',
		path: `/agents/${agentId}/runs/${runId}`,
		subject: { agentId, runId },
		itemIndex,
	});
	return asRun(context, body, itemIndex);
}

export const WAIT_BACKOFF = { firstMs: 1000, factor: 1.5, maxMs: 10_000, jitter: 0.2 };

/**
 * Polls the single-Run read until the Run is final. Waits 1 s, growing to 10 s, with
 * jitter so that many items waiting at once do not poll in lockstep; 429s are handled
 * by the transport. Stops at `timeoutMs` with an error that tells the user where to
 * find the Run later, and within half a second when the execution is cancelled.
 */
export async function waitForRunToFinish(
	context: IExecuteFunctions,
	run: Run,
	options: { timeoutMs: number; itemIndex: number },
): Promise<Run> {
	const agentId = Number(run.agent_id);
	const runId = Number(run.run_id);
	const deadline = Date.now() + options.timeoutMs;
	const signal = context.getExecutionCancelSignal?.();
	let current = run;
	let delay = WAIT_BACKOFF.firstMs;
	let lastFailure: Error | undefined;
	while (!isRunFinished(current)) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			const lastCheck = lastFailure ? ` The last check of the Run failed: ${lastFailure.message}.` : '';
			throw new NodeOperationError(
				context.getNode(),
				`Run ${runId} did not finish within ${formatDuration(options.timeoutMs)}`,
				{
					description: `The Run is still ${current.status} and will finish on the service${current.run_url ? ` (${current.run_url})` : ''}. Fetch it later with Run → Get (Agent ${agentId}, Run ${runId}), use the Extraction Agents Trigger, or raise Timeout.${lastCheck}`,
					itemIndex: options.itemIndex,
				},
			);
		}
		const jittered = delay * (1 - WAIT_BACKOFF.jitter + Math.random() * 2 * WAIT_BACKOFF.jitter);
		if (!(await sleepUnlessCancelled(Math.min(jittered, remaining), signal))) {
			throw new NodeOperationError(
				context.getNode(),
				`The execution was cancelled while waiting for Run ${runId}`,
				{ description: 'The Run goes on in the service; fetch it later with Run → Get.', itemIndex: options.itemIndex },
			);
		}
		delay = Math.min(delay * WAIT_BACKOFF.factor, WAIT_BACKOFF.maxMs);
		// The Run exists: a check that fails for a passing reason (after the transport's
		// own retries) is not a reason to give up on it, only to check again later.
		const check = await fetchRun(context, agentId, runId, options.itemIndex).then(
			(fetched) => ({ fetched, failure: undefined }),
			(failure: unknown) => ({ fetched: undefined, failure }),
		);
		if (check.fetched) {
			current = check.fetched;
			lastFailure = undefined;
		} else {
			if (!isPassingFailure(check.failure)) throw check.failure;
			lastFailure = check.failure as Error;
		}
	}
	return current;
}

function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
	return `${seconds} seconds`;
}
