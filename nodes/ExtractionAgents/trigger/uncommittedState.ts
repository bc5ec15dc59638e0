import type { TriggerState } from './pollState';

/**
 * n8n 2.41's durable scheduler keeps only some of what a poll writes into the node's static
 * data (docs/trigger.md, "n8n's poll scheduling"; test/e2e/trigger.e2e.test.ts):
 * - with N8N_SCHEDULER_ENABLED and N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, each poll loads the
 *   static data from the database, and only a poll that starts an execution saves it: what a
 *   poll that emitted nothing wrote (Runs found running, a first look going on page by page)
 *   is lost;
 * - with durable poll cursors as well (N8N_POLLER_DURABLE_CURSORS_ENABLED), the node writes
 *   into a staged copy that a scheduled poll commits, but the poll run at activation commits
 *   only when it emits: the state an activation builds is lost, so the next poll took the
 *   Agents' history in again and counted a Run that finished in between as history, and
 *   When Reactivated → Skip Them caught up instead.
 * n8n's in-memory poller keeps one workflow object per activation, so there nothing is lost.
 *
 * A poll that emitted nothing marks no Run emitted, so going on from the state it left is what
 * the in-memory poller does. Each poll stamps the state with a revision one higher than the one
 * it started from; the state a poll that emitted nothing left is remembered in this process,
 * and a poll that finds an older revision stored goes on from the remembered state.
 *
 * A poll that emitted Runs has its state saved by n8n without waiting for the save (with
 * the scheduler, a poll task loads the static data when it starts, and the emitting poll's
 * save is started as its execution is): a poll task that started while another was running,
 * or before that one's save landed, is handed the state from before it, and would emit the
 * same Runs again. So the revision a poll that emitted Runs stamped is remembered too, and a
 * poll that finds an older one stored skips its turn, for EMITTED_SAVE_GRACE_MS; after that,
 * what is stored is trusted: n8n dropped that poll's result without saving it (the workflow
 * deactivated during the poll, the poll past n8n's poll timeout), and its Runs are emitted
 * again rather than lost.
 */
const remembered = new Map<string, { revision: number; json: string }>();
const emittedRevisions = new Map<string, { revision: number; at: number }>();
/**
 * How long an emitting poll's save is waited for: n8n's poll timeout (45 s by default) and
 * the time a poll task takes to load, with room for a loaded machine.
 */
export const EMITTED_SAVE_GRACE_MS = 2 * 60_000;
/**
 * What is remembered at once, at most, in characters of JSON (one entry per active trigger of
 * this n8n; a state is under 64 KB with 200 Agents watched): the oldest entries go first.
 */
const REMEMBERED_CHARS_LIMIT = 16_000_000;
let rememberedChars = 0;

/** Puts the remembered state in place of a stored one that n8n did not keep. */
export function adoptUncommittedState(triggerKey: string, stored: TriggerState): void {
	const kept = remembered.get(triggerKey);
	if (!kept || revisionOf(stored) >= kept.revision) return;
	const state = JSON.parse(kept.json) as TriggerState;
	for (const key of Object.keys(stored)) if (!(key in state)) delete stored[key];
	Object.assign(stored, state);
}

/**
 * Whether this poll must skip its turn: it was handed a state older than the one a poll that
 * emitted Runs less than EMITTED_SAVE_GRACE_MS ago left (whose save has not landed).
 */
export function awaitsEmittedSave(triggerKey: string, stored: TriggerState, now: number): boolean {
	const emitted = emittedRevisions.get(triggerKey);
	if (!emitted) return false;
	// Either way: a clock set back (a restore, another n8n main) must not prolong the wait.
	const waiting = Math.abs(now - emitted.at) < EMITTED_SAVE_GRACE_MS;
	if (revisionOf(stored) < emitted.revision && waiting) return true;
	emittedRevisions.delete(triggerKey);
	return false;
}

export function revisionOf(stored: TriggerState): number {
	const revision = Number(stored.revision ?? 0);
	return Number.isFinite(revision) ? revision : 0;
}

/**
 * After a poll: remembers the state it left when it emitted nothing. A poll that emitted Runs
 * has its state committed with its execution (or, if n8n drops the execution, must not count
 * those Runs emitted), so only its revision is remembered, and when.
 */
export function rememberState(triggerKey: string, stored: TriggerState, emitted: boolean): void {
	forget(triggerKey);
	if (emitted) {
		// One small entry per active trigger; the limit only keeps a runaway in bounds.
		if (emittedRevisions.size >= 100_000)
			emittedRevisions.delete(emittedRevisions.keys().next().value as string);
		// When the poll ended (it may have run for minutes): n8n saves from then on.
		emittedRevisions.set(triggerKey, { revision: revisionOf(stored), at: Date.now() });
		return;
	}
	const json = JSON.stringify(stored);
	while (remembered.size > 0 && rememberedChars + json.length > REMEMBERED_CHARS_LIMIT)
		forget(remembered.keys().next().value as string);
	remembered.set(triggerKey, { revision: revisionOf(stored), json });
	rememberedChars += json.length;
}

function forget(triggerKey: string): void {
	emittedRevisions.delete(triggerKey);
	const kept = remembered.get(triggerKey);
	if (!kept) return;
	rememberedChars -= kept.json.length;
	remembered.delete(triggerKey);
}
