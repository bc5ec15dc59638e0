/**
 * Runs a schedule (schedule.ts) against the emulator with the trigger polled through n8n-core's
 * real engine (dev/harness) in simulated time, and judges it with the oracle:
 *
 *  - exactly once: every Run that finishes while the workflow is active (or while it is
 *    inactive, when re-activated with Catch Up) is emitted once, and within DEADLINE polls free
 *    of hazards (PLAIN_POLLS, more when the schedule needs them: deadlineFor) after it is
 *    finished, listed, its Agent listed and readable, and the workflow active;
 *  - nothing old: no Run finished before the activation that started afresh (the first, or a
 *    re-activation with Skip Them) is emitted, nor a Run created more than the lookback before
 *    an Agent first seen later, that finished before it was seen;
 *  - at most once for every Run, whatever happened to it (deleted, on an Agent refused for good),
 *    but for the duplicate docs/design/trigger-rules.md states for two mains: a poll handed the state from
 *    before another process's save, or a later poll going on from its save, emits a Run that
 *    lost save held as emitted (tolerated, emittedAgainAfterLostSave);
 *  - no poll runs longer than its budget (getPollBudgetMs), by the simulated time its requests
 *    cost and the timeouts the trigger gave those that never answered (its own accounting:
 *    stalledWaitMs), never by the wall clock, so that a busy machine cannot fail a schedule;
 *  - every emitted item is what the user should get (judgeItem): a final status Trigger On
 *    chose, the Run's own; with Include Full Run, the full read's fields;
 *  - Fetch Test Event, after the schedule, gives the newest finished Run across the Agents.
 *
 * Every Run is judged: the schedule runs on until each Run still running has finished and each
 * Run listed late is listed, and a Run emitted twice (even when the two-mains duplicate excuses
 * the second emission) is still judged for the first. A Run is excused from "must be emitted"
 * only by a sentence of docs/design/trigger-rules.md (DOCS, quoted exactly), and a hazard that can hide it (a
 * deletion, its Agent gone, a poll that found nothing stored) excuses it only when it came
 * before the Run was due.
 *
 * Around each boundary the oracle allows either outcome within the schedule's margin (marginOf:
 * the most its service's clock is off n8n's, n8n's clock steps, a poll's duration): a Run that
 * finishes as the activation poll runs may count as either side.
 */
import { startEmulator, type Emulator, type RequestLogEntry } from '../../../dev/emulator';
import {
	createPoller,
	createPollerStorage,
	realElapsedMs,
	simulatedClock,
	type Poller,
} from '../../../dev/harness';
import type { IDataObject } from 'n8n-workflow';
import { SKEW_BOUND_MS, type NamedSchedule, type Schedule, type Step } from './schedule';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The trigger's lookback for slow uploads and an Agent first seen later (docs/design/trigger-rules.md). */
const LOOKBACK_MS = HOUR;
/** An Agent missing from GET /agents longer than this is forgotten (docs/design/trigger-rules.md). */
const ABSENT_KEPT_MS = 30 * DAY;
/** A Run still running this long after its `created` is no longer checked (docs/design/trigger-rules.md). */
const PENDING_GIVE_UP_MS = 3 * DAY;
/**
 * An emitting poll's save lands less than this late (a `late` poll after that loads the saved
 * state): the 2 minutes the trigger waits for it (docs/design/trigger-rules.md), less a second for the time
 * the harness takes between the trigger's end of poll and the save it records (a load exactly
 * 2 minutes after the poll is on the boundary: generated seed 10605 under load).
 */
const SAVE_LANDS_WITHIN_MS = 2 * MINUTE - 1_000;
/** The clock margin at activation (docs/design/trigger-rules.md): a Run that finished this long before it may be emitted. */
const ACTIVATION_MARGIN_MS = 5 * MINUTE;
/**
 * A poll that finds nothing stored and remembers nothing (blindPolls) goes back this far
 * (docs/design/trigger-rules.md, "Two n8n mains"): a poll interval and the clock margin.
 */
function handoffWindow(setup: Schedule['setup']): number {
	return (setup.pollMinutes ?? 1) * MINUTE + 5 * MINUTE;
}
/**
 * The sentences of docs/design/trigger-rules.md each excuse of the oracle rests on, quoted exactly (a test
 * checks each is in the docs, whitespace and emphasis aside): a Run is excused from "must be
 * emitted" only where the docs say it may not be, and the excuse names the sentence.
 */
export const DOCS = {
	ACTIVATION_MARGIN:
		'a Run that finished up to 5 minutes before activation may be emitted, and only on such a page',
	FIRST_ACTIVATION: 'The first activation emits nothing and remembers where it starts',
	DELETED_WHILE_RUNNING: 'Runs deleted while running are dropped',
	DELETED: 'a Run made and deleted before any read is never found',
	AGENT_GONE: 'An Agent listed by the service whose Run list answers 403, 404 or a 5xx is skipped',
	GIVE_UP:
		'A Run that a read (its list or its single read) shows still running 3 days after its `created` time is no longer checked',
	TWO_MAINS_ERRS_BOTH_WAYS:
		'It errs both ways, by the same window of one poll interval plus the 5-minute clock margin before that poll',
	BLIND_POLL_MAY_LOSE:
		'a Run that finished after activation but before that window is history to that poll and may be lost',
	REACTIVATION_ERRS:
		"that the trigger had not seen before, and that the activation poll's list answer left out may be emitted",
	SKIP_THEM_CATCHES_UP:
		'Until then a poll on the other main (or the first poll after an n8n restart) goes on from the state before the re-activation and catches up',
	FIRST_SEEN_LOOKBACK:
		'its Runs created from 60 minutes before that poll on are new, older ones are history',
	FIRST_SEEN_BY_KEPT_POLL:
		'An Agent first seen after activation (above) is first seen by the poll whose state the next polls go on from',
	UNREADABLE_AT_ACTIVATION:
		'the Runs created before activation are history, those created after it are emitted',
	FORGOTTEN_AFTER_30_DAYS:
		'The trigger keeps what it knows about the Agent while it is missing (forgotten after 30 days missing)',
	LATE_AND_LEFT_OUT:
		'(A Run both listed late and left out of the one answer that could still reach it is not covered.)',
	LISTED_TOO_LATE:
		'so a Run that appears up to 60 minutes after its `created` time is emitted once (one listed later than that is not seen)',
	TRIGGER_ON:
		'it is emitted when *Ended Another Way* (version 1: *Other*) is among the statuses to trigger on',
	DUPLICATE_TWO_MAINS:
		"only for Runs emitted by a poll whose save had not landed when the other main's poll task loaded the state",
} as const;

function may(rule: string): Expectation {
	return { kind: 'may', rule };
}

/** Polls free of hazards within which a Run must be emitted once it can be. */
export const PLAIN_POLLS = 3;
/** After a hazard step, the polls of the next minutes are not counted as plain. */
const HAZARD_SETTLE_MS = 3 * MINUTE;
/** Polls a minute apart at the end, with the passing hazards off, beyond the deadline. */
const DRAIN_EXTRA_POLLS = 2;

export interface ScheduleOutcome {
	violations: string[];
	/**
	 * Duplicates the stored state alone cannot prevent (a load from before another process's
	 * save, and the polls going on from its own save).
	 */
	tolerated: string[];
	polls: number;
	failedPolls: number;
	runs: number;
	emitted: number;
	/** The most requests a poll made, the activation polls left out. */
	maxRequestsPerPoll: number;
	realMs: number;
}

interface ModelRun {
	index: number;
	id: number;
	agent: number;
	/** The schedule's time of each event (true time: n8n's clock plus its steps back, runSchedule's now). */
	createdAt: number;
	listedAt: number;
	finishedAt?: number;
	deletedAt?: number;
	history?: boolean;
	/** Its created time as the service reports it is ahead or unparseable. */
	oddCreated?: boolean;
	/** When list answers left it out (missOnce, each step one answer). */
	missedAt: number[];
	/**
	 * How long after its `created` the service lists it, by the service's clock (listedAt moves
	 * with the service's clock; this does not).
	 */
	listedLateMs: number;
	/** Its `created` as the trigger reads it (the service's clock; undefined: unparseable). */
	serviceCreated?: number;
	/** Its final status. */
	status?: string;
	/** When it finished by the service's clock (its `completed`). */
	serviceFinished?: number;
	/** A single read of it answered 404 (read404): the trigger takes it for deleted. */
	answered404?: boolean;
}

interface ModelAgent {
	index: number;
	id: number;
	hidden: Array<[number, number]>;
	refused: Array<[number, number]>;
	deletedAt?: number;
	addedAt: number;
	hiddenSince?: number;
	refusedSince?: number;
}

interface Activation {
	at: number;
	/** The process that activated (main A of its incarnation). */
	memory: string;
	/**
	 * The first poll after it on another process (main B, or after a restart) while no poll had
	 * saved since: it goes on from an activation one poll interval before (docs/design/trigger-rules.md).
	 */
	handoffAt?: number;
	/** When its activation poll ended. */
	endedAt: number;
	fresh: boolean;
	/** The Agents GET /agents listed then, and those whose Run list answered. */
	listed: Set<number>;
	readable: Set<number>;
	/** When it ended (deactivation); undefined: active to the end. */
	until?: number;
}

interface PollRecordModel {
	index: number;
	at: number;
	plain: boolean;
	ok: boolean;
	/** Agents GET /agents listed and whose list answered, at this poll. */
	readable: Set<number>;
	/** Agents GET /agents listed, at this poll. */
	listed: Set<number>;
	/** It loaded the state from before a save another process made (see poll()). */
	unguarded: boolean;
	/** It loaded the state from before the last save (a save landing late). */
	late: boolean;
	/** The save it loaded (saveParents: 0 for what was stored at the start). */
	loaded: number;
	/** A late load: the save it did not see (the last one). */
	skipped?: number;
	/** Its own save, when n8n saved its state. */
	savedAs?: number;
	/** n8n dropped its result (or abandoned it): what it learnt is lost with it. */
	dropped: boolean;
	/** The Agents (by index) whose Run list it read (answered, without the run_id filter). */
	listsRead: Set<number>;
	/** Which process's memory took it (main and incarnation), and whether n8n saved its state. */
	memory: string;
	saved: boolean;
}

function hazardous(step: Step): boolean {
	return !['create', 'finish', 'poll', 'wait', 'deactivate'].includes(step.do);
}

let scheduleCounter = 0;

async function agentCopy(emulator: Emulator, name: string): Promise<number> {
	const response = await fetch(`${emulator.apiUrl}/agents/5/copy`, {
		method: 'POST',
		headers: { authorization: `Bearer ${emulator.keys.dave}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ name }),
	});
	return ((await response.json()) as { id: number }).id;
}

/**
 * How long a Run that can be emitted may wait (see the header): plain polls, and with a Run
 * counter that a delete can leave unmoved, the sweep's hour as well.
 */
export function deadlineFor(schedule: Schedule): { polls: number; minMs: number } {
	const sweepHour =
		schedule.setup.counter === 'existing' &&
		schedule.steps.some((s) => s.do === 'delete' || s.do === 'deleteWhileRead')
			? 61 * MINUTE
			: 0;
	// A Run running at activation that a list answer leaves out is the reconciliation pass's to
	// find, not a fast rule's: its bound is two sweeps of the Agent an hour apart, plus a poll's
	// pages (docs/design/trigger-rules.md, "The net"), and it holds for every Run of the schedule.
	const netBound =
		schedule.setup.runningAtActivation && schedule.steps.some((s) => s.do === 'missOnce')
			? NET_BOUND_MS
			: 0;
	return { polls: pollsDeadline(schedule), minMs: Math.max(sweepHour, netBound) };
}

/** Two sweeps of a small Agent's list (NET_SWEEP_EVERY_MS apart) and the polls of a third. */
const NET_BOUND_MS = 135 * MINUTE;

function pollsDeadline(schedule: Schedule): number {
	const { setup } = schedule;
	let polls = PLAIN_POLLS;
	// A slow service: each poll visits every Agent before it comes back to a busy one.
	const requestsPerPoll = Math.max(1, Math.floor((setup.budgetMs * 0.6) / setup.requestCostMs));
	const agents = setup.agents + schedule.steps.filter((s) => s.do === 'addAgent').length;
	// The requests the work needs: per Agent the Agent list, a list read and its second pass,
	// the history in pages of 1,000, a backlog of Runs in pages of 100.
	const runs = schedule.steps.reduce(
		(sum, step) => sum + (step.do === 'create' ? (step.count ?? 1) : 0),
		0,
	);
	const singleReads = schedule.steps.reduce(
		(sum, step) =>
			sum + (step.do === 'create' && (!step.done || setup.includeFullRun) ? (step.count ?? 1) : 0),
		0,
	);
	// The requests the work needs: per Agent the Agent list, a list read and its second pass,
	// the history in pages of 1,000, a backlog of Runs in pages of 100, and each Run's single
	// read (a Run seen running is read when it finishes; one first seen finished, with Include
	// Full Run): on a slow service these take polls of their own.
	const work =
		(agents + 2) * (3 + Math.ceil(setup.history / 1000)) + Math.ceil(runs / 100) * 2 + singleReads;
	// Each poll spends some requests before any of that work: with All Agents GET /agents, and
	// without a Run counter a read of every other Agent (docs/design/trigger-rules.md: every Agent is read at
	// every poll; generated seed 4481: 2 Agents, 3 requests a poll, one left for the work).
	const fixed = setup.scope === 'all' ? 1 + (setup.counter === 'absent' ? agents - 1 : 0) : 0;
	// When those take the whole poll, the Agents are read in turns across polls (pollAgents.ts):
	// a unit of work may wait for a whole round (generated seed 700415: 9 Agents, 3 requests).
	const perPoll = requestsPerPoll - fixed;
	if (requestsPerPoll < 20)
		polls +=
			perPoll >= 1
				? Math.ceil(work / perPoll)
				: work * Math.ceil((fixed + 1) / Math.max(1, requestsPerPoll));
	return polls;
}

export async function runSchedule(
	schedule: Schedule & Pick<NamedSchedule, 'neverEmitted'>,
): Promise<ScheduleOutcome> {
	const realStart = realElapsedMs();
	const { setup } = schedule;
	const pollEvery = (setup.pollMinutes ?? 1) * MINUTE;
	const margin = marginOf(schedule);
	const violations: string[] = [];
	const uid = `model-${process.pid}-${++scheduleCounter}`;
	const emulator = await startEmulator({
		logErrors: false,
		seed: schedule.seed ?? 1,
		listOrder: setup.listOrder,
		agentRunCounter: setup.counter,
		runDurationMs: 1,
		hiddenAgentIds: [5],
	});
	const clock = simulatedClock();
	let inPoll = false;
	// The simulated time requests have cost so far: a poll's duration is judged by it and the
	// waits the trigger chose (stalledWaitMs), not by the real time a busy machine adds.
	let simulatedMs = 0;
	emulator.afterRequest(
		{},
		() => {
			if (!inPoll) return;
			clock.advance(setup.requestCostMs);
			simulatedMs += setup.requestCostMs;
		},
		Infinity,
	);
	const hidden = new Set<number>([5]);
	const failing: Record<number, number> = {};
	const setHidden = () => (emulator.knobs.hiddenAgentIds = [...hidden]);
	let skew = 0;
	// The schedule's own time: n8n's clock (Date.now) plus how far it was set back by clock
	// steps, so that events and polls keep their order across a step back (n8n's clock, not
	// this one, is what the trigger reads).
	let steppedBack = 0;
	const now = () => Date.now() + steppedBack;
	try {
		const agents: ModelAgent[] = [];
		const runs: ModelRun[] = [];
		const addAgent = async () => {
			const index = agents.length;
			const id = await agentCopy(emulator, `${uid} agent ${index}`);
			agents.push({ index, id, hidden: [], refused: [], addedAt: now() });
		};
		for (let n = 0; n < setup.agents; n++) await addAgent();
		for (const agent of agents) {
			const ids = emulator.addHistoricalRuns(agent.id, setup.history, {
				createdBefore: emulator.now() - 2 * HOUR,
				spacingMs: 10_000,
			});
			for (const id of ids)
				runs.push({
					index: -1,
					id,
					missedAt: [],
					agent: agent.index,
					createdAt: 0,
					listedAt: 0,
					listedLateMs: 0,
					finishedAt: 0,
					history: true,
				});
		}
		const made: ModelRun[] = [];
		const makeRun = (
			agent: ModelAgent,
			step: Extract<Step, { do: 'create' }>,
			createdAt: number,
			/** Made before the schedule starts and listed since its `created` (not a late upload). */
			listedSinceCreated = false,
		) => {
			const serviceCreated = createdAt - steppedBack + skew;
			const serviceLate = step.lateMs ? { listedAt: serviceCreated + step.lateMs } : {};
			const json = emulator.createRun(agent.id, [{ name: `${uid}-${made.length}.pdf` }], {
				createdAt: serviceCreated,
				// Finished as it is made, in the service's clock and in n8n's: a clock set back
				// right after cannot make it run again (the emulator keeps a finished Run finished).
				...(step.done ? { durationMs: 0, outcome: step.done } : { hold: true }),
				...serviceLate,
			});
			const id = Number(json.run_id);
			const record = emulator.state.runOf(agent.id, id);
			if (record && step.aheadMs)
				record.createdText = new Date(serviceCreated + step.aheadMs)
					.toISOString()
					.replace('Z', '+00:00');
			if (record && step.badCreated) record.createdText = 'not a date';
			const run: ModelRun = {
				index: made.length,
				id,
				missedAt: [],
				agent: agent.index,
				createdAt,
				// Not listed before it exists (a Run stamped in the past: a burst, a late upload).
				listedAt: listedSinceCreated ? createdAt : Math.max(createdAt + (step.lateMs ?? 0), now()),
				listedLateMs: listedSinceCreated ? 0 : Math.max(step.lateMs ?? 0, now() - createdAt),
				...(step.done
					? { finishedAt: createdAt, status: step.done, serviceFinished: serviceCreated }
					: {}),
				...(step.aheadMs || step.badCreated ? { oddCreated: true } : {}),
				...(step.badCreated ? {} : { serviceCreated: serviceCreated + (step.aheadMs ?? 0) }),
			};
			made.push(run);
			runs.push(run);
		};
		if (setup.runningAtActivation)
			for (const agent of agents)
				makeRun(
					agent,
					{ do: 'create', agent: agent.index },
					now() - (setup.runningSinceMs ?? 30 * MINUTE),
					// Running (and listed) since then: made hours before, it is not a late upload.
					true,
				);

		// n8n's side: one stored state; main A and B each a poller with its own process memory.
		const store = createPollerStorage();
		const parameters = {
			agentScope: setup.scope,
			...(setup.scope === 'one'
				? { agent: { __rl: true, mode: 'id', value: String(agents[0].id) } }
				: {}),
			statuses: setup.statuses ?? ['success', 'failed'],
			simplify: false,
			...(pollEvery !== MINUTE
				? { pollTimes: { item: [{ mode: 'everyX', value: pollEvery / MINUTE, unit: 'minutes' }] } }
				: {}),
			options: {
				includeFullRun: setup.includeFullRun,
				onReactivation: setup.onReactivation,
				requestTimeout: setup.requestTimeoutSeconds,
			},
		};
		let incarnation = 0;
		const pollers: Partial<Record<'A' | 'B', Poller>> = {};
		const newPoller = (main: 'A' | 'B', first: 'activate' | 'init') =>
			createPoller({
				parameters,
				credentials: { apiKey: emulator.keys.dave, baseUrl: emulator.url },
				storage: store,
				scheduler: setup.scheduler === 'durable' ? 'durable' : 'in-memory',
				pollBudgetMs: setup.budgetMs,
				workflowId: `${uid}-${main}-${incarnation}`,
				nodeId: `${uid}-node`,
				firstPollActivation: first,
			});

		const activations: Activation[] = [];
		const polls: PollRecordModel[] = [];
		const emissions = new Map<number, number[]>();
		/** What each emission held (the items of polls n8n kept), by Run id. */
		const emittedItems = new Map<number, IDataObject[]>();
		let failedPolls = 0;
		let lastHazardAt = -Infinity;
		let lastSaver: string | undefined;
		// The saves' lineage, as the harness keeps them (dev/harness/poller.ts): each save's parent
		// is the save its poll loaded; a late load gets the one before the last save.
		const saveParents: number[] = [-1];
		let storedSave = 0;
		let saveBeforeLast = 0;
		let lastSaveAt = -Infinity;
		let loadedSinceSave = true;
		let maxRequestsPerPoll = 0;
		let active = false;
		/** deleteWhileRead steps whose list read has not come yet. */
		let deletesWaiting = 0;
		/**
		 * An activation whose poll has not started yet: that poll's start is its time, so that
		 * the two compare equal (the simulated clock also moves with real time in between).
		 */
		let activationAwaitingPoll: Activation | undefined;
		/** The polls after the schedule (the drain): not counted for maxRequestsPerPoll. */
		let draining = false;

		/** The Agents the trigger watches now (GET /agents lists them), readable or not. */
		const listedAgents = (): Set<number> =>
			new Set(
				agents
					.filter(
						(a) =>
							a.deletedAt === undefined &&
							(setup.scope === 'one' ? a.index === 0 : !hidden.has(a.id)),
					)
					.map((a) => a.index),
			);
		const readableAgents = (): Set<number> => {
			const set = new Set<number>();
			for (const agent of agents) {
				if (agent.deletedAt !== undefined || failing[agent.id] !== undefined) continue;
				if (setup.scope === 'one' ? agent.index === 0 : !hidden.has(agent.id)) set.add(agent.index);
			}
			return set;
		};

		const poll = async (main: 'A' | 'B', lateAsked = false, drop = false) => {
			if (!active) return;
			const poller = (pollers[main] ??= newPoller(main, 'init'));
			const at = now();
			// A save lands late only until the next load sees it, and at most SAVE_LANDS_WITHIN_MS
			// after the poll (docs/design/trigger-rules.md: n8n saves within milliseconds; the trigger waits 2 minutes).
			const late = lateAsked && !loadedSinceSave && at - lastSaveAt < SAVE_LANDS_WITHIN_MS;
			loadedSinceSave = !late;
			const loaded = late ? saveBeforeLast : storedSave;
			const skipped = late ? storedSave : undefined;
			const index = polls.length;
			if (activationAwaitingPoll) activationAwaitingPoll.at = at;
			activationAwaitingPoll = undefined;
			const readable = readableAgents();
			const listed = listedAgents();
			// A hazard still to happen (an injected fault not yet consumed, a Run to be left out of
			// a list answer, single reads lagging): this poll is not a plain one.
			const hazardOpen =
				deletesWaiting > 0 ||
				emulator.pendingFaults.length > 0 ||
				(emulator.knobs.runsMissingFromLists?.length ?? 0) > 0 ||
				(emulator.knobs.singleReadLagMs ?? 0) > 0;
			inPoll = true;
			const seq = emulator.lastSeq;
			const simulatedBefore = simulatedMs;
			const authenticatedBefore = poller.authenticatedRequests.length;
			// The poll's duration as the trigger spent it: the simulated cost of its requests, and
			// for each request that never answered, the timeout the trigger gave it (its own
			// accounting against the budget). Real time is left out: a busy machine's late timers
			// and slow event loop neither make a poll overrun its budget nor get it abandoned.
			const accountedMs = () =>
				simulatedMs -
				simulatedBefore +
				stalledWaitMs(
					emulator.requestsSince(seq),
					poller.authenticatedRequests.slice(authenticatedBefore),
					setup.requestTimeoutSeconds * 1000,
				);
			let items: IDataObject[] = [];
			let ok = true;
			try {
				const result = await poller.poll('trigger', {
					...(late ? { staticDataBeforeLastSave: true } : {}),
					...(drop ? { dropResult: true } : {}),
					...(setup.scheduler === 'durable' ? { abandonAfterMs: setup.budgetMs / 0.8 } : {}),
					accountedMs,
				});
				items = (result?.[0] ?? []).map((item) => item.json);
			} catch (error) {
				ok = false;
				failedPolls++;
				if (process.env.MODEL_DEBUG)
					console.log(`poll ${index} failed: ${(error as Error).message}`);
			} finally {
				inPoll = false;
			}
			if (activations.at(-1)?.at !== at && !draining)
				maxRequestsPerPoll = Math.max(maxRequestsPerPoll, emulator.requestsSince(seq).length);
			const record = poller.history.at(-1);
			const memory = `${main}-${incarnation}`;
			// A load from before the last save, when that save came from another process's poll
			// (the other main, or before a restart): nothing in this process tells it is old.
			const unguarded = late && lastSaver !== undefined && lastSaver !== memory;
			let savedAs: number | undefined;
			if (record?.staticDataSaved) {
				lastSaver = memory;
				lastSaveAt = now();
				loadedSinceSave = false;
				savedAs = saveParents.push(loaded) - 1;
				saveBeforeLast = storedSave;
				storedSave = savedAs;
			}
			const took = record?.durationMs ?? accountedMs();
			if (process.env.MODEL_DEBUG)
				console.log(
					`poll ${index} (${main}) took ${took} ms (${record?.wallMs} ms by the wall clock), ${emulator.requestsSince(seq).length} requests, ${items.length} items`,
					emulator
						.requestsSince(seq)
						.map((r) => `\n  ${r.method} ${r.path} ${JSON.stringify(r.query)} → ${r.status}`)
						.join(''),
					items.map((item) => `\n  emitted ${item.run_id ?? item.id} ${item.status}`).join(''),
					process.env.MODEL_DEBUG === 'state'
						? `\n  state ${JSON.stringify(poller.nodeStaticData)}`
						: '',
				);
			if (took > setup.budgetMs)
				violations.push(
					`poll ${index} (main ${main}) took ${took} ms (requests' simulated cost and the timeouts the trigger gave the requests that never answered); its budget is ${setup.budgetMs} ms`,
				);
			if (!drop && !record?.abandoned)
				for (const json of items) {
					const runId = Number(json.run_id);
					emissions.set(runId, [...(emissions.get(runId) ?? []), index]);
					emittedItems.set(runId, [...(emittedItems.get(runId) ?? []), json]);
				}
			if (late || drop) lastHazardAt = now();
			const listsRead = new Set<number>();
			for (const request of emulator.requestsSince(seq)) {
				const id = /\/agents\/(\d+)\/runs$/.exec(request.path)?.[1];
				const agent = agents.find((candidate) => candidate.id === Number(id));
				if (agent && request.status === 200 && request.query.run_id === undefined)
					listsRead.add(agent.index);
			}
			polls.push({
				index,
				at,
				// A poll that failed with no hazard on it counts: the trigger must get through.
				plain: !late && !drop && !hazardOpen && at - lastHazardAt >= HAZARD_SETTLE_MS,
				dropped: drop || record?.abandoned === true,
				listsRead,
				ok,
				listed,
				readable,
				unguarded,
				late,
				loaded,
				...(skipped !== undefined ? { skipped } : {}),
				...(savedAs !== undefined ? { savedAs } : {}),
				memory,
				saved: record?.staticDataSaved === true,
			});
		};

		const activate = async (whileOldPollRuns = false) => {
			// A re-activation with Catch Up under the durable scheduler, with nothing saved yet and
			// on a process that has not polled (n8n restarted): nothing tells it from a first
			// activation, so it starts afresh (docs/design/trigger-rules.md, "Two n8n mains"; seeds 11200, 11555).
			const memory = `A-${incarnation}`;
			const blindCatchUp =
				setup.scheduler === 'durable' &&
				lastSaveAt === -Infinity &&
				!polls.some((record) => record.memory === memory && record.ok);
			const fresh = activations.length === 0 || setup.onReactivation === 'skip' || blindCatchUp;
			const old = pollers.A;
			active = true;
			const listed = listedAgents();
			const activation: Activation = {
				memory,
				at: now(),
				endedAt: Infinity,
				fresh,
				listed,
				readable: readableAgents(),
			};
			activations.push(activation);
			activationAwaitingPoll = activation;
			delete pollers.B;
			const poller = newPoller('A', 'activate');
			if (whileOldPollRuns && old) {
				// The older poll (same process, same trigger) is under way when the activation
				// poll lands: started at its first request; its result is dropped by n8n.
				let landing: Promise<void> | undefined;
				emulator.afterRequest({}, () => {
					pollers.A = poller;
					landing = poll('A');
				});
				inPoll = true;
				await old.poll('trigger', { dropResult: true }).catch(() => undefined);
				inPoll = false;
				await landing;
			} else {
				pollers.A = poller;
				await poll('A');
			}
			activation.endedAt = now();
		};

		/**
		 * Fetch Test Event (issue 42: no test used several Agents): with every Run settled, it
		 * gives the newest finished Run (by `completed`) of Trigger On's statuses across the
		 * watched Agents. Judged where the docs promise it: each list's newest end within reach
		 * (not a list in no order past one page) and the budget enough to read every Agent.
		 */
		const judgeTestEvent = async () => {
			const poller = pollers.A;
			if (!poller) return;
			const listedNow = listedAgents();
			const readableNow = readableAgents();
			const statuses = setup.statuses ?? ['success', 'failed'];
			const chosen = (run: ModelRun) =>
				run.status !== undefined &&
				(['success', 'failed'].includes(run.status)
					? statuses.includes(run.status as 'success')
					: statuses.includes('other'));
			const candidatesNow = () =>
				made.filter(
					(run) =>
						run.serviceFinished !== undefined &&
						run.deletedAt === undefined &&
						listedNow.has(run.agent) &&
						chosen(run),
				);
			const perAgent = (agent: number) => runs.filter((run) => run.agent === agent).length;
			const inReach =
				emulator.knobs.listOrder !== 'random' ||
				[...listedNow].every((agent) => perAgent(agent) <= 1000);
			const requests = 1 + 2 * listedNow.size;
			// Every watched Agent readable (an Agent refused or gone fails the test event), and no
			// deletion between page reads still to come (it would delete the Run found before its
			// full read).
			if (
				candidatesNow().length === 0 ||
				[...listedNow].some((agent) => !readableNow.has(agent)) ||
				deletesWaiting > 0 ||
				!inReach ||
				requests * setup.requestCostMs >= setup.budgetMs * 0.6
			)
				return;
			let id: number | undefined;
			inPoll = true;
			try {
				const result = await poller.poll('manual');
				id = Number(result?.[0]?.[0]?.json.run_id);
			} catch (error) {
				violations.push(`Fetch Test Event failed: ${(error as Error).message}`);
				return;
			} finally {
				inPoll = false;
			}
			const candidates = candidatesNow();
			const newest = candidates.reduce((a, b) =>
				(b.serviceFinished as number) > (a.serviceFinished as number) ? b : a,
			);
			const got = candidates.find((run) => run.id === id);
			if (!got)
				violations.push(
					`Fetch Test Event gave Run ${id}, not a finished Run of a watched Agent with a status Trigger On chose (the newest: Run ${newest.id}, Agent ${newest.agent})`,
				);
			// Runs the schedule's end finished together are a tie (a second: the real time between them).
			else if ((got.serviceFinished as number) < (newest.serviceFinished as number) - 1_000)
				violations.push(
					`Fetch Test Event gave Run ${id} (Agent ${got.agent}), finished ${(newest.serviceFinished as number) - (got.serviceFinished as number)} ms before the newest finished Run across the Agents, Run ${newest.id} (Agent ${newest.agent})`,
				);
		};

		const runAt = (index: number) => (index >= 0 && index < made.length ? made[index] : undefined);
		const agentAt = (index: number) =>
			index >= 0 && index < agents.length ? agents[index] : undefined;

		if (!setup.inactiveAtStart) await activate();
		for (const step of schedule.steps) {
			if (hazardous(step)) lastHazardAt = now();
			switch (step.do) {
				case 'create': {
					const agent = agentAt(step.agent);
					if (!agent || agent.deletedAt !== undefined) break;
					const count = Math.max(1, Math.min(step.count ?? 1, 5_000));
					const ago = step.createdAgoMs ?? 0;
					const relative = step.createdRelativeTo && runAt(step.createdRelativeTo.run);
					const createdAt = relative
						? relative.createdAt + (step.createdRelativeTo?.ms ?? 0)
						: now() - ago;
					for (let n = 0; n < count; n++) makeRun(agent, step, createdAt - (count - 1 - n) * 10);
					break;
				}
				case 'finish': {
					const run = runAt(step.run);
					if (!run || run.finishedAt !== undefined || run.deletedAt !== undefined) break;
					const agentId = agents[run.agent].id;
					emulator.finishRun(agentId, run.id, step.status === 'failed' ? 'failed' : 'success');
					// A final status the trigger does not know (docs/service-notes.md #17).
					const record = emulator.state.runOf(agentId, run.id);
					if (record && step.status === 'cancelled') record.reportedStatus = 'cancelled';
					run.finishedAt = now();
					run.serviceFinished = emulator.now();
					run.status = step.status;
					break;
				}
				case 'delete': {
					const run = runAt(step.run);
					if (!run || run.deletedAt !== undefined) break;
					emulator.deleteRun(agents[run.agent].id, run.id);
					run.deletedAt = now();
					break;
				}
				case 'poll':
					await poll(
						setup.scheduler === 'durable' ? (step.main ?? 'A') : 'A',
						step.late && setup.scheduler === 'durable',
						step.drop && setup.scheduler === 'durable',
					);
					break;
				case 'wait':
					clock.advance(step.ms);
					break;
				case 'skew': {
					const next = Math.max(-SKEW_BOUND_MS, Math.min(SKEW_BOUND_MS, step.ms));
					emulator.advanceTime(next - skew);
					// A Run listed late is listed by the service's clock (its `created` plus the
					// delay): set back, it is listed that much later (generated seed 932554). One
					// already listed stays listed, as an upload once made does.
					for (const run of runs) {
						if (run.listedAt > now()) {
							run.listedAt = Math.max(now(), run.listedAt - (next - skew));
							continue;
						}
						const record = emulator.state.runOf(agents[run.agent].id, run.id);
						if (record) record.listedMs = undefined;
					}
					skew = next;
					break;
				}
				case 'missOnce': {
					const run = runAt(step.run);
					if (!run) break;
					// Left out of the next answer of its Agent's list (without the run_id filter).
					emulator.knobs.runsMissingFromLists = [
						...(emulator.knobs.runsMissingFromLists ?? []),
						run.id,
					];
					const agentId = agents[run.agent].id;
					emulator.afterRequest(
						{ method: 'GET', path: new RegExp(`/agents/${agentId}/runs$`) },
						() => {
							run.missedAt.push(now());
							// One step, one answer: a second step for the same Run leaves out the next.
							const missing = [...(emulator.knobs.runsMissingFromLists ?? [])];
							missing.splice(missing.indexOf(run.id), 1);
							emulator.knobs.runsMissingFromLists = missing;
						},
					);
					break;
				}
				case 'readLag':
					emulator.knobs.singleReadLagMs = Math.max(0, step.ms);
					break;
				case 'read404':
				case 'readHang': {
					const run = runAt(step.run);
					if (run && step.do === 'read404') run.answered404 = true;
					if (run)
						emulator.injectFaults([
							{
								match: {
									method: 'GET',
									path: new RegExp(`/agents/${agents[run.agent].id}/runs/${run.id}$`),
								},
								kind: step.do === 'read404' ? '404' : 'stall',
								// A hang holds every attempt of the read (the trigger retries a timeout).
								times: step.do === 'read404' ? 1 : 4,
							},
						]);
					break;
				}
				case 'readFail': {
					const run = runAt(step.run);
					if (run)
						emulator.injectFaults([
							{
								match: {
									method: 'GET',
									path: new RegExp(`/agents/${agents[run.agent].id}/runs/${run.id}$`),
								},
								kind: String(step.status) as '500' | '503' | '429',
								times: step.times,
								retryAfter: '0',
							},
						]);
					break;
				}
				case 'listFail': {
					const agent = agentAt(step.agent);
					if (!agent) break;
					const path = new RegExp(`/agents/${agent.id}/runs$`);
					const inject = () =>
						emulator.injectFaults([
							{
								match: { method: 'GET', path },
								kind: String(step.status) as '500' | '429',
								times: step.times,
								retryAfter: '0',
							},
						]);
					if (step.afterReads) {
						deletesWaiting++;
						emulator.afterRequest(
							{ method: 'GET', path },
							() => {
								deletesWaiting--;
								inject();
							},
							1,
						);
					} else inject();
					break;
				}
				case 'deleteWhileRead': {
					const run = runAt(step.run);
					if (!run || run.deletedAt !== undefined) break;
					const agentId = agents[run.agent].id;
					deletesWaiting++;
					emulator.afterRequest(
						{ method: 'GET', path: new RegExp(`/agents/${agentId}/runs$`) },
						() => {
							deletesWaiting--;
							if (run.deletedAt !== undefined) return;
							emulator.deleteRun(agentId, run.id);
							run.deletedAt = now();
						},
					);
					break;
				}
				case 'listOrder':
					emulator.knobs.listOrder = step.order;
					break;
				case 'clockStep': {
					// n8n's clock moves; the service's does not (its skew to n8n's changes).
					const next = Math.max(-SKEW_BOUND_MS, Math.min(SKEW_BOUND_MS, skew - step.ms));
					// The service's clock first: a Run settles by the service's time as it is.
					emulator.advanceTime(next - skew);
					clock.step(skew - next);
					steppedBack -= skew - next;
					skew = next;
					break;
				}
				case 'restart':
					incarnation++;
					delete pollers.A;
					delete pollers.B;
					break;
				case 'deactivate':
					if (!active) break;
					active = false;
					activations[activations.length - 1].until = now();
					break;
				case 'activate':
					if (!active) await activate(step.whileOldPollRuns);
					break;
				case 'addAgent':
					if (setup.scope === 'all') await addAgent();
					break;
				case 'hide':
				case 'show': {
					const agent = agentAt(step.agent);
					if (!agent || agent.deletedAt !== undefined || setup.scope === 'one') break;
					if (step.do === 'hide' && !hidden.has(agent.id)) {
						hidden.add(agent.id);
						agent.hiddenSince = now();
					} else if (step.do === 'show' && hidden.has(agent.id)) {
						hidden.delete(agent.id);
						agent.hidden.push([agent.hiddenSince ?? 0, now()]);
						delete agent.hiddenSince;
					}
					setHidden();
					break;
				}
				case 'refuse':
				case 'allow': {
					const agent = agentAt(step.agent);
					if (!agent || agent.deletedAt !== undefined) break;
					if (step.do === 'refuse' && failing[agent.id] === undefined) {
						failing[agent.id] = step.status;
						agent.refusedSince = now();
					} else if (step.do === 'allow' && failing[agent.id] !== undefined) {
						delete failing[agent.id];
						agent.refused.push([agent.refusedSince ?? 0, now()]);
						delete agent.refusedSince;
					}
					emulator.knobs.failingRunLists = { ...failing };
					break;
				}
				case 'deleteAgent': {
					const agent = agentAt(step.agent);
					if (!agent || agent.deletedAt !== undefined) break;
					agent.deletedAt = now();
					hidden.add(agent.id);
					failing[agent.id] = 404;
					setHidden();
					emulator.knobs.failingRunLists = { ...failing };
					break;
				}
			}
		}

		// The end: active again if deactivated, passing hazards off, every Run settled (those
		// still running finish now) and listed (polls ten minutes apart until the last Run listed
		// late is), then polls at the Poll Times' interval until every deadline has passed.
		if (!active) {
			clock.advance(pollEvery);
			await activate();
		}
		emulator.knobs.singleReadLagMs = 0;
		emulator.knobs.runsMissingFromLists = [];
		emulator.clearFaults();
		draining = true;
		for (const run of made) {
			if (run.finishedAt !== undefined || run.deletedAt !== undefined) continue;
			if (agents[run.agent].deletedAt !== undefined) continue;
			emulator.finishRun(agents[run.agent].id, run.id, 'success');
			run.finishedAt = now();
			run.serviceFinished = emulator.now();
			run.status = 'success';
		}
		lastHazardAt = now() - HAZARD_SETTLE_MS;
		const deadline = deadlineFor(schedule);
		const lastListed = Math.max(0, ...made.map((run) => run.listedAt)) + margin;
		while (now() < lastListed) {
			clock.advance(Math.min(10 * MINUTE, Math.max(pollEvery, lastListed - now())));
			await poll('A');
		}
		for (let n = 0; n < deadline.polls + DRAIN_EXTRA_POLLS; n++) {
			clock.advance(pollEvery);
			await poll('A');
		}
		// The sweep's hour, in polls ten minutes apart, and the plain polls after it.
		const drainStart = now();
		while (now() - drainStart < deadline.minMs) {
			clock.advance(10 * MINUTE);
			await poll('A');
		}
		for (let n = 0; deadline.minMs > 0 && n < deadline.polls; n++) {
			clock.advance(pollEvery);
			await poll('A');
		}
		await judgeTestEvent();
		const end = now();

		for (const activation of activations) {
			const first = polls.findIndex((poll) => poll.at >= activation.at);
			// The processes that remember a fresh start: the activating one, and those of later
			// activations that start afresh too (Skip Them) while nothing is saved. Any other
			// process goes on from what is stored, the state from before this activation.
			const freshIn = new Set([activation.memory]);
			let savedSince = false;
			for (const p of polls.slice(first + 1)) {
				const later = activations.find((a) => a !== activation && a.at === p.at);
				if (later) {
					if (!later.fresh) break;
					freshIn.add(p.memory);
				} else if ((!savedSince || p.late) && !freshIn.has(p.memory)) {
					// A `late` poll loads the state from before the first save since the activation.
					activation.handoffAt = p.at;
					break;
				} else if (savedSince) break;
				if (p.saved) savedSince = true;
			}
		}
		const tolerated: string[] = [];
		judge({
			margin,
			pollEvery,
			blind: blindPolls(polls, activations),
			runs,
			agents,
			activations,
			polls,
			emissions,
			emittedItems,
			deadline,
			end,
			violations,
			tolerated,
			setup: schedule.setup,
			saveParents,
		});
		for (const index of schedule.neverEmitted ?? []) {
			const run = made[index];
			const at = run ? emissions.get(run.id) : undefined;
			if (at)
				violations.push(
					`Run ${run.id} (#${index}) emitted at poll ${at[0]}; the replay says never`,
				);
		}
		const emittedCount = [...emissions.values()].reduce((sum, list) => sum + list.length, 0);
		return {
			violations,
			tolerated,
			polls: polls.length,
			failedPolls,
			runs: made.length,
			emitted: emittedCount,
			maxRequestsPerPoll,
			realMs: Math.round(realElapsedMs() - realStart),
		};
	} finally {
		clock.restore();
		await emulator.stop();
	}
}

/**
 * The time a poll spent waiting on requests that never answered (a hanging read): for each,
 * the timeout the trigger gave that attempt (the request options the credential authenticated,
 * in order, matched by path), else the Request Timeout. The timeout is the trigger's own
 * accounting: it cuts each attempt to the time left before 90% of its budget, so a correct
 * trigger stays within the budget by this count however late the machine's timers fire.
 */
export function stalledWaitMs(
	requests: RequestLogEntry[],
	authenticated: Array<{ request: { url?: string; timeout?: number } }>,
	requestTimeoutMs: number,
): number {
	const unused = authenticated.map((entry) => ({
		path: String(entry.request.url ?? '').split('?')[0],
		timeout: entry.request.timeout,
	}));
	let total = 0;
	for (const request of requests) {
		if (request.fault !== 'stall') continue;
		const at = unused.findIndex((entry) => entry.path.endsWith(request.path));
		const timeout = at < 0 ? undefined : unused.splice(0, at + 1).at(-1)?.timeout;
		total += typeof timeout === 'number' && timeout > 0 ? timeout : requestTimeoutMs;
	}
	return total;
}

/** An excuse for a Run not emitted by its deadline: what happened at `at`, by the docs' `rule`. */
interface Excuse {
	at: number;
	rule: string;
}

type Expectation =
	| { kind: 'must'; from: number; before?: number; excuses?: Excuse[] }
	| { kind: 'mustNot'; why: string }
	| { kind: 'may'; rule: string };

interface Judged {
	/** marginOf the schedule. */
	margin: number;
	/** The Poll Times' interval. */
	pollEvery: number;
	/** When the polls that found nothing stored and remembered nothing ran (blindPolls). */
	blind: number[];
	runs: ModelRun[];
	agents: ModelAgent[];
	activations: Activation[];
	polls: PollRecordModel[];
	emissions: Map<number, number[]>;
	emittedItems: Map<number, IDataObject[]>;
	deadline: { polls: number; minMs: number };
	end: number;
	violations: string[];
	tolerated: string[];
	setup: Schedule['setup'];
	/** Each save's parent: the save its poll loaded (-1 for the state stored at the start). */
	saveParents: number[];
}

/**
 * How far around a boundary either outcome is allowed: how far the service's clock is from
 * n8n's at most in this schedule (its skews, n8n's clock steps), and a poll's duration.
 */
export function marginOf(schedule: Schedule): number {
	let skew = 0;
	let most = 0;
	for (const step of schedule.steps) {
		if (step.do === 'skew') skew = step.ms;
		else if (step.do === 'clockStep') skew -= step.ms;
		else continue;
		skew = Math.max(-SKEW_BOUND_MS, Math.min(SKEW_BOUND_MS, skew));
		most = Math.max(most, Math.abs(skew));
	}
	const steps = schedule.steps.reduce(
		(sum, step) => sum + (step.do === 'clockStep' ? Math.abs(step.ms) : 0),
		0,
	);
	return most + steps + schedule.setup.budgetMs + 1_000;
}

/** The oracle (header). */
function judge(judged: Judged): void {
	const { runs, emissions, violations } = judged;
	const known = new Set(runs.map((run) => run.id));
	for (const [runId, at] of emissions)
		if (!known.has(runId))
			violations.push(`Run ${runId} emitted (polls ${at.join(', ')}) but not made by the schedule`);
	for (const run of runs) {
		judgeRun(judged, run);
		for (const item of judged.emittedItems.get(run.id) ?? []) judgeItem(judged, run, item);
	}
}

/**
 * What an emitted item holds (issue 42: the oracle judged ids only): a status Trigger On
 * chose, never `running` (docs: a lagging full read keeps the Run pending, "it is never
 * emitted as running"), the Run's own final status; with Include Full Run, the full read's
 * fields (its `usage`: the list's data has none), unless its read failed for good
 * (`read_error`) or the Run was deleted (a 404 on the full read: emitted from its list data;
 * also when the 404 came from a proxy, read404: the trigger cannot tell).
 */
function judgeItem(judged: Judged, run: ModelRun, item: IDataObject): void {
	const label = `${run.history ? 'history Run' : 'Run'} ${run.id}${run.history ? '' : ` (#${run.index})`}`;
	const statuses = judged.setup.statuses ?? ['success', 'failed'];
	const status = String(item.status);
	const kind = ['success', 'failed'].includes(status) ? status : 'other';
	if (status === 'running' || status === 'queued' || status === 'pending')
		judged.violations.push(`${label} emitted with status ${status} (not finished)`);
	else if (!statuses.includes(kind as 'success'))
		judged.violations.push(
			`${label} emitted with status ${status}, not among Trigger On's (${statuses.join(', ')})`,
		);
	else if (run.status !== undefined && status !== run.status)
		judged.violations.push(`${label} emitted with status ${status}; it ended ${run.status}`);
	if (
		judged.setup.includeFullRun &&
		!('usage' in item) &&
		item.read_error === undefined &&
		run.deletedAt === undefined &&
		!run.answered404
	)
		judged.violations.push(
			`${label} emitted without its full read (Include Full Run): no \`usage\`, no \`read_error\` (${Object.keys(item).join(', ')})`,
		);
}

/**
 * One Run: emitted at most once (but for the duplicate the docs state for two mains, which
 * excuses the extra emission only: the first is judged like any other), never when it must
 * not be, and within its deadline when it must.
 */
function judgeRun(judged: Judged, run: ModelRun): void {
	const { violations } = judged;
	const at = judged.emissions.get(run.id) ?? [];
	const label = run.history
		? `history Run ${run.id} (Agent ${run.agent})`
		: `Run ${run.id} (#${run.index}, Agent ${run.agent})`;
	if (at.length > 1) {
		const line = `${label} emitted ${at.length} times (polls ${at.join(', ')})`;
		// Each extra emission by a poll that went on from a state without the earlier ones,
		// lost to a load from before another process's save (DOCS.DUPLICATE_TWO_MAINS).
		if (
			at.slice(1).every((index, n) => emittedAgainAfterLostSave(judged, at.slice(0, n + 1), index))
		)
			judged.tolerated.push(line);
		else violations.push(line);
	}
	const expectation = expectationOf(judged, run);
	if (process.env.MODEL_DEBUG) console.log(label, JSON.stringify(expectation), 'emitted at', at);
	if (expectation.kind === 'mustNot' && at.length > 0)
		violations.push(`${label} emitted at poll ${at[0]} but ${expectation.why}`);
	if (expectation.kind === 'must') judgeDeadline(judged, run, label, at, expectation);
}

/** A Run that must be emitted: by its deadline, and not after an activation that skipped it. */
function judgeDeadline(
	judged: Judged,
	run: ModelRun,
	label: string,
	at: number[],
	expectation: Extract<Expectation, { kind: 'must' }>,
): void {
	const { polls, deadline, violations } = judged;
	// The polls after it could be emitted: the first whose Agent was readable, then plain ones.
	const eligible = polls.filter((p) => p.at >= expectation.from && p.readable.has(run.agent));
	if (eligible.length === 0) return;
	let counted = 0;
	let due: number | undefined;
	for (const p of polls.slice(eligible[0].index)) {
		// Only a plain poll is due: one with a hazard open (its Agent's list answering 429 until
		// the poll fails, seed 8800570) cannot be asked to emit, however late it comes.
		if (!p.plain || !p.readable.has(run.agent)) continue;
		counted++;
		if (counted >= deadline.polls && p.at >= eligible[0].at + deadline.minMs) {
			due = p.index;
			break;
		}
	}
	const skipped = expectation.before !== undefined ? pollAt(polls, expectation.before) : Infinity;
	if (at.length > 0 && at[0] >= skipped) {
		violations.push(
			`${label} emitted at poll ${at[0]} but it finished before the activation at poll ${skipped} that skipped the past`,
		);
		return;
	}
	if (due === undefined || due >= skipped) return;
	// Excused only by what happened before it was due (a deletion, its Agent gone, a blind poll).
	const excuse = expectation.excuses?.find((e) => polls[due].at >= e.at);
	if (excuse) {
		if (process.env.MODEL_DEBUG) console.log(`${label} excused: ${excuse.rule}`);
		return;
	}
	if (at.length === 0)
		violations.push(
			`${label} finished while it should be emitted (could be from poll ${eligible[0].index}) but was never emitted (${polls.length} polls)`,
		);
	else if (at[0] > due)
		violations.push(
			`${label} emitted at poll ${at[0]}, later than poll ${due} (${deadline.polls} plain polls after poll ${eligible[0].index}${deadline.minMs ? ', and an hour' : ''})`,
		);
}

/**
 * Whether poll `again` emitting a Run already emitted by the polls `before` is the duplicate the
 * stored state alone cannot prevent (docs/design/trigger-rules.md, "Two n8n mains"): none of those polls'
 * saves is in the lineage of the state `again` went on from, and each was lost to a load from
 * before another process's save, by `again` itself or by a poll whose save it went on from (that
 * poll emitted too, and its save took the place of the one it did not see).
 */
function emittedAgainAfterLostSave(judged: Judged, before: number[], again: number): boolean {
	const { polls, saveParents } = judged;
	const lineage = (save: number): Set<number> => {
		const found = new Set<number>();
		for (let node = save; node >= 0; node = saveParents[node]) found.add(node);
		return found;
	};
	const poll = polls[again];
	if (!poll) return false;
	const wentOnFrom = lineage(poll.loaded);
	const lateLoads = polls.filter(
		(p) =>
			p.unguarded &&
			p.skipped !== undefined &&
			(p.index === again || (p.savedAs !== undefined && wentOnFrom.has(p.savedAs))),
	);
	return before.every((index) => {
		const save = polls[index]?.savedAs;
		if (save === undefined || wentOnFrom.has(save)) return false;
		return lateLoads.some((p) => p.index > index && lineage(p.skipped as number).has(save));
	});
}

/**
 * What must happen to a Run: the rules of activation, first sight, absences and re-activation
 * (expectationByRules), then what the docs excuse, each only where it could have hidden the Run:
 * its status not among Trigger On's, given up after 3 days running, listed later than the
 * lookback reaches, deleted (or its Agent gone) before it was due.
 */
function expectationOf(judged: Judged, run: ModelRun): Expectation {
	const { polls, margin } = judged;
	const agent = judged.agents[run.agent];
	if (run.history) return { kind: 'mustNot', why: 'it finished before the first activation' };
	if (run.finishedAt === undefined)
		return run.deletedAt !== undefined
			? { kind: 'mustNot', why: `it was deleted while running (${DOCS.DELETED_WHILE_RUNNING})` }
			: { kind: 'mustNot', why: 'it never finished' };
	const statuses = judged.setup.statuses ?? ['success', 'failed'];
	const status = run.status ?? 'success';
	const chosen = ['success', 'failed'].includes(status)
		? statuses.includes(status as 'success')
		: statuses.includes('other');
	if (!chosen)
		return {
			kind: 'mustNot',
			why: `its status ${status} is not among Trigger On's (${DOCS.TRIGGER_ON})`,
		};
	const f = run.finishedAt;
	// Given up only when a read showed it running 3 days after its `created`.
	const readRunningLate = polls.some(
		(p) =>
			p.ok &&
			p.readable.has(run.agent) &&
			p.at > run.createdAt + PENDING_GIVE_UP_MS - margin &&
			p.at < f + margin,
	);
	if (readRunningLate) return may(DOCS.GIVE_UP);
	const expectation = expectationByRules(
		run,
		agent,
		judged.activations,
		polls,
		margin,
		judged.end,
		judged.blind,
		judged.setup,
	);
	if (expectation.kind !== 'must') return expectation;
	if (listedPastTheLookback(run, judged.runs, polls, judged.setup))
		return may(DOCS.LISTED_TOO_LATE);
	const excuses = [...(expectation.excuses ?? [])];
	if (run.deletedAt !== undefined) excuses.push({ at: run.deletedAt, rule: DOCS.DELETED });
	for (const gone of [agent.deletedAt, agent.refusedSince, agent.hiddenSince])
		if (gone !== undefined) excuses.push({ at: gone, rule: DOCS.AGENT_GONE });
	return { ...expectation, excuses };
}

/**
 * When a read that counts first lists the Run: an answer that left it out (missOnce) did not
 * list it, and a Run that answer listed is one "it had seen" (generated seed 931509: Run 1022
 * read while Run 1021 was left out; 1021, made 77 minutes before it, then fell outside the
 * read's 60 minutes). Only the answers of polls n8n kept (not failed) that read the Agent's
 * list count, up to the first that listed it: a dropped poll's reads are lost with it, a poll
 * that skipped its turn read nothing, and once a kept poll read the Run a later miss hides
 * nothing.
 */
function firstReadOf(run: ModelRun, polls: PollRecordModel[]): number {
	let from = run.listedAt;
	for (const [index, poll] of polls.entries()) {
		if (poll.at < from || poll.dropped || !poll.ok || !poll.listsRead.has(run.agent)) continue;
		const end = polls[index + 1]?.at ?? Infinity;
		const missed = run.missedAt.filter((at) => at >= poll.at && at < end);
		if (missed.length === 0) return from;
		from = Math.max(...missed) + 1;
	}
	return from;
}

/**
 * DOCS.LISTED_TOO_LATE: a Run listed up to 60 minutes after its `created` is emitted; one listed
 * later may not be. But docs/design/trigger-rules.md: "Each read of an Agent's list looks back 60 minutes
 * before the newest `created` it had seen", and when the service leaves `n_runs` out "every
 * Agent is read at every poll": then a Run listed later is still found while no Run listed
 * before it reaches further ahead than that (the newest `created` counting at most 5 minutes
 * past n8n's clock).
 */
function listedPastTheLookback(
	run: ModelRun,
	runs: ModelRun[],
	polls: PollRecordModel[],
	setup: Schedule['setup'],
): boolean {
	// By the service's clock: a skew step after it was made moves when it is listed, not how
	// late (review of generated seed 932554's fix).
	if (run.listedLateMs <= LOOKBACK_MS) return false;
	if (setup.counter !== 'absent' || run.serviceCreated === undefined) return true;
	const firstRead = firstReadOf(run, polls);
	let newest = -Infinity;
	for (const other of runs) {
		if (other.agent !== run.agent || other === run || other.serviceCreated === undefined) continue;
		if (other.listedAt >= firstRead) continue;
		newest = Math.max(newest, Math.min(other.serviceCreated, firstRead + 5 * MINUTE));
	}
	return run.serviceCreated < newest - LOOKBACK_MS;
}

function expectationByRules(
	run: ModelRun,
	agent: ModelAgent,
	activations: Activation[],
	polls: PollRecordModel[],
	margin: number,
	end: number,
	blind: number[],
	setup: Schedule['setup'],
): Expectation {
	const f = run.finishedAt as number;
	// The activation it belongs to: the one it finished in, or the next after the gap.
	// A Run that finishes while the activation poll runs may count as either side.
	const during = (activation: Activation) => f >= activation.at && f <= activation.endedAt;
	let from: number | undefined;
	let freshBefore: Activation | undefined;
	for (const activation of activations) {
		if (activation.at <= f && activation.fresh) freshBefore = activation;
		const until = activation.until ?? end;
		if (during(activation)) return may(DOCS.ACTIVATION_MARGIN);
		if (f >= activation.at && f < until) {
			from = f;
			break;
		}
		if (f < activation.at) {
			if (activation.fresh && activation.handoffAt !== undefined) {
				// docs/design/trigger-rules.md, two mains: before anything is saved, a poll on another process
				// goes on from an activation one poll interval (and the 5-minute clock margin)
				// before it; after a re-activation with Skip Them it catches up.
				if (
					activation !== activations[0] ||
					f >= activation.handoffAt - handoffWindow(setup) - margin
				)
					return may(DOCS.TWO_MAINS_ERRS_BOTH_WAYS);
			}
			// The same from a poll of the activating process itself that remembers nothing (its
			// activation poll failed).
			if (
				activation === activations[0] &&
				blind.some((at) => f >= at - handoffWindow(setup) - margin)
			)
				return may(DOCS.TWO_MAINS_ERRS_BOTH_WAYS);
			if (activation.fresh && f >= activation.at - ACTIVATION_MARGIN_MS - margin)
				return may(DOCS.ACTIVATION_MARGIN);
			// Not in what the activation poll listed (listed late, or left out of that answer):
			// the trigger cannot tell it from a slow upload, which it must emit.
			if (activation.fresh && unlistedAt(run, activation)) return may(DOCS.REACTIVATION_ERRS);
			// An Agent GET /agents left out then and not known to the state the trigger started
			// from is first seen later (docs/design/trigger-rules.md, An Agent missing from a listing): its Runs
			// created within the lookback before its first read are new, whenever they finished
			// (generated seed 32456: a Run stamped 2 hours ahead).
			if (
				activation.fresh &&
				!activation.listed.has(agent.index) &&
				stateKnew(agent, activation, activations, polls, setup) !== 'yes'
			) {
				const seen = firstSeen(agent, polls, activation.at);
				if (seen === undefined || run.oddCreated || run.createdAt >= seen - LOOKBACK_MS - margin)
					return may(DOCS.FIRST_SEEN_LOOKBACK);
			}
			if (activation.fresh)
				return {
					kind: 'mustNot',
					why: `it finished before the activation at poll ${pollAt(polls, activation.at)} that skipped the past`,
				};
			from = activation.at;
			break;
		}
	}
	if (from === undefined || freshBefore === undefined) return may(DOCS.FIRST_ACTIVATION);
	const fresh = freshBefore;
	const readFrom = from;
	// Listed but unreadable when the trigger started afresh: its past is history once read.
	if (
		freshBefore.listed.has(agent.index) &&
		!freshBefore.readable.has(agent.index) &&
		run.createdAt < freshBefore.endedAt
	)
		return may(DOCS.UNREADABLE_AT_ACTIVATION);
	// docs/design/trigger-rules.md, "Two n8n mains": a poll that found nothing stored and remembered nothing
	// starts afresh, and an Agent GET /agents left out then (listed at the activation) is first
	// seen when it is listed again, as below: its Runs created more than the lookback before
	// that poll and finished before it are history to the trigger (generated seed 21912).
	for (const at of blind) {
		const b = polls.find((p) => p.at === at);
		if (!b?.ok || b.listed.has(agent.index) || !freshBefore.listed.has(agent.index)) continue;
		// First seen by the first poll that lists it, its Run list readable or not.
		const seen = polls.find((p) => p.at > at && p.ok && p.listed.has(agent.index))?.at;
		if (seen === undefined) return may(DOCS.FIRST_SEEN_LOOKBACK);
		if (run.createdAt < seen - LOOKBACK_MS + margin && f < seen + margin)
			return may(DOCS.FIRST_SEEN_LOOKBACK);
	}
	// An Agent not listed when the trigger started afresh (added or moved in later), or back
	// after an absence long enough to be forgotten: its Runs created from the lookback before
	// the poll that first reads it are new, older ones history unless still running then.
	// Forgotten: a poll saw it missing, and a poll more than 30 days later still did.
	const forgotten = agent.hidden.filter(
		([since, until]) => forgottenIn(polls, since, until, margin) === 'yes',
	);
	if (
		agent.hidden.some(
			([since, until]) => forgottenIn(polls, since, until, margin) === 'maybe' && f < until,
		)
	)
		return may(DOCS.FORGOTTEN_AFTER_30_DAYS);
	const longAbsence = forgotten.some(([since, until]) => until > freshBefore.at && f >= since);
	// Finished before the absence and not emitted by then: the forgetting may have taken it.
	if (forgotten.some(([since, until]) => f < since && until > freshBefore.at))
		return may(DOCS.FORGOTTEN_AFTER_30_DAYS);
	if (!freshBefore.listed.has(agent.index) || longAbsence) {
		// Not listed at a re-activation with Skip Them, but known to the state before it: it
		// keeps the re-activation's rule (docs/design/trigger-rules.md, Re-activation), as if listed then.
		const known = longAbsence ? 'no' : stateKnew(agent, fresh, activations, polls, setup);
		const asFirstSeenAt = (seen: number | undefined): Expectation => {
			if (seen === undefined) return may(DOCS.FIRST_SEEN_LOOKBACK);
			const floor = seen - LOOKBACK_MS;
			// Left out of the answer of the first read: the trigger cannot tell it from a slow upload.
			if (run.missedAt.some((at) => Math.abs(at - seen) <= margin))
				return may(DOCS.LATE_AND_LEFT_OUT);
			if (run.createdAt < floor - margin && f < seen - margin)
				return {
					kind: 'mustNot',
					why: `it was created more than the lookback before its Agent was first read (poll ${pollAt(polls, seen)}) and finished before`,
				};
			if (Math.abs(run.createdAt - floor) <= margin || Math.abs(f - seen) <= margin)
				return may(DOCS.FIRST_SEEN_LOOKBACK);
			if (run.createdAt < floor && f < seen) return may(DOCS.FIRST_SEEN_LOOKBACK);
			return afterSeen(Math.max(readFrom, seen));
		};
		// The poll that first read it may not be the one the trigger's state remembers as such:
		// its result dropped, or not saved and the next poll on another process (generated seed
		// 32884). Then either may be the first sight.
		// DOCS.FIRST_SEEN_BY_KEPT_POLL: any poll that read it, up to the first whose state was
		// saved, may be the one the next polls go on from (a process that polled before a save
		// goes on from what it remembers: seed 861, main A's first sight kept across main B's).
		const asFirstSeen = (): Expectation => {
			const candidates = firstSeenCandidates(agent, polls, fresh.at);
			return candidates.length === 0
				? asFirstSeenAt(undefined)
				: candidates.map(asFirstSeenAt).reduce(either);
		};
		if (known === 'no') return asFirstSeen();
		if (known === 'maybe') return either(asFirstSeen(), afterSeen(readFrom));
	}
	return afterSeen(readFrom);

	/** The rest of the rules, for a Run whose Agent's reads could emit it from `from` on. */
	function afterSeen(from: number): Expectation {
		return afterAgentSeen(
			run,
			agent,
			activations,
			polls,
			margin,
			blind,
			from,
			handoffWindow(setup),
		);
	}
}

/** Whichever of two expectations holds: their common one, else either outcome. */
function either(one: Expectation, other: Expectation): Expectation {
	if (one.kind === 'must' && other.kind === 'must')
		return {
			kind: 'must',
			from: Math.max(one.from, other.from),
			excuses: [...(one.excuses ?? []), ...(other.excuses ?? [])],
			...(one.before !== undefined || other.before !== undefined
				? { before: Math.min(one.before ?? Infinity, other.before ?? Infinity) }
				: {}),
		};
	return one.kind === other.kind && one.kind === 'mustNot'
		? one
		: may(DOCS.FIRST_SEEN_BY_KEPT_POLL);
}

/**
 * Whether the state a re-activation with Skip Them started from knew the Agent (so that it
 * keeps the re-activation's rule when listed later): 'no' on the first activation, or when
 * no poll that got through before listed it. The in-memory scheduler saves every poll, so a
 * poll that got through and read the Agent's list is known then; the durable one saves only
 * polls that emit, and what the activating process remembers decides: either may hold.
 */
function stateKnew(
	agent: ModelAgent,
	fresh: Activation,
	activations: Activation[],
	polls: PollRecordModel[],
	setup: Schedule['setup'],
): 'yes' | 'no' | 'maybe' {
	if (fresh === activations[0]) return 'no';
	const before = polls.filter((p) => p.at < fresh.at && p.ok);
	if (!before.some((p) => p.listed.has(agent.index))) return 'no';
	if (setup.scheduler !== 'durable' && before.some((p) => p.readable.has(agent.index)))
		return 'yes';
	return 'maybe';
}

/** expectationOf, after the Agent's first read (or its activation): hidden, refused, listed late, Skip Them. */
function afterAgentSeen(
	run: ModelRun,
	agent: ModelAgent,
	activations: Activation[],
	polls: PollRecordModel[],
	margin: number,
	blind: number[],
	seenFrom: number,
	window: number,
): Expectation {
	const f = run.finishedAt as number;
	let from = seenFrom;
	// Refused or hidden at some time: what finished while it could not be read waits for it.
	for (const [since, until] of agent.hidden) {
		if (forgottenIn(polls, since, until, margin) === 'yes' && f < until) continue; // judged above
		if (f >= since - margin && f < until) from = Math.max(from, until);
	}
	for (const [, until] of agent.refused) if (f < until) from = Math.max(from, until);
	// Listed late: it can be emitted once listed. A later activation with Skip Them ends it.
	const nextFresh = activations.find((a) => a.fresh && a.at > f);
	// Skip Them with a poll on another process before anything was saved: it catches up.
	if (nextFresh?.handoffAt !== undefined) return may(DOCS.SKIP_THEM_CATCHES_UP);
	// Not listed yet when that activation skipped the past (it finished before, and was listed
	// after): as a Run that finished while inactive and was not listed then (above).
	if (nextFresh && unlistedAt(run, nextFresh)) return may(DOCS.REACTIVATION_ERRS);
	// DOCS.BLIND_POLL_MAY_LOSE: a poll that found nothing stored and remembered nothing goes on
	// from an activation one poll interval before it, so a Run that finished more than that and
	// the clock margin before it is history to it. Only a Run no poll before it had to emit: one
	// due (finished and listed, its Agent readable, the plain polls of its deadline run) before
	// that poll is not excused (docs: "When polls go on at their interval, a Run that finished
	// and was listed before the last of them was emitted by it").
	const blindAt = blind.find((at) => f < at - window + margin);
	return {
		kind: 'must',
		from: Math.max(from, run.listedAt),
		...(nextFresh ? { before: nextFresh.at } : {}),
		...(blindAt !== undefined
			? { excuses: [{ at: blindAt, rule: DOCS.BLIND_POLL_MAY_LOSE }] }
			: {}),
	};
}

/**
 * Whether the Run was not in what the activation's poll listed: listed after it, or left out
 * of that answer.
 */
function unlistedAt(run: ModelRun, activation: Activation): boolean {
	return (
		run.listedAt > activation.at ||
		run.missedAt.some((at) => at >= activation.at && at <= activation.endedAt)
	);
}

/**
 * The polls that find nothing stored and remember nothing, so that they go on from an
 * activation one poll interval before them (poll.ts, docs/design/trigger-rules.md "Two n8n mains"): until a
 * poll's state is saved (none ever was: the durable scheduler saves only polls that emit), or
 * loading the state from before the first save (that save landing late: generated seed
 * 20215), each poll that is not an activation poll, on a process (main B, n8n after a restart)
 * none of whose polls got through before it (a poll that fails leaves nothing remembered).
 */
function blindPolls(polls: PollRecordModel[], activations: Activation[]): number[] {
	const blind: number[] = [];
	const remembering = new Set<string>();
	let saves = 0;
	for (const p of polls) {
		const activationPoll = activations.some((a) => a.at === p.at);
		const nothingStored = saves === 0 || (saves === 1 && p.late);
		if (!activationPoll && nothingStored && !remembering.has(p.memory)) blind.push(p.at);
		if (p.saved) saves++;
		if (saves > 1) break;
		if (p.ok) remembering.add(p.memory);
	}
	return blind;
}

/**
 * Whether the trigger forgot an Agent missing from `since` to `until`: it notes the absence at
 * the first poll that misses it, and forgets it at a poll more than 30 days after that one.
 */
function forgottenIn(
	polls: PollRecordModel[],
	since: number,
	until: number,
	margin: number,
): 'yes' | 'no' | 'maybe' {
	const during = polls.filter((p) => p.at >= since && p.at < until && p.ok);
	const verdict = (seenMissing: PollRecordModel[]): 'yes' | 'no' | 'maybe' => {
		if (seenMissing.length < 2) return 'no';
		const span = seenMissing[seenMissing.length - 1].at - seenMissing[0].at;
		if (span > ABSENT_KEPT_MS + margin) return 'yes';
		return span > ABSENT_KEPT_MS - margin ? 'maybe' : 'no';
	};
	// When the absence began is what a poll noted: one whose state the next polls do not go on
	// from (dropped, or not saved and the next poll on another process) may be forgotten, and a
	// later poll notes it again (generated seed 40636).
	const first = verdict(during);
	if (during.every((p) => p.saved)) return first;
	const firstKept = during.findIndex((p) => isKept(p, polls));
	const readings = [first, verdict(firstKept < 0 ? [] : during.slice(firstKept))];
	// Polls that emit nothing are not saved: each process goes on from what it noted itself.
	for (const memory of new Set(during.map((p) => p.memory)))
		readings.push(verdict(during.filter((p) => p.memory === memory)));
	return readings.every((reading) => reading === first) ? first : 'maybe';
}

/** Whether what a poll learnt reaches the polls after it: saved, or remembered by its process. */
function isKept(p: PollRecordModel, polls: PollRecordModel[]): boolean {
	if (p.dropped) return false;
	const next = polls.find((q) => q.index > p.index);
	return p.saved || !next || next.memory === p.memory;
}

function pollAt(polls: PollRecordModel[], at: number): number {
	return polls.find((p) => p.at >= at)?.index ?? polls.length;
}

/**
 * The polls that may count as the Agent's first sight after `fresh`: each that listed it (its
 * Run list readable or not), up to the first whose state n8n saved (and did not drop).
 */
function firstSeenCandidates(
	agent: ModelAgent,
	polls: PollRecordModel[],
	fresh: number,
): Array<number | undefined> {
	const first = firstSeen(agent, polls, fresh);
	if (first === undefined) return [];
	const candidates: number[] = [];
	for (const p of polls) {
		if (p.at < first || !p.ok || !p.listed.has(agent.index)) continue;
		candidates.push(p.at);
		if (p.saved && !p.dropped) break;
	}
	return candidates;
}

/**
 * When the trigger first saw the Agent after it started afresh at `fresh`: the first poll that
 * lists it in GET /agents, its Run list readable or not (docs/design/trigger-rules.md: "starts at the
 * poll that first lists it"; issue 42: an Agent first listed while its list answered 403 for
 * 72 minutes, a Run made right after that listing, is emitted, and the oracle used to wait for
 * a readable list).
 */
function firstSeen(
	agent: ModelAgent,
	polls: PollRecordModel[],
	fresh: number,
	keptOnly = false,
): number | undefined {
	// The last time it came back after a long absence counts as a first sight.
	let since = fresh;
	for (const [from, until] of agent.hidden)
		if (forgottenIn(polls, from, until, 0) === 'yes' && until > since) since = until;
	return polls.find(
		(p) =>
			p.at >= since - 1 && p.ok && p.listed.has(agent.index) && (!keptOnly || isKept(p, polls)),
	)?.at;
}
