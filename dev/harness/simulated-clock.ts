/**
 * Simulated time for n8n and the emulator together, without jest (the model's schedules also
 * run from the soak's command line, and the benchmarks use it).
 *
 * Two clocks move: the wall clock (Date.now), which the trigger reads for times it compares
 * with the service's and stores, and which the emulator reads too (plus its own advanceTime
 * offset); and the elapsed-time clock (performance.now), which the trigger reads for how long
 * it has waited within its process and which no one can set. `advance` is time passing: both
 * move. `step` is n8n's wall clock being set (NTP correcting a host): only Date.now moves.
 */
export interface SimulatedClock {
	/** Time passes: n8n's wall clock and its elapsed-time clock move by `ms`. */
	advance(ms: number): void;
	/** n8n's wall clock is set `ms` forward (negative: back); no time passes. */
	step(ms: number): void;
	/** Puts the real clocks back. */
	restore(): void;
}

// The real clocks as they were when this module loaded: a schedule left running by a test
// that timed out must not hand its simulated clock to the next one as the real clock.
const REAL_NOW = Date.now;
const REAL_ELAPSED = performance.now.bind(performance);

/** Real milliseconds since an arbitrary start, whatever clock a schedule simulates. */
export function realElapsedMs(): number {
	return REAL_ELAPSED();
}

/**
 * Installs the simulated clocks. With `standStill`, time does not pass on its own: only
 * advance() moves it (a benchmark whose polls must take no simulated time).
 */
export function simulatedClock({ standStill = false } = {}): SimulatedClock {
	let wallOffset = 0;
	let elapsedOffset = 0;
	const wallStart = REAL_NOW();
	const elapsedStart = REAL_ELAPSED();
	Date.now = standStill ? () => wallStart + wallOffset : () => REAL_NOW() + wallOffset;
	performance.now = standStill
		? () => elapsedStart + elapsedOffset
		: () => REAL_ELAPSED() + elapsedOffset;
	return {
		advance: (ms) => {
			wallOffset += ms;
			elapsedOffset += ms;
		},
		step: (ms) => {
			wallOffset += ms;
		},
		restore: () => {
			Date.now = REAL_NOW;
			performance.now = REAL_ELAPSED;
		},
	};
}
