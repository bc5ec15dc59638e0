import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { listAgents } from '../helpers/agents';
import { parseResourceId } from '../helpers/ids';
import { fetchRun, type Run } from '../helpers/runs';
import { triggerHasBehaviour } from '../descriptions/versions';
import { pollBudget } from './pollBudget';
import { limitWaitsOf } from '../transport/rateLimitGate';
import {
	ABSENT_AGENT_KEPT_MS,
	firstLookAfterSkip,
	firstLookOwed,
	readTriggerState,
	STATE_VERSION,
	writeTriggerState,
	type AgentPollState,
	type TriggerState,
} from './pollState';
import { pollAgents } from './pollAgents';
import { hasChosenStatus, itemOfRun } from './runItems';
import { newestFinishedRun } from './testEvent';
import {
	adoptUncommittedState,
	awaitsEmittedSave,
	newStateId,
	rememberState,
	stateIdOf,
} from './uncommittedState';
import { pollIntervalMs } from './pollInterval';
import { reconcile } from './reconcile';

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

/**
 * Triggers whose activation poll did not get through (it found an older poll still running
 * and skipped its turn, or it failed: the service down, the only Agent's list failing), with
 * when it ran: the next poll that runs is the activation poll in its stead, and the activation
 * keeps that time (When Reactivated → Skip Them: what finished since is not skipped).
 */
const activationsOwed = new Map<string, number>();

/** The trigger's settings that shape what a poll emits. */
interface EmitSettings {
	statuses: string[];
	simplify: boolean;
	includeFullRun: boolean;
	sheetReady: boolean;
	collisionFree: boolean;
}

function emitSettings(context: IPollFunctions): EmitSettings {
	const statuses = context.getNodeParameter('statuses', []) as string[];
	if (statuses.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No status selected', {
			description: triggerHasBehaviour(context.getNode(), 'settingsInOptions')
				? 'Choose Succeeded, Failed or both under Trigger On.'
				: 'Choose Success, Failed or both under Statuses.',
		});
	}
	return {
		statuses,
		simplify: context.getNodeParameter('simplify', true) as boolean,
		includeFullRun: triggerSetting(context, 'includeFullRun', true),
		sheetReady: triggerHasBehaviour(context.getNode(), 'sheetReadyRuns'),
		collisionFree: triggerHasBehaviour(context.getNode(), 'collisionFreeColumns'),
	};
}

async function pollForFinishedRuns(
	this: IPollFunctions,
	activationPoll = false,
	owedActivationAt?: number,
): Promise<INodeExecutionData[][] | null> {
	const settings = emitSettings(this);
	const scope = this.getNodeParameter('agentScope', 'one') as string;
	const budget = pollBudget(this);
	const { agentIds, runCounters } = await watchedAgents(this, scope);

	if (this.getMode() === 'manual') {
		const run = await newestFinishedRun(this, agentIds, settings.statuses, budget);
		const full = settings.includeFullRun
			? await fetchRun(this, Number(run.agent_id), Number(run.run_id))
			: run;
		return [[{ json: itemOf(full, settings) }]];
	}

	// A 429 asking for a wait past the budget ends the poll with what it has done (below).
	limitWaitsOf(this, budget.waitDeadlineMs);
	const now = Date.now();
	const scopeKey = scope === 'all' ? 'all' : `one:${agentIds[0]}`;
	const stored = this.getWorkflowStaticData('node') as TriggerState;
	const triggerKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
	// Handed a state from before an emitting poll's save: skip (uncommittedState.ts).
	if (!activationPoll && awaitsEmittedSave(triggerKey, stored)) return null;
	const base = stateIdOf(stored);
	adoptUncommittedState(triggerKey, stored);
	const { state, scopeChanged, historyBefore } = stateToStartFrom(
		this,
		stored,
		scopeKey,
		now,
		activationPoll ? (owedActivationAt ?? now) : undefined,
	);
	const agents = agentsWithAbsencesTracked(state, agentIds, scopeChanged, now);
	// The watched Agents' past is history from `historyBefore` on: each one owes a first look
	// that keeps that moment, whichever poll reads it (its list failing now, the budget). An
	// Agent seen later for the first time is new (pollAgents.ts).
	if (historyBefore !== undefined) {
		for (const agentId of agentIds) agents[String(agentId)] ??= firstLookOwed(historyBefore);
	}

	// The state this poll starts from, as stored: what this process goes on from if n8n drops
	// the result of this poll when it emits (uncommittedState.ts).
	const outcome = { activatedAt: state.activatedAt, scope: scopeKey, agents };
	const startState: TriggerState = {};
	writeTriggerState(startState, {
		...outcome,
		resumeAgent: state.resumeAgent,
		netAgent: state.netAgent,
		legacyEmitted: legacyEmittedOf(state),
	});
	startState.stateId = base;
	const startJson = JSON.stringify(startState);

	// All requests first; the state is written only at the end, so a poll that fails
	// half-way leaves it as it was and the next poll emits what this one would have. A poll
	// that runs out of budget stops between requests and commits what it finished.
	const { finished, resumeAgent } = await pollAgents(this, agents, {
		agentIds,
		runCounters,
		startAt: state.resumeAgent,
		includeFullRun: settings.includeFullRun,
		budget,
		triggerKey,
		now,
	});
	// The reconciliation pass's share of this poll: what every fast rule missed (reconcile.ts).
	const net = await reconcile(this, agents, {
		agentIds,
		startAt: state.netAgent,
		budget,
		triggerKey,
		now,
	});
	const items = itemsToEmit([...finished, ...net.finished], state, settings);
	writeTriggerState(stored, {
		...outcome,
		resumeAgent,
		netAgent: net.netAgent,
		legacyEmitted: legacyEmittedOf(state),
	});
	commitPoll(stored, { triggerKey, base, startJson, emitted: items.length > 0, now });
	return items.length > 0 ? [items] : null;
}

function itemOf(run: Run, settings: EmitSettings) {
	return itemOfRun(run, settings.simplify, settings.sheetReady, settings.collisionFree);
}

/**
 * The items of the Runs found finished: each Run once within this poll (across polls, each
 * Agent's state knows the Runs it found for as long as a read could list them as new,
 * pollState.ts `seen` and `leftOut`; a state written before 0.4 knew some only by its list of
 * Runs emitted), of the statuses chosen.
 */
function itemsToEmit(
	finished: Run[],
	state: TriggerState,
	settings: EmitSettings,
): INodeExecutionData[] {
	const emittedOnce = new Set(state.recentlyEmitted ?? []);
	return finished
		.filter((run) => {
			const runId = Number(run.run_id);
			if (emittedOnce.has(runId)) return false;
			emittedOnce.add(runId);
			return true;
		})
		.filter((run) => hasChosenStatus(run, settings.statuses))
		.map((run) => ({ json: itemOf(run, settings) }));
}

/**
 * After the state is written: the state n8n saves with an emitting poll's execution gets its
 * own id; one that n8n does not save keeps the id of the stored state it grew from, and this
 * process remembers what to go on from (uncommittedState.ts).
 */
function commitPoll(
	stored: TriggerState,
	poll: { triggerKey: string; base: string; startJson: string; emitted: boolean; now: number },
): void {
	delete stored.revision;
	stored.stateId = poll.emitted ? newStateId(poll.now) : poll.base;
	rememberState(
		poll.triggerKey,
		poll.base,
		poll.emitted ? poll.startJson : JSON.stringify(stored),
		poll.emitted ? poll.now : undefined,
	);
}

/**
 * The state this poll goes on from: the stored one, or a fresh one on first activation (or a
 * re-activation that skips the meantime); whether what is watched changed since; and, when
 * the watched Agents' past became history (those, or a state written before 0.4 that still
 * owes first looks), from when. `activatedAt`: this is the activation poll (or the one in
 * its stead), of an activation at that time.
 */
function stateToStartFrom(
	context: IPollFunctions,
	stored: TriggerState,
	scopeKey: string,
	now: number,
	activatedAt: number | undefined,
): { state: TriggerState; scopeChanged: boolean; historyBefore: number | undefined } {
	const skipWhileInactive = triggerSetting<string>(context, 'onReactivation', 'emit') === 'skip';
	const activationPoll = activatedAt !== undefined;
	let state = readTriggerState(stored, scopeKey, now);
	if (!state || (activationPoll && skipWhileInactive)) {
		// First activation (or a re-activation that skips the meantime): every watched
		// Agent's past is history, and the trigger starts from now. A poll that is not the
		// activation poll and finds no state stored goes on from an activation n8n did not save
		// (the durable scheduler saves only polls that emit; that activation may have run on
		// another n8n main, or before a restart): the Runs that finished since the poll before
		// it, one poll interval ago, are not history (docs/design/trigger-rules.md, "Two n8n mains").
		// A re-activation that skips keeps what the state before it knew of the Runs (pollState.ts
		// firstLookAfterSkip): the meantime is history, but a Run emitted before is not emitted
		// again when one list answer leaves it out, and a Run counted but not listed yet (a slow
		// upload) is still waited for.
		const historyBefore = activatedAt ?? now - pollIntervalMs(context);
		const known = state?.scope === scopeKey ? state : undefined;
		const agents: Record<string, AgentPollState> = {};
		for (const [agentId, agentState] of Object.entries(known?.agents ?? {}))
			agents[agentId] = firstLookAfterSkip(agentState as AgentPollState, historyBefore);
		state = {
			version: STATE_VERSION,
			activatedAt: historyBefore,
			scope: scopeKey,
			newAgentsAreHistory: true,
			historyBefore,
			agents,
			...(known?.recentlyEmitted
				? {
						recentlyEmitted: known.recentlyEmitted,
						recentlyEmittedBefore: known.recentlyEmittedBefore,
					}
				: {}),
		};
	}
	const scopeChanged = state.scope !== scopeKey;
	if (scopeChanged) {
		// The user changed what is watched: the newly watched Agents' past is not news.
		state = { ...state, scope: scopeKey, newAgentsAreHistory: true, historyBefore: now };
	}
	const historyBefore =
		state.newAgentsAreHistory === true
			? (state.historyBefore ?? state.activatedAt ?? now)
			: undefined;
	return { state, scopeChanged, historyBefore };
}

/** What a state written before 0.4 kept of the Runs it emitted (pollState.ts, `recentlyEmitted`). */
function legacyEmittedOf(state: TriggerState): { runs: number[]; before: number } | undefined {
	const runs = state.recentlyEmitted ?? [];
	const before = state.recentlyEmittedBefore;
	return runs.length > 0 && before !== undefined ? { runs, before } : undefined;
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

function withoutAbsence(agentState: AgentPollState): AgentPollState {
	const present = { ...agentState };
	delete present.absentSince;
	return present;
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
	const activation = isActivationPoll(this);
	if (pollsInProgress.has(key)) {
		if (activation) activationsOwed.set(key, Date.now());
		return null;
	}
	pollsInProgress.add(key);
	const startedAt = Date.now();
	const owedAt = activation ? undefined : activationsOwed.get(key);
	activationsOwed.delete(key);
	let done = false;
	try {
		const result = await pollForFinishedRuns.call(this, activation || owedAt !== undefined, owedAt);
		done = true;
		return result;
	} finally {
		// Nothing of a failed poll is committed: the next poll is the activation poll again.
		if (!done && (activation || owedAt !== undefined))
			activationsOwed.set(key, owedAt ?? startedAt);
		pollsInProgress.delete(key);
	}
}
