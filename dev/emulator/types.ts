/**
 * Types shared by the emulator's modules: knobs, stored records and the request log.
 *
 * Stored records keep times as epoch milliseconds; they are formatted to the API's (mixed)
 * timestamp styles only when serialised (see time.ts).
 */

/** Faults the random fault generator (`faultRate`) can draw from. */
export type FaultKind =
	| '500'
	| '502'
	| '503'
	| '504'
	| 'reset' // destroy the socket without any response
	| 'reset-mid-response' // send headers and half the body, then destroy the socket
	| 'stall' // never answer (until the client gives up or the emulator stops)
	| 'truncated-json' // complete HTTP message whose JSON body is cut in half
	| 'non-json' // 200 with an HTML page
	| '429';

/** Faults that can be queued one-shot with `emulator.injectFaults`. */
export type InjectedFaultKind = FaultKind | 'missing-fields' | '403' | '404';

/**
 * 'before': the fault replaces the request before the service handles it (nothing changes).
 * 'after': the service handles the request (e.g. the Run IS created), then the client sees the fault.
 * Faults that need the real response ('truncated-json', 'reset-mid-response', 'missing-fields') are always 'after';
 * a '429' is always 'before' (a rate-limited request is not processed: that is what 429 promises).
 */
export type FaultTiming = 'before' | 'after';

export type ListOrder = 'newest-first' | 'oldest-first' | 'random';
export type RunsListShape = 'nested' | 'flat';
export type RunOutcome = 'success' | 'failed' | 'never';
export type RetryAfterStyle = 'seconds' | 'http-date' | 'absent';
export type RunStatus = 'running' | 'success' | 'failed';

/** Rate limits are counted per user and per endpoint family (spec "Limits", service note 7). */
export type EndpointFamily =
	| 'usage'
	| 'agents'
	| 'runs'
	| 'runs.create'
	| 'templated-output'
	| 'api-keys'
	| 'access-logs';

export interface EmulatorKnobs {
	/** Seed of every pseudo-random choice (results, faults, random list order). */
	seed: number;
	/** Delay added before every API request is handled. */
	latencyMs: number;
	/**
	 * A slow link for uploads: POST runs reads its body at most this many bytes a second
	 * (null = as fast as the client sends). The client's upload then takes size / rate seconds.
	 */
	uploadBytesPerSecond: number | null;
	/**
	 * A service (or the network to it) that stalls mid-upload: POST runs reads this many bytes
	 * of its body, then reads nothing more and never answers (null = off).
	 */
	uploadStallAfterBytes: number | null;
	/**
	 * A connection that breaks mid-upload (a proxy restarting, a dropped line): POST runs reads
	 * this many bytes of its body, then closes the connection without answering (null = off).
	 */
	uploadResetAfterBytes: number | null;
	/** Fraction (0..1) of requests that get a fault drawn from faultKinds (deterministic from seed). */
	faultRate: number;
	faultKinds: FaultKind[];
	/** Only these methods get random faults (all when undefined). */
	faultMethods?: string[];
	/** Only paths matching one of these get random faults (string = substring of the path). */
	faultPaths?: Array<string | RegExp>;
	/** Timing of random faults; see FaultTiming. 'random': each fault draws 'before' or 'after' (from the seed). */
	faultTiming: FaultTiming | 'random';
	/** Order of Runs in GET runs (service note 13: not promised). */
	listOrder: ListOrder;
	/** Shape of `runs` in GET runs (service note 12: array of arrays by default). */
	runsListShape: RunsListShape;
	/** Time a new Run takes; Prompt i of n completes at created + runDurationMs*(i+1)/n. */
	runDurationMs: number;
	/** Final state of new Runs ('never' = stays running forever, service note 17 tolerance). */
	runOutcome: RunOutcome;
	/** Probability (0..1) that a Prompt result of a new Run is `failed` (deterministic from seed). */
	promptFailureRate: number;
	/**
	 * Requests per minute per user: one number for every family, or per family. Null = unlimited.
	 * Default { usage: 600 } (the only published value).
	 */
	rateLimitPerMinute: number | Partial<Record<EndpointFamily, number>> | null;
	/** How 429 responses give Retry-After (service note 7 and its tolerance). */
	retryAfterStyle: RetryAfterStyle;
	/** Largest accepted file in bytes (service note 16: 250,000,000). */
	maxFileSize: number;
	/** Most files per Run-creation request (spec: 300). */
	maxFiles: number;
	/** Uploaded files up to this size keep their bytes in the request log, for inspection. */
	keepUploadBytesUnder: number;
	/**
	 * A redirecting front (e.g. http:// → https://): every API request is answered with this
	 * status and `Location: <location><path>?<query>`, with no body (as a framework's redirect
	 * answers) or, with `html`, nginx's HTML page; nothing is handled. `pathContains` limits it
	 * to the requests whose path contains that text. Null = off.
	 */
	redirect: { status: number; location: string; html?: boolean; pathContains?: string } | null;
	/** Shape of a GET /agents page (service note 11 tolerance: a bare array, still paged). */
	agentsListShape: 'object' | 'bare-array';
	/** A service that ignores `page_number`: every paged list answers page 0. */
	ignorePageNumber: boolean;
	/** Paged lists answer without `total_pages`. */
	omitTotalPages: boolean;
	/** The access-log query answers a request's cursor as its next_cursor again (a stuck cursor). */
	repeatAccessLogCursor: boolean;
	/**
	 * Agents left out of GET /agents (a permission change, a workspace move, a page boundary
	 * shifting): they still exist and their Runs can be read, they are just not listed.
	 */
	hiddenAgentIds?: number[];
	/**
	 * Runs listed late: a fraction `rate` of new Runs (chosen from the seed) appears in GET runs
	 * only `delayMs` after its `created` time, as when the service stamps `created` when an
	 * upload starts and lists the Run when it ends. Their single read works at once.
	 */
	lateListing?: { rate: number; delayMs: number } | null;
	/**
	 * A single-Run read that lags the list: GET runs/{id} shows the Run as it was this many
	 * milliseconds ago (a Run that has just finished still reads `running`), as a read replica
	 * behind the list's store would.
	 */
	singleReadLagMs?: number;
	/**
	 * Agents whose Run list fails (GET /agents/{id}/runs answers this status, e.g. 403, 404 or
	 * 500) while the Agent is still listed by GET /agents and its single Runs can be read.
	 */
	failingRunLists?: Record<number, number>;
	/**
	 * Runs GET runs leaves out while they are listed here (a list answer from a replica that
	 * misses a Run for a moment); their single read works.
	 */
	runsMissingFromLists?: number[];
	/**
	 * What an Agent's `n_runs` counts (the API does not say what a delete does to it): 'made'
	 * (default) every Run ever made, so a delete leaves it as it was; 'existing' the Runs the
	 * Agent has now (a Run made and another deleted leave it unchanged); 'absent' leaves
	 * `n_runs` out of the Agent.
	 */
	agentRunCounter?: 'made' | 'existing' | 'absent';
	/**
	 * A service that does not report the user-defined ID on a Run (docs/design/service-notes.md
	 * #20 tolerates its absence): Runs are served without `user_defined_id`, though POST runs
	 * still takes the field.
	 */
	omitUserDefinedId?: boolean;
}

export interface EmulatorOptions extends EmulatorKnobs {
	/** 0 = any free port. */
	port: number;
	/** Base of run_url links; defaults to `<emulator url>/app`. */
	webUrl?: string;
	/** Seed the demo users' data (Agents, Runs, usage, access logs). Users and demo keys always exist. */
	seedDemoData: boolean;
	/** Log unexpected handler errors to stderr. */
	logErrors: boolean;
}

// ---------------------------------------------------------------------------------------------
// Stored records
// ---------------------------------------------------------------------------------------------

export type Plan = 'enterprise' | 'team' | 'pro' | 'free';

export interface UserRecord {
	/** Short id used in DEMO_KEYS ('alice'). */
	id: string;
	email: string;
	plan: Plan;
	workspaces: number[];
	/** 'pages' = page-based billing: Run.usage is null (service note 21) and no credit usage records. */
	billing: 'credits' | 'pages';
}

export interface WorkspaceRecord {
	id: number;
	name: string;
}

export interface ApiKeyRecord {
	id: string;
	name: string;
	secret: string;
	userId: string;
	createdMs: number;
	expiresMs: number | null;
}

export interface PromptOptions {
	prompt: string;
	type: string;
	fields?: string[];
	code_generation: boolean;
	document_filter: boolean;
	enhanced_vision: boolean;
	web_search: boolean;
}

export interface PromptRecord {
	id: number;
	name: string;
	createdMs: number;
	updatedMs: number;
	lastUpdatedBy: string;
	documents: unknown[];
	inputPromptIds: number[];
	model: { type: string; version: string };
	options: PromptOptions;
	/** Internal: which value generator produces this Prompt's results (results.ts). Not serialised. */
	generator: string;
}

export interface TemplateRecord {
	id: number;
	filename: string;
	createdMs: number;
	updatedMs: number;
}

export type MetadataValue =
	| string
	| number
	| boolean
	| null
	| Array<string | number | boolean | null>;

export interface AgentRecord {
	id: number;
	workspaceId: number;
	name: string;
	objective: string;
	createdMs: number;
	updatedMs: number;
	createdBy: string;
	guidelines: { prompt: string; createdMs: number; updatedMs: number } | null;
	nRuns: number;
	prompts: PromptRecord[];
	templates: TemplateRecord[];
	metadata: Record<string, MetadataValue>;
}

export interface RunFile {
	name: string;
	size: number;
	contentType?: string;
	sha256?: string;
}

export interface RunPromptSnapshot {
	id: number;
	name: string;
	generator: string;
	webSearch: boolean;
	fields?: string[];
	/** Generator 'fixed' (emulator.createRun's `prompts`): the value the Prompt answers, whatever the files. */
	value?: unknown;
}

export interface RunRecord {
	runId: number;
	agentId: number;
	workspaceId: number;
	/** Email of the user who created the Run. */
	createdBy: string;
	userDefinedId: string | null;
	/** Normalised due date (ISO with offset) or null. Not part of the Run response (not in the spec). */
	dueDate: string | null;
	files: RunFile[];
	createdMs: number;
	/** Snapshot of knobs at creation, so that a Run's progression never changes after the fact. */
	durationMs: number;
	outcome: RunOutcome;
	failureRate: number;
	seed: number;
	/** Snapshot of the Agent's Prompts at creation (id, name, generator, web_search). */
	prompts: RunPromptSnapshot[];
	/** holdRun(): the last Prompt waits until finishRun(). */
	held: boolean;
	/** finishRun(): every Prompt not yet done completes at atMs with this final status. */
	forced: { status: 'success' | 'failed'; atMs: number } | null;
	/** Set once the Run has reached its final state (then it is never recomputed differently). */
	settled: { status: 'success' | 'failed'; completedMs: number } | null;
	/** It had finished when the emulator's clock was set back: it shows finished at any time. */
	finishedBeforeClockSetBack?: boolean;
	/** Historical Runs made before March 2026 keep completed null (service note 19). */
	completedNull: boolean;
	/** Created by addHistoricalRuns / seed (not through the API). */
	historical: boolean;
	/** When the Run first appears in GET runs (ms); its `created` time when absent. */
	listedMs?: number;
	/** The `order` the service sends, when not the Prompts' names (e.g. a name listed twice). */
	order?: string[];
	/** Served as `created` instead of the time: a timestamp the client cannot read. */
	createdText?: string;
	/** A status the service reports instead of the computed one: a value added to the API later (service note 23), e.g. 'cancelled'. */
	reportedStatus?: string;
	/** Prompts (by name) whose result fails while the Run still ends `success`: a partly read document. */
	failingPrompts?: string[];
}

export interface UsageRecord {
	type: string;
	workspaceId: number | null;
	agentId: number | null;
	runId: number | null;
	validationId: number | null;
	user: string;
	/** Microseconds since the epoch (usage `created` is emitted with microseconds, no offset). */
	createdUs: number;
	creditsUsed: number;
}

/** Access log events are stored in their API shape. */
export interface AccessLogEvent {
	timestamp_millis: number;
	workspace_id: number;
	user: string;
	operation: string;
	client_ip: string;
	http_path: string;
	http_method: string;
	http_status: number;
	metadata: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Request log
// ---------------------------------------------------------------------------------------------

export interface UploadedFileInfo {
	/** Form field name of the part (`files` for every file, service note 15). */
	field: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
	/** The part header values as busboy reports them. */
	headers: { filename: string; encoding: string; mimeType: string };
	/** The bytes, only when size <= keepUploadBytesUnder. */
	bytes?: Buffer;
	/** True when the part went over maxFileSize (then size is where reading stopped). */
	truncated?: boolean;
}

export interface UploadInfo {
	contentLength?: number;
	chunked: boolean;
	files: UploadedFileInfo[];
	fields: Record<string, string>;
}

export interface RequestLogEntry {
	seq: number;
	method: string;
	/** Path without the query string. */
	path: string;
	query: Record<string, string>;
	/** Response status; 0 while in flight or when no response was sent (reset, stall). */
	status: number;
	/** Email of the authenticated user. */
	user?: string;
	/** Short id of the authenticated user ('alice'). */
	userId?: string;
	/** Operation name as in access logs, e.g. 'runs.create'. */
	operation?: string;
	startedAt: number;
	durationMs: number;
	fault?: string;
	/** Parsed JSON body of JSON requests (raw text when it did not parse). */
	body?: unknown;
	upload?: UploadInfo;
	/** Request headers (lower-case names). */
	headers: Record<string, string | string[] | undefined>;
}

export interface InjectedFault {
	/**
	 * Which requests get it: method, path (a string: a substring), and query parameters that
	 * must have these values (e.g. { run_id: '42' }: the Run list read with the `run_id` filter).
	 */
	match?: { method?: string; path?: RegExp | string; query?: Record<string, string> };
	kind: InjectedFaultKind;
	/** Retry-After value for '429' (default: 1 second in the retryAfterStyle). */
	retryAfter?: string;
	/** For 'missing-fields': the top-level fields to drop (default: the usual required ones, see faults.ts). */
	dropFields?: string[];
	timing?: FaultTiming;
	/**
	 * A 'before' fault answered once the whole request body has arrived, as a server that reads
	 * the upload before refusing it. Without it the answer may come while the client is still
	 * sending, and Node's server then closes the connection (the client sees EPIPE, not the answer).
	 */
	afterBody?: boolean;
	/** How many matching requests get it (default 1). */
	times?: number;
}
