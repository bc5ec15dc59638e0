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
 */
const remembered = new Map<string, { revision: number; json: string }>();
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

export function revisionOf(stored: TriggerState): number {
	const revision = Number(stored.revision ?? 0);
	return Number.isFinite(revision) ? revision : 0;
}

/**
 * After a poll: remembers the state it left when it emitted nothing. A poll that emitted Runs
 * has its state committed with its execution (or, if n8n drops the execution, must not count
 * those Runs emitted), so nothing is remembered for it.
 */
export function rememberState(triggerKey: string, stored: TriggerState, emitted: boolean): void {
	forget(triggerKey);
	if (emitted) return;
	const json = JSON.stringify(stored);
	while (remembered.size > 0 && rememberedChars + json.length > REMEMBERED_CHARS_LIMIT)
		forget(remembered.keys().next().value as string);
	remembered.set(triggerKey, { revision: revisionOf(stored), json });
	rememberedChars += json.length;
}

function forget(triggerKey: string): void {
	const kept = remembered.get(triggerKey);
	if (!kept) return;
	rememberedChars -= kept.json.length;
	remembered.delete(triggerKey);
}
