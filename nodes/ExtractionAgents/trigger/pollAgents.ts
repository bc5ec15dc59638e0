import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import type { Run } from '../helpers/runs';
import { ranOutOfBudget } from './pollBudget';
import { isHistoryMoment, LOOKBACK_MS, type AgentPollState } from './pollState';
import { continueHistoryScan } from './historyScan';
import { needsNoRead, readAt } from './runCounters';
import { withDone } from './reconcile';
import { runsCompletedSince, type AgentPollOptions } from './runsCompletedSince';

/** What every Agent's step of one poll shares. */
interface AgentsPoll extends AgentPollOptions {
	agentIds: number[];
	runCounters: Map<number, number>;
	/** The Agent the last poll stopped at: this one starts there. */
	startAt: number | undefined;
}

/**
 * Polls the watched Agents in turn, from the one the last poll stopped at, updating `agents`
 * in place. Returns the Runs found finished and the Agent the next poll starts at (undefined:
 * every Agent had its turn). An Agent whose Runs cannot be read (its list refused, missing,
 * failing) is skipped with a warning and keeps its state; the poll fails only when no watched
 * Agent could be read.
 */
export async function pollAgents(
	context: IPollFunctions,
	agents: Record<string, AgentPollState>,
	poll: AgentsPoll,
): Promise<{ finished: Run[]; resumeAgent: number | undefined }> {
	const { agentIds, budget } = poll;
	const finished: Run[] = [];
	let polledAny = false;
	/** Agents whose step of this poll is done (what a rate limit past the budget keeps). */
	let agentsDone = 0;
	const skipped: Array<{ agentId: number; error: unknown }> = [];
	// An Agent first seen later ("All Agents") is new from the lookback before the poll that
	// first lists it, whichever poll reads it first: one the budget leaves for a later poll
	// (a slow service, many Agents) must not take the Runs made meanwhile for history.
	for (const agentId of agentIds) agents[String(agentId)] ??= firstSeenNow(poll.now);
	for (const agentId of startingAt(agentIds, poll.startAt)) {
		if (polledAny && budget.isSpent()) return { finished, resumeAgent: agentId };
		polledAny = true;
		let step: AgentStep = 'next';
		let failure: unknown;
		try {
			step = await pollAgent(context, agentId, agents, poll, finished);
		} catch (error) {
			failure = error;
		}
		if (failure === undefined) {
			agentsDone++;
			// The next poll starts with the Agent after this one, so one Agent's backlog never
			// keeps the others waiting: each poll visits every Agent before it comes back to
			// this one, which goes on where it stopped (its state keeps the rest).
			if (step === 'stopHere') return { finished, resumeAgent: agentAfter(agentIds, agentId) };
			continue;
		}
		if ((isRateLimited(failure) || ranOutOfBudget(failure, budget)) && agentsDone > 0) {
			// Rate limited past the budget, or its first request cut short by the budget (it
			// began before 60% of it): commit the Agents done; this one goes on next poll.
			return { finished, resumeAgent: agentId };
		}
		// Already a NodeApiError or NodeOperationError (or the execution's cancellation).
		if (agentIds.length === 1 || !concernsThisAgentOnly(failure)) throw failure;
		skipped.push({ agentId, error: failure });
		warnAgentSkipped(context, poll.triggerKey, agentId, failure);
	}
	if (skipped.length > 0 && skipped.length === agentIds.length) throw skipped[0].error;
	return { finished, resumeAgent: undefined };
}

/** After one Agent's step: go on with the next Agent, or stop the poll (the budget is spent). */
type AgentStep = 'next' | 'stopHere';

/**
 * One Agent's step of a poll: its first look (page by page, across polls), or a read of the
 * Runs completed since the last poll unless its Run counter says nothing changed. Its new
 * state goes into `agents`, the Runs found finished into `finished`.
 */
async function pollAgent(
	context: IPollFunctions,
	agentId: number,
	agents: Record<string, AgentPollState>,
	poll: AgentsPoll,
	finished: Run[],
): Promise<AgentStep> {
	const { runCounters, now } = poll;
	let previous = agents[String(agentId)];
	/** After a first look, the state the Run counter is compared with by the read (runCounters.ts). */
	let counterBefore: AgentPollState | undefined;
	if (!previous || previous.scanPage !== undefined) {
		const look = await firstLook(context, agentId, agents, poll, finished);
		if ('step' in look) return look.step;
		({ previous, counterBefore } = look);
	}
	if (!counterBefore && needsNoRead(previous, runCounters.get(agentId), now)) {
		// Its counter shows nothing new: the Runs are known as of now, as after a read.
		agents[String(agentId)] = { ...previous, knownUntil: now };
		return 'next';
	}
	const result = await runsCompletedSince(context, agentId, previous, {
		includeFullRun: poll.includeFullRun,
		budget: poll.budget,
		triggerKey: poll.triggerKey,
		now,
	});
	// Only pending Runs were read: the Run counter and the sweep wait for the list's read.
	agents[String(agentId)] = !result.listRead
		? result.state
		: readAt(
				agentId,
				result.state,
				runCounters.get(agentId),
				now,
				counterBefore ?? previous,
				counterBefore ? 0 : result.discovered,
			);
	// Remembered for the reconciliation pass, which would otherwise take them for misses.
	agents[String(agentId)] = withDone(agents[String(agentId)], result.finished, now);
	finished.push(...result.finished);
	return result.stoppedEarly ? 'stopHere' : 'next';
}

/**
 * A first look at the Agent, or its next pages. One watched when its past became history
 * (activation, a change of scope) has a state that says from when (poll.ts, historyScan.ts);
 * an Agent first seen later ("All Agents") has a floor (firstSeenNow). Its state goes into
 * `agents`, and the Runs it emits into `finished`. Returns the step when the Agent is done for
 * this poll, else the state the read that follows goes on from, and the counter that read
 * compares with (counterBefore).
 */
async function firstLook(
	context: IPollFunctions,
	agentId: number,
	agents: Record<string, AgentPollState>,
	poll: AgentsPoll,
	finished: Run[],
): Promise<{ step: AgentStep } | { previous: AgentPollState; counterBefore?: AgentPollState }> {
	const { runCounters, now } = poll;
	const scanning: AgentPollState = agents[String(agentId)] ?? firstSeenNow(now);
	const look = await continueHistoryScan(
		context,
		agentId,
		scanning,
		poll.budget,
		now,
		poll.includeFullRun,
	);
	// The Runs it emits are in its `done` (historyScan.ts), for the reconciliation pass.
	let previous = look.state;
	agents[String(agentId)] = previous;
	finished.push(...look.finished);
	if (previous.scanPage !== undefined) return { step: 'stopHere' };
	if (previous.before) {
		previous = afterLookAfterSkip(
			agentId,
			previous,
			previous.before,
			runCounters.get(agentId),
			now,
		);
		agents[String(agentId)] = previous;
	}
	// A look that found Runs to emit (finished after its historyBefore) or that left new
	// Runs to the poll (above its floor) goes on with a read now; one that took everything
	// as history is done.
	if (scanning.floor === undefined && isHistoryMoment(scanning.historyBefore, now)) {
		if (scanning.before === undefined)
			agents[String(agentId)] = readAt(agentId, previous, runCounters.get(agentId), now);
		return { step: 'next' };
	}
	// Such a look has no counter from before to compare with, and a Run counted but not
	// listed yet (a slow upload started since historyBefore, or since the floor) is new:
	// the Runs the look listed stand for that counter, so that the read below owes the
	// Runs the counter shows beyond them, and the Agent is read at every poll until they
	// are listed (for LOOKBACK_MS at most). The Runs that read finds were listed already
	// (counted in `listed`) or made since the counter was read, so none pays (one listed in
	// the moment between the look and the read costs reads, never a Run).
	// (After a re-activation that skips, the counter went on from the state before, above.)
	const counterBefore =
		look.listed !== undefined && scanning.before === undefined
			? { ...previous, nRuns: look.listed }
			: undefined;
	// That read is the next poll's when this one has no budget left (the state has no read
	// time yet, so the next poll reads the Agent whatever its Run counter says).
	if (poll.budget.isSpent()) {
		if (counterBefore) agents[String(agentId)] = counterBefore;
		return { step: 'stopHere' };
	}
	return { previous, counterBefore };
}

/**
 * After a re-activation that skips: the counter goes on from the state before it, so that a
 * Run it counted (or counts now) and that no read has listed yet is waited for.
 */
function afterLookAfterSkip(
	agentId: number,
	looked: AgentPollState,
	before: NonNullable<AgentPollState['before']>,
	counter: number | undefined,
	now: number,
): AgentPollState {
	const state = { ...looked };
	delete state.before;
	return readAt(
		agentId,
		state,
		counter,
		now,
		{
			watermark: before.watermark,
			seen: [],
			pending: [],
			nRuns: before.nRuns,
			owed: before.owed,
			owedSince: before.owedSince,
			sweptAt: before.sweptAt,
		},
		before.discovered,
	);
}

function isRateLimited(error: unknown): boolean {
	return error instanceof NodeApiError && Number(error.httpCode) === 429;
}

/**
 * Whether a failure reading one Agent's Runs concerns that Agent only: anything but a
 * rejected key (401) or the account's rate limit (429), which concern every Agent.
 */
function concernsThisAgentOnly(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return status !== 401 && status !== 429;
}

/** When each skipped Agent was last reported in n8n's log, per trigger (at most once an hour). */
const skipWarnedAt = new Map<string, number>();
const SKIP_WARNING_INTERVAL_MS = 60 * 60_000;

function warnAgentSkipped(
	context: IPollFunctions,
	triggerKey: string,
	agentId: number,
	error: unknown,
): void {
	const key = `${triggerKey}:${agentId}`;
	const now = Date.now();
	const last = skipWarnedAt.get(key);
	if (last !== undefined && now - last < SKIP_WARNING_INTERVAL_MS) return;
	if (skipWarnedAt.size >= 10_000) skipWarnedAt.delete(skipWarnedAt.keys().next().value as string);
	skipWarnedAt.set(key, now);
	context.logger.warn(
		`Extraction Agents Trigger: the Runs of Agent ${agentId} could not be read (${(error as Error).message}); this Agent is skipped until they can be, and the other Agents are polled as usual`,
		{ agentId },
	);
}

/**
 * The state of an Agent first seen later: Runs created from the lookback before `now` on are
 * new (the lookback covers slow uploads), older ones history.
 */
function firstSeenNow(now: number): AgentPollState {
	const floor = now - LOOKBACK_MS;
	return { watermark: floor, seen: [], pending: [], scanPage: 0, floor, net: { from: now } };
}

/** The watched Agent after `agentId`, the first after the last. */
function agentAfter(agentIds: number[], agentId: number): number {
	return agentIds[(agentIds.indexOf(agentId) + 1) % agentIds.length];
}

/** The Agents in order, from the one a poll stopped at (so every Agent gets its turn). */
function startingAt(agentIds: number[], resumeAgent: number | undefined): number[] {
	const index = resumeAgent === undefined ? -1 : agentIds.indexOf(resumeAgent);
	return index <= 0 ? agentIds : [...agentIds.slice(index), ...agentIds.slice(0, index)];
}
