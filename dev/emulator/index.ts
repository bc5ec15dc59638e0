/**
 * HTTP emulator of the Document-Extraction Agents client API, as docs/design/service-notes.md
 * describes it, for tests and the demo.
 *
 *   const emu = await startEmulator({ runDurationMs: 200 });
 *   // credential: base URL emu.url, API key emu.keys.alice
 *   ...
 *   await emu.stop();
 *
 * Every knob is mutable at runtime through `emu.knobs`. Test helpers manipulate state directly
 * (finishRun, holdRun, addHistoricalRuns, seedUsage, createRun, deleteRun, injectFaults).
 */
import type { AddressInfo } from 'node:net';
import { FaultController } from './faults';
import { RateLimiter } from './rate-limit';
import { runProgress, runView } from './runs';
import {
	addUsageHistory,
	contentTypeOf,
	DEMO_KEYS,
	DEMO_USERS,
	seedDemoData,
	seedUsersAndKeys,
} from './seed';
import { API_PREFIX, createEmulatorServer } from './server';
import { EmulatorState, snapshotPrompts } from './store';
import { MARCH_2026_MS } from './time';
import type {
	EmulatorKnobs,
	EmulatorOptions,
	InjectedFault,
	RequestLogEntry,
	RunOutcome,
	RunRecord,
	UserRecord,
} from './types';

export * from './types';
export { DEMO_AGENT_IDS, DEMO_KEYS, DEMO_USERS, DEMO_WORKSPACES, DEMO_AGENTS } from './seed';
export type { DemoUser } from './seed';
export { EmulatorState } from './store';
export { API_PREFIX } from './server';
export { MSG_EXPIRED_KEY, MSG_INVALID_KEY } from './auth';
export { MSG_ENTERPRISE_ONLY } from './routes/access-logs';
export { NESTED_CHUNK, FIELD_DUE_DATE, FIELD_USER_DEFINED_ID } from './routes/runs';
export { CONTENT_TYPES, XLSM_MAIN, templateKind, contentDisposition } from './templated-output';
export { tsNaive, tsOffset, tsZulu, parseIsoMs } from './time';

export const DEFAULT_KNOBS: EmulatorKnobs = {
	seed: 42,
	latencyMs: 0,
	uploadBytesPerSecond: null,
	uploadStallAfterBytes: null,
	uploadResetAfterBytes: null,
	faultRate: 0,
	faultKinds: ['500', '502', '503', '504', 'reset'],
	faultTiming: 'before',
	listOrder: 'newest-first',
	runsListShape: 'nested',
	runDurationMs: 3000,
	runOutcome: 'success',
	promptFailureRate: 0,
	rateLimitPerMinute: { usage: 600 },
	retryAfterStyle: 'seconds',
	maxFileSize: 250_000_000,
	maxFiles: 300,
	keepUploadBytesUnder: 1024 * 1024,
	redirect: null,
	agentsListShape: 'object',
	ignorePageNumber: false,
	omitTotalPages: false,
	repeatAccessLogCursor: false,
};

export const DEFAULT_OPTIONS: EmulatorOptions = {
	...DEFAULT_KNOBS,
	port: 0,
	seedDemoData: true,
	logErrors: true,
};

export interface CreateRunOptions {
	userDefinedId?: string | null;
	dueDate?: string | null;
	/** Creating user: demo user id ('alice') or email; default the owner of the Agent's workspace. */
	user?: string;
	/** Creation time (ms); default now. Backdate to get a Run that is already finished. */
	createdAt?: number;
	/** Overrides of the knobs for this Run. */
	durationMs?: number;
	outcome?: RunOutcome;
	promptFailureRate?: number;
	/** Keep the Run running until finishRun(). */
	hold?: boolean;
	/** When the Run first appears in GET runs (ms); default its creation time. See knobs.lateListing. */
	listedAt?: number;
	/**
	 * The Run's Prompts and the value each answers, instead of the Agent's: any name (`__proto__`,
	 * `run_id`, `Total amount › currency`) and any JSON value, to test how a client names columns.
	 */
	prompts?: Array<{ name: string; value: unknown }>;
	/** The Run's `order` as the service sends it, when not the Prompts' names (e.g. a name twice). */
	order?: string[];
	/** Prompts (by name) that fail while the Run ends `success`: a partly readable document. */
	failedPrompts?: string[];
}

/** A request an afterRequest action waits for. */
export interface RequestMatch {
	method?: string;
	path?: RegExp | string;
	/** Query parameters that must have these values, e.g. { page_number: '1' }. */
	query?: Record<string, string>;
}

export interface HistoricalRunsOptions {
	status?: 'success' | 'failed';
	/** Every Run is created before this time (ms); default one day ago. Runs are one spacingMs apart. */
	createdBefore?: number;
	spacingMs?: number;
	/** Force completed null (default: only for Runs created before March 2026, service note 19). */
	completedNull?: boolean;
	/** Creating user (demo id or email); default the owner of the Agent's workspace. */
	user?: string;
}

export interface Emulator {
	/** 'http://127.0.0.1:PORT': what users put in the credential. */
	readonly url: string;
	/** url + '/api/v1/client'. */
	readonly apiUrl: string;
	readonly port: number;
	/** Base of run_url links. */
	readonly webUrl: string;
	/** Demo API keys per user. */
	readonly keys: typeof DEMO_KEYS;
	/** Mutable at runtime. */
	readonly knobs: EmulatorKnobs;
	/** Read access for assertions. */
	readonly state: EmulatorState;
	readonly requestLog: RequestLogEntry[];
	/** Sequence number of the last logged request (0 before any). */
	readonly lastSeq: number;
	clearLog(): void;
	requestsSince(seq: number): RequestLogEntry[];
	/**
	 * Runs `action` once the service has handled the next `times` (default 1) matching
	 * requests, before their answers are sent: e.g. delete a Run between two page reads.
	 */
	afterRequest(match: RequestMatch, action: () => void, times?: number): void;
	/** Queue one-shot faults, consumed in order by matching requests. */
	injectFaults(faults: InjectedFault[]): void;
	clearFaults(): void;
	readonly pendingFaults: InjectedFault[];
	/** Finish a running Run now (no-op on a finished Run: final states are final, service note 17). Returns the full Run JSON. */
	finishRun(agentId: number, runId: number, status?: 'success' | 'failed'): Record<string, unknown>;
	/** Keep a Run running until finishRun(). Throws if it already finished. */
	holdRun(agentId: number, runId: number): void;
	/** Bulk-insert finished Runs (fast: 20,000 in well under a second). Returns their ids, newest first. */
	addHistoricalRuns(agentId: number, count: number, options?: HistoricalRunsOptions): number[];
	/** Add `count` usage records spread over the last 90 days. */
	seedUsage(count: number): void;
	/** Create a Run directly (no HTTP). Returns the full Run JSON as of now. */
	createRun(
		agentId: number,
		files: Array<{ name: string; size?: number; contentType?: string }>,
		options?: CreateRunOptions,
	): Record<string, unknown>;
	deleteRun(agentId: number, runId: number): boolean;
	/** The full Run JSON (as GET run shows it to the Agent's owner), or undefined. */
	getRun(agentId: number, runId: number): Record<string, unknown> | undefined;
	/** Emulator clock (ms): Date.now() plus any advanceTime(). */
	now(): number;
	/** Move the emulator clock (forward: Runs progress, keys expire; back: as a clock corrected). */
	advanceTime(ms: number): void;
	/** Reset rate-limit counters. */
	resetRateLimits(): void;
	/** Close the server and every socket (stalled ones included). */
	stop(): Promise<void>;
}

export async function startEmulator(options: Partial<EmulatorOptions> = {}): Promise<Emulator> {
	const opts: EmulatorOptions = { ...DEFAULT_OPTIONS, ...options };
	const { port, webUrl: webUrlOption, seedDemoData: withDemo, logErrors, ...knobValues } = opts;
	const knobs: EmulatorKnobs = knobValues;
	let timeOffset = 0;
	const clock = (): number => Date.now() + timeOffset;

	const state = new EmulatorState();
	const startedAt = clock();
	seedUsersAndKeys(state, startedAt);
	if (withDemo) seedDemoData(state, startedAt, knobs.seed);

	const faults = new FaultController(knobs);
	const rateLimiter = new RateLimiter();
	const requestLog: RequestLogEntry[] = [];
	let seq = 0;
	let url = '';
	let webUrl = '';
	const afterRequestActions: Array<{ match: RequestMatch; action: () => void; remaining: number }> =
		[];
	const matches = (match: RequestMatch, entry: RequestLogEntry): boolean =>
		(!match.method || match.method.toUpperCase() === entry.method) &&
		(match.path === undefined ||
			(typeof match.path === 'string'
				? entry.path.includes(match.path)
				: match.path.test(entry.path))) &&
		Object.entries(match.query ?? {}).every(([name, value]) => entry.query[name] === value);
	const onHandled = (entry: RequestLogEntry): void => {
		for (const hook of [...afterRequestActions]) {
			if (!matches(hook.match, entry)) continue;
			if (--hook.remaining <= 0) afterRequestActions.splice(afterRequestActions.indexOf(hook), 1);
			hook.action();
		}
	};

	const emuServer = createEmulatorServer({
		state,
		knobs,
		faults,
		rateLimiter,
		clock,
		requestLog,
		nextSeq: () => ++seq,
		webUrl: () => webUrl,
		apiUrl: () => url + API_PREFIX,
		logErrors,
		onHandled,
	});
	await new Promise<void>((resolve, reject) => {
		emuServer.server.once('error', reject);
		emuServer.server.listen(port, '127.0.0.1', () => {
			emuServer.server.off('error', reject);
			resolve();
		});
	});
	const actualPort = (emuServer.server.address() as AddressInfo).port;
	url = `http://127.0.0.1:${actualPort}`;
	webUrl = (webUrlOption ?? `${url}/app`).replace(/\/$/, '');

	const userFor = (agentId: number, who?: string): UserRecord => {
		if (who) {
			const user = state.users.get(who) ?? state.userByEmail(who);
			if (!user) throw new Error(`Unknown user ${who}`);
			return user;
		}
		const agent = state.agents.get(agentId);
		const owner = [...state.users.values()].find(
			(u) => agent && u.workspaces.includes(agent.workspaceId),
		);
		return owner ?? DEMO_USERS.alice;
	};
	const requireAgentRecord = (agentId: number) => {
		const agent = state.agents.get(agentId);
		if (!agent) throw new Error(`Agent ${agentId} not found`);
		return agent;
	};
	const requireRunRecord = (agentId: number, runId: number): RunRecord => {
		const run = state.runOf(agentId, runId);
		if (!run) throw new Error(`Run ${runId} of Agent ${agentId} not found`);
		return run;
	};
	const fullView = (run: RunRecord): Record<string, unknown> => {
		const owner = state.userByEmail(run.createdBy);
		return runView(run, clock(), 'full', { webUrl, billing: owner?.billing ?? 'credits' });
	};

	const emulator: Emulator = {
		url,
		apiUrl: url + API_PREFIX,
		port: actualPort,
		webUrl,
		keys: DEMO_KEYS,
		knobs,
		state,
		requestLog,
		get lastSeq() {
			return seq;
		},
		clearLog() {
			requestLog.length = 0;
		},
		requestsSince(since: number) {
			return requestLog.filter((e) => e.seq > since);
		},
		afterRequest(match, action, times = 1) {
			afterRequestActions.push({ match, action, remaining: times });
		},
		injectFaults(list) {
			faults.inject(list);
		},
		clearFaults() {
			faults.clear();
		},
		get pendingFaults() {
			return faults.pending;
		},
		finishRun(agentId, runId, status = 'success') {
			const run = requireRunRecord(agentId, runId);
			const now = clock();
			if (runProgress(run, now).status === 'running') {
				run.forced = { status, atMs: now };
				state.markLive(run);
				state.settle(now);
			}
			return fullView(run);
		},
		holdRun(agentId, runId) {
			const run = requireRunRecord(agentId, runId);
			if (runProgress(run, clock()).status !== 'running')
				throw new Error(`Run ${runId} already finished`);
			run.held = true;
		},
		addHistoricalRuns(agentId, count, o = {}) {
			const agent = requireAgentRecord(agentId);
			const user = userFor(agentId, o.user);
			const before = o.createdBefore ?? clock() - 86_400_000;
			const spacing = o.spacingMs ?? 60_000;
			const prompts = snapshotPrompts(agent); // shared by all: bulk inserts stay light
			const ids: number[] = [];
			for (let i = 0; i < count; i++) {
				const createdMs = before - (i + 1) * spacing;
				const run = state.insertHistoricalRun(
					{
						agent,
						createdBy: user.email,
						files: [
							{
								name: `historical-${state.nextId.run}.pdf`,
								size: 48_213,
								contentType: 'application/pdf',
							},
						],
						createdMs,
						status: o.status ?? 'success',
						durationMs: Math.min(30_000, Math.max(1, spacing - 1)),
						completedNull: o.completedNull ?? createdMs < MARCH_2026_MS,
						seed: knobs.seed,
						withUsage: false,
					},
					prompts,
				);
				ids.push(run.runId);
			}
			return ids;
		},
		seedUsage(count) {
			addUsageHistory(state, count, clock(), knobs.seed, `extra-${state.usage.length}`);
		},
		createRun(agentId, files, o = {}) {
			const agent = requireAgentRecord(agentId);
			const user = userFor(agentId, o.user);
			const now = clock();
			state.settle(now);
			const run = state.createRun({
				agent,
				createdBy: user.email,
				files: files.map((f) => ({
					name: f.name,
					size: f.size ?? 1024,
					contentType: f.contentType ?? contentTypeOf(f.name),
				})),
				userDefinedId: o.userDefinedId ?? null,
				dueDate: o.dueDate ?? null,
				createdMs: o.createdAt ?? now,
				knobs: {
					seed: knobs.seed,
					runDurationMs: o.durationMs ?? knobs.runDurationMs,
					runOutcome: o.outcome ?? knobs.runOutcome,
					promptFailureRate: o.promptFailureRate ?? knobs.promptFailureRate,
				},
			});
			if (o.hold) run.held = true;
			if (o.listedAt !== undefined) run.listedMs = o.listedAt;
			if (o.prompts)
				run.prompts = o.prompts.map((prompt, index) => ({
					id: 900_000 + index,
					name: prompt.name,
					generator: 'fixed',
					webSearch: false,
					value: prompt.value,
				}));
			if (o.order) run.order = [...o.order];
			if (o.failedPrompts) run.failingPrompts = [...o.failedPrompts];
			state.settle(now);
			return fullView(run);
		},
		deleteRun(agentId, runId) {
			return state.removeRun(agentId, runId);
		},
		getRun(agentId, runId) {
			const run = state.runOf(agentId, runId);
			return run ? fullView(run) : undefined;
		},
		now: clock,
		advanceTime(ms) {
			// What has finished by now stays finished when the clock is set back (a service's
			// clock corrected by NTP does not make a finished Run run again).
			if (ms < 0) state.clockSetBack(clock());
			timeOffset += ms;
		},
		resetRateLimits() {
			rateLimiter.reset();
		},
		stop() {
			return emuServer.close();
		},
	};
	return emulator;
}
