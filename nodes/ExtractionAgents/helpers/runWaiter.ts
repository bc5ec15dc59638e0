import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { sleepUnlessCancelled } from '../transport/cancellation';
import { serviceRequest } from '../transport/serviceRequest';
import { fetchRun, flattenRunList, isRunFinished, type Run } from './runs';
import { requestTimeoutMs } from './requestTimeoutOption';
import { REPORT_PROBLEM_URL } from './reportLink';

/**
 * How often a waiting Run is read: every 10 % of its age, at least every second, so a
 * Run is reported at most max(1 s, 10 % of its duration) after it finishes (plus one
 * read's round trip). Checks come up to 10 % early at random, never late, so Runs
 * created together do not stay in lockstep.
 */
export const WAIT_SCHEDULE = {
	minIntervalMs: 1000,
	shareOfAge: 0.1,
	earlyJitter: 0.1,
	/** How often the one loop looks for Runs due a check or past their timeout. */
	tickMs: 200,
	/** Status reads in flight at once, whatever the number of Runs waited for. */
	maxReadsInFlight: 8,
	/**
	 * With two or more Runs of one Agent waited for, one page of the Agent's Run list shows
	 * the status of them all; a Run is then read singly only once the list shows it finished
	 * (for its full results) or when the list does not show it. Off = every Run read singly
	 * (what `npm run bench` compares against).
	 */
	statusFromRunList: true,
	/**
	 * A list read checks every Run of the batch at once, so the more Runs it covers the more
	 * often it is read: every second for 8 Runs, every 250 ms from 32 on (a Run is then
	 * reported within a quarter of a second of finishing, at a fraction of a request per Run).
	 */
	minListIntervalMs: (waiting: number) => Math.min(1000, Math.max(250, (8 * 1000) / waiting)),
	/** The page asked for: room for the Runs waited for and as many others created meanwhile. */
	runListPageSize: (waiting: number) => Math.min(1000, 2 * waiting + 50),
	/** Lists in a row that showed none of the Runs waited for before the Agent is read Run by Run. */
	runListMissesAllowed: 2,
};

/**
 * A signal that fires when either fires. Written out rather than AbortSignal.any, which
 * Node.js has only from 20.3 (n8n does not enforce the package's `engines`).
 */
function eitherSignal(first: AbortSignal, second: AbortSignal | undefined): AbortSignal {
	if (!second) return first;
	if (first.aborted) return first;
	if (second.aborted) return second;
	const either = new AbortController();
	const abort = () => either.abort();
	first.addEventListener('abort', abort, { once: true });
	second.addEventListener('abort', abort, { once: true });
	return either.signal;
}

/** The Run's identity, put on every error the wait ends with so a workflow can route it. */
export function runErrorFields(run: Run): IDataObject {
	return {
		run_id: run.run_id,
		agent_id: run.agent_id,
		run_url: run.run_url ?? null,
		status: run.status,
	};
}

/** Fields for the error item of a failed item (see router.ts), kept on the error's context. */
export function attachErrorItemFields<E extends NodeApiError | NodeOperationError>(
	error: E,
	fields: IDataObject,
): E {
	error.context.errorItemFields = fields;
	return error;
}

/**
 * Whether a failed check on a Run being waited for is worth checking again: the
 * service or the network had a moment (5xx, 429 beyond its retries, a timeout, a
 * dropped connection, an answer cut off). A 4xx such as 401 or 404 (the Run was
 * deleted) ends the wait at once.
 */
function isPassingFailure(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return !error.httpCode || status === 429 || status >= 500;
}

function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
	return `${seconds} seconds`;
}

interface WaitingRun {
	run: Run;
	itemIndex: number;
	timeoutMs: number;
	startedMs: number;
	deadlineMs: number;
	nextCheckMs: number;
	reading: boolean;
	/** The Run list showed it finished, or did not show it: the next check is a single read. */
	readSingly: boolean;
	lastFailure?: Error;
	resolve(run: Run): void;
	reject(error: Error): void;
}

/**
 * Waits for every Run of one execution in a single loop: each tick reads the Runs due
 * a check (one read per Run at most, a bounded number at once), and each item's
 * promise settles when its Run is final, its Timeout passes, the execution is
 * cancelled or the batch stops. The loop runs only while some Run is waited for.
 */
export class RunWaiter {
	private readonly waiting = new Set<WaitingRun>();

	/** Per Agent: whether its Run list is being read, and how many lists in a row missed. */
	private readonly runLists = new Map<number, { listing: boolean; misses: number }>();

	private looping = false;

	private readsInFlight = 0;

	private loopSignal: AbortSignal | undefined;

	constructor(
		private readonly context: IExecuteFunctions,
		/** The execution's cancel signal. */
		private readonly cancelSignal: AbortSignal | undefined,
		/** Fires when the batch stops early (another item failed without Continue On Fail). */
		private readonly stopSignal: AbortSignal,
		/** The error an item gets when the batch stopped before its Run finished. */
		private readonly stoppedError: (run: Run, itemIndex: number) => Error,
	) {}

	waitFor(run: Run, options: { timeoutMs: number; itemIndex: number }): Promise<Run> {
		if (isRunFinished(run)) return Promise.resolve(run);
		return new Promise<Run>((resolve, reject) => {
			const now = Date.now();
			const entry: WaitingRun = {
				run,
				itemIndex: options.itemIndex,
				timeoutMs: options.timeoutMs,
				startedMs: now,
				deadlineMs: now + options.timeoutMs,
				nextCheckMs: now,
				reading: false,
				readSingly: false,
				resolve,
				reject,
			};
			entry.nextCheckMs = now + this.intervalMs(entry, now);
			this.waiting.add(entry);
			if (!this.looping) {
				this.looping = true;
				// The loop settles every wait, so an error in it must too: otherwise Timeout
				// and Cancel stop working and the execution hangs.
				this.loop().catch((error: unknown) => this.failEveryWait(error));
			}
		});
	}

	private intervalMs(entry: WaitingRun, now: number): number {
		const agentId = Number(entry.run.agent_id);
		const interval = Math.max(
			this.listsRunsOf(agentId)
				? WAIT_SCHEDULE.minListIntervalMs(this.waitingFor(agentId).length)
				: WAIT_SCHEDULE.minIntervalMs,
			(now - entry.startedMs) * WAIT_SCHEDULE.shareOfAge,
		);
		return interval * (1 - Math.random() * WAIT_SCHEDULE.earlyJitter);
	}

	private async loop(): Promise<void> {
		// One combined signal per waiter, whatever the number of times the loop starts.
		this.loopSignal ??= eitherSignal(this.stopSignal, this.cancelSignal);
		const signal = this.loopSignal;
		for (;;) {
			if (signal.aborted) {
				for (const entry of [...this.waiting]) this.settle(entry, this.interruptedError(entry));
			}
			const now = Date.now();
			for (const entry of [...this.waiting]) {
				if (now >= entry.deadlineMs) this.settle(entry, this.timeoutError(entry));
			}
			this.startDueChecks(now);
			// Decided in the same synchronous step as the last settle, so that a Run
			// added after this point starts a new loop.
			if (this.waiting.size === 0) {
				this.looping = false;
				return;
			}
			await sleepUnlessCancelled(WAIT_SCHEDULE.tickMs, signal);
		}
	}

	/** Starts the checks that are due, as many as may be in flight. */
	private startDueChecks(now: number): void {
		if (this.readsInFlight >= WAIT_SCHEDULE.maxReadsInFlight) return;
		const due = [...this.waiting]
			.filter((entry) => !entry.reading && entry.nextCheckMs <= now)
			.sort((a, b) => a.nextCheckMs - b.nextCheckMs);
		for (const entry of due) {
			if (this.readsInFlight >= WAIT_SCHEDULE.maxReadsInFlight) break;
			const agentId = Number(entry.run.agent_id);
			if (entry.readSingly || !this.listsRunsOf(agentId)) this.check(entry);
			else if (!this.runLists.get(agentId)?.listing) this.checkByList(agentId);
		}
	}

	/**
	 * A read has ended: the next due one starts now rather than at the next tick, so that many
	 * Runs finishing together (a list showing 100 finished) are read at the pace of the service.
	 */
	private readEnded(): void {
		this.readsInFlight--;
		if (this.looping && !this.loopSignal?.aborted) this.startDueChecks(Date.now());
	}

	/** Whether the Agent's Run list is worth reading rather than its Runs one by one. */
	private listsRunsOf(agentId: number): boolean {
		if (!WAIT_SCHEDULE.statusFromRunList) return false;
		const list = this.runLists.get(agentId);
		if (list && list.misses >= WAIT_SCHEDULE.runListMissesAllowed) return false;
		return this.waitingFor(agentId).length >= 2;
	}

	private waitingFor(agentId: number): WaitingRun[] {
		return [...this.waiting].filter((entry) => Number(entry.run.agent_id) === agentId);
	}

	/**
	 * Reads one page of the Agent's Run list and updates every Run of it waited for. The
	 * list's order is not promised (docs/design/service-notes.md #13): a Run it does not show is read
	 * singly, and an Agent whose lists keep showing none of them is read Run by Run.
	 */
	private checkByList(agentId: number): void {
		const list = this.runLists.get(agentId) ?? { listing: false, misses: 0 };
		this.runLists.set(agentId, list);
		const entries = this.waitingFor(agentId).filter((entry) => !entry.reading);
		list.listing = true;
		this.readsInFlight++;
		const deadlineMs = Math.max(...entries.map((entry) => entry.deadlineMs));
		this.readRunListPage(agentId, entries, deadlineMs)
			.then(
				({ body }) => {
					const listed = new Map<number, Run>();
					for (const run of flattenRunList(body) ?? []) listed.set(Number(run.run_id), run);
					let shown = 0;
					const now = Date.now();
					for (const entry of entries) {
						const run = listed.get(Number(entry.run.run_id));
						if (run) shown++;
						if (!this.waiting.has(entry) || entry.reading) continue;
						entry.lastFailure = undefined;
						if (run && !isRunFinished(run)) {
							entry.run = { ...entry.run, status: run.status };
							entry.nextCheckMs = now + this.intervalMs(entry, now);
						} else {
							// Finished: one read for its full results. Not shown: read it singly.
							entry.readSingly = true;
							entry.nextCheckMs = now;
						}
					}
					list.misses = shown === 0 ? list.misses + 1 : 0;
				},
				(failure: unknown) => {
					// A passing failure (after the transport's retries): the list is read again
					// at the next check. Any other (a key that may read Runs but not list them)
					// leaves the Agent's Runs to single reads.
					const passing = isPassingFailure(failure);
					if (!passing) list.misses = WAIT_SCHEDULE.runListMissesAllowed;
					const now = Date.now();
					for (const entry of entries) {
						if (!this.waiting.has(entry) || entry.reading) continue;
						if (passing) {
							entry.lastFailure = failure as Error;
							entry.nextCheckMs = now + this.intervalMs(entry, now);
						} else {
							entry.readSingly = true;
							entry.nextCheckMs = now;
						}
					}
				},
			)
			.finally(() => {
				list.listing = false;
				this.readEnded();
			});
	}

	/** The first page of the Agent's Run list, as large as the Runs waited for need. */
	private async readRunListPage(agentId: number, entries: WaitingRun[], deadlineMs: number) {
		const itemIndex = entries[0]?.itemIndex;
		return await serviceRequest(this.context, {
			method: 'GET',
			path: `/agents/${agentId}/runs`,
			qs: { page_number: 0, page_size: WAIT_SCHEDULE.runListPageSize(entries.length) },
			subject: { agentId },
			itemIndex,
			timeoutMs: requestTimeoutMs(this.context, itemIndex),
			deadlineMs,
		});
	}

	private check(entry: WaitingRun): void {
		entry.reading = true;
		entry.readSingly = false;
		this.readsInFlight++;
		const agentId = Number(entry.run.agent_id);
		const runId = Number(entry.run.run_id);
		fetchRun(this.context, agentId, runId, entry.itemIndex, { deadlineMs: entry.deadlineMs })
			.then(
				(run) => {
					entry.run = run;
					entry.lastFailure = undefined;
					if (isRunFinished(run)) this.settle(entry, run);
				},
				(failure: unknown) => {
					// The Run exists: a check that fails for a passing reason (after the
					// transport's own retries) is a reason to check again later, not to give up.
					if (isPassingFailure(failure)) entry.lastFailure = failure as Error;
					else this.settle(entry, this.withRunFields(failure as NodeApiError, entry));
				},
			)
			.finally(() => {
				entry.reading = false;
				const now = Date.now();
				entry.nextCheckMs = now + this.intervalMs(entry, now);
				this.readEnded();
			});
	}

	/** Ends every wait after an error in the loop itself, naming each Run so none is lost. */
	private failEveryWait(error: unknown): void {
		this.looping = false;
		const reason = error instanceof Error ? error.message : String(error);
		for (const entry of [...this.waiting]) {
			const { run } = entry;
			const failure = new NodeOperationError(
				this.context.getNode(),
				`Waiting for Run ${run.run_id} stopped because of an error in the node`,
				{
					description: `The Run goes on in the service${run.run_url ? ` (${run.run_url})` : ''}: fetch it later with Run → Get (Agent ${run.agent_id}, Run ${run.run_id}) or the Extraction Agents Trigger. The error was: ${reason}. If this keeps happening, report it with this message at ${REPORT_PROBLEM_URL}`,
					itemIndex: entry.itemIndex,
				},
			);
			this.settle(entry, attachErrorItemFields(failure, runErrorFields(run)));
		}
	}

	private settle(entry: WaitingRun, outcome: Run | Error): void {
		if (!this.waiting.delete(entry)) return;
		if (outcome instanceof Error) entry.reject(outcome);
		else entry.resolve(outcome);
	}

	private withRunFields(error: NodeApiError | NodeOperationError, entry: WaitingRun): Error {
		if (error instanceof NodeApiError || error instanceof NodeOperationError) {
			return attachErrorItemFields(error, runErrorFields(entry.run));
		}
		return error;
	}

	private interruptedError(entry: WaitingRun): Error {
		if (!this.cancelSignal?.aborted) return this.stoppedError(entry.run, entry.itemIndex);
		const error = new NodeOperationError(
			this.context.getNode(),
			`The execution was cancelled while waiting for Run ${entry.run.run_id}`,
			{
				description: 'The Run goes on in the service; fetch it later with Run → Get.',
				itemIndex: entry.itemIndex,
			},
		);
		return attachErrorItemFields(error, runErrorFields(entry.run));
	}

	private timeoutError(entry: WaitingRun): Error {
		const { run } = entry;
		const lastCheck = entry.lastFailure
			? ` The last check of the Run failed: ${entry.lastFailure.message}.`
			: '';
		const error = new NodeOperationError(
			this.context.getNode(),
			`Run ${run.run_id} did not finish within ${formatDuration(entry.timeoutMs)}`,
			{
				description: `The Run is still ${run.status} and will finish on the service${run.run_url ? ` (${run.run_url})` : ''}. Fetch it later with Run → Get (Agent ${run.agent_id}, Run ${run.run_id}), use the Extraction Agents Trigger, or raise Timeout.${lastCheck}`,
				itemIndex: entry.itemIndex,
			},
		);
		return attachErrorItemFields(error, runErrorFields(run));
	}
}
