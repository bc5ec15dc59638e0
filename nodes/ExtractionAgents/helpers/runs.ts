import type { IDataObject } from 'n8n-workflow';
import { unexpectedAnswer } from '../transport/answers';
import { serviceRequest } from '../transport/serviceRequest';
import type { ServiceContext } from '../transport/types';
import { requestTimeoutMs } from './requestTimeoutOption';

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
 * Runs go `running` → `success` | `failed`, and both are final (docs/design/service-notes.md #17). A status the
 * API adds later (docs/design/service-notes.md #23, e.g. `cancelled`) is final once the Run has a `completed`
 * time: otherwise the trigger would re-read such a Run forever and a wait would time out.
 */
export function isRunFinished(run: Pick<Run, 'status' | 'completed'>): boolean {
	const status = String(run.status);
	return (
		FINAL_STATUSES.has(status) ||
		(status !== 'running' && typeof run.completed === 'string' && run.completed !== '')
	);
}

/** The list's `runs` is an array of arrays (docs/design/service-notes.md #12); a flat array is tolerated. */
export function flattenRunList(body: unknown): Run[] | undefined {
	const runs = Array.isArray(body) ? body : (body as IDataObject | undefined)?.runs;
	if (!Array.isArray(runs)) return undefined;
	return (runs as unknown[]).flat(2).filter((run): run is Run => !!run && typeof run === 'object');
}

/**
 * Checks a Run body has the fields the nodes rely on; a 200 without them is an error.
 * `created`: the body answers the POST that created the Run, which is not repeated.
 */
export function asRun(
	context: ServiceContext,
	body: unknown,
	itemIndex?: number,
	options: { created?: boolean } = {},
): Run {
	const run = body as Run;
	if (
		!run ||
		typeof run !== 'object' ||
		run.run_id === undefined ||
		run.run_id === null ||
		typeof run.status !== 'string'
	) {
		throw unexpectedAnswer(
			context,
			'the Run',
			'The answer was incomplete: it had no run_id or status.',
			{
				itemIndex,
				afterCreate: options.created
					? "The Run may have been created without the node knowing its ID. The request was not repeated, to avoid a duplicate Run: check the Agent's Runs (Run → Get Many) before running the item again."
					: undefined,
			},
		);
	}
	return run;
}

export async function fetchRun(
	context: ServiceContext,
	agentId: number,
	runId: number,
	itemIndex?: number,
	options: { deadlineMs?: number } = {},
): Promise<Run> {
	const { body } = await serviceRequest(context, {
		method: 'GET',
		path: `/agents/${agentId}/runs/${runId}`,
		subject: { agentId, runId },
		itemIndex,
		timeoutMs: requestTimeoutMs(context, itemIndex),
		deadlineMs: options.deadlineMs,
	});
	return asRun(context, body, itemIndex);
}
