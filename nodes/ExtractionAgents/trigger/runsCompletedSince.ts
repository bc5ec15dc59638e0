import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { unexpectedAnswer } from '../shared/answers';
import { MAX_PAGE_SIZE } from '../shared/pagination';
import { fetchRun, flattenRunList, isRunFinished, type Run } from '../shared/runs';
import { serviceTimestampMillis } from '../shared/timestamps';
import { serviceRequest } from '../shared/transport';

/** Per-Agent memory of the trigger, kept in the workflow's static data. */
export interface AgentPollState {
	/** Highest `created` (ms) among Runs already discovered. */
	watermark: number;
	/** Runs created exactly at the watermark: equal timestamps must not emit twice. */
	idsAtWatermark: number[];
	/** Discovered Runs that were still running at the last poll. */
	pending: number[];
	/** Recently emitted Runs: defence in depth against any double emission. */
	emitted: number[];
}

export const RECENTLY_EMITTED_LIMIT = 500;
/** Page size while polling: one page usually covers every Run created since the last poll. */
export const POLL_PAGE_SIZE = 100;

interface RunPage {
	runs: Run[];
	totalPages: number;
}

async function fetchRunPage(
	context: IPollFunctions,
	agentId: number,
	pageNumber: number,
	pageSize: number,
): Promise<RunPage> {
	const { body } = await serviceRequest<IDataObject>(context, {
		method: 'GET',
		path: `/agents/${agentId}/runs`,
		qs: { page_number: pageNumber, page_size: pageSize },
		subject: { agentId },
	});
	const runs = flattenRunList(body);
	if (!runs) throw unexpectedAnswer(context, `the Runs of Agent ${agentId}`, 'The response had no "runs" list.');
	if (Array.isArray(body)) return { runs, totalPages: 1 };
	// Without total_pages the trigger cannot tell whether Runs are on further pages; it
	// fails the poll (the next poll tries again) rather than risk missing a Run.
	const rawTotal = (body as IDataObject).total_pages;
	const totalPages = rawTotal === undefined || rawTotal === null ? NaN : Number(rawTotal);
	if (!Number.isFinite(totalPages)) {
		throw unexpectedAnswer(context, `the Runs of Agent ${agentId}`, 'The response lacked total_pages.');
	}
	return { runs, totalPages };
}

const createdOf = (run: Run) => serviceTimestampMillis(run.created) ?? 0;

function compareRuns(a: Run, b: Run): number {
	return createdOf(a) - createdOf(b) || Number(a.run_id) - Number(b.run_id);
}

/** The list order is not promised (gaps.md #7): tell it from the page itself. */
export function detectOrder(runs: Run[]): 'newest-first' | 'oldest-first' | 'unknown' {
	let ascending = true;
	let descending = true;
	for (let index = 1; index < runs.length; index++) {
		const step = compareRuns(runs[index - 1], runs[index]);
		if (step > 0) ascending = false;
		if (step < 0) descending = false;
	}
	if (runs.length < 2 || ascending === descending) return 'unknown';
	return ascending ? 'oldest-first' : 'newest-first';
}

function isNewSince(run: Run, state: Pick<AgentPollState, 'watermark' | 'idsAtWatermark'>): boolean {
	const created = createdOf(run);
	return created > state.watermark || (created === state.watermark && !state.idsAtWatermark.includes(Number(run.run_id)));
}

/**
 * Every Run of the Agent created since the watermark, reading as few pages as the
 * list's order allows: from the front when newest-first, from the back when
 * oldest-first, all pages when the order cannot be told.
 */
export async function runsCreatedSince(
	context: IPollFunctions,
	agentId: number,
	state: Pick<AgentPollState, 'watermark' | 'idsAtWatermark'>,
	pageSize = POLL_PAGE_SIZE,
): Promise<Run[]> {
	const found = new Map<number, Run>();
	const collect = (runs: Run[]) => {
		for (const run of runs) if (isNewSince(run, state)) found.set(Number(run.run_id), run);
	};
	const allNew = (runs: Run[]) => runs.every((run) => isNewSince(run, state));

	const first = await fetchRunPage(context, agentId, 0, pageSize);
	collect(first.runs);
	if (first.totalPages <= 1 || first.runs.length === 0) return [...found.values()];

	const order = detectOrder(first.runs);
	if (order === 'newest-first') {
		let page = first;
		for (let pageNumber = 1; allNew(page.runs) && pageNumber < page.totalPages; pageNumber++) {
			page = await fetchRunPage(context, agentId, pageNumber, pageSize);
			collect(page.runs);
		}
	} else if (order === 'oldest-first') {
		for (let pageNumber = first.totalPages - 1; pageNumber > 0; pageNumber--) {
			const page = await fetchRunPage(context, agentId, pageNumber, pageSize);
			collect(page.runs);
			if (!allNew(page.runs)) break;
		}
	} else {
		// No order to rely on: read every Run, in the largest pages the API allows.
		collect(await allRunsOf(context, agentId));
	}
	return [...found.values()];
}

/** Every Run of the Agent, for activation (finding Runs still running) and manual mode. */
export async function allRunsOf(context: IPollFunctions, agentId: number): Promise<Run[]> {
	const runs: Run[] = [];
	const first = await fetchRunPage(context, agentId, 0, MAX_PAGE_SIZE);
	runs.push(...first.runs);
	for (let pageNumber = 1; pageNumber < first.totalPages; pageNumber++) {
		runs.push(...(await fetchRunPage(context, agentId, pageNumber, MAX_PAGE_SIZE)).runs);
	}
	return runs;
}

/**
 * The state right after activation: nothing to emit, Runs still running become
 * pending; the watermark is the newest `created` seen, or `floor` when that is later.
 */
export function initialAgentState(runs: Run[], floor: number): AgentPollState {
	let watermark = floor;
	for (const run of runs) watermark = Math.max(watermark, createdOf(run));
	return {
		watermark,
		idsAtWatermark: runs.filter((run) => createdOf(run) === watermark).map((run) => Number(run.run_id)),
		pending: runs.filter((run) => !isRunFinished(run)).map((run) => Number(run.run_id)),
		emitted: [],
	};
}

export interface AgentPollResult {
	state: AgentPollState;
	/** Runs that finished since the last poll, in the order they were created. */
	finished: Run[];
}

/**
 * One poll of one Agent: discover Runs created since the watermark, re-read the
 * pending ones, and return the new state without storing it — the caller commits
 * it only when every Agent's poll succeeded.
 */
export async function runsCompletedSince(
	context: IPollFunctions,
	agentId: number,
	previous: AgentPollState,
): Promise<AgentPollResult> {
	const discovered = await runsCreatedSince(context, agentId, previous);
	const emitted = new Set(previous.emitted);
	const finished: Run[] = [];
	const pending = new Set<number>();

	for (const run of discovered) {
		const runId = Number(run.run_id);
		if (isRunFinished(run)) {
			if (!emitted.has(runId)) finished.push(run);
		} else {
			pending.add(runId);
		}
	}
	for (const runId of previous.pending) {
		if (pending.has(runId)) continue;
		let run: Run;
		try {
			run = await fetchRun(context, agentId, runId);
		} catch (error) {
			// A Run deleted while it was pending is dropped: there is nothing left to emit.
			if (error instanceof NodeApiError && error.httpCode === '404') continue;
			throw new NodeApiError(context.getNode(), error as JsonObject);
		}
		if (!isRunFinished(run)) pending.add(runId);
		else if (!emitted.has(runId)) finished.push(run);
	}

	let watermark = previous.watermark;
	let idsAtWatermark = [...previous.idsAtWatermark];
	for (const run of discovered) {
		const created = createdOf(run);
		if (created > watermark) {
			watermark = created;
			idsAtWatermark = [];
		}
		if (created === watermark && !idsAtWatermark.includes(Number(run.run_id))) idsAtWatermark.push(Number(run.run_id));
	}
	finished.sort(compareRuns);
	const nowEmitted = [...previous.emitted, ...finished.map((run) => Number(run.run_id))];
	return {
		finished,
		state: {
			watermark,
			idsAtWatermark,
			pending: [...pending],
			emitted: nowEmitted.slice(-RECENTLY_EMITTED_LIMIT),
		},
	};
}
