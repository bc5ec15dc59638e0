/**
 * Schedules replayed by name at every `npm test`: one per item of issue 28 (written by hand,
 * each the smallest schedule that lost, duplicated or blocked on 5155bb0), then those the
 * generator found (pasted from its output: seed and shrunk schedule).
 *
 * KNOWN_FAILURES names the replays that still fail, with what they show: they are run and
 * reported, and the test fails when one of them passes (so the list is kept true) or when a
 * replay not in it fails.
 */
import {
	DEFAULT_SETUP,
	type NamedSchedule,
	type Schedule,
	type ScheduleSetup,
	type Step,
} from './schedule';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const setup = (overrides: Partial<ScheduleSetup>): ScheduleSetup => ({
	...DEFAULT_SETUP,
	history: 0,
	...overrides,
});
/** `count` polls a minute apart on main A. */
const minutes = (count: number): Step[] =>
	Array.from({ length: count }, () => [
		{ do: 'wait', ms: MINUTE } as Step,
		{ do: 'poll' } as Step,
	]).flat();

export const REPLAYS: NamedSchedule[] = [
	{
		name: 'item 1: a first look spanning polls (2,500 old Runs, oldest first, a page a poll)',
		why: 'A Run created and finished after activation, before the look reached its page, was read as history and never emitted.',
		setup: setup({
			scope: 'one',
			agents: 1,
			history: 2_500,
			listOrder: 'oldest-first',
			includeFullRun: false,
			// A request takes 13 s of the 36 s budget (new requests stop at 21.6 s): two pages a poll.
			requestCostMs: 13_000,
		}),
		steps: [{ do: 'create', agent: 0, done: 'success' }, ...minutes(6)],
	},
	{
		name: 'item 2: Catch Up after more than 3 days',
		why: 'A Run running at deactivation, finished an hour later, re-activated 4 days on, was dropped as "still running" and never emitted.',
		setup: setup({ scope: 'one', agents: 1 }),
		steps: [
			{ do: 'create', agent: 0 },
			...minutes(1),
			{ do: 'deactivate' },
			{ do: 'wait', ms: HOUR },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'wait', ms: 4 * DAY },
			{ do: 'activate' },
			...minutes(2),
		],
	},
	{
		name: 'item 2: n8n down for 4 days',
		why: 'The same after a restart: a Run pending when n8n went down, finished an hour later, was never emitted.',
		setup: setup({ scope: 'one', agents: 1 }),
		steps: [
			{ do: 'create', agent: 0 },
			...minutes(1),
			{ do: 'restart' },
			{ do: 'wait', ms: HOUR },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'wait', ms: 4 * DAY },
			...minutes(2),
		],
	},
	{
		name: 'item 3: one Run stamped 2 hours ahead',
		why: 'The watermark took the future created time: every later Run was history until real time caught up.',
		setup: setup({ scope: 'one', agents: 1 }),
		steps: [
			{ do: 'create', agent: 0, done: 'success', aheadMs: 2 * HOUR },
			...minutes(1),
			{ do: 'create', agent: 0, done: 'success' },
			...minutes(2),
		],
	},
	{
		name: 'item 4: the service’s clock a minute behind n8n’s, an Agent first read after activation',
		why: 'historyBefore had no margin: a Run made just after activation, stamped before it, was history on the Agent read later.',
		setup: setup({ agents: 2, inactiveAtStart: true }),
		steps: [
			{ do: 'skew', ms: -60_000 },
			{ do: 'refuse', agent: 1, status: 500 },
			{ do: 'activate' },
			{ do: 'create', agent: 1, done: 'success' },
			...minutes(1),
			{ do: 'allow', agent: 1 },
			...minutes(2),
		],
	},
	{
		name: 'item 4: a pending Run whose single read answers 404 once',
		why: 'One 404 (a proxy, a deploy) dropped the pending Run as deleted: never emitted.',
		setup: setup({ scope: 'one', agents: 1 }),
		steps: [
			{ do: 'create', agent: 0 },
			...minutes(1),
			{ do: 'read404', run: 0 },
			{ do: 'finish', run: 0, status: 'success' },
			...minutes(2),
		],
	},
	{
		name: 'item 4: a created time that does not parse',
		why: 'It became 0: the Run was history and silently never emitted.',
		setup: setup({ scope: 'one', agents: 1, history: 3 }),
		steps: [{ do: 'create', agent: 0, done: 'success', badCreated: true }, ...minutes(2)],
	},
	{
		name: 'item 4: owedSince never refreshed (two Runs counted before they are listed)',
		why: 'The hour of reading an Agent at every poll ran from the first owed Run: the second, listed 90 minutes in, waited for the sweep.',
		setup: setup({ agents: 2 }),
		steps: [
			{ do: 'create', agent: 0, done: 'success', lateMs: 50 * MINUTE },
			...minutes(40),
			{ do: 'create', agent: 0, done: 'success', lateMs: 50 * MINUTE },
			...minutes(55),
		],
	},
	{
		name: 'item 5: two mains, main B adopts its own older memory after A emitted',
		why: 'Revisions of two processes were compared: B went on from the state it remembered and emitted A’s Run again.',
		setup: setup({ agents: 1, history: 1, scheduler: 'durable' }),
		steps: [
			{ do: 'poll' },
			{ do: 'poll', main: 'B' },
			{ do: 'create', agent: 0 },
			{ do: 'poll' },
			{ do: 'create', agent: 0 },
			{ do: 'finish', run: 1, status: 'success' },
			{ do: 'poll', main: 'B' },
			...minutes(2),
		],
	},
	{
		name: 'item 5: two mains, a Run finished between the activation on A and B’s first poll',
		why: 'The activation poll saved nothing (it emitted nothing); B, with no memory, started afresh and took the Run for history.',
		setup: setup({ agents: 1, scheduler: 'durable' }),
		steps: [
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'wait', ms: MINUTE },
			{ do: 'poll', main: 'B' },
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'wait', ms: MINUTE },
			{ do: 'poll', main: 'B' },
			...minutes(3),
		],
	},
	{
		name: 'item 6: an Agent refused for good; an Agent moved in 2 hours after activation',
		why: 'Not every Agent had its first look, so historyBefore stayed at activation: the moved-in Agent’s Run of 90 minutes ago was emitted.',
		setup: setup({ agents: 3, inactiveAtStart: true }),
		steps: [
			{ do: 'refuse', agent: 1, status: 403 },
			{ do: 'hide', agent: 2 },
			{ do: 'activate' },
			...minutes(1),
			{ do: 'wait', ms: 30 * MINUTE },
			{ do: 'create', agent: 2, done: 'success' },
			{ do: 'wait', ms: 90 * MINUTE },
			{ do: 'show', agent: 2 },
			...minutes(3),
		],
	},
	{
		name: 'item 6: an Agent back after 30 days while another is refused for good',
		why: 'The Agent back after 30 days took Runs since activation as new: its Run emitted before (and 250 others since) was emitted again.',
		setup: setup({ agents: 3, inactiveAtStart: true, includeFullRun: false }),
		steps: [
			{ do: 'refuse', agent: 1, status: 403 },
			{ do: 'activate' },
			{ do: 'create', agent: 0, done: 'success' },
			...minutes(2),
			{ do: 'create', agent: 2, done: 'success', count: 250 },
			...minutes(2),
			{ do: 'hide', agent: 0 },
			...minutes(1),
			{ do: 'wait', ms: 31 * DAY },
			...minutes(1),
			{ do: 'show', agent: 0 },
			...minutes(3),
		],
	},
	{
		name: 'item 7: a list answer that misses a pending Run',
		why: 'Read as pending and found as new in one poll: emitted twice.',
		setup: setup({ scope: 'one', agents: 1 }),
		steps: [
			{ do: 'create', agent: 0 },
			...minutes(1),
			{ do: 'missOnce', run: 0 },
			...minutes(1),
			{ do: 'finish', run: 0, status: 'success' },
			...minutes(3),
		],
	},
	{
		name: 'item 8: Skip Them, re-activated while an older poll still runs',
		why: 'The activation poll returned null for the overlap; the next poll was not the activation poll and caught up.',
		setup: setup({ scope: 'one', agents: 1, onReactivation: 'skip' }),
		steps: [
			...minutes(1),
			{ do: 'deactivate' },
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'wait', ms: 10 * MINUTE },
			{ do: 'activate', whileOldPollRuns: true },
			...minutes(3),
		],
	},
	{
		name: 'item 9: a hanging single read (budget 0.8 s, Request Timeout 1 s)',
		why: 'Each attempt kept the full Request Timeout: the poll overran its budget (and the scheduler abandons it).',
		setup: setup({
			scope: 'one',
			agents: 1,
			budgetMs: 800,
			requestCostMs: 5,
			requestTimeoutSeconds: 1,
		}),
		steps: [
			{ do: 'create', agent: 0 },
			{ do: 'create', agent: 0 },
			...minutes(1),
			{ do: 'readHang', run: 0 },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'finish', run: 1, status: 'success' },
			...minutes(3),
		],
	},
	{
		name: 'item 10: 3,000 Runs finished while inactive (catch-up list read)',
		why: 'The catch-up read every page in one poll, past the budget.',
		// A request takes 7 s of the 36 s budget: new requests stop after the fourth.
		setup: setup({ scope: 'one', agents: 1, includeFullRun: false, requestCostMs: 7_000 }),
		steps: [
			...minutes(1),
			{ do: 'deactivate' },
			{ do: 'create', agent: 0, done: 'success', count: 3_000 },
			{ do: 'wait', ms: 10 * MINUTE },
			{ do: 'activate' },
			...minutes(5),
		],
	},
	{
		name: 'item 11: 20 running Runs (each read singly at every poll)',
		why: 'A quiet poll made 21 requests though the list already showed the 20 Runs running.',
		setup: setup({ scope: 'one', agents: 1, includeFullRun: false }),
		maxRequestsPerPoll: 3,
		steps: [{ do: 'create', agent: 0, count: 20 }, ...minutes(6)],
	},
	// Found by the generator (seed, then its shrunk schedule; the seeds are those of the generator
	// when found: the schedules are kept whole, so a later change to the generator leaves them be).
	{
		name: 'generated seed 39: durable scheduler, n8n restarted before any poll emitted',
		why: 'The activation saved nothing (it emitted nothing) and its state lived in the process only: after the restart the trigger started afresh and took a Run that finished after activation for history.',
		seed: 39,
		setup: setup({ agents: 2, history: 3, scheduler: 'durable', requestCostMs: 132 }),
		steps: [{ do: 'create', agent: 1, done: 'success' }, { do: 'restart' }],
	},
	{
		name: 'generated seed 43: a random-order list of 1,648 Runs, requests of 6.3 s (budget 36 s)',
		why: 'A list with no order is read whole (pages of 1,000), twice, with no look at the budget between pages: every quiet poll ran 37.8 s against 36 s.',
		seed: 43,
		setup: setup({ agents: 1, history: 1_648, listOrder: 'random', requestCostMs: 6_266 }),
		steps: [{ do: 'wait', ms: 81 * MINUTE }],
	},
	{
		name: 'generated seed 48: a newest-first list of 2,424 Runs, a Run running, requests of 6 s (budget 36 s)',
		why: 'The poll that reads the Agent again starts a fifth and a sixth request past 60% of the budget: 36.1 s against 36 s, every other poll.',
		seed: 48,
		setup: setup({ scope: 'one', agents: 1, history: 2_424, requestCostMs: 5_978 }),
		steps: [
			{ do: 'create', agent: 0, aheadMs: 2 * HOUR },
			{ do: 'create', agent: 0 },
		],
	},
	{
		name: 'generated seed 128: Skip Them under the durable scheduler, the next poll on main B',
		why: 'The re-activation’s fresh start emitted nothing, so n8n saved nothing: B went on from the state stored before the deactivation and emitted a Run that finished before the re-activation. Since t28 the documented bound (docs/trigger.md, two mains: B catches up as Catch Up would); the oracle allows it, and still checks exactly once.',
		seed: 128,
		setup: setup({
			agents: 2,
			history: 3,
			scheduler: 'durable',
			onReactivation: 'skip',
			requestCostMs: 144,
		}),
		steps: [
			{ do: 'create', agent: 1 },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'create', agent: 0 },
			{ do: 'poll' },
			{ do: 'finish', run: 1, status: 'success' },
			{ do: 'deactivate' },
			{ do: 'wait', ms: MINUTE },
			{ do: 'activate' },
			{ do: 'poll', main: 'B' },
		],
	},
	{
		name: 'generated seed 238: durable scheduler, nothing saved yet, main B’s first poll 68 minutes after activation',
		why: 'With nothing stored, B goes on from an activation one poll interval (and 5 minutes) before its poll: a Run that finished after the real activation, earlier than that, is taken for history by B (here main A emitted it later, from its memory; had B saved first, it was lost).',
		seed: 238,
		setup: setup({ agents: 1, history: 3, scheduler: 'durable', requestCostMs: 154 }),
		steps: [
			{ do: 'create', agent: 0, done: 'failed' },
			{ do: 'wait', ms: 68 * MINUTE },
			{ do: 'poll', main: 'B' },
			{ do: 'poll', main: 'B' },
			{ do: 'poll', main: 'B' },
		],
	},
	{
		name: 'generated seed 182: a random-order list of 2,235 Runs, requests of 6.8 s (budget 36 s)',
		why: 'A Run made after activation is never emitted: every poll after activation fails with "The Extraction Agents service did not answer within 0 s" (the unordered list read starts a request past the budget’s 90% limit), poll after poll.',
		seed: 182,
		setup: setup({
			scope: 'one',
			agents: 1,
			history: 2_235,
			listOrder: 'random',
			requestCostMs: 6_753,
		}),
		steps: [{ do: 'create', agent: 0, done: 'success' }],
	},
	{
		name: 'generated seed 143: Skip Them, the re-activation’s list answer misses a Run emitted before',
		why: 'The Run was emitted, the workflow re-activated with Skip Them, and the activation poll’s list answer left it out: found later within the lookback, it was emitted again (Skip Them forgets what was emitted).',
		seed: 143,
		setup: setup({ agents: 2, history: 3, onReactivation: 'skip', requestCostMs: 100 }),
		steps: [
			{ do: 'create', agent: 1 },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'poll' },
			{ do: 'create', agent: 1 },
			{ do: 'missOnce', run: 0 },
			{ do: 'deactivate' },
		],
	},
	{
		name: 'generated seed 165: Skip Them while an Agent’s list fails, a Run that finished 24 minutes before',
		why: 'The Agent’s list failed (500) at the re-activation with Skip Them; once it answered, a Run that finished 24 minutes before the re-activation was emitted (docs/trigger.md: only up to 5 minutes before).',
		seed: 165,
		setup: setup({ agents: 1, history: 3, onReactivation: 'skip', requestCostMs: 22 }),
		steps: [
			{ do: 'refuse', agent: 0, status: 500 },
			{ do: 'create', agent: 0, done: 'failed' },
			{ do: 'deactivate' },
			{ do: 'wait', ms: 24 * MINUTE },
			{ do: 'activate' },
			{ do: 'allow', agent: 0 },
		],
	},
	{
		name: 'generated seed 10574: Catch Up after 82 minutes, the catch-up’s list answer misses a Run',
		why: 'The Run finished before the deactivation; the catch-up read’s answer left it out and a newer Run moved the watermark more than the hour of lookback past it: never emitted.',
		seed: 10574,
		setup: {
			scope: 'all',
			agents: 1,
			history: 2,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'memory',
			onReactivation: 'emit',
			includeFullRun: true,
			budgetMs: 36000,
			requestCostMs: 65,
			requestTimeoutSeconds: 60,
			runningAtActivation: false,
		},
		steps: [
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'deactivate' },
			{ do: 'wait', ms: 4920000 },
			{ do: 'missOnce', run: 0 },
			{ do: 'create', agent: 0 },
		],
	},
	{
		name: 'generated seed 10412: a Run created before a re-activation (Skip Them), listed 49 minutes late, finished after',
		why: 'A slow upload started before the re-activation and ended after it: the Run, created before activation but not in the activation poll’s list, finished after activation and was never emitted.',
		seed: 10412,
		setup: {
			scope: 'all',
			agents: 3,
			history: 2,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'memory',
			onReactivation: 'skip',
			includeFullRun: true,
			budgetMs: 36000,
			requestCostMs: 81,
			requestTimeoutSeconds: 60,
			runningAtActivation: true,
		},
		steps: [
			{ do: 'finish', run: 1, status: 'success' },
			{ do: 'addAgent' },
			{ do: 'create', agent: 3 },
			{ do: 'create', agent: 3 },
			{ do: 'create', agent: 2 },
			{ do: 'create', agent: 2 },
			{ do: 'create', agent: 0 },
			{ do: 'create', agent: 1, lateMs: 2963000 },
			{ do: 'deactivate' },
			{ do: 'wait', ms: 2400000 },
			{ do: 'wait', ms: 240000 },
			{ do: 'activate' },
			{ do: 'wait', ms: 60000 },
			{ do: 'finish', run: 8, status: 'success' },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
		],
	},
	{
		name: 'generated seed 10608: Skip Them while an Agent is missing from the Agent list, back after',
		why: 'The Agent, known before, was missing from GET /agents at the re-activation with Skip Them; the fresh start forgot it, so when listed again it counted as first seen and its Run that finished 15 minutes before the re-activation was emitted.',
		seed: 10608,
		setup: {
			scope: 'all',
			agents: 2,
			history: 3,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'memory',
			onReactivation: 'skip',
			includeFullRun: true,
			budgetMs: 36000,
			requestCostMs: 188,
			requestTimeoutSeconds: 60,
			runningAtActivation: false,
		},
		steps: [
			{ do: 'hide', agent: 0 },
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'deactivate' },
			{ do: 'wait', ms: 900000 },
			{ do: 'activate' },
			{ do: 'show', agent: 0 },
		],
	},
	{
		name: 'generated seed 10229: durable scheduler, n8n restarted at once, a Run listed 4 minutes late',
		why: 'Nothing saved yet; after the restart a Run created at activation and listed 4 minutes late finished and was never emitted.',
		seed: 10229,
		setup: {
			scope: 'all',
			agents: 1,
			history: 3,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'durable',
			onReactivation: 'emit',
			includeFullRun: true,
			budgetMs: 800,
			requestCostMs: 5,
			requestTimeoutSeconds: 1,
			runningAtActivation: false,
		},
		steps: [
			{ do: 'create', agent: 0, lateMs: 234000 },
			{ do: 'restart' },
			{ do: 'poll' },
			{ do: 'finish', run: 0, status: 'success' },
			{ do: 'wait', ms: 60000 },
		],
	},
	{
		name: 'generated seed 10543: durable scheduler, a restart while the Agent’s list fails (404)',
		why: 'Nothing saved yet; the restarted n8n first read the Agent after its list answered again: a Run that finished just after activation was never emitted.',
		seed: 10543,
		setup: {
			scope: 'all',
			agents: 1,
			history: 3,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'durable',
			onReactivation: 'emit',
			includeFullRun: true,
			budgetMs: 36000,
			requestCostMs: 26,
			requestTimeoutSeconds: 60,
			runningAtActivation: false,
		},
		steps: [
			{ do: 'create', agent: 0, done: 'success' },
			{ do: 'refuse', agent: 0, status: 404 },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
			{ do: 'restart' },
			{ do: 'wait', ms: 60000 },
			{ do: 'allow', agent: 0 },
		],
	},
	{
		name: 'generated seed 10587: durable scheduler, an emitting poll dropped on main A, then one on main B',
		why: 'Both polls that emitted the Run had their result dropped by n8n (deactivated during the poll, past the timeout): the Run was never emitted after.',
		seed: 10587,
		setup: {
			scope: 'all',
			agents: 3,
			history: 0,
			listOrder: 'newest-first',
			counter: 'made',
			scheduler: 'durable',
			onReactivation: 'emit',
			includeFullRun: true,
			budgetMs: 36000,
			requestCostMs: 168,
			requestTimeoutSeconds: 60,
			runningAtActivation: true,
		},
		steps: [
			{ do: 'poll' },
			{ do: 'create', agent: 2 },
			{ do: 'finish', run: 3, status: 'success' },
			{ do: 'wait', ms: 60000 },
			{ do: 'poll', drop: true },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
			{ do: 'wait', ms: 60000 },
			{ do: 'poll', main: 'B', drop: true },
			{ do: 'wait', ms: 60000 },
		],
	},
];

/**
 * Replays that still fail, by name, with what they show. Each is run and reported; remove a
 * name when its fix lands (the test says so).
 */
export const KNOWN_FAILURES: Record<string, string> = {
	'generated seed 43: a random-order list of 1,648 Runs, requests of 6.3 s (budget 36 s)':
		'a list read starts requests past 60% of the budget: the poll after activation reads page 0, every page of the unordered list, then a second pass begun at 25 s of the 36 s budget: 38 s',
	'generated seed 48: a newest-first list of 2,424 Runs, a Run running, requests of 6 s (budget 36 s)':
		'a list read starts requests past 60% of the budget (newest first, reading back over pages): 36.1 s against 36 s',
	'generated seed 238: durable scheduler, nothing saved yet, main B’s first poll 68 minutes after activation':
		'new with t28’s two-mains rule: a Run that finished after activation is history to the other main when its first poll comes more than a poll interval and 5 minutes later (docs/trigger.md says none that finished after activation is lost)',
	'generated seed 182: a random-order list of 2,235 Runs, requests of 6.8 s (budget 36 s)':
		'the unordered-list read and the budget: the Run is never emitted (the list read starts requests past 60% of the budget and is cut by the 90% limit)',
	'generated seed 10574: Catch Up after 82 minutes, the catch-up’s list answer misses a Run':
		'a Run missing from one list answer is lost when that read moves the watermark more than the lookback past it (a catch-up after more than an hour)',
	'generated seed 10229: durable scheduler, n8n restarted at once, a Run listed 4 minutes late':
		'the restart form of the two-mains rule: a Run listed late after a restart with nothing saved is never emitted',
	'generated seed 10543: durable scheduler, a restart while the Agent’s list fails (404)':
		'the restart form of the two-mains rule with an Agent first read late: a Run that finished after activation is never emitted',
	'generated seed 10587: durable scheduler, an emitting poll dropped on main A, then one on main B':
		'two dropped emitting polls on two mains: the Run is lost (docs/trigger.md says a dropped poll’s Runs are emitted again)',
};

/**
 * Generated seeds (of those `npm test` runs) that fail for a known reason, named by the replay
 * that shows it: reported at each run, not counted as new failures.
 */
export const KNOWN_FAILING_SEEDS: Record<number, string> = {
	64: 'generated seed 238 (another main’s first poll long after activation, nothing saved)',
	238: 'generated seed 238 (another main’s first poll long after activation, nothing saved)',
};

/**
 * Why a generated schedule's failure is known, or undefined. A slow service (a request costs
 * a seventh of the budget or more) whose only violations are polls past the budget or Runs never
 * emitted shows what generated seeds 43, 48 and 182 show: list reads that start requests past
 * 60% of the budget.
 */
export function knownFailure(schedule: Schedule, violations: string[]): string | undefined {
	if (schedule.seed !== undefined && KNOWN_FAILING_SEEDS[schedule.seed])
		return KNOWN_FAILING_SEEDS[schedule.seed];
	const lost = (line: string) => /was never emitted|later than poll/.test(line);
	// Another process (main B, or n8n after a restart) takes a poll after a pause longer than
	// the poll interval and 5 minutes: what seed 238 shows, when nothing was saved yet.
	if (schedule.setup.scheduler === 'durable' && violations.every(lost)) {
		let paused = false;
		for (const step of schedule.steps) {
			if (step.do === 'wait') paused ||= step.ms > 6 * MINUTE;
			else if (step.do === 'restart' || (step.do === 'poll' && step.main === 'B')) {
				if (paused)
					return 'generated seed 238 (another process’s first poll after a long pause, nothing saved)';
			} else if (step.do === 'poll') paused = false;
		}
	}
	const slow = schedule.setup.requestCostMs * 7 >= schedule.setup.budgetMs;
	if (
		slow &&
		violations.every((line) => /its budget is|was never emitted|later than poll/.test(line))
	)
		return 'generated seeds 43, 48, 182 (list reads start requests past 60% of the budget)';
	return undefined;
}
