/**
 * Shared helpers of the reliability suite: short retry backoffs, items with files,
 * the emulator's own view of Runs by user-defined ID, request lines.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { HarnessInputItem } from '../../dev/harness';
import type { Emulator, RequestLogEntry, RunRecord } from '../../dev/emulator';
import { RETRY_LIMITS } from '../../nodes/ExtractionAgents/transport/retry';
import { INVOICES, agentById, createRunParameters, pdf, runById } from '../node/fixtures';

export { INVOICES, agentById, finishedRun, pdf, runById, useEmulator } from '../node/fixtures';

/**
 * The transport backs off 0.5 s, 1 s, 2 s between retries. Tests that exhaust the
 * retries on purpose shorten the backoff (never the retry COUNT) for the file.
 * Retry-After waits asked for by a 429 are not shortened.
 */
export function useShortBackoff(ms = 5): void {
	const saved = RETRY_LIMITS.baseBackoffMs;
	beforeAll(() => {
		RETRY_LIMITS.baseBackoffMs = ms;
	});
	afterAll(() => {
		RETRY_LIMITS.baseBackoffMs = saved;
	});
}

/** One input item holding `count` small PDFs in binary fields file_0, file_1, … */
export function itemWithFiles(name: string, count = 1, json: IDataObject = {}): HarnessInputItem {
	const binary: NonNullable<HarnessInputItem['binary']> = {};
	for (let n = 0; n < count; n++) {
		binary[`file_${n}`] = {
			data: pdf(`${name} page ${n}`),
			fileName: `${name}-${n}.pdf`,
			mimeType: 'application/pdf',
		};
	}
	return { json, binary };
}

/** Run → Create that uploads every binary field of the item and does not wait for the Run. */
export function uploadOnlyParameters(
	overrides: INodeParameters = {},
	agentId: number = INVOICES,
): INodeParameters {
	return createRunParameters(
		// One Run for all the item's files, the Runs these tests count (1.5's default is one per file).
		{ binarySource: 'all', filesPerRun: 'item', waitForCompletion: false, ...overrides },
		agentId,
	);
}

export function runGetParameters(
	runId: number,
	overrides: INodeParameters = {},
	agentId: number = INVOICES,
): INodeParameters {
	return {
		resource: 'run',
		operation: 'get',
		agent: agentById(agentId),
		run: runById(runId),
		...overrides,
	};
}

/** The emulator's Runs (its state: the judge) that carry this user-defined ID. */
export function runsWithUserDefinedId(emulator: Emulator, userDefinedId: string): RunRecord[] {
	return [...emulator.state.runs.values()].filter((run) => run.userDefinedId === userDefinedId);
}

/** "METHOD /path" (without the API prefix) of every request since `seq`. */
export function requestsSince(emulator: Emulator, seq: number): RequestLogEntry[] {
	return emulator.requestsSince(seq);
}

export const apiPath = (entry: RequestLogEntry): string =>
	`${entry.method} ${entry.path.replace(/^\/api\/v1\/client/, '')}`;

export type ErrorWithDescription = Error & { description?: string; httpCode?: string | null };

let counter = 0;
/** A user-defined ID no other test uses. */
export function uniqueId(prefix: string): string {
	counter++;
	return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** Fault-injection paths: one Run (GET/DELETE) and an Agent's Runs (POST creates, GET lists). */
export const RUN_READ = /\/agents\/\d+\/runs\/\d+$/;
export const AGENT_RUNS = /\/agents\/\d+\/runs$/;
