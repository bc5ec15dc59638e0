import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { listAgents } from '../helpers/agents';
import { parseResourceId } from '../helpers/ids';
import { fetchRun, type Run } from '../helpers/runs';
import { triggerHasBehaviour } from '../descriptions/versions';
import { pollBudget } from './pollBudget';
import { limitWaitsOf } from '../transport/rateLimitGate';
import {
	ABSENT_AGENT_KEPT_MS,
	LOOKBACK_MS,
	readTriggerState,
	RECENTLY_EMITTED_LIMIT,
	STATE_VERSION,
	SWEEP_INTERVAL_MS,
	writeTriggerState,
	type AgentPollState,
	type TriggerState,
} from './pollState';
import { continueHistoryScan } from './historyScan';
import { withoutStalePending } from './pendingRuns';
import { hasChosenStatus, itemOfRun } from './runItems';
import { runsCompletedSince, type AgentPollOptions } from './runsCompletedSince';
import { newestFinishedRun } from './testEvent';

/** Trigger polls under way in this n8n process (polls run on the main instance only). */
const pollsInProgress = new Set<string>();

/**
 * Poll contexts this process has polled with. n8n before 2.41 keeps one context per
 * activation for every poll; 2.41 makes one per poll, and only the poll run at activation
 * has the activation mode 'activate'. Either way, a context not seen before in mode
 * 'activate' is the poll n8n runs when the user activates the workflow.
 */
const pollContextsSeen = new WeakSet<object>();

function isActivationPoll(context: IPollFunctions): boolean {
	const first = !pollContextsSeen.has(context);
	pollContextsSeen.add(context);
	return first && context.getActivationMode() === 'activate';
}

async function pollForFinishedRuns(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const statuses = this.getNodeParameter('statuses', []) as string[];
	const simplify = this.getNodeParameter('simplify', true) as boolean;
	const includeFullRun = triggerSetting(this, 'includeFullRun', true);
	const sheetReady = triggerHasBehaviour(this.getNode(), 'sheetReadyRuns');
	if (statuses.length === 0) {
		throw new NodeOperationError(this.getNode(), 'No status selected', {
			description: triggerHasBehaviour(this.getNode(), 'settingsInOptions')
				? 'Choose Run Succeeded, Run Failed or both under Trigger On.'
				: 'Choose Success, Failed or both under Statuses.',
		});
	}
	const scope = this.getNodeParameter('agentScope', 'one') as string;
	const budget = pollBudget(this);
	const { agentIds, runCounters } = await watchedAgents(this, scope);

	if (this.getMode() === 'manual') {
		const run = await newestFinishedRun(this, agentIds, statuses);
		const full = includeFullRun
			? await fetchRun(this, Number(run.agent_id), Number(run.run_id))
			: run;
		return [[{ json: itemOfRun(full, simplify, sheetReady) }]];
	}

	// A 429 asking for a wait past the budget ends the poll with what it has done (below).
	limitWaitsOf(this, budget.waitDeadlineMs);
	const now = Date.now();
	const scopeKey = scope === 'all' ? 'all' : `one:${agentIds[0]}`;
	const stored = this.getWorkflowStaticData('node') as TriggerState;
	const triggerKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
	const { state, scopeChanged } = stateToStartFrom(this, stored, scopeKey, now);
	const agents = agentsWithAbsencesTracked(state, agentIds, scopeChanged, now);

	// All requests first; the state is written only at the end, so a poll that fails
	// half-way leaves it as it was and the next poll emits what this one would have. A poll
	// that runs out of budget stops between requests and commits what it finished.
	const { finished, resumeAgent } = await pollAgents(this, agents, {
		agentIds,
		runCounters,
		startAt: state.resumeAgent,
		newAgentsAreHistory: state.newAgentsAreHistory,
		includeFullRun,
		budget,
		triggerKey,
		now,
	});

	const recentlyEmitted = new Set(state.recentlyEmitted ?? []);
	const emitted = finished.filter((run) => !recentlyEmitted.has(Number(run.run_id)));
	const items: INodeExecutionData[] = emitted
		.filter((run) => hasChosenStatus(run, statuses))
		.map((run) => ({ json: itemOfRun(run, simplify, sheetReady) }));

	writeTriggerState(stored, {
		activatedAt: state.activatedAt,
		scope: scopeKey,
		newAgentsAreHistory: everyAgentLooked(agentIds, agents) ? false : state.newAgentsAreHistory,
		resumeAgent,
		agents,
		recentlyEmitted: [
			...(state.recentlyEmitted ?? []),
			...emitted.map((run) => Number(run.run_id)),
		].slice(-RECENTLY_EMITTED_LIMIT),
	});
	return items.length > 0 ? [items] : null;
}

/**
 * The state this poll goes on from: the stored one, or a fresh one on first activation (or a
 * re-activation that skips the meantime); and whether what is watched changed since.
 */
function stateToStartFrom(
	context: IPollFunctions,
	stored: TriggerState,
	scopeKey: string,
	now: number,
): { state: TriggerState; scopeChanged: boolean } {
	const activationPoll = isActivationPoll(context);
	const skipWhileInactive = triggerSetting<string>(context, 'onReactivation', 'emit') === 'skip';
	let state = readTriggerState(stored, scopeKey, now);
	if (!state || (activationPoll && skipWhileInactive)) {
		// First activation (or a re-activation that skips the meantime): every watched
		// Agent's past is history, and the trigger starts from now.
		state = {
			version: STATE_VERSION,
			activatedAt: now,
			scope: scopeKey,
			newAgentsAreHistory: true,
			agents: {},
			recentlyEmitted: [],
		};
	}
	const scopeChanged = state.scope !== scopeKey;
	if (scopeChanged) {
		// The user changed what is watched: the newly watched Agents' past is not news.
		state = { ...state, scope: scopeKey, newAgentsAreHistory: true };
	}
	return { state, scopeChanged };
}

/**
 * The Agents' states with this poll's absences noted. An Agent missing from this listing keeps
 * its state (a permission change, a workspace move, a page boundary shifting), and is forgotten
 * only after a long absence. After a change of scope, an Agent no longer watched is forgotten
 * at once: watched again later, its past is history again.
 */
function agentsWithAbsencesTracked(
	state: TriggerState,
	agentIds: number[],
	scopeChanged: boolean,
	now: number,
): Record<string, AgentPollState> {
	const agents: Record<string, AgentPollState> = {
		...(state.agents as Record<string, AgentPollState>),
	};
	const watched = new Set(agentIds.map(String));
	for (const [agentId, agentState] of Object.entries(agents)) {
		if (scopeChanged && !watched.has(agentId)) {
			delete agents[agentId];
		} else if (watched.has(agentId)) {
			if (agentState.absentSince !== undefined) agents[agentId] = withoutAbsence(agentState);
		} else if (agentState.absentSince === undefined) {
			agents[agentId] = { ...agentState, absentSince: now };
		} else if (now - agentState.absentSince > ABSENT_AGENT_KEPT_MS) {
			delete agents[agentId];
		}
	}
	return agents;
}

/**
 * Whether every watched Agent has had its first look: until then, Agents without state are
 * history; then an Agent seen later is new (one skipped before its first look keeps the rule
 * it would have had).
 */
function everyAgentLooked(agentIds: number[], agents: Record<string, AgentPollState>): boolean {
	return agentIds.every(
		(agentId) => agents[String(agentId)] && agents[String(agentId)].scanPage === undefined,
	);
}

/** What every Agent's step of one poll shares. */
interface AgentsPoll extends AgentPollOptions {
	agentIds: number[];
	runCounters: Map<number, number>;
	/** The Agent the last poll stopped at: this one starts there. */
	startAt: number | undefined;
	newAgentsAreHistory: boolean | undefined;
}

/**
 * Polls the watched Agents in turn, from the one the last poll stopped at, updating `agents`
 * in place. Returns the Runs found finished and the Agent the next poll starts at (undefined:
 * every Agent had its turn). An Agent whose Runs cannot be read (its list refused, missing,
 * failing) is skipped with a warning and keeps its state; the poll fails only when no watched
 * Agent could be read.
 */
async function pollAgents(
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
		if (isRateLimited(failure) && agentsDone > 0) {
			// Rate limited past the budget: commit the Agents done; this one goes on next poll.
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
	if (!previous || previous.scanPage !== undefined) {
		// A first look at the Agent. On activation or a change of scope its past is
		// history; an Agent first seen later ("All Agents") has as new the Runs created
		// since this poll, less the lookback for slow uploads.
		const floor = previous
			? previous.floor
			: poll.newAgentsAreHistory
				? undefined
				: now - LOOKBACK_MS;
		const scanning: AgentPollState = previous ?? {
			watermark: floor ?? 0,
			seen: [],
			pending: [],
			scanPage: 0,
			...(floor !== undefined ? { floor } : {}),
		};
		const scanned = await continueHistoryScan(context, agentId, scanning, poll.budget);
		previous = {
			...scanned,
			pending: withoutStalePending(context, agentId, scanned.pending, now),
		};
		agents[String(agentId)] = previous;
		if (previous.scanPage !== undefined) return 'stopHere';
		if (floor === undefined) {
			agents[String(agentId)] = readAt(agentId, previous, runCounters.get(agentId), now);
			return 'next';
		}
	}
	if (needsNoRead(previous, runCounters.get(agentId), now)) return 'next';
	const result = await runsCompletedSince(context, agentId, previous, {
		includeFullRun: poll.includeFullRun,
		budget: poll.budget,
		triggerKey: poll.triggerKey,
		now,
	});
	agents[String(agentId)] = readAt(
		agentId,
		result.state,
		runCounters.get(agentId),
		now,
		previous,
		result.discovered,
	);
	finished.push(...result.finished);
	return result.stoppedEarly ? 'stopHere' : 'next';
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

function withoutAbsence(agentState: AgentPollState): AgentPollState {
	const present = { ...agentState };
	delete present.absentSince;
	return present;
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

/**
 * The watched Agents, and with All Agents each one's Run counter (`n_runs`) as GET /agents
 * shows it (absent when the service leaves it out).
 */
async function watchedAgents(
	context: IPollFunctions,
	scope: string,
): Promise<{ agentIds: number[]; runCounters: Map<number, number> }> {
	const runCounters = new Map<number, number>();
	if (scope === 'all') {
		const agents = await listAgents(context, { returnAll: true, limit: 0 });
		for (const agent of agents) {
			const counter = agent.n_runs;
			if (typeof counter === 'number' && Number.isFinite(counter))
				runCounters.set(Number(agent.id), counter);
		}
		return { agentIds: agents.map((agent) => Number(agent.id)), runCounters };
	}
	return {
		agentIds: [
			parseResourceId(
				context.getNode(),
				context.getNodeParameter('agent', '', { extractValue: true }) as string,
				'Agent',
			),
		],
		runCounters,
	};
}

/**
 * Whether an Agent's list need not be read this poll: its Run counter is where it was before
 * its last read, it has no pending Run, and its last read is less than SWEEP_INTERVAL_MS old.
 * The counter is a hint, never the proof (the API does not say what a delete does to it):
 * every Agent is still read once per interval, and a Run it reveals is emitted then.
 */
function needsNoRead(previous: AgentPollState, counter: number | undefined, now: number): boolean {
	return (
		counter !== undefined &&
		previous.nRuns === counter &&
		!(previous.owed !== undefined && previous.owed > 0) &&
		previous.pending.length === 0 &&
		previous.sweptAt !== undefined &&
		// A clock set back (a restore, another n8n main) must not put the sweep off.
		previous.sweptAt <= now &&
		now - previous.sweptAt < SWEEP_INTERVAL_MS
	);
}

/**
 * The Agent's state after a read of its list: the counter seen before the read, the Runs it
 * counted that the read did not find (`owed`: read again next poll; a Run found ahead of
 * its count, made during the read, pays for the next one, a delete pays for none), and when
 * it was read. An Agent read for the first time gets a read time spread over the interval by
 * its id, so that the sweeps of many Agents read together (activation, an upgrade) do not all
 * fall due on one poll.
 */
function readAt(
	agentId: number,
	state: AgentPollState,
	counter: number | undefined,
	now: number,
	previous?: AgentPollState,
	discovered = 0,
): AgentPollState {
	const next: AgentPollState = { ...state };
	delete next.owed;
	delete next.owedSince;
	if (counter === undefined) delete next.nRuns;
	else next.nRuns = counter;
	const counted =
		counter !== undefined && previous?.nRuns !== undefined ? counter - previous.nRuns : 0;
	let owed = Math.max((previous?.owed ?? 0) + counted - discovered, -discovered);
	const owedSince = previous?.owedSince ?? now;
	if (owed > 0 && now - owedSince > LOOKBACK_MS) owed = 0; // never listed: the sweep goes on
	if (owed !== 0) next.owed = owed;
	if (owed > 0) next.owedSince = owedSince;
	// A fixed share of the interval per Agent (its id, scrambled): spread, and reproducible;
	// under 95%, so that no Agent falls due again within minutes of its first read.
	const phase = ((Math.imul(agentId, 2_654_435_761) >>> 0) % 950) / 1000;
	next.sweptAt =
		previous?.sweptAt === undefined ? now - Math.floor(phase * SWEEP_INTERVAL_MS) : now;
	return next;
}

/**
 * A setting at the top level (version 1) or under Options (1.1), where n8n's trigger
 * convention puts what most users never change.
 */
function triggerSetting<T extends string | boolean>(
	context: IPollFunctions,
	name: 'includeFullRun' | 'onReactivation',
	fallback: T,
): T {
	const path = triggerHasBehaviour(context.getNode(), 'settingsInOptions')
		? `options.${name}`
		: name;
	return context.getNodeParameter(path, fallback) as T;
}

/**
 * The trigger's poll. n8n starts a poll at every poll time even while the previous one
 * still runs (a slow service, many pending Runs). Both would start from the same saved
 * state and emit the same Runs, so a poll that finds another one running skips its turn.
 */
export async function pollFinishedRuns(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	if (this.getMode() === 'manual') return await pollForFinishedRuns.call(this);
	const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
	if (pollsInProgress.has(key)) return null;
	pollsInProgress.add(key);
	try {
		return await pollForFinishedRuns.call(this);
	} finally {
		pollsInProgress.delete(key);
	}
}
