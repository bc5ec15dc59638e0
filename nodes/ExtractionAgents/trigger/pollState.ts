import type { IDataObject } from 'n8n-workflow';
import { isRunFinished, type Run } from '../helpers/runs';
import { serviceTimestampMillis } from '../helpers/timestamps';

/**
 * How late a Run may appear in the list after its `created` time and still be emitted: the
 * service stamps `created` when an upload starts and lists the Run when it ends, and 300
 * files of 250 MB take minutes (tens of them on a slow line). A Run listed L after its
 * `created` is found by the first read of its Agent after it is listed; the watermark that
 * read starts from is at most the time of the read before, so L <= LOOKBACK_MS is enough,
 * whatever the poll interval and however rarely the Agent is read (docs/design/trigger-rules.md).
 */
export const LOOKBACK_MS = 60 * 60_000;
/** The lookback of state version 2 (0.2.x and 0.3.0): what a stored `seen` covers on upgrade. */
const LOOKBACK_V2_MS = 10 * 60_000;
/**
 * With All Agents, an Agent whose Run counter (`n_runs` in GET /agents) has not moved and that
 * has no pending Run is not read, except once per this interval: the safety net for what the
 * counter does not show (a Run created and another deleted between two polls, a Run listed
 * after its counter moved).
 */
export const SWEEP_INTERVAL_MS = 60 * 60_000;
/** An Agent missing from GET /agents keeps its state this long (a permission change, a move). */
export const ABSENT_AGENT_KEPT_MS = 30 * 24 * 60 * 60_000;
/** A Run still running this long after its `created` time is no longer checked (docs/design/service-notes.md #17). */
export const PENDING_GIVE_UP_MS = 3 * 24 * 60 * 60_000;
/**
 * How far the service's clock may be from n8n's (a service host's clock, a local time read as
 * UTC). The watermark is never set later than this before n8n's clock (watermarkAfter): one
 * Run stamped ahead would otherwise make every later Run history until real time caught up
 * with it, and a watermark ahead of n8n's clock would cut the lookback short. Also the margin
 * at `historyBefore` (docs/design/trigger-rules.md).
 */
export const CLOCK_MARGIN_MS = 5 * 60_000;
/** What a state of version 1 kept of the Runs it emitted (state version 1, 0.1.x). */
const V1_EMITTED_KEPT = 200;

export const STATE_VERSION = 3;

/** A Run and its `created` time: [run id, ms]. */
type RunStamp = [number, number];
/** A Run still running at the last poll. */
export type PendingRun = RunStamp;

/**
 * Per-Agent memory of the trigger (Gmail Trigger's model: a watermark plus the ids near it).
 * A Run is new when its `created` is within LOOKBACK_MS of the watermark or later, it is not
 * in `seen`, and it is not older than `floor`.
 */
export interface AgentPollState extends IDataObject {
	/** Highest `created` (ms) among Runs discovered. */
	watermark: number;
	/** Runs discovered with `created` within LOOKBACK_MS of the watermark (or since `recheckSince`). */
	seen: number[];
	/** Discovered Runs still running at the last poll, read again each poll. */
	pending: PendingRun[];
	/**
	 * Runs of `seen` that list answers left out (a list answer can miss a Run for a moment, or
	 * the Run was deleted), each with the latest `created` it can have (n8n's clock when it was
	 * first left out, plus CLOCK_MARGIN_MS): still known, and in `seen`, as long as a read could
	 * list it as new (that `created` within the lookback), so that it is never emitted twice.
	 * Found again they are not new, and do not pay the Run counter's debt.
	 */
	leftOut?: RunStamp[];
	/**
	 * Pending Runs whose single read answered 404 and that one list answer left out: dropped
	 * (taken as deleted) when the next list answer leaves them out too (pendingRuns.ts).
	 */
	notFound?: number[];
	/** Runs created before this (ms) are history: an Agent first seen after activation. */
	floor?: number;
	/**
	 * Set by a read after a long pause (a catch-up) that moved the watermark more than
	 * LOOKBACK_MS: where that read started. The next read reaches back there once more, so
	 * that a Run one list answer left out is found by the next one, as within the lookback.
	 */
	recheckSince?: number;
	/**
	 * Pending Runs of the state before a re-activation that skips the meantime which the first
	 * look after it did not list: they stay pending, but one found to have finished before
	 * `historyBefore` less CLOCK_MARGIN_MS finished in the meantime and is not emitted.
	 */
	pendingAcrossSkip?: { historyBefore: number; runs: number[] };
	/** When the Agent was first missing from GET /agents (n8n's clock); unset while listed. */
	absentSince?: number;
	/**
	 * The first look at an Agent's Runs (every page, to find those still running) is under
	 * way: the next page to read. It goes on next poll when the budget runs out.
	 */
	scanPage?: number;
	/** During that look: the Runs near the newest `created` so far, which become `seen`. */
	scanSeen?: RunStamp[];
	/**
	 * For an Agent watched when its past became history (activation, a re-activation that
	 * skips, a change of what is watched): that moment (n8n's clock). Runs that finished from
	 * then on are emitted, whichever poll reads their page (historyScan.ts); after the look, a
	 * Run first listed that was made and finished well before it is history, as long as a read
	 * could list such a Run as new (isPastHistory, historyBeforeKept).
	 */
	historyBefore?: number;
	/**
	 * During that look, after a re-activation that skips the meantime: what the state before
	 * it knew of the Agent (firstLookAfterSkip), so that the look counts the Runs that state
	 * had not found (`discovered`) and the Run counter keeps waiting for a Run counted but not
	 * listed yet (a slow upload begun before the re-activation); `seen` holds the Runs it knew.
	 */
	before?: {
		watermark: number;
		floor?: number;
		/** Its pending Runs: known, but not to be remembered as history by the look. */
		pending: number[];
		/** Those of them no page of the look has listed yet (a list answer can leave one out). */
		unlisted?: PendingRun[];
		discovered: number;
		nRuns?: number;
		owed?: number;
		owedSince?: number;
		sweptAt?: number;
	};
	/**
	 * The list's order and length at the last read, so that the next read goes straight to the
	 * page holding the newest Runs (one request); a page that says otherwise corrects them.
	 */
	listOrder?: 'newest-first' | 'oldest-first';
	listCount?: number;
	/** The oldest Run of the list when last seen: a "last page" holding it is page 1 again. */
	listOldest?: number;
	/** The Agent's `n_runs` (GET /agents) before its last list read. */
	nRuns?: number;
	/**
	 * Runs the counter showed that no read has found yet (a Run counted before it is listed):
	 * the Agent is read at every poll until they are found, or for LOOKBACK_MS from
	 * `owedSince` at most (a Run made and deleted before any read is never found).
	 */
	owed?: number;
	owedSince?: number;
	/** When the Agent's list was last read (n8n's clock): it is read again within SWEEP_INTERVAL_MS. */
	sweptAt?: number;
	/**
	 * When the trigger last knew the Agent's Runs (n8n's clock): its last read, or a later poll
	 * whose Run counter showed nothing new (`sweptAt` is set earlier at the first read, to
	 * spread the sweeps). A read after a longer pause than the lookback is checked (`recheckSince`).
	 */
	knownUntil?: number;
	/**
	 * Pending Runs the last poll had no budget left to read, though its list did not show them
	 * running (or showed them first, finished): read before the list at the next poll, so that
	 * a list read taking a poll's whole budget every time (a slow service) cannot keep them
	 * waiting.
	 */
	readFirst?: number[];
	/**
	 * A read of the list that the poll's budget cut short (thousands of Runs since the last
	 * read): where it goes on next poll, and the newest `created` it has read so far.
	 */
	catchUp?: {
		order: 'newest-first' | 'oldest-first' | 'unknown';
		size: number;
		page: number;
		watermark: number;
	};
	/** The reconciliation pass over the Agent's whole list (reconcile.ts). */
	net?: NetSweep;
	/**
	 * Runs found finished and dealt with (emitted, or history) whose `completed` is at or after
	 * the pass's cutoff (reconcile.ts netCutoff), each with that `completed` (ms): the pass
	 * emits a finished Run it lists only when it is not here (nor pending).
	 */
	done?: RunStamp[];
}

/**
 * Where the reconciliation pass over one Agent's whole list stands (reconcile.ts): the moment
 * from which its Runs are the trigger's to emit (`from`, n8n's clock), the sweep under way
 * (its next page and when it started), and when the last two completed sweeps started.
 */
export interface NetSweep extends IDataObject {
	from: number;
	page?: number;
	startedAt?: number;
	/** Starts of the last two completed sweeps, oldest first. */
	starts?: number[];
	/**
	 * For a state saved before the pass (0.4.x): a Run that finished before this (the service's
	 * clock; n8n's plus the clock margin at the first poll after the upgrade whose state is
	 * kept) is not judged by the pass (netBeforeThePass).
	 */
	priorUntil?: number;
}

/**
 * The `net` of a state saved before the pass (0.4.x), loaded at `now`. That state has no
 * `done`, and 0.4.x kept no list of the Runs it emitted (`seen` holds only those created
 * within the lookback of the newest `created`): the pass starts now, and leaves to that
 * version every Run that finished before the clock margin ahead of now (the service's clock
 * may be that far ahead of n8n's). Before, the first sweeps emitted again a Run 0.4.x had
 * emitted just before the upgrade (test/trigger/net.suite.ts).
 */
export function netBeforeThePass(now: number): NetSweep {
	return { from: now, priorUntil: now + CLOCK_MARGIN_MS };
}

export interface TriggerState extends IDataObject {
	version?: number;
	/** When the trigger was activated (n8n's clock). */
	activatedAt?: number;
	/** What is watched: 'all', or 'one:<agent id>'. A change makes newly watched Agents' past history. */
	scope?: string;
	/**
	 * Written before 0.4: Agents without state are history until every watched Agent has
	 * state, from `historyBefore` on. Read once (each watched Agent without state gets a first
	 * look with that historyBefore); no longer written true.
	 */
	newAgentsAreHistory?: boolean;
	historyBefore?: number;
	/** The Agent a poll stopped at for its budget: the next poll starts there. */
	resumeAgent?: number;
	/** The Agent the reconciliation pass goes on with at the next poll (reconcile.ts). */
	netAgent?: number;
	/**
	 * Set by each poll that emits (the state n8n saves with its execution); a poll that emits
	 * nothing keeps it. What this n8n process remembers of unsaved polls is tied to it
	 * (uncommittedState.ts).
	 */
	stateId?: string;
	agents?: Record<string, AgentPollState>;
	/**
	 * Written before 0.4 (the last 200 Runs emitted, of all Agents; no longer written): kept,
	 * never grown, while one of them could still be listed as new (legacyEmittedStillMatters).
	 */
	recentlyEmitted?: number[];
	/** No Run of `recentlyEmitted` was created later than this (n8n's clock at its load, plus the clock margin). */
	recentlyEmittedBefore?: number;
}

/**
 * A Run's `created` time for the trigger. One that cannot be read (a format the service may
 * change to) counts as created when it finished, or, while it runs, at the watermark it is
 * compared with: new once, then remembered, instead of created in 1970 and never emitted.
 */
export function stampOf(run: Run, watermark: number): number {
	return serviceTimestampMillis(run.created) ?? serviceTimestampMillis(run.completed) ?? watermark;
}

/**
 * A pending Run's `created` time, which says when it is given up (PENDING_GIVE_UP_MS). One
 * that cannot be read counts as created when the trigger saw it running (`now`), not at the
 * watermark: that is 0 on an Agent with no Run known, or days old on a quiet one, and the Run
 * would be given up at the next poll and never emitted.
 */
export function pendingStampOf(run: Run, now: number): number {
	return stampOf(run, now);
}

/**
 * Whether this poll (at `now`) is the one of the moment a watched Agent's past became history
 * (the activation poll, a change of what is watched): every Run its look lists is history. A
 * later poll is not, whatever its clock reads: the one in place of an activation poll that
 * failed, or any poll after n8n's clock stepped back (NTP correcting a host), whose `now` may
 * be earlier than that moment. Only the poll of that moment has that very `now`.
 */
export function isHistoryMoment(historyBefore: number | undefined, now: number): boolean {
	return historyBefore === undefined || historyBefore === now;
}

/** The oldest `created` the next read of an Agent's list reaches back to. */
export function readsBackTo(state: Pick<AgentPollState, 'watermark' | 'recheckSince'>): number {
	const since = state.watermark - LOOKBACK_MS;
	return state.recheckSince === undefined ? since : Math.min(since, state.recheckSince);
}

export function isNewRun(
	run: Run,
	state: Pick<AgentPollState, 'watermark' | 'seen' | 'floor' | 'recheckSince' | 'historyBefore'>,
	seen = new Set(state.seen),
): boolean {
	const created = stampOf(run, state.watermark);
	return (
		created >= readsBackTo(state) &&
		(state.floor === undefined || created >= state.floor) &&
		!seen.has(Number(run.run_id)) &&
		!isPastHistory(run, created, state.historyBefore)
	);
}

/**
 * Whether the Run is history whichever read first lists it: created more than the lookback
 * before `historyBefore` (so not a slow upload, whose Run may be listed up to the lookback
 * late) and finished before it, each less the clock margin. A first look spanning polls
 * while the list's order changed may never have listed it (generated seed 10167). A Run made
 * since, or one without a `completed` it can read, is judged as before.
 */
function isPastHistory(run: Run, created: number, historyBefore: number | undefined): boolean {
	if (historyBefore === undefined || !isRunFinished(run)) return false;
	if (created >= historyBefore - LOOKBACK_MS - CLOCK_MARGIN_MS) return false;
	const completed = serviceTimestampMillis(run.completed);
	return completed !== null && completed < historyBefore - CLOCK_MARGIN_MS;
}

/**
 * Whether `historyBefore` still matters after the first look: while the next read reaches
 * back (readsBackTo) before the Runs isPastHistory can take for history.
 */
export function historyBeforeKept(
	historyBefore: number | undefined,
	state: Pick<AgentPollState, 'watermark' | 'recheckSince'>,
): historyBefore is number {
	return (
		historyBefore !== undefined &&
		readsBackTo(state) < historyBefore - LOOKBACK_MS - CLOCK_MARGIN_MS
	);
}

/**
 * The latest a watermark set at `now` may be: CLOCK_MARGIN_MS before n8n's clock. A Run listed
 * L after its `created` is found when the lookback reaches back L behind the first read that
 * lists it; from a watermark ahead of n8n's clock (a Run stamped 2 hours ahead) it would reach
 * back less than LOOKBACK_MS, and with the service's clock up to the margin behind n8n's, its
 * `created` reads up to that much earlier still.
 */
export function watermarkCap(now: number): number {
	return now - CLOCK_MARGIN_MS;
}

/** The watermark after reading `runs`: the newest `created`, at most watermarkCap(now). */
export function watermarkAfter(watermark: number, runs: Run[], now: number): number {
	let next = watermark;
	for (const run of runs)
		next = Math.max(next, Math.min(stampOf(run, watermark), watermarkCap(now)));
	return next;
}

/** The ids of `runs` created at or after `since` (by default within LOOKBACK_MS of `watermark`): the next poll's `seen`. */
export function seenNear(
	runs: Run[],
	watermark: number,
	since = watermark - LOOKBACK_MS,
): number[] {
	return [
		...new Set(
			runs.filter((run) => stampOf(run, watermark) >= since).map((run) => Number(run.run_id)),
		),
	];
}

export function isPendingTooLong([, created]: PendingRun, now: number): boolean {
	return now - created > PENDING_GIVE_UP_MS;
}

/**
 * What is stored per Agent: `seen` as one string (ascending ids, the first in base 36, then
 * the gaps between them), which keeps an hour of Runs small: ids of one Agent are close.
 * `leftOut` likewise, each id with its latest `created` in whole minutes from the watermark
 * (rounded up: kept up to a minute longer), and its ids left out of `seen`'s string.
 */
interface StoredAgentPollState extends IDataObject {
	seen: string | number[];
	leftOut?: string | Array<number | RunStamp>;
	/** `done` as `leftOut` is stored: id gaps and whole minutes of `completed` (rounded up). */
	done?: string;
}

/** `leftOut` times are stored in whole minutes, counted from the watermark's minute. */
const MINUTE_MS = 60_000;

function encodeLeftOut(leftOut: RunStamp[], watermark: number): string {
	const sorted = [...leftOut].sort(([a], [b]) => a - b);
	const base = Math.floor(watermark / MINUTE_MS);
	return sorted
		.map(([id, created], index) => {
			const gap = index === 0 ? id : id - sorted[index - 1][0];
			// Rounded up once: a time read back is a whole minute, and stays that minute.
			const minutes = Math.ceil(created / MINUTE_MS) - base;
			return `${gap.toString(36)}:${minutes.toString(36)}`;
		})
		.join(',');
}

/** `leftOut` as stored: that string, or ids (before 0.4: known from now on as left out now). */
function decodeLeftOut(
	stored: StoredAgentPollState['leftOut'],
	watermark: number,
	now: number,
): RunStamp[] {
	if (Array.isArray(stored))
		return stored.map((entry) =>
			typeof entry === 'number' ? [entry, now + CLOCK_MARGIN_MS] : entry,
		);
	if (!stored) return [];
	let id = 0;
	return stored.split(',').map((part): RunStamp => {
		const [gap, minutes] = part.split(':');
		id += parseInt(gap, 36);
		return [id, (Math.floor(watermark / MINUTE_MS) + parseInt(minutes, 36)) * MINUTE_MS];
	});
}

/** `done` is stored in groups of DONE_BUCKET_MINUTES of `completed`, rounded up. */
const DONE_BUCKET_MINUTES = 15;

/**
 * `done` as stored: its Runs grouped by `completed` (whole buckets of DONE_BUCKET_MINUTES,
 * counted from the watermark's minute, rounded up: kept up to a bucket longer), each group
 * its bucket and its ids as `seen` stores them: `bucket:ids;bucket:ids`.
 */
function encodeDone(done: RunStamp[], watermark: number): string {
	const base = Math.floor(watermark / MINUTE_MS);
	const groups = new Map<number, number[]>();
	for (const [runId, completed] of done) {
		const minutes = Math.ceil(completed / MINUTE_MS) - base;
		const bucket = Math.ceil(minutes / DONE_BUCKET_MINUTES);
		groups.set(bucket, [...(groups.get(bucket) ?? []), runId]);
	}
	return [...groups.entries()]
		.map(([bucket, ids]) => `${bucket.toString(36)}:${encodeIds(ids)}`)
		.join(';');
}

function decodeDone(stored: string | undefined, watermark: number): RunStamp[] {
	if (!stored) return [];
	const base = Math.floor(watermark / MINUTE_MS);
	return stored.split(';').flatMap((group) => {
		const [bucket, ids] = group.split(':');
		const completed = (base + parseInt(bucket, 36) * DONE_BUCKET_MINUTES) * MINUTE_MS;
		return decodeIds(ids).map((runId): RunStamp => [runId, completed]);
	});
}

function encodeIds(ids: number[]): string {
	const sorted = [...new Set(ids)].sort((a, b) => a - b);
	return sorted
		.map((id, index) => (index === 0 ? id : id - sorted[index - 1]).toString(36))
		.join(',');
}

function decodeIds(encoded: string | number[] | undefined): number[] {
	if (Array.isArray(encoded)) return encoded;
	if (!encoded) return [];
	let id = 0;
	return encoded.split(',').map((part) => (id += parseInt(part, 36)));
}

/** The agents' state as stored in n8n's static data. */
function storedAgents(
	agents: Record<string, AgentPollState>,
): Record<string, StoredAgentPollState> {
	const stored: Record<string, StoredAgentPollState> = {};
	for (const [agentId, agentState] of Object.entries(agents)) {
		const leftOut = agentState.leftOut ?? [];
		const leftOutIds = new Set(leftOut.map(([runId]) => runId));
		const { done, ...rest } = agentState;
		stored[agentId] = {
			...rest,
			seen: encodeIds(agentState.seen.filter((runId) => !leftOutIds.has(runId))),
		};
		if (leftOut.length > 0) stored[agentId].leftOut = encodeLeftOut(leftOut, agentState.watermark);
		if (done && done.length > 0) stored[agentId].done = encodeDone(done, agentState.watermark);
	}
	return stored;
}

function withDecodedSeen(stored: TriggerState, now: number): TriggerState {
	const agents: Record<string, AgentPollState> = {};
	for (const [agentId, agentState] of Object.entries(
		stored.agents as unknown as Record<string, StoredAgentPollState>,
	)) {
		const decoded = { ...(agentState as AgentPollState), seen: decodeIds(agentState.seen) };
		const leftOut = decodeLeftOut(agentState.leftOut, decoded.watermark, now);
		delete decoded.leftOut;
		delete decoded.done;
		if (agentState.done) decoded.done = decodeDone(agentState.done, decoded.watermark);
		// Saved before the pass: its `net` is set at the first poll that loads it.
		if (!decoded.net) decoded.net = netBeforeThePass(now);
		if (leftOut.length > 0) {
			decoded.leftOut = leftOut;
			decoded.seen = [...new Set([...decoded.seen, ...leftOut.map(([runId]) => runId)])];
		}
		agents[agentId] = decoded;
	}
	return withLegacyEmittedDated({ ...stored, agents }, now);
}

/**
 * A state written before 0.4 kept the last Runs emitted (`recentlyEmitted`) as its guard
 * against emitting one twice: kept as they are, with the latest `created` they can have.
 */
function withLegacyEmittedDated(state: TriggerState, now: number): TriggerState {
	if ((state.recentlyEmitted ?? []).length === 0) {
		const without = { ...state };
		delete without.recentlyEmitted;
		delete without.recentlyEmittedBefore;
		return without;
	}
	return { ...state, recentlyEmittedBefore: state.recentlyEmittedBefore ?? now + CLOCK_MARGIN_MS };
}

/**
 * Whether a Run of a state's `recentlyEmitted` (written before 0.4) could still be listed as
 * new by an Agent (its `created` within the Agent's lookback): until then the list is kept.
 */
export function legacyEmittedStillMatters(
	before: number | undefined,
	agents: Record<string, AgentPollState>,
): boolean {
	if (before === undefined) return false;
	return Object.values(agents).some(
		(agent) =>
			agent.scanPage !== undefined ||
			(readsBackTo(agent) <= before && (agent.floor === undefined || agent.floor <= before)),
	);
}

/**
 * A watched Agent whose past is history from `historyBefore` on, before its first look: the
 * look reads its whole list (historyScan.ts), at this poll or a later one.
 */
export function firstLookOwed(historyBefore: number): AgentPollState {
	return {
		watermark: 0,
		seen: [],
		pending: [],
		scanPage: 0,
		historyBefore,
		net: { from: historyBefore },
	};
}

/**
 * A first look after a re-activation that skips the meantime (When Reactivated → Skip Them),
 * for an Agent the state before it knew: its past is history from `historyBefore` on, as on
 * a first activation, but what that state knew stays known. A Run it found (emitted, or
 * history) that one list answer leaves out is then not taken for a slow upload and emitted
 * again, and a Run its counter showed that no read found yet is still waited for.
 */
export function firstLookAfterSkip(known: AgentPollState, historyBefore: number): AgentPollState {
	// A re-activation while the look after an earlier one is still under way (its Agent missing
	// from the Agent list, its list refused, its pages read across polls): what the trigger knew
	// is the state before that earlier one, not the look's (which has no watermark or Run
	// counter yet). Built from the look, a Run counted but not listed at the earlier
	// re-activation was never waited for (generated seed 8400875).
	const earlier = known.scanPage !== undefined ? known.before : undefined;
	const was = earlier ?? known;
	const unlisted = [
		...(earlier?.unlisted ?? []),
		...known.pending.filter(
			([runId]) => !(earlier?.unlisted ?? []).some(([listedId]) => listedId === runId),
		),
	];
	const pending = [
		...new Set([...(earlier?.pending ?? []), ...known.pending.map(([runId]) => runId)]),
	];
	return {
		...firstLookOwed(historyBefore),
		seen: [...new Set([...known.seen, ...pending])],
		...(known.absentSince !== undefined ? { absentSince: known.absentSince } : {}),
		...(known.done !== undefined ? { done: known.done } : {}),
		before: {
			watermark: was.watermark,
			...(was.floor !== undefined ? { floor: was.floor } : {}),
			pending,
			...(unlisted.length > 0 ? { unlisted } : {}),
			discovered: 0,
			...(was.nRuns !== undefined ? { nRuns: was.nRuns } : {}),
			...(was.owed !== undefined ? { owed: was.owed } : {}),
			...(was.owedSince !== undefined ? { owedSince: was.owedSince } : {}),
			...(was.sweptAt !== undefined ? { sweptAt: was.sweptAt } : {}),
		},
	};
}

/** The state of version 1 (watermark, ids at it, pending ids, emitted ids), carried over exactly. */
interface AgentPollStateV1 {
	watermark: number;
	idsAtWatermark: number[];
	pending: number[];
	emitted: number[];
}

/**
 * Reads the stored state, upgrading version 1: its watermark becomes the floor (everything
 * discovered before stays discovered), its pending Runs stay pending.
 */
export function readTriggerState(
	stored: TriggerState,
	scope: string,
	now: number,
): TriggerState | undefined {
	if (stored.version === STATE_VERSION && stored.agents) return withDecodedSeen(stored, now);
	if (stored.version === 2 && stored.agents) {
		// Version 2 remembered the Runs of the last 10 minutes only: older ones stay history.
		const upgraded = withDecodedSeen(stored, now);
		for (const agentState of Object.values(upgraded.agents ?? {})) {
			if (agentState.scanPage !== undefined) continue;
			agentState.floor = Math.max(agentState.floor ?? 0, agentState.watermark - LOOKBACK_V2_MS);
		}
		return { ...upgraded, version: STATE_VERSION };
	}
	if (stored.version !== 1 || !stored.agents) return undefined;
	const agents: Record<string, AgentPollState> = {};
	const recentlyEmitted: number[] = [];
	for (const [agentId, old] of Object.entries(
		stored.agents as unknown as Record<string, AgentPollStateV1>,
	)) {
		agents[agentId] = {
			watermark: old.watermark,
			seen: [...new Set([...old.idsAtWatermark, ...old.pending])],
			pending: old.pending.map((runId): PendingRun => [runId, now]),
			floor: old.watermark,
			net: netBeforeThePass(now),
		};
		recentlyEmitted.push(...old.emitted);
	}
	return withLegacyEmittedDated(
		{
			version: STATE_VERSION,
			activatedAt: stored.activatedAt,
			scope,
			newAgentsAreHistory: false,
			agents,
			recentlyEmitted: recentlyEmitted.slice(-V1_EMITTED_KEPT),
		},
		now,
	);
}

/** What a poll commits: the state the next poll goes on from. */
interface PollOutcome {
	activatedAt: number | undefined;
	scope: string;
	/** The Agent the next poll starts at; undefined: every Agent had its turn. */
	resumeAgent: number | undefined;
	/** The Agent the reconciliation pass goes on with at the next poll. */
	netAgent?: number;
	agents: Record<string, AgentPollState>;
	/** What is left of a state's `recentlyEmitted` written before 0.4, and its date. */
	legacyEmitted?: { runs: number[]; before: number };
}

/** Writes a poll's outcome into the stored state, as readTriggerState reads it back. */
export function writeTriggerState(stored: TriggerState, outcome: PollOutcome): void {
	stored.version = STATE_VERSION;
	stored.activatedAt = outcome.activatedAt;
	stored.scope = outcome.scope;
	stored.newAgentsAreHistory = false;
	delete stored.historyBefore;
	if (outcome.resumeAgent === undefined) delete stored.resumeAgent;
	else stored.resumeAgent = outcome.resumeAgent;
	if (outcome.netAgent === undefined) delete stored.netAgent;
	else stored.netAgent = outcome.netAgent;
	// Stored with `seen` encoded; readTriggerState decodes it.
	stored.agents = storedAgents(outcome.agents) as unknown as TriggerState['agents'];
	const legacy = outcome.legacyEmitted;
	if (legacy && legacyEmittedStillMatters(legacy.before, outcome.agents)) {
		stored.recentlyEmitted = legacy.runs;
		stored.recentlyEmittedBefore = legacy.before;
	} else {
		delete stored.recentlyEmitted;
		delete stored.recentlyEmittedBefore;
	}
}
