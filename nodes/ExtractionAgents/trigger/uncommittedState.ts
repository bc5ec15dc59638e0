import type { TriggerState } from './pollState';

/**
 * n8n 2.41's durable scheduler keeps only some of what a poll writes into the node's static
 * data (docs/design/trigger-rules.md, "n8n's poll scheduling"; test/e2e/trigger.e2e.test.ts):
 * - with N8N_SCHEDULER_ENABLED and N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, each poll loads the
 *   static data from the database, and only a poll that starts an execution saves it: what a
 *   poll that emitted nothing wrote (Runs found running, a first look going on page by page)
 *   is lost;
 * - with durable poll cursors as well (N8N_POLLER_DURABLE_CURSORS_ENABLED), the node writes
 *   into a staged copy that a scheduled poll commits, but the poll run at activation commits
 *   only when it emits.
 * And the scheduler runs on every n8n main: each poll goes to whichever main takes its task,
 * so two processes poll from one stored state, each with its own memory.
 *
 * So the stored state decides: every poll that emits stamps the state it leaves with a new
 * `stateId` (the one n8n saves), and what a process remembers is only an optimisation tied to
 * the stored state it grew from:
 * - a poll that emitted nothing marks no Run emitted, so going on from the state it left is
 *   what the in-memory poller does: this process remembers it with the `stateId` it started
 *   from, and a later poll that finds that same `stateId` stored goes on from the remembered
 *   state. One that finds another (a poll that emitted, on this main or another, saved since)
 *   goes on from what is stored: the remembered progress is redone, never trusted over a
 *   saved emission;
 * - a poll that emitted has its state saved by n8n without waiting for the save: a poll task
 *   started before that save landed is handed the state the emitting poll started from (or
 *   one saved before it by another main, whose save landed late too), and would emit the same
 *   Runs again. This process remembers the `stateId` the emitting poll started from and when
 *   that poll started; a poll here that finds that `stateId` still stored, or one stamped
 *   (newStateId) by a poll that started earlier, skips its turn, for EMITTED_SAVE_GRACE_MS;
 *   after that, n8n dropped that poll's result without saving it (the
 *   workflow deactivated during the poll, the poll past n8n's poll timeout), and the next poll
 *   goes on from the state the emitting poll started from, remembered with the same
 *   `stateId`: its Runs are emitted again rather than lost. Not from what is stored alone:
 *   when nothing was saved since activation, that is nothing, and a poll that finds nothing
 *   stored takes the Runs that finished more than a poll interval ago for history (poll.ts).
 *   A poll on another main in that window cannot know (docs/design/trigger-rules.md, "Two n8n mains").
 */
const remembered = new Map<string, { base: string; json: string }>();
const emittedFrom = new Map<string, { base: string; startedAt: number; endedAt: number }>();
/**
 * How long an emitting poll's save is waited for: n8n's poll timeout (45 s by default) and
 * the time a poll task takes to load, with room for a loaded machine. Timed by the process's
 * elapsed-time clock (elapsedMs), which no one sets: n8n's wall clock set back or forward
 * (NTP correcting a host) neither lengthens nor ends the wait.
 */
export const EMITTED_SAVE_GRACE_MS = 2 * 60_000;
/**
 * What is remembered at once, at most, in characters of JSON (one entry per active trigger of
 * this n8n; a state is under 64 KB with 200 Agents watched): the oldest entries go first.
 */
const REMEMBERED_CHARS_LIMIT = 16_000_000;
let rememberedChars = 0;

/** The stored state's lineage: the `stateId` of the emitting poll that left it ('' for none). */
export function stateIdOf(stored: TriggerState): string {
	return typeof stored.stateId === 'string' ? stored.stateId : '';
}

/**
 * A `stateId` for the state an emitting poll leaves: unique across polls and n8n mains, and
 * stamped with when the poll started (`now`).
 */
export function newStateId(now: number): string {
	return `${now.toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Puts the remembered state in place of the stored one, when it grew from exactly that stored
 * state (this process's polls that emitted nothing since).
 */
export function adoptUncommittedState(triggerKey: string, stored: TriggerState): void {
	const kept = remembered.get(triggerKey);
	if (!kept) return;
	if (kept.base !== stateIdOf(stored)) {
		forget(triggerKey); // a poll that emitted saved since: what is stored decides
		return;
	}
	const state = JSON.parse(kept.json) as TriggerState;
	for (const key of Object.keys(stored)) if (!(key in state)) delete stored[key];
	Object.assign(stored, state);
}

/**
 * Whether this poll must skip its turn: a poll of this process emitted Runs less than
 * EMITTED_SAVE_GRACE_MS ago, and this one was handed a state from before that poll's save: the
 * state it started from, or one left by a poll (of any main) that started before it.
 */
export function awaitsEmittedSave(triggerKey: string, stored: TriggerState): boolean {
	const emitted = emittedFrom.get(triggerKey);
	if (!emitted) return false;
	const waiting = elapsedMs() - emitted.endedAt < EMITTED_SAVE_GRACE_MS;
	const stateId = stateIdOf(stored);
	const older =
		stateId === emitted.base || (startOfStateId(stateId) ?? Infinity) < emitted.startedAt;
	if (older && waiting) return true;
	emittedFrom.delete(triggerKey);
	return false;
}

/** Milliseconds since an arbitrary start, on a clock that only moves forward with time. */
function elapsedMs(): number {
	return performance.now();
}

/**
 * When the poll that left a state started (n8n's clock of its main), from its `stateId`
 * (newStateId); 0 for none saved yet; undefined when the id says nothing (written elsewhere).
 */
function startOfStateId(stateId: string): number | undefined {
	if (stateId === '') return 0;
	const match = /^([0-9a-z]+)\.[0-9a-z]+$/.exec(stateId);
	return match ? parseInt(match[1], 36) : undefined;
}

/**
 * After a poll that started from the stored state `base`: remembers the state to go on from
 * while n8n has saved nothing newer. A poll that emitted nothing: the state it left (`json`).
 * A poll that emitted Runs has its state committed with its execution, or, if n8n drops the
 * execution, must not count those Runs emitted: the state it started from (`json`), its base,
 * when it started (`emittedSince`, the stamp of its `stateId`) and when it ended.
 */
export function rememberState(
	triggerKey: string,
	base: string,
	json: string,
	emittedSince: number | undefined,
): void {
	forget(triggerKey);
	if (emittedSince !== undefined) {
		// One small entry per active trigger; the limit only keeps a runaway in bounds.
		if (emittedFrom.size >= 100_000) emittedFrom.delete(emittedFrom.keys().next().value as string);
		// When the poll ended (it may have run for minutes): n8n saves from then on.
		emittedFrom.set(triggerKey, { base, startedAt: emittedSince, endedAt: elapsedMs() });
	}
	while (remembered.size > 0 && rememberedChars + json.length > REMEMBERED_CHARS_LIMIT)
		forget(remembered.keys().next().value as string);
	remembered.set(triggerKey, { base, json });
	rememberedChars += json.length;
}

function forget(triggerKey: string): void {
	emittedFrom.delete(triggerKey);
	const kept = remembered.get(triggerKey);
	if (!kept) return;
	rememberedChars -= kept.json.length;
	remembered.delete(triggerKey);
}
