/**
 * The seeded generator of schedules and their shrinker (no fast-check in this package: a small
 * PRNG, a generator drawing from the hazards in HAZARD_BOUNDS, and a shrinker that removes
 * steps and simplifies the setup while the schedule still fails).
 */
import {
	DEFAULT_SETUP,
	SKEW_BOUND_MS,
	type Schedule,
	type ScheduleSetup,
	type Step,
} from './schedule';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** SplitMix32: small, fast, and every seed gives its own stream. */
export function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x9e3779b9) >>> 0;
		let z = state;
		z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
		z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
		return ((z ^ (z >>> 16)) >>> 0) / 4_294_967_296;
	};
}

/**
 * Every hazard the generator draws, with how often and within which bound. Stated here so that
 * what the generated schedules cover (and what they do not) can be read in one place.
 *
 * Each bound docs/design/trigger-rules.md states is drawn at its edge and just past it: a Run listed up to
 * 60 minutes late (and a little later), the service's clock up to 5 minutes off (and n8n's
 * clock stepping), a Run running close to 3 days, an Agent missing close to 30 days. The
 * oracle (run.ts) judges the schedules past an edge by what the docs say happens there.
 * Not generated (covered by the listed suites instead): dropped connections and cut-off
 * answers (test/reliability/soak-simulated.ts), more than 1,000 Agents, a service ignoring
 * page_number, durable poll cursors (the harness has no staged copy:
 * test/e2e/trigger.e2e.test.ts runs them in real n8n), a change of what is watched
 * (test/trigger/options.suite.ts), overlapping polls on one main other than the
 * re-activation replay (item 8). Fetch Test Event is not a step: every schedule ends with one
 * (run.ts, judgeTestEvent).
 */
export const HAZARD_BOUNDS = {
	/** Share of schedules watching All Agents (else One Agent). */
	allAgents: 0.8,
	/** Agents at the start: 1 to this; `addAgent` adds up to 2 more. */
	maxAgents: 3,
	/** Share of All Agents schedules with 6 to manyAgents Agents at the start. */
	manyAgentsShare: 0.1,
	manyAgents: 8,
	/** Poll Times other than every minute: every 2, 5 or 15 minutes. */
	otherPollTimes: 0.08,
	/** Trigger On other than success and failed (a subset, or with Run Ended Another Way). */
	otherStatuses: 0.15,
	/** A schedule where n8n is down close to 3 days with Runs running (at or just past the edge). */
	nearGiveUp: 0.04,
	/** Finished Runs per Agent before activation: 0 to this (slow schedules: 1,001 to 1,600, two pages). */
	maxHistory: 6,
	runningAtActivation: 0.3,
	/** Of those: made 1 to 6 hours before activation (else 30 minutes before). */
	runningForHours: 0.4,
	/**
	 * Of those made hours before: the activation poll's list answer leaves the oldest out, a
	 * newer Run made 10 minutes before activation (issue 42: nothing else remembers the old Run).
	 */
	missedAtActivation: 0.4,
	/** n_runs counting every Run made / the Runs there are / left out. */
	counter: { made: 0.7, existing: 0.15, absent: 0.15 },
	durableScheduler: 0.5,
	skipThem: 0.3,
	noFullRead: 0.2,
	/**
	 * A slow service: requests cost a quarter to a third of what the budget leaves for new work
	 * (5.5 to 7 s of 36 s), under the fifth of the budget within which docs/design/trigger-rules.md promises
	 * a poll ends in time and no request is cut short.
	 */
	slowService: 0.06,
	/**
	 * On a slow service, per minute: a burst of slowBurstMin to slowBurstMax Runs, and a Run
	 * deleted (between the polls of a read the budget cut: its pages go on next poll).
	 */
	slowBurst: 0.2,
	/**
	 * Share of slow schedules with such a burst (one): their history is short and the burst's
	 * Runs mostly finished at once, without Include Full Run mostly, so that hundreds of
	 * single reads at four a poll do not take npm test's time (the replay of a slow Include
	 * Full Run covers the reads).
	 */
	slowBurstShare: 0.5,
	slowBurstMin: 200,
	slowBurstMax: 500,
	slowDelete: 0.25,
	/**
	 * A pause of days (n8n down, the workflow inactive 4 days, an Agent hidden a month) that
	 * ends with a Run pending across it finishing while single reads lag the list (they say
	 * running, the list finished).
	 */
	lagAfterPause: 0.5,
	/** An Agent added is refused (403) right after it is first listed, 61 to 90 minutes, a Run made meanwhile. */
	refusedWhenAdded: 0.4,
	/**
	 * A hanging single read (costs real time: budget 4 s, Request Timeout 5 s, longer than the
	 * budget as 60 s is than 2.41's 45 s; at 0.8 s a loaded machine's timer delays overran the
	 * budget, as replay item 9 says).
	 */
	hang: 0.03,
	/** Per minute of the schedule: */
	perMinute: {
		create: 0.5,
		finish: 0.45,
		delete: 0.05,
		/**
		 * A Run listed up to 60 minutes after its created time (the trigger's lookback); a tenth
		 * of them exactly 60, another tenth up to 5 minutes more (past the edge).
		 */
		lateListing: 0.15,
		maxLateMs: 60 * MINUTE,
		/** Runs made at once (a burst): 2 to burstMax. */
		burst: 0.03,
		burstMax: 120,
		/** A running Run's single read failing (5xx past its retries, or a 429 answered at once). */
		readFail: 0.02,
		/** An Agent's Run list failing for a read or more (the `run_id` list too). */
		listFail: 0.015,
		/** A Run deleted between two page reads of its Agent's list. */
		deleteWhileRead: 0.02,
		listOrderChange: 0.02,
		/** n8n's clock stepping (up to 5 minutes, mostly back). */
		clockStep: 0.01,
		/** A Run whose `created` the service stamps 2 hours ahead (item 3). */
		stampedAhead: 0.01,
		aheadMs: 2 * HOUR,
		/** A Run whose `created` does not parse (item 4). */
		badCreated: 0.005,
		missOnce: 0.05,
		/** Single reads lagging the list by up to 3 minutes, for a few minutes. */
		readLag: 0.04,
		maxReadLagMs: 3 * MINUTE,
		read404: 0.04,
		/** The service's clock off by up to a minute; a fifth of the time up to SKEW_BOUND_MS. */
		skew: 0.05,
		wideSkew: 0.2,
		/** Durable scheduler: the poll taken by main B; its state loaded from before the last save; its result dropped. */
		mainB: 0.35,
		lateSave: 0.08,
		dropped: 0.04,
		restart: 0.03,
		/** Deactivated for 5 minutes to 2 hours, or (a fifth of them) 4 days. */
		deactivate: 0.03,
		longInactive: 0.2,
		addAgent: 0.02,
		hide: 0.03,
		/** Hidden for 29 days, or for more than 30 days (the trigger forgets it). */
		hideLong: 0.1,
		refuse: 0.03,
		/** Refused for good (never allowed again). */
		refuseForGood: 0.2,
		deleteAgent: 0.01,
		/** A longer gap between two polls: 10 to 90 minutes. */
		longGap: 0.05,
	},
	/** Minutes per schedule. */
	minutes: [6, 18] as [number, number],
	skewBoundMs: SKEW_BOUND_MS,
};

export function generateSchedule(seed: number): Schedule {
	const random = prng(seed);
	const chance = (p: number) => random() < p;
	const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
	const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
	const b = HAZARD_BOUNDS;
	const m = b.perMinute;

	const slow = chance(b.slowService);
	const hang = !slow && chance(b.hang);
	const counterRoll = random();
	const setup: ScheduleSetup = {
		...DEFAULT_SETUP,
		scope: chance(b.allAgents) ? 'all' : 'one',
		agents: int(1, b.maxAgents),
		history: slow ? int(1001, 1600) : int(0, b.maxHistory),
		runningAtActivation: chance(b.runningAtActivation),
		listOrder: pick(['newest-first', 'oldest-first', 'random'] as const),
		counter:
			counterRoll < b.counter.made
				? 'made'
				: counterRoll < b.counter.made + b.counter.existing
					? 'existing'
					: 'absent',
		scheduler: chance(b.durableScheduler) ? 'durable' : 'memory',
		onReactivation: chance(b.skipThem) ? 'skip' : 'emit',
		includeFullRun: !chance(b.noFullRead),
		budgetMs: hang ? 4_000 : 36_000,
		requestCostMs: hang ? 5 : slow ? int(5_500, 7_000) : int(10, 200),
		requestTimeoutSeconds: hang ? 5 : 60,
	};
	const slowBursts = slow && chance(b.slowBurstShare);
	let burstsLeft = slowBursts ? 1 : 0;
	if (slowBursts) {
		setup.history = int(0, b.maxHistory);
		if (chance(0.75)) setup.includeFullRun = false;
	}
	if (setup.runningAtActivation && chance(b.runningForHours))
		setup.runningSinceMs = int(60, 360) * MINUTE;
	if (setup.scope === 'one') setup.agents = 1;
	else if (chance(b.manyAgentsShare)) setup.agents = int(6, b.manyAgents);
	if (chance(b.otherPollTimes)) setup.pollMinutes = pick([2, 5, 15]);
	if (chance(b.otherStatuses))
		setup.statuses = pick([['success'], ['failed'], ['success', 'failed', 'other'], ['other']]);
	const nearGiveUpAt = chance(b.nearGiveUp) ? int(1, 5) : -1;
	const pollWait = (setup.pollMinutes ?? 1) * MINUTE;
	const all = setup.scope === 'all';
	const durable = setup.scheduler === 'durable';

	const steps: Step[] = [];
	let agents = setup.agents;
	let runs = setup.runningAtActivation ? agents : 0;
	const running = new Set<number>();
	for (let n = 0; n < runs; n++) running.add(n);
	const finished: number[] = [];
	const hiddenAgents = new Set<number>();
	const refusedAgents = new Set<number>();
	let active = true;
	let lagOn = false;
	let hangs = hang ? 1 : 0;
	const later: Array<{ atMinute: number; step: Step }> = [];
	if (setup.runningSinceMs && chance(b.missedAtActivation)) {
		// Activated by a step: a newer Run made 10 minutes before, and the activation poll's
		// answer leaves out Agent 0's Run made hours before, which finishes minutes later.
		setup.inactiveAtStart = true;
		const newer: Step = { do: 'create', agent: 0, createdAgoMs: 10 * MINUTE };
		if (chance(0.5)) newer.done = 'success';
		steps.push(newer);
		if (newer.done) finished.push(runs);
		else running.add(runs);
		runs++;
		steps.push({ do: 'missOnce', run: 0 }, { do: 'activate' });
		running.delete(0);
		finished.push(0);
		// At least a minute after activation: a Run finishing as the activation poll ends may
		// count as either side (run.ts), and real time would decide which.
		later.push({ atMinute: int(1, 4), step: { do: 'finish', run: 0, status: 'success' } });
	}
	/** A Run of `agent` still running (by index), taken out of `running`: it finishes now. */
	const takeRunning = (): number | undefined => {
		if (running.size === 0) return undefined;
		const run = pick([...running]);
		running.delete(run);
		finished.push(run);
		return run;
	};
	/** Single reads lag the list from now until `minutes` later. */
	const lagFor = (minute: number, ms: number, minutes: number) => {
		lagOn = true;
		steps.push({ do: 'readLag', ms });
		later.push({ atMinute: minute + minutes, step: { do: 'readLag', ms: 0 } });
	};
	const minutes = int(...b.minutes);
	for (let minute = 0; minute < minutes; minute++) {
		for (const due of later.filter((entry) => entry.atMinute === minute)) steps.push(due.step);
		if (minute === nearGiveUpAt) {
			// n8n down close to 3 days with Runs running: at the edge, or just past it.
			steps.push({ do: 'restart' });
			// n8n down close to 3 days, or 4 days (issue 42).
			steps.push({ do: 'wait', ms: 3 * DAY + pick([-2, -1, 1, 2, 24]) * HOUR });
			if (!lagOn && running.size > 0 && chance(b.lagAfterPause)) {
				// A Run pending across it finishes just before the first poll after it, while
				// single reads still say running (the list: finished).
				lagFor(minute, (setup.pollMinutes ?? 1) * MINUTE + int(60, 180) * 1000, int(2, 4));
				steps.push({ do: 'finish', run: takeRunning() as number, status: 'success' });
			}
		}
		if (chance(m.create)) {
			const step: Step = { do: 'create', agent: int(0, agents - 1) };
			if (chance(0.35)) step.done = chance(0.8) ? 'success' : 'failed';
			if (burstsLeft > 0 && chance(b.slowBurst)) {
				burstsLeft--;
				step.count = int(b.slowBurstMin, b.slowBurstMax);
				if (chance(0.8)) step.done = 'success';
			} else if (chance(m.burst)) step.count = int(2, m.burstMax);
			if (chance(m.lateListing)) {
				const edge = random();
				step.lateMs =
					edge < 0.1
						? m.maxLateMs
						: edge < 0.2
							? m.maxLateMs + int(1, 300) * 1000
							: int(1, m.maxLateMs / MINUTE) * MINUTE - int(0, 59) * 1000;
				// A late Run whose `created` is older than the step: listed soon after it.
				if (chance(0.5)) step.createdAgoMs = Math.max(0, step.lateMs - int(0, 3) * MINUTE);
			}
			if (chance(m.stampedAhead)) step.aheadMs = m.aheadMs;
			else if (chance(m.badCreated)) step.badCreated = true;
			steps.push(step);
			for (let n = 0; n < (step.count ?? 1); n++) {
				if (!step.done) running.add(runs);
				else finished.push(runs);
				runs++;
			}
		}
		if (running.size > 0 && chance(m.finish)) {
			const run = pick([...running]);
			running.delete(run);
			finished.push(run);
			const roll = random();
			const status = roll < 0.75 ? 'success' : roll < 0.95 ? 'failed' : 'cancelled';
			steps.push({ do: 'finish', run, status });
		}
		if (running.size > 0 && chance(m.readFail))
			steps.push({
				do: 'readFail',
				run: pick([...running]),
				// A 5xx's retries wait in real time: mostly 429s, answered with Retry-After 0.
				status: pick([500, 503, 429, 429, 429] as const),
				times: int(1, 14),
			});
		if (chance(m.listFail))
			steps.push({
				do: 'listFail',
				agent: int(0, agents - 1),
				status: pick([500, 429, 429] as const),
				times: int(1, 8),
			});
		if (runs > 0 && chance(m.deleteWhileRead))
			steps.push({ do: 'deleteWhileRead', run: int(0, runs - 1) });
		if (chance(m.listOrderChange))
			steps.push({
				do: 'listOrder',
				order: pick(['newest-first', 'oldest-first', 'random'] as const),
			});
		if (chance(m.clockStep))
			steps.push({
				do: 'clockStep',
				ms: pick([-1, -1, -1, 1]) * int(1, b.skewBoundMs / 1000) * 1000,
			});
		if (runs > 0 && chance(slow ? b.slowDelete : m.delete)) {
			const run = int(0, runs - 1);
			running.delete(run);
			steps.push({ do: 'delete', run });
		}
		// A lagging list leaves out a finished Run, or (a third of the time) a running one.
		if (runs > 0 && chance(m.missOnce))
			steps.push({
				do: 'missOnce',
				run:
					running.size > 0 && (finished.length === 0 || chance(0.33))
						? pick([...running])
						: finished.length > 0
							? pick(finished)
							: int(0, runs - 1),
			});
		if (running.size > 0 && setup.includeFullRun && chance(m.read404))
			steps.push({ do: 'read404', run: pick([...running]) });
		if (hangs > 0 && running.size > 0 && chance(0.3)) {
			hangs--;
			steps.push({ do: 'readHang', run: pick([...running]) });
		}
		if (!lagOn && chance(m.readLag)) {
			lagOn = true;
			steps.push({ do: 'readLag', ms: int(1, m.maxReadLagMs / 1000) * 1000 });
			later.push({ atMinute: minute + int(2, 6), step: { do: 'readLag', ms: 0 } });
		}
		if (later.some((entry) => entry.atMinute <= minute && entry.step.do === 'readLag'))
			lagOn = false;
		if (chance(m.skew)) {
			const bound = chance(m.wideSkew) ? b.skewBoundMs : MINUTE;
			steps.push({ do: 'skew', ms: int(-bound / 1000, bound / 1000) * 1000 });
		}
		if (all && agents < setup.agents + 2 && chance(m.addAgent)) {
			steps.push({ do: 'addAgent' });
			const added = agents++;
			if (chance(b.refusedWhenAdded)) {
				// Refused right after the poll that first lists it, for over an hour (issue 42: 72
				// minutes), with a Run made on it right after that first listing.
				refusedAgents.add(added);
				steps.push({ do: 'refuse', agent: added, status: 403 });
				const made: Step = { do: 'create', agent: added };
				if (chance(0.5)) made.done = 'success';
				if (made.done) finished.push(runs);
				else running.add(runs);
				runs++;
				later.push(
					{ atMinute: minute + 1, step: made },
					{ atMinute: minute + 1, step: { do: 'wait', ms: int(61, 90) * MINUTE } },
					{ atMinute: minute + 1, step: { do: 'allow', agent: added } },
				);
			}
		}
		if (all && chance(m.hide)) {
			const agent = int(0, agents - 1);
			if (!hiddenAgents.has(agent)) {
				hiddenAgents.add(agent);
				steps.push({ do: 'hide', agent });
				const showAt = minute + int(1, 8);
				if (chance(m.hideLong)) {
					steps.push({ do: 'wait', ms: pick([29 * DAY, 30 * DAY + 2 * HOUR, 31 * DAY]) });
					if (!lagOn && running.size > 0 && chance(b.lagAfterPause)) {
						// A Run pending across the month finishes as the Agent is listed again,
						// while single reads still say running.
						lagFor(
							minute,
							(showAt - minute + 2) * MINUTE + (setup.pollMinutes ?? 1) * MINUTE,
							showAt - minute + 2,
						);
						later.push({
							atMinute: showAt,
							step: { do: 'finish', run: takeRunning() as number, status: 'success' },
						});
					}
				}
				later.push({ atMinute: showAt, step: { do: 'show', agent } });
			}
		}
		if (all && chance(m.refuse)) {
			const agent = int(0, agents - 1);
			if (!refusedAgents.has(agent)) {
				refusedAgents.add(agent);
				steps.push({ do: 'refuse', agent, status: pick([403, 404, 500]) });
				if (!chance(m.refuseForGood))
					later.push({ atMinute: minute + int(1, 8), step: { do: 'allow', agent } });
			}
		}
		if (all && agents > 1 && chance(m.deleteAgent))
			steps.push({ do: 'deleteAgent', agent: int(0, agents - 1) });
		if (chance(m.restart)) steps.push({ do: 'restart' });
		if (active && chance(m.deactivate)) {
			steps.push({ do: 'deactivate' });
			active = false;
			// While inactive: Runs go on finishing, no poll.
			const long = chance(m.longInactive);
			steps.push({ do: 'wait', ms: long ? 4 * DAY : int(5, 120) * MINUTE });
			const lagging = long && !lagOn && running.size > 0 && chance(b.lagAfterPause);
			// A Run pending across a 4-day pause finishing just before the re-activation, while
			// single reads still say running.
			if (lagging) lagFor(minute, int(2, 4) * MINUTE, int(2, 4));
			if (running.size > 0)
				steps.push({ do: 'finish', run: takeRunning() as number, status: 'success' });
			steps.push({ do: 'wait', ms: lagging ? MINUTE : int(1, 60) * MINUTE });
			steps.push({ do: 'activate' });
			active = true;
			continue;
		}
		steps.push({ do: 'wait', ms: chance(m.longGap) ? int(10, 90) * MINUTE : pollWait });
		const poll: Step = { do: 'poll' };
		if (durable) {
			if (chance(m.mainB)) poll.main = 'B';
			if (chance(m.lateSave)) poll.late = true;
			else if (chance(m.dropped)) poll.drop = true;
		}
		steps.push(poll);
	}
	// What was put off past the end still happens (an Agent shown again, the lag ended).
	for (const due of later.filter((entry) => entry.atMinute >= minutes)) steps.push(due.step);
	return { seed, setup, steps };
}

/**
 * Shrinks a failing schedule: removes runs of steps (halves, then smaller), then simplifies the
 * setup and the steps one by one, keeping each change while `fails` still says it fails.
 * `budget` bounds the attempts.
 */
export async function shrinkSchedule(
	schedule: Schedule,
	fails: (candidate: Schedule) => Promise<boolean>,
	budget = 150,
): Promise<{ schedule: Schedule; attempts: number }> {
	let best = schedule;
	let attempts = 0;
	const tryOne = async (candidate: Schedule) => {
		if (attempts >= budget) return false;
		attempts++;
		if (await fails(candidate)) {
			best = candidate;
			return true;
		}
		return false;
	};
	// Steps: remove chunks, from half the list down to one step.
	for (
		let size = Math.max(1, Math.floor(best.steps.length / 2));
		size >= 1;
		size = Math.floor(size / 2)
	) {
		for (let start = 0; start < best.steps.length && attempts < budget; ) {
			const steps = [...best.steps.slice(0, start), ...best.steps.slice(start + size)];
			if (!(await tryOne({ ...best, steps }))) start += size;
		}
		if (size === 1) break;
	}
	// Setup: the plainest values that still fail.
	const plainer: Array<Partial<ScheduleSetup>> = [
		{ scheduler: 'memory' },
		{ listOrder: 'newest-first' },
		{ counter: 'made' },
		{ onReactivation: 'emit' },
		{ includeFullRun: true },
		{ pollMinutes: undefined },
		{ statuses: undefined },
		{ runningAtActivation: false },
		{ history: 0 },
		{ history: Math.min(best.setup.history, 3) },
		{ agents: 1 },
		{ agents: Math.max(1, best.setup.agents - 1) },
		{ scope: 'all' },
	];
	for (const change of plainer) {
		if (
			Object.entries(change).every(
				([key, value]) => best.setup[key as keyof ScheduleSetup] === value,
			)
		)
			continue;
		await tryOne({ ...best, setup: { ...best.setup, ...change } });
	}
	// Steps: plainer values (a poll on main A without hazards, a minute's wait).
	for (let index = 0; index < best.steps.length && attempts < budget; index++) {
		const step = best.steps[index];
		let simpler: Step | undefined;
		if (step.do === 'poll' && (step.main || step.late || step.drop)) simpler = { do: 'poll' };
		else if (step.do === 'wait' && step.ms > MINUTE) simpler = { do: 'wait', ms: MINUTE };
		else if (step.do === 'create' && (step.lateMs || step.done))
			simpler = { do: 'create', agent: step.agent };
		if (simpler) {
			const steps = [...best.steps];
			steps[index] = simpler;
			await tryOne({ ...best, steps });
		}
	}
	return { schedule: best, attempts };
}
