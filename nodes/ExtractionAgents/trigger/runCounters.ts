import { LOOKBACK_MS, SWEEP_INTERVAL_MS, type AgentPollState } from './pollState';

/**
 * Whether an Agent's list need not be read this poll: its Run counter is where it was before
 * its last read, it has no pending Run, and its last read is less than SWEEP_INTERVAL_MS old.
 * The counter is a hint, never the proof (the API does not say what a delete does to it):
 * every Agent is still read once per interval, and a Run it reveals is emitted then.
 */
export function needsNoRead(
	previous: AgentPollState,
	counter: number | undefined,
	now: number,
): boolean {
	return (
		counter !== undefined &&
		previous.catchUp === undefined &&
		previous.recheckSince === undefined &&
		previous.nRuns === counter &&
		!(previous.owed !== undefined && previous.owed > 0) &&
		previous.pending.length === 0 &&
		previous.sweptAt !== undefined &&
		// A clock set back (a restore, another n8n main) must not put the sweep off.
		previous.sweptAt <= now &&
		now - previous.sweptAt < SWEEP_INTERVAL_MS
	);
}

/**
 * The Agent's state after a read of its list: the counter seen before the read, the Runs it
 * counted that the read did not find (`owed`: read again next poll; a Run found ahead of
 * its count, made during the read, pays for the next one, a delete pays for none), and when
 * it was read. An Agent read for the first time gets a read time spread over the interval by
 * its id, so that the sweeps of many Agents read together (activation, an upgrade) do not all
 * fall due on one poll.
 */
export function readAt(
	agentId: number,
	state: AgentPollState,
	counter: number | undefined,
	now: number,
	previous?: AgentPollState,
	discovered = 0,
): AgentPollState {
	const next: AgentPollState = { ...state };
	delete next.owed;
	delete next.owedSince;
	if (counter === undefined) delete next.nRuns;
	else next.nRuns = counter;
	const counted =
		counter !== undefined && previous?.nRuns !== undefined ? counter - previous.nRuns : 0;
	let owed = Math.max((previous?.owed ?? 0) + counted - discovered, -discovered);
	// Each Run counted is waited for LOOKBACK_MS from when it was counted: newly counted Runs
	// start the wait again (an older owed Run is then waited for longer, never shorter).
	const owedSince = counted > 0 ? now : (previous?.owedSince ?? now);
	// Never listed: the sweep goes on. A Run counted at owedSince is listed LOOKBACK_MS later at
	// most, so the first read past that should find it; that answer may still leave it out (a
	// list lagging for a moment), so the wait ends at the second read past it, as a Run left out
	// once is found by the next read (generated seed 20237: the one read due then missed it,
	// and the sweep's hour went by before the next).
	const readPastWait =
		previous?.knownUntil !== undefined && previous.knownUntil - owedSince > LOOKBACK_MS;
	if (owed > 0 && now - owedSince > LOOKBACK_MS && readPastWait) owed = 0;
	if (owed !== 0) next.owed = owed;
	if (owed > 0) next.owedSince = owedSince;
	// A fixed share of the interval per Agent (its id, scrambled): spread, and reproducible;
	// under 95%, so that no Agent falls due again within minutes of its first read.
	const phase = ((Math.imul(agentId, 2_654_435_761) >>> 0) % 950) / 1000;
	next.sweptAt =
		previous?.sweptAt === undefined ? now - Math.floor(phase * SWEEP_INTERVAL_MS) : now;
	next.knownUntil = now;
	return next;
}
