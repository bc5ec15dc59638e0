/**
 * A schedule for the Extraction Agents Trigger's model-based test (issue 28, item 12): what
 * happens at the service, to n8n and between them, step by step, as plain JSON so that a
 * failing schedule printed by the generator can be pasted into `replays.ts` and run again.
 *
 * Time: one simulated clock is n8n's (Date.now); the service's is it plus a skew
 * (`skew` steps, within SKEW_BOUND_MS). Requests cost `requestCostMs` of simulated time each,
 * so the poll budget is spent the same way on any machine; only a hanging read costs real time.
 * Agents are named by their index in the schedule (0 … setup.agents − 1, then those `addAgent`
 * made, in order); Runs by their index among the `create` steps.
 */

/**
 * The largest skew between n8n's clock and the service's that generated schedules use: the
 * clock margin docs/design/trigger-rules.md allows ("The trigger allows 5 minutes either way").
 */
export const SKEW_BOUND_MS = 5 * 60_000;

export interface ScheduleSetup {
	/** What the trigger watches: one Agent (Agent 0) or every Agent the key sees. */
	scope: 'one' | 'all';
	/** Agents there at the start. */
	agents: number;
	/** Finished Runs per Agent before the first activation (history, never emitted). */
	history: number;
	/** A Run of the history per Agent still running at activation (emitted when it finishes). */
	runningAtActivation?: boolean;
	/** How long before activation those Runs were made (default 30 minutes; up to hours). */
	runningSinceMs?: number;
	listOrder: 'oldest-first' | 'newest-first' | 'random';
	/** What an Agent's `n_runs` counts (the emulator's agentRunCounter). */
	counter: 'made' | 'existing' | 'absent';
	/**
	 * How n8n runs the polls: its in-memory poller (the state is saved whenever a poll changed
	 * it, one main), or 2.41's durable scheduler (only an emitting poll saves; any main may take a
	 * poll; an emitting poll's save may land late or be dropped; a poll past the timeout is
	 * abandoned).
	 */
	scheduler: 'memory' | 'durable';
	onReactivation: 'emit' | 'skip';
	includeFullRun: boolean;
	/** What getPollBudgetMs() answers (simulated ms). */
	budgetMs: number;
	/** Simulated time one request takes. */
	requestCostMs: number;
	/** The trigger's Request Timeout option (seconds). */
	requestTimeoutSeconds: number;
	/** The schedule's first `activate` step is the first activation (else: activated before the first step). */
	inactiveAtStart?: boolean;
	/** Poll Times: every this many minutes (default 1); `wait` steps between polls are as long. */
	pollMinutes?: number;
	/** Trigger On (default: success and failed). */
	statuses?: Array<'success' | 'failed' | 'other'>;
}

export type Step =
	/** A Run made on an Agent; it runs until a `finish` step unless `done` (finished at once). */
	| {
			do: 'create';
			agent: number;
			done?: 'success' | 'failed';
			/** Listed this long after its `created` time (a slow upload). */
			lateMs?: number;
			/** Its `created` as the service reports it is this far ahead (a host's clock). */
			aheadMs?: number;
			/** Its `created` does not parse. */
			badCreated?: boolean;
			/** That many such Runs at once, 10 ms apart (default 1). */
			count?: number;
			/** Its `created` is this long before the step (with lateMs: listed lateMs after that). */
			createdAgoMs?: number;
			/** Its `created` is that Run's plus `ms` (to the millisecond: a bound's exact edge). */
			createdRelativeTo?: { run: number; ms: number };
	  }
	/** `cancelled`: a final status the trigger does not know (Trigger On's "other"). */
	| { do: 'finish'; run: number; status: 'success' | 'failed' | 'cancelled' }
	| { do: 'delete'; run: number }
	/** A poll, taken by main A (default) or B; `late`: it loads the state from before the last save; `drop`: n8n drops its result. */
	| { do: 'poll'; main?: 'A' | 'B'; late?: boolean; drop?: boolean }
	| { do: 'wait'; ms: number }
	/** The service's clock is this far from n8n's from now on. */
	| { do: 'skew'; ms: number }
	/** The next answer of the Run's Agent's list leaves it out. */
	| { do: 'missOnce'; run: number }
	/** Single reads show Runs as they were this long ago (0: off). */
	| { do: 'readLag'; ms: number }
	/** The Run's next single read answers 404 (a proxy, a deploy). */
	| { do: 'read404'; run: number }
	/** The Run's next 4 single reads (a read and its retries) never answer (until the client gives up). */
	| { do: 'readHang'; run: number }
	/**
	 * The Run's next `times` single reads answer this status (a 5xx beyond its retries, or a 429
	 * with Retry-After 0).
	 */
	| { do: 'readFail'; run: number; status: 500 | 503 | 429; times: number }
	/**
	 * The next `times` reads of the Agent's Run list (the `run_id` list among them) answer this
	 * status; with `afterReads`, those after the next that many reads.
	 */
	| { do: 'listFail'; agent: number; status: 500 | 429; times: number; afterReads?: number }
	/** The Run is deleted right after the next page of its Agent's list is read (between two page reads). */
	| { do: 'deleteWhileRead'; run: number }
	/** The service's list order from now on. */
	| { do: 'listOrder'; order: 'oldest-first' | 'newest-first' | 'random' }
	/** n8n's clock steps by this much (NTP correcting a host; negative: back); the service's does not. */
	| { do: 'clockStep'; ms: number }
	/** n8n restarts with the workflow active: every main's memory is gone. */
	| { do: 'restart' }
	| { do: 'deactivate' }
	/**
	 * Activation (the activation poll runs on main A). `whileOldPollRuns`: a poll of the
	 * activation before is still running (started now on main A, its result dropped as n8n
	 * drops a deactivated workflow's) when the activation poll lands.
	 */
	| { do: 'activate'; whileOldPollRuns?: boolean }
	| { do: 'addAgent' }
	/** Left out of GET /agents (moved away) / listed again. */
	| { do: 'hide'; agent: number }
	| { do: 'show'; agent: number }
	/** Its Run list answers this status (403: refused) / answers again. */
	| { do: 'refuse'; agent: number; status: number }
	| { do: 'allow'; agent: number }
	/** Deleted: no longer listed, its Runs answer 404. */
	| { do: 'deleteAgent'; agent: number };

export interface Schedule {
	/** The seed the generator made it from (absent: written by hand). */
	seed?: number;
	setup: ScheduleSetup;
	steps: Step[];
}

/** A schedule kept in the replay list, named for what it shows. */
export interface NamedSchedule extends Schedule {
	name: string;
	/** Why it is kept: the item, or what the generator found. */
	why: string;
	/** A cost bound as well: no poll after the activation poll makes more requests than this. */
	maxRequestsPerPoll?: number;
	/**
	 * Runs (by index) this replay shows are never emitted, where the oracle, judging every
	 * schedule alike, allows it ("may").
	 */
	neverEmitted?: number[];
}

export const DEFAULT_SETUP: ScheduleSetup = {
	scope: 'all',
	agents: 2,
	history: 3,
	listOrder: 'newest-first',
	counter: 'made',
	scheduler: 'memory',
	onReactivation: 'emit',
	includeFullRun: true,
	budgetMs: 36_000,
	requestCostMs: 50,
	requestTimeoutSeconds: 60,
};

/** Which hazards a schedule uses (for the soak's tally). */
export function hazardsOf(schedule: Schedule): string[] {
	const found = new Set<string>();
	const { setup } = schedule;
	if (setup.scope === 'one') found.add('one Agent');
	if (setup.listOrder !== 'newest-first') found.add(`list ${setup.listOrder}`);
	if (setup.counter !== 'made') found.add(`n_runs ${setup.counter}`);
	if (setup.scheduler === 'durable') found.add('durable scheduler');
	if (setup.onReactivation === 'skip') found.add('Skip Them');
	if (!setup.includeFullRun) found.add('no full read');
	if (setup.runningAtActivation)
		found.add(
			(setup.runningSinceMs ?? 0) > 60 * 60_000
				? 'Run running at activation, made hours before'
				: 'Run running at activation',
		);
	if ((setup.pollMinutes ?? 1) !== 1) found.add(`Poll Times every ${setup.pollMinutes} min`);
	if (setup.statuses) found.add(`Trigger On ${setup.statuses.join('+')}`);
	if (setup.agents > 5) found.add('more than 5 Agents');
	// Fewer than five requests fit in the 60% of the budget a poll starts requests in.
	if (setup.requestCostMs * 5 > setup.budgetMs * 0.6) found.add('slow service (budget carry-over)');
	for (const [index, step] of schedule.steps.entries()) {
		switch (step.do) {
			case 'create':
				if (step.lateMs) found.add('Run listed late');
				if (step.aheadMs) found.add('Run stamped ahead');
				if (step.badCreated) found.add('created unparseable');
				if ((step.count ?? 1) > 200 && setup.requestCostMs * 5 > setup.budgetMs * 0.6)
					found.add('hundreds of Runs at once on a slow service');
				if ((step.count ?? 1) > 100) found.add('many Runs at once');
				else if ((step.count ?? 1) > 1) found.add('burst of Runs');
				if ((step.lateMs ?? 0) > 50 * 60_000) found.add('Run listed 50-60 min late');
				if ((step.lateMs ?? 0) > 60 * 60_000) found.add('Run listed past 60 min');
				break;
			case 'poll':
				if (step.main === 'B') found.add('main B');
				if (step.late) found.add('save landing late');
				if (step.drop) found.add('result dropped');
				break;
			case 'delete':
				found.add('Run deleted');
				if (setup.requestCostMs * 5 > setup.budgetMs * 0.6)
					found.add('Run deleted between the polls of a read cut by the budget');
				break;
			case 'wait':
				if (
					step.ms >= 2 * 86_400_000 &&
					schedule.steps
						.slice(index + 1, index + 4)
						.some((next) => next.do === 'readLag' && next.ms > 0)
				)
					found.add('single read lagging after a pause of days');
				if (step.ms >= 3 * 86_400_000) found.add('inactive/down > 3 days');
				else if (step.ms >= 2 * 86_400_000) found.add('a Run running near 3 days');
				if (step.ms >= 29 * 86_400_000) found.add('Agent hidden near 30 days');
				break;
			case 'skew':
				if (step.ms !== 0)
					found.add(Math.abs(step.ms) > 60_000 ? 'clock skew > 1 min' : 'clock skew');
				break;
			case 'readFail':
				found.add(`single read ${step.status}`);
				break;
			case 'listFail':
				found.add(`Run list ${step.status}`);
				break;
			case 'readLag':
				if (step.ms > 0) found.add('single read lagging');
				break;
			case 'missOnce':
				found.add('list missing a Run once');
				// Before the first activation: the activation poll's answer leaves it out.
				if (
					setup.inactiveAtStart &&
					!schedule.steps.slice(0, index).some((before) => before.do === 'activate')
				)
					found.add("activation poll's answer leaving out a Run");
				break;
			case 'refuse':
				found.add('Agent refused');
				if (schedule.steps[index - 1]?.do === 'addAgent')
					found.add('Agent refused right after it is first listed');
				break;
			case 'finish':
				if (step.status === 'cancelled') found.add('status other');
				break;
			case 'activate':
				if (step.whileOldPollRuns) found.add('activation during an older poll');
				break;
			default:
				found.add(
					{
						read404: 'single read 404 once',
						readHang: 'single read hanging',
						restart: 'restart',
						deactivate: 'deactivation',
						activate: 'activation',
						addAgent: 'Agent added',
						hide: 'Agent hidden',
						show: 'Agent hidden',
						allow: 'Agent refused',
						deleteAgent: 'Agent deleted',
						deleteWhileRead: 'Run deleted between page reads',
						listOrder: 'list order changing',
						clockStep: "n8n's clock stepping",
					}[step.do],
				);
		}
	}
	found.delete('activation');
	return [...found].sort();
}
