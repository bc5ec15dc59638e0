import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { isRunFinished, type Run } from '../helpers/runs';
import { serviceTimestampMillis } from '../helpers/timestamps';
import { ranOutOfBudget, type PollBudget } from './pollBudget';
import {
	CLOCK_MARGIN_MS,
	isNewRun,
	pendingStampOf,
	type AgentPollState,
	type NetSweep,
	type PendingRun,
} from './pollState';
import { readPendingRuns } from './pendingRuns';
import { fetchRunPage } from './runsListedSince';

/**
 * The reconciliation pass (docs/design/trigger-rules.md, "The net"). Besides the fast rules,
 * which give a poll's latency, it reads each watched Agent's whole Run list again and again,
 * page by page across polls, and emits every Run it lists finished that finished after the
 * Agent's start (`net.from`: the activation, a re-activation with Skip Them, the change of
 * what is watched, the poll that first listed the Agent) and that the trigger has not dealt
 * with (`done`, or still pending), whatever the fast rules missed.
 *
 * Why it holds by construction: a Run that finishes at t is listed finished by every sweep of
 * its Agent's list that starts after t. The pass takes a Run for a miss when it finished at
 * or after the start of the sweep two before the one under way (less the clock margin), so
 * both of the first two sweeps that start after t judge it: one list answer leaving it out, or
 * a page boundary shifting under a sweep, costs one sweep, not the Run. `done` holds the Runs
 * the trigger emitted (or took for history within the clock margin of the start) for as long
 * as they can be judged so: bounded by time (two sweeps of the Agent), not by a count.
 */

/** Pages the pass reads per poll, across Agents: what it adds to a poll, at most. */
export const NET_PAGES_PER_POLL = 4;
/** An Agent's sweep starts at most this often (the first one this long after `net.from`). */
export const NET_SWEEP_EVERY_MS = 60 * 60_000;

/** The earliest `completed` the pass takes for a miss on this Agent now (service's clock). */
export function netCutoff(net: NetSweep): number {
	return Math.max(doneKeptFrom(net), net.priorUntil ?? -Infinity);
}

/**
 * The earliest `completed` that `done` keeps. Not raised by `priorUntil`: a re-activation with
 * Skip Them starts a new `net` without it, whose first look would take a Run emitted just
 * after the upgrade, forgotten, for one finished since (emitted twice; a review's test).
 */
function doneKeptFrom(net: NetSweep): number {
	const starts = net.starts ?? [];
	const from = starts.length >= 2 ? Math.max(net.from, starts[0]) : net.from;
	return from - CLOCK_MARGIN_MS;
}

/** The state with its `net` (every state loaded has one: pollState.ts readTriggerState). */
function withNet(state: AgentPollState, now: number): AgentPollState & { net: NetSweep } {
	return { ...state, net: state.net ?? { from: now } };
}

/**
 * The state with `runs` (found finished by this poll: emitted, or filtered out by Trigger On)
 * remembered in `done`, and what the pass can no longer take for a miss forgotten.
 */
export function withDone(state: AgentPollState, runs: Run[], now: number): AgentPollState {
	const started = withNet(state, now);
	const net = started.net;
	const cutoff = doneKeptFrom(net);
	const done = new Map(started.done ?? []);
	for (const run of runs) {
		const completed = serviceTimestampMillis(run.completed);
		if (completed !== null) done.set(Number(run.run_id), completed);
	}
	const kept = [...done.entries()].filter(([, completed]) => completed >= cutoff);
	const next: AgentPollState = { ...state, net };
	delete next.done;
	if (kept.length > 0) next.done = kept;
	return next;
}

interface NetPoll {
	agentIds: number[];
	/** The Agent the last poll's pass stopped at. */
	startAt: number | undefined;
	budget: PollBudget;
	triggerKey: string;
	now: number;
}

/**
 * This poll's share of the pass: at most NET_PAGES_PER_POLL pages, and none once the poll's
 * budget is spent (the fast rules came first). Updates `agents` in place; returns the Runs it
 * found missed and read finished, and the Agent the next poll's pass starts with.
 */
export async function reconcile(
	context: IPollFunctions,
	agents: Record<string, AgentPollState>,
	poll: NetPoll,
): Promise<{ finished: Run[]; netAgent: number | undefined }> {
	const finished: Run[] = [];
	let pages = 0;
	for (const agentId of startingAt(poll.agentIds, poll.startAt)) {
		if (pages >= NET_PAGES_PER_POLL || poll.budget.isSpent())
			return { finished, netAgent: agentId };
		const state = agents[String(agentId)];
		// Not during its first look (that reads every page already), nor before it.
		if (!state || state.scanPage !== undefined) continue;
		const started = withNet(state, poll.now);
		const net = { ...started.net };
		if (net.page === undefined) {
			const last = net.starts?.[net.starts.length - 1] ?? net.from;
			// A clock set back (a restore, another n8n main) must not put the sweep off.
			if (last <= poll.now && poll.now - last < NET_SWEEP_EVERY_MS) continue;
			net.page = 0;
			net.startedAt = poll.now;
		}
		const sweep = await sweepPages(
			context,
			agentId,
			{ ...started, net },
			NET_PAGES_PER_POLL - pages,
			poll,
		);
		pages += sweep.pages;
		agents[String(agentId)] = sweep.state;
		finished.push(...sweep.finished);
		// A list that failed (an Agent refused for good) must not hold the pass up: the others
		// go on, and this one is tried again when the pass comes back to it.
		if (sweep.state.net?.page !== undefined && !sweep.failed)
			return { finished, netAgent: agentId };
	}
	return { finished, netAgent: undefined };
}

/**
 * Pages of one Agent's sweep, from `net.page` on, at most `most`; the missed Runs they list
 * read at once (their single read, as a pending Run's: Include Full Run's fields, a read that
 * lags), those not finished yet left pending. A list that fails ends the Agent's turn (read
 * again next poll); the fast rules say what failed.
 */
async function sweepPages(
	context: IPollFunctions,
	agentId: number,
	state: AgentPollState,
	most: number,
	poll: NetPoll,
): Promise<{ state: AgentPollState; finished: Run[]; pages: number; failed?: true }> {
	const net = { ...(state.net as NetSweep) };
	const cutoff = netCutoff(net);
	const known = new Set([
		...(state.done ?? []).map(([runId]) => runId),
		...state.pending.map(([runId]) => runId),
	]);
	const missed = new Map<number, Run>();
	let pages = 0;
	let failed: true | undefined;
	while (pages < most && net.page !== undefined && !poll.budget.isSpent()) {
		const page = await fetchRunPage(context, agentId, net.page, MAX_PAGE_SIZE).catch(
			(error: unknown) => {
				if (ranOutOfBudget(error, poll.budget) || error instanceof NodeApiError) return undefined;
				throw error;
			},
		);
		pages++;
		if (!page) {
			if (!poll.budget.isSpent()) failed = true;
			break;
		}
		for (const run of page.runs) {
			const runId = Number(run.run_id);
			const completed = serviceTimestampMillis(run.completed);
			if (!isRunFinished(run) || completed === null || completed < cutoff) continue;
			// New to the fast rules: their next read of the list emits it (a catch-up going on
			// across polls, a Run listed since the last read). Not missed yet.
			if (isNewRun(run, state)) continue;
			if (!known.has(runId)) missed.set(runId, run);
		}
		net.page++;
		if (page.runs.length === 0 || net.page >= page.totalPages) {
			// Never earlier than the sweep before: after n8n's clock was set back, a cutoff that
			// went back would judge again Runs already forgotten from `done` (emitted twice).
			const previous = net.starts?.[net.starts.length - 1] ?? net.from;
			net.starts = [...(net.starts ?? []), Math.max(net.startedAt ?? poll.now, previous)].slice(-2);
			delete net.page;
			delete net.startedAt;
		}
	}
	const next: AgentPollState = { ...state, net };
	if (missed.size === 0)
		return { state: withDone(next, [], poll.now), finished: [], pages, ...(failed && { failed }) };
	const adopted: PendingRun[] = [...missed.values()].map((run) => [
		Number(run.run_id),
		pendingStampOf(run, poll.now),
	]);
	const read = await readPendingRuns(context, agentId, adopted, missed, {
		budget: poll.budget,
		triggerKey: poll.triggerKey,
		now: poll.now,
	});
	// Known from now on to the fast rules too: a read of the list never finds them new.
	next.seen = [...new Set([...next.seen, ...adopted.map(([runId]) => runId)])];
	next.pending = [...next.pending, ...read.notReached, ...read.readThisPoll];
	return {
		state: withDone(next, read.finished, poll.now),
		finished: read.finished,
		pages,
		...(failed && { failed }),
	};
}

/** The Agents in order, from the one the pass stopped at. */
function startingAt(agentIds: number[], from: number | undefined): number[] {
	const index = from === undefined ? -1 : agentIds.indexOf(from);
	return index <= 0 ? agentIds : [...agentIds.slice(index), ...agentIds.slice(0, index)];
}
