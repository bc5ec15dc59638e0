/**
 * In-memory state of the emulated service: users, API keys, Agents, Runs, usage records and access
 * logs, with the few operations that keep them consistent (Run creation, settling, deletion).
 * Exposed read-only to tests as `emulator.state`.
 */
import { runProgress, runCredits } from './runs';
import { toMicros } from './time';
import type {
	AccessLogEvent,
	AgentRecord,
	ApiKeyRecord,
	EmulatorKnobs,
	RunFile,
	RunRecord,
	UsageRecord,
	UserRecord,
	WorkspaceRecord,
} from './types';

export interface NewRunParams {
	agent: AgentRecord;
	createdBy: string;
	files: RunFile[];
	userDefinedId?: string | null;
	dueDate?: string | null;
	createdMs: number;
	knobs: Pick<EmulatorKnobs, 'runDurationMs' | 'runOutcome' | 'promptFailureRate' | 'seed'>;
}

export interface HistoricalRunParams {
	agent: AgentRecord;
	createdBy: string;
	files: RunFile[];
	createdMs: number;
	status: 'success' | 'failed';
	durationMs: number;
	completedNull: boolean;
	seed: number;
	userDefinedId?: string | null;
	/** Add the agent_run usage record (seeded demo Runs do; bulk historical inserts do not). */
	withUsage: boolean;
}

export class EmulatorState {
	readonly users = new Map<string, UserRecord>();
	readonly workspaces = new Map<number, WorkspaceRecord>();
	readonly agents = new Map<number, AgentRecord>();
	readonly runs = new Map<number, RunRecord>();
	/** API keys by id. */
	readonly apiKeys = new Map<string, ApiKeyRecord>();
	readonly usage: UsageRecord[] = [];
	/** Access-log events in arrival order (seeded history first); never deleted, so a position is a stable cursor. */
	readonly accessLogs: AccessLogEvent[] = [];

	private readonly keysBySecret = new Map<string, ApiKeyRecord>();
	private readonly usersByEmail = new Map<string, UserRecord>();
	private readonly runsByAgent = new Map<number, RunRecord[]>();
	private readonly unsortedAgents = new Set<number>();
	/** Runs not yet in a final state; settled on every request. */
	private readonly live = new Set<RunRecord>();
	private usageSortedDesc = true;

	readonly nextId = { agent: 100, prompt: 10_001, template: 1_001, run: 1_001, validation: 5_001 };

	// ------------------------------------------------------------------ users and keys

	addUser(user: UserRecord): void {
		this.users.set(user.id, user);
		this.usersByEmail.set(user.email, user);
	}

	userByEmail(email: string): UserRecord | undefined {
		return this.usersByEmail.get(email);
	}

	addApiKey(key: ApiKeyRecord): void {
		this.apiKeys.set(key.id, key);
		this.keysBySecret.set(key.secret, key);
	}

	keyBySecret(secret: string): ApiKeyRecord | undefined {
		return this.keysBySecret.get(secret);
	}

	removeApiKey(id: string): void {
		const key = this.apiKeys.get(id);
		if (!key) return;
		this.apiKeys.delete(id);
		this.keysBySecret.delete(key.secret);
	}

	// ------------------------------------------------------------------ agents

	addAgent(agent: AgentRecord): void {
		this.agents.set(agent.id, agent);
		if (!this.runsByAgent.has(agent.id)) this.runsByAgent.set(agent.id, []);
	}

	/** Agents of the user's workspaces, by id. */
	agentsOf(user: UserRecord): AgentRecord[] {
		return [...this.agents.values()]
			.filter((a) => user.workspaces.includes(a.workspaceId))
			.sort((a, b) => a.id - b.id);
	}

	/** The Agent if it exists AND the user can see it (another workspace's Agent is "not found"). */
	visibleAgent(user: UserRecord, agentId: number): AgentRecord | undefined {
		const agent = this.agents.get(agentId);
		return agent && user.workspaces.includes(agent.workspaceId) ? agent : undefined;
	}

	// ------------------------------------------------------------------ runs

	/** Creates a live Run (through the API or emulator.createRun). */
	createRun(p: NewRunParams): RunRecord {
		const run: RunRecord = {
			runId: this.nextId.run++,
			agentId: p.agent.id,
			workspaceId: p.agent.workspaceId,
			createdBy: p.createdBy,
			userDefinedId: p.userDefinedId ?? null,
			dueDate: p.dueDate ?? null,
			files: p.files,
			createdMs: p.createdMs,
			durationMs: Math.max(0, p.knobs.runDurationMs),
			outcome: p.knobs.runOutcome,
			failureRate: p.knobs.promptFailureRate,
			seed: p.knobs.seed,
			prompts: snapshotPrompts(p.agent),
			held: false,
			forced: null,
			settled: null,
			completedNull: false,
			historical: false,
		};
		this.insertRun(run);
		p.agent.nRuns++;
		this.live.add(run);
		return run;
	}

	/** Inserts an already-finished Run (seed data, addHistoricalRuns). */
	insertHistoricalRun(p: HistoricalRunParams, prompts = snapshotPrompts(p.agent)): RunRecord {
		const run: RunRecord = {
			runId: this.nextId.run++,
			agentId: p.agent.id,
			workspaceId: p.agent.workspaceId,
			createdBy: p.createdBy,
			userDefinedId: p.userDefinedId ?? null,
			dueDate: null,
			files: p.files,
			createdMs: p.createdMs,
			durationMs: p.durationMs,
			outcome: p.status,
			failureRate: 0,
			seed: p.seed,
			prompts,
			held: false,
			forced: null,
			settled: { status: p.status, completedMs: p.createdMs + p.durationMs },
			completedNull: p.completedNull,
			historical: true,
		};
		this.insertRun(run);
		p.agent.nRuns++;
		if (p.withUsage)
			this.recordRunUsage(
				run,
				runCredits(run, runProgress(run, run.createdMs + p.durationMs)),
				run.createdMs + p.durationMs,
			);
		return run;
	}

	private insertRun(run: RunRecord): void {
		this.runs.set(run.runId, run);
		let list = this.runsByAgent.get(run.agentId);
		if (!list) this.runsByAgent.set(run.agentId, (list = []));
		const last = list[list.length - 1];
		if (
			last &&
			(last.createdMs > run.createdMs ||
				(last.createdMs === run.createdMs && last.runId > run.runId))
		) {
			this.unsortedAgents.add(run.agentId);
		}
		list.push(run);
	}

	/** The Agent's Runs, oldest first (by created, then run id). */
	runsOfAgent(agentId: number): RunRecord[] {
		const list = this.runsByAgent.get(agentId) ?? [];
		if (this.unsortedAgents.has(agentId)) {
			list.sort((a, b) => a.createdMs - b.createdMs || a.runId - b.runId);
			this.unsortedAgents.delete(agentId);
		}
		return list;
	}

	/** The Run if it belongs to the Agent. */
	runOf(agentId: number, runId: number): RunRecord | undefined {
		const run = this.runs.get(runId);
		return run && run.agentId === agentId ? run : undefined;
	}

	/** Deletes a Run (its files go with it). */
	removeRun(agentId: number, runId: number): boolean {
		const run = this.runOf(agentId, runId);
		if (!run) return false;
		this.runs.delete(runId);
		this.live.delete(run);
		const list = this.runsByAgent.get(agentId);
		if (list) {
			const i = list.indexOf(run);
			if (i >= 0) list.splice(i, 1);
		}
		return true;
	}

	/** Marks a live Run whose state was changed by a helper (finishRun) for re-settling. */
	markLive(run: RunRecord): void {
		if (!run.settled) this.live.add(run);
	}

	/**
	 * Moves every live Run that has reached its final state to `settled`, recording its agent_run
	 * usage record (at completion time) once. Called at the start of every request.
	 */
	settle(now: number): void {
		for (const run of this.live) {
			const progress = runProgress(run, now);
			if (progress.status === 'running' || progress.completedMs === null) continue;
			run.settled = { status: progress.status, completedMs: progress.completedMs };
			this.live.delete(run);
			this.recordRunUsage(run, runCredits(run, progress), progress.completedMs);
		}
	}

	/**
	 * The clock is about to be set back from `now`: what has finished by now stays finished (a
	 * service's clock corrected by NTP does not make a finished Run run again).
	 */
	clockSetBack(now: number): void {
		this.settle(now);
		for (const run of this.runs.values()) if (run.settled) run.finishedBeforeClockSetBack = true;
	}

	private recordRunUsage(run: RunRecord, credits: number, atMs: number): void {
		const user = this.userByEmail(run.createdBy);
		if (user?.billing === 'pages') return; // page-based billing: no credit records (service note 21)
		this.addUsage({
			type: 'agent_run',
			workspaceId: run.workspaceId,
			agentId: run.agentId,
			runId: run.runId,
			validationId: null,
			user: run.createdBy,
			createdUs: toMicros(atMs),
			creditsUsed: credits,
		});
	}

	// ------------------------------------------------------------------ usage

	addUsage(record: UsageRecord): void {
		const last = this.usage[this.usage.length - 1];
		if (last && last.createdUs < record.createdUs) this.usageSortedDesc = false;
		this.usage.push(record);
	}

	/** Usage records, newest first. */
	usageNewestFirst(): UsageRecord[] {
		if (!this.usageSortedDesc) {
			this.usage.sort((a, b) => b.createdUs - a.createdUs);
			this.usageSortedDesc = true;
		}
		return this.usage;
	}

	// ------------------------------------------------------------------ access logs

	/** Appends an event (seeded history first, in time order, then live ones). */
	addAccessLog(event: AccessLogEvent): void {
		this.accessLogs.push(event);
	}
}

export function snapshotPrompts(agent: AgentRecord): RunRecord['prompts'] {
	return agent.prompts.map((p) => ({
		id: p.id,
		name: p.name,
		generator: p.generator,
		webSearch: p.options.web_search,
		fields: p.options.fields,
	}));
}
