/**
 * The named mutations `npm run mutants` (scripts/mutants.ts) applies to the trigger's code, one
 * at a time, to show that the model-based test (test/trigger/generated-schedules.test.ts: its
 * replays and seeds) catches each. Each edit finds `find` exactly once in `file` and puts
 * `replace` in its place; an anchor found zero or several times is reported as drifted (the
 * code moved on: re-anchor it here), never skipped in silence. Anchors are kept short so that a
 * change elsewhere in the file leaves them valid.
 *
 * `equivalent`: why a mutation that survives changes no behaviour the docs promise (checked by
 * hand and stated here, so that the table reads it as such instead of as a gap).
 */
export interface MutationEdit {
	/** Relative to nodes/ExtractionAgents/trigger/. */
	file: string;
	find: string;
	replace: string;
}

export interface Mutation {
	name: string;
	edits: MutationEdit[];
	equivalent?: string;
}

const edit = (file: string, find: string, replace: string): MutationEdit => ({
	file,
	find,
	replace,
});

/**
 * Emitting a Run twice. The trigger used to guard it with a count-capped list of the Runs
 * emitted (`recentlyEmitted`); that list is now only read from states written before 0.4
 * (poll.ts legacyEmittedOf), and what guards the hazard is (a) the within-poll dedupe of
 * poll.ts itemsToEmit (a Run found twice in one poll: pending and listed, two Agents' reads)
 * and (b) each Agent's time-bounded `leftOut` memory (runsCompletedSince.ts leftOutOf: a Run
 * of `seen` one list answer left out stays known while a read could list it as new).
 */
const noWithinPollDedupe = edit('poll.ts', 'if (emittedOnce.has(runId)) return false;', '');
const noLeftOut = edit(
	'runsCompletedSince.ts',
	'if (created >= remembered) leftOut.push([runId, created]);',
	'if (false) leftOut.push([runId, created]);',
);

export const MUTATIONS: Mutation[] = [
	// Was 'drop the recentlyEmitted dedupe': that list no longer guards new states (see above).
	{ name: 'drop the within-poll dedupe', edits: [noWithinPollDedupe] },
	{
		name: 'lookback 60 -> 51 min',
		edits: [
			edit('pollState.ts', 'const LOOKBACK_MS = 60 * 60_000;', 'const LOOKBACK_MS = 51 * 60_000;'),
		],
	},
	{
		name: '>= -> > in the lookback check',
		edits: [edit('pollState.ts', 'created >= readsBackTo(state)', 'created > readsBackTo(state)')],
	},
	{
		name: 'lookback 60 -> 40 min',
		edits: [
			edit('pollState.ts', 'const LOOKBACK_MS = 60 * 60_000;', 'const LOOKBACK_MS = 40 * 60_000;'),
		],
	},
	{
		name: 'forget a pending Run on 404',
		edits: [
			// Every 404 of a pending Run's read drops it, without asking the list (afterNotFound's
			// two-answers rule never runs).
			edit(
				'pendingRuns.ts',
				"if ('gone' in read) return await afterNotFound(",
				"if ('gone' in read) return {};\n\tif (false) return await afterNotFound(",
			),
		],
	},
	{
		name: 'ignore Skip Them',
		edits: [
			edit(
				'poll.ts',
				"'onReactivation', 'emit') === 'skip'",
				"'onReactivation', 'emit') === 'never'",
			),
		],
	},
	{
		name: 'the emitted-save wait off',
		edits: [
			edit('uncommittedState.ts', 'if (older && waiting) return true;', 'if (false) return true;'),
		],
	},
	{
		name: 'the emitted-save grace 0',
		edits: [
			edit(
				'uncommittedState.ts',
				'EMITTED_SAVE_GRACE_MS = 2 * 60_000;',
				'EMITTED_SAVE_GRACE_MS = 0;',
			),
		],
	},
	{
		name: "the emitted-save wait timed by n8n's clock",
		edits: [edit('uncommittedState.ts', 'return performance.now();', 'return Date.now();')],
	},
	{
		name: 'the first look takes everything read later as history',
		edits: [edit('historyScan.ts', ': (historyBefore ?? now) - CLOCK_MARGIN_MS;', ': Infinity;')],
	},
	{
		name: 'clock margin 5 -> 0 min',
		edits: [
			edit('pollState.ts', 'const CLOCK_MARGIN_MS = 5 * 60_000;', 'const CLOCK_MARGIN_MS = 0;'),
		],
	},
	{ name: 'no leftOut', edits: [noLeftOut] },
	{
		name: 'no recheckSince',
		edits: [
			edit(
				'runsCompletedSince.ts',
				'knownUntil?: number): boolean {\n\treturn (',
				'knownUntil?: number): boolean {\n\treturn false && (',
			),
		],
	},
	{
		name: 'no owed',
		edits: [
			edit('runCounters.ts', 'if (owed !== 0) next.owed = owed;', 'if (false) next.owed = owed;'),
		],
	},
	{
		name: 'no hourly sweep',
		edits: [edit('runCounters.ts', 'now - previous.sweptAt < SWEEP_INTERVAL_MS', 'true')],
	},
	{
		name: 'blind-poll window 0',
		edits: [edit('poll.ts', 'activatedAt ?? now - pollIntervalMs(context)', 'activatedAt ?? now')],
	},
	{
		name: 'a lagging single read emitted as running',
		edits: [
			edit(
				'runsCompletedSince.ts',
				'if (isRunFinished(read.run)) finished.push(read.run);\n\t\t\telse stillPending',
				'if (true) finished.push(read.run);\n\t\t\telse stillPending',
			),
		],
	},
	{
		name: 'an absent Agent forgotten after 1 day',
		edits: [
			edit(
				'pollState.ts',
				'ABSENT_AGENT_KEPT_MS = 30 * 24 * 60 * 60_000;',
				'ABSENT_AGENT_KEPT_MS = 1 * 24 * 60 * 60_000;',
			),
		],
	},
	{
		name: 'an absent Agent never forgotten',
		edits: [
			edit(
				'pollState.ts',
				'ABSENT_AGENT_KEPT_MS = 30 * 24 * 60 * 60_000;',
				'ABSENT_AGENT_KEPT_MS = Infinity;',
			),
		],
	},
	{
		name: 'one list pass instead of 3',
		edits: [edit('runsListedSince.ts', 'const MAX_LIST_PASSES = 3;', 'const MAX_LIST_PASSES = 1;')],
	},
	{
		name: 'a new Agent without lookback',
		edits: [edit('pollAgents.ts', 'const floor = now - LOOKBACK_MS;', 'const floor = now;')],
	},
	{
		name: 'give up after 1 h instead of 3 days',
		edits: [
			edit(
				'pollState.ts',
				'PENDING_GIVE_UP_MS = 3 * 24 * 60 * 60_000;',
				'PENDING_GIVE_UP_MS = 60 * 60_000;',
			),
		],
	},
	{
		name: 'never adopt the remembered state',
		edits: [
			edit(
				'uncommittedState.ts',
				'if (!kept) return;\n\tif (kept.base',
				'if (!kept || true) return;\n\tif (kept.base',
			),
		],
	},
	// Was 'no leftOut and no recentlyEmitted': both guards against emitting a Run twice off.
	{ name: 'no leftOut and no within-poll dedupe', edits: [noLeftOut, noWithinPollDedupe] },
	{
		name: "Skip Them's pending-across-re-activation off",
		edits: [
			edit(
				'historyScan.ts',
				'const leftOut = before?.unlisted ?? [];',
				'const leftOut = [] as typeof pending;',
			),
		],
	},
	// The reconciliation pass (reconcile.ts, docs/design/trigger-rules.md "The net") and the
	// three-day give-up's exception for a read that lags (issue 42). Each is caught by
	// test/trigger/net.suite.ts (trigger-memory.test.ts).
	{
		name: 'the pass emits nothing',
		edits: [
			edit(
				'reconcile.ts',
				'if (!known.has(runId)) missed.set(runId, run);',
				'if (false) missed.set(runId, run);',
			),
		],
	},
	{
		name: 'the pass judges from the last sweep, not the one two back',
		edits: [
			edit(
				'reconcile.ts',
				'starts.length >= 2 ? Math.max(net.from, starts[0]) : net.from;',
				'starts.length >= 1 ? Math.max(net.from, starts[starts.length - 1]) : net.from;',
			),
		],
	},
	{
		name: "the fast path's emissions not remembered for the pass",
		edits: [
			edit(
				'pollAgents.ts',
				'withDone(agents[String(agentId)], result.finished, now);',
				'withDone(agents[String(agentId)], [], now);',
			),
		],
	},
	{
		name: 'history within the clock margin not remembered for the pass',
		edits: [
			edit(
				'historyScan.ts',
				'if (completed !== null && completed >= historyFrom)',
				'if (false && completed !== null)',
			),
		],
	},
	{
		name: "a read of the list forgets the pass's start",
		edits: [edit('runsCompletedSince.ts', '...(previous.net ? { net: previous.net } : {}),', '')],
	},
	{
		name: 'an Agent whose list fails holds the pass up',
		edits: [
			edit(
				'reconcile.ts',
				'if (sweep.state.net?.page !== undefined && !sweep.failed)',
				'if (sweep.state.net?.page !== undefined)',
			),
		],
	},
	{
		name: 'a lagging read given up after 3 days though its list shows it finished',
		edits: [
			edit(
				'pendingRuns.ts',
				'if (listed && isRunFinished(listed)) return false;',
				'if (false) return false;',
			),
		],
	},
	{
		name: 'a first look after Skip Them emits a Run in `done` again',
		edits: [
			edit(
				'historyScan.ts',
				'if (finishedAfter && look.done.has(Number(run.run_id))) continue;',
				'',
			),
		],
	},
	{
		name: 'a first look keeps a Run listed finished within the margin for a single read',
		edits: [
			edit(
				'historyScan.ts',
				'if (finishedAfter && !look.includeFullRun && !seenRunning(look, run)) {',
				'if (false) {',
			),
		],
	},
	{
		name: 'a second Skip Them during the look after the first forgets the state before it',
		edits: [
			edit(
				'pollState.ts',
				'const earlier = known.scanPage !== undefined ? known.before : undefined;',
				"const earlier = undefined as AgentPollState['before'];",
			),
		],
	},
	{
		name: 'a first look does not remember the Runs it emits',
		edits: [edit('historyScan.ts', 'look.done.set(Number(run.run_id), finishedAtOf(run));', '')],
	},
	{
		name: 'a state saved before the pass (0.4.x) leaves the pass every Run it finished',
		edits: [edit('reconcile.ts', 'net.priorUntil ?? -Infinity', '-Infinity')],
	},
];
