/**
 * The soak's simulated-time part (issue 21): the All Agents trigger, polled once a simulated
 * minute, with the hazards that need hours of service time to show:
 *  - Runs listed late, up to 30 minutes after their `created` time;
 *  - single reads (Include Full Run) that lag the list by 2 minutes;
 *  - Agents whose Run list fails (500, 403, 404) for a few polls;
 *  - the counter-based skip on, with `n_runs` counting the Runs an Agent has now, and a Run
 *    made and an emitted one deleted on the same Agent between two polls (the counter does not
 *    move: only the hourly sweep finds that Run);
 *  - random faults on every request.
 * n8n's clock and the emulator's move together (both read Date.now); nothing else runs
 * meanwhile, so no wait of the action node is cut short. Judge: every Run made is emitted
 * exactly once.
 */
import { startEmulator, type Emulator, type FaultKind } from '../../dev/emulator';
import { createPoller, simulatedClock } from '../../dev/harness';
import { mulberry32 } from '../../dev/emulator/random';

export interface SimulatedSoakOptions {
	/** Simulated minutes of new Runs (then up to 90 more to drain). */
	minutes: number;
	agents: number;
	seed: number;
	faultRate: number;
}

export interface SimulatedSoakReport {
	minutes: number;
	polls: number;
	failedPolls: number;
	agents: number;
	runsMade: number;
	listedLate: number;
	latestListingMinutes: number;
	madeAndDeletedPairs: number;
	failingListPolls: number;
	faultsInjected: number;
	/** Requests of the polls in which no Run was made, per poll (mean). */
	requestsPerQuietPoll: number;
	emitted: number;
	duplicates: number;
	missed: number;
	unexpected: number;
	drainMinutes: number;
}

const MINUTE = 60_000;
const FAULT_KINDS: FaultKind[] = ['500', '502', '503', 'reset', 'truncated-json'];

async function agentsOfDave(emulator: Emulator, count: number): Promise<number[]> {
	const agents = [5];
	for (let n = 1; n < count; n++) {
		const response = await fetch(`${emulator.apiUrl}/agents/5/copy`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${emulator.keys.dave}`,
				'Content-Type': 'application/json',
			},
			body: JSON.stringify({ name: `simulated ${n}` }),
		});
		agents.push(((await response.json()) as { id: number }).id);
	}
	return agents;
}

export async function runSimulatedSoak(
	options: SimulatedSoakOptions,
): Promise<SimulatedSoakReport> {
	const random = mulberry32(options.seed);
	const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)];
	const emulator = await startEmulator({
		logErrors: false,
		seed: options.seed,
		agentRunCounter: 'existing',
		singleReadLagMs: 2 * MINUTE,
		listOrder: 'oldest-first',
	});
	const clock = simulatedClock();
	try {
		const agents = await agentsOfDave(emulator, options.agents);
		for (const agentId of agents)
			emulator.addHistoricalRuns(agentId, 120, {
				createdBefore: emulator.now() - 3 * 60 * MINUTE,
				spacingMs: 5 * MINUTE,
			});
		const poller = createPoller({
			parameters: {
				agentScope: 'all',
				statuses: ['success', 'failed'],
				simplify: false,
				options: { includeFullRun: true, requestTimeout: 2 },
			},
			credentials: { apiKey: emulator.keys.dave, baseUrl: emulator.url },
		});
		if ((await poller.poll()) !== null) throw new Error('activation emitted something');
		Object.assign(emulator.knobs, { faultRate: options.faultRate, faultKinds: FAULT_KINDS });

		const made = new Set<number>();
		const emitted: number[] = [];
		const stillThere = new Map<number, number>(); // emitted Run → its Agent, for deletes
		const failingUntil = new Map<number, number>(); // Agent → last failing poll
		const report = {
			listedLate: 0,
			latestListingMinutes: 0,
			madeAndDeletedPairs: 0,
			failingListPolls: 0,
			failedPolls: 0,
		};
		const quietPollRequests: number[] = [];
		let poll = 0;
		const pollOnce = async (madeThisMinute: boolean) => {
			poll++;
			const failing: Record<number, number> = {};
			for (const [agentId, until] of failingUntil) {
				if (until >= poll) failing[agentId] = pick([500, 403, 404]);
				else failingUntil.delete(agentId);
			}
			emulator.knobs.failingRunLists = failing;
			if (Object.keys(failing).length > 0) report.failingListPolls++;
			const seq = emulator.lastSeq;
			try {
				for (const item of (await poller.poll())?.[0] ?? []) {
					const runId = Number(item.json.run_id);
					emitted.push(runId);
					stillThere.set(runId, Number(item.json.agent_id));
				}
			} catch {
				report.failedPolls++; // the next poll emits what this one would have
			}
			if (!madeThisMinute) quietPollRequests.push(emulator.requestsSince(seq).length);
		};

		for (let minute = 0; minute < options.minutes; minute++) {
			const start = emulator.now();
			const newRuns = random() < 0.5 ? 0 : 1 + Math.floor(random() * 3);
			for (let n = 0; n < newRuns; n++) {
				const createdAt = start + Math.floor(random() * MINUTE);
				const late = random() < 0.25 ? Math.floor(random() * 30 * MINUTE) : 0;
				const run = emulator.createRun(pick(agents), [{ name: `m${minute}-${n}.pdf` }], {
					createdAt,
					durationMs: 1_000 + Math.floor(random() * 5 * MINUTE),
					...(late > 0 ? { listedAt: createdAt + late } : {}),
				});
				made.add(Number(run.run_id));
				if (late > 0) {
					report.listedLate++;
					report.latestListingMinutes = Math.max(report.latestListingMinutes, late / MINUTE);
				}
			}
			// A Run made and an emitted one deleted on the same Agent: n_runs does not move.
			const emittedStill = [...stillThere.entries()];
			const paired = emittedStill.length > 0 && random() < 0.3;
			if (paired) {
				const [deleted, agentId] = pick(emittedStill);
				const run = emulator.createRun(agentId, [{ name: `pair-${minute}.pdf` }], {
					createdAt: start + Math.floor(random() * MINUTE),
					durationMs: 1_000,
				});
				made.add(Number(run.run_id));
				emulator.deleteRun(agentId, deleted);
				stillThere.delete(deleted);
				report.madeAndDeletedPairs++;
			}
			if (random() < 0.1) failingUntil.set(pick(agents), poll + 1 + Math.floor(random() * 5));
			clock.advance(MINUTE);
			await pollOnce(newRuns > 0 || paired);
		}

		// No more Runs, faults or failing lists: poll a minute apart until every Run made is
		// emitted (the sweep reaches every Agent within the hour), then once more.
		emulator.knobs.faultRate = 0;
		failingUntil.clear();
		let drainMinutes = 0;
		const done = () => [...made].every((id) => emitted.includes(id));
		while (drainMinutes < 90 && !done()) {
			clock.advance(MINUTE);
			drainMinutes++;
			await pollOnce(false);
		}
		clock.advance(MINUTE);
		await pollOnce(false);

		const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
		return {
			minutes: options.minutes,
			polls: poll,
			failedPolls: report.failedPolls,
			agents: agents.length,
			runsMade: made.size,
			listedLate: report.listedLate,
			latestListingMinutes: Math.round(report.latestListingMinutes * 10) / 10,
			madeAndDeletedPairs: report.madeAndDeletedPairs,
			failingListPolls: report.failingListPolls,
			faultsInjected: emulator.requestLog.filter((entry) => entry.fault).length,
			requestsPerQuietPoll: Math.round(mean(quietPollRequests) * 100) / 100,
			emitted: emitted.length,
			duplicates: emitted.length - new Set(emitted).size,
			missed: [...made].filter((id) => !emitted.includes(id)).length,
			unexpected: emitted.filter((id) => !made.has(id)).length,
			drainMinutes,
		};
	} finally {
		clock.restore();
		emulator.knobs.faultRate = 0;
		await emulator.stop();
	}
}

export function formatSimulatedSoak(report: SimulatedSoakReport): string[] {
	return [
		`Trigger on All Agents in simulated time: ${report.minutes} minutes of Runs, ${report.polls} polls a minute apart (${report.failedPolls} failed under faults); ${report.agents} Agents; counter-based skip on (n_runs counting the Runs there are); ${report.faultsInjected} requests faulted`,
		`  ${report.runsMade} Runs made: ${report.listedLate} listed late (the latest ${report.latestListingMinutes} min after its created time), ${report.madeAndDeletedPairs} made beside a delete on the same Agent (n_runs unchanged); single reads lagging the list by 2 min; an Agent's Run list failing in ${report.failingListPolls} polls`,
		`  emitted: ${report.emitted}, duplicates: ${report.duplicates}, missed: ${report.missed}, unexpected: ${report.unexpected}; ${report.drainMinutes} minutes to drain; ${report.requestsPerQuietPoll} requests per poll in minutes with no new Run`,
	];
}

export function simulatedSoakViolations(report: SimulatedSoakReport): string[] {
	const problems: string[] = [];
	if (report.duplicates)
		problems.push(`simulated-time trigger emitted ${report.duplicates} duplicates`);
	if (report.missed) problems.push(`simulated-time trigger missed ${report.missed} Runs`);
	if (report.unexpected)
		problems.push(`simulated-time trigger emitted ${report.unexpected} unexpected Runs`);
	return problems;
}
