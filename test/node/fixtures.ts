import type { INodeParameters } from 'n8n-workflow';
import { createHash } from 'crypto';
import {
	DEMO_AGENT_IDS,
	startEmulator,
	type Emulator,
	type EmulatorOptions,
} from '../../dev/emulator';

export const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** An emulator for one test file, started before its tests and stopped after them. */
export function useEmulator(options: Partial<EmulatorOptions> = {}): {
	readonly emulator: Emulator;
	readonly credentials: { apiKey: string; baseUrl: string };
} {
	let emulator: Emulator | undefined;
	beforeAll(async () => {
		emulator = await startEmulator({ logErrors: false, ...options });
	});
	afterAll(async () => {
		await emulator?.stop();
	});
	return {
		get emulator() {
			if (!emulator) throw new Error('emulator not started');
			return emulator;
		},
		get credentials() {
			if (!emulator) throw new Error('emulator not started');
			return { apiKey: emulator.keys.alice, baseUrl: emulator.url };
		},
	};
}

export const agentById = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });
export const runById = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });

/** Requests the emulator saw since `seq`, as "METHOD path" lines. */
export function requestLines(emulator: Emulator, seq: number): string[] {
	return emulator.requestsSince(seq).map((entry) => `${entry.method} ${entry.path}`);
}

/** The demo Agent most tests upload to. */
export const INVOICES = DEMO_AGENT_IDS.invoices;

/** A small PDF holding `text`: distinct bytes per text, so the emulator's checksums tell files apart. */
export const pdf = (text: string): Buffer => Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`);

/** Run → Create of the Invoices Agent (or `agentId`), the node's defaults for everything not overridden. */
export function createRunParameters(
	overrides: INodeParameters = {},
	agentId: number = INVOICES,
): INodeParameters {
	return { resource: 'run', operation: 'create', agent: agentById(agentId), ...overrides };
}

export interface FinishedRun {
	run_id: number;
	run_url: string;
	[field: string]: unknown;
}

/** A Run that is finished when it is first seen, made directly in the emulator (no request). */
export function finishedRun(
	emulator: Emulator,
	agentId: number = INVOICES,
	options: { outcome?: 'success' | 'failed'; fileName?: string } = {},
): FinishedRun {
	const run = emulator.createRun(agentId, [{ name: options.fileName ?? 'doc.pdf' }], {
		durationMs: 0,
		outcome: options.outcome ?? 'success',
	});
	return emulator.getRun(agentId, Number(run.run_id)) as FinishedRun;
}

/**
 * Gives Runs created from now on a fate by file name, as each upload is handled: a Run of
 * `deleted` is deleted (a wait for it then reads 404), a Run of `held` never finishes (its
 * wait times out), a Run of `failed` ends `failed` at once (its Prompts fail with a reason),
 * a Run of `cancelled` ends at once in the status `cancelled`, one the node does not know
 * (docs/design/service-notes.md #23), a Run of `partlyRead` succeeds with its Prompt "Total
 * amount" failed. Scans for new Runs rather than taking the newest, so that
 * parallel uploads cannot swap them.
 */
export function shapeRunsByFileName(
	emulator: Emulator,
	names: {
		deleted?: string;
		held?: string;
		failed?: string;
		cancelled?: string;
		/** Its Run succeeds, but the Prompt "Total amount" fails: a partly read document. */
		partlyRead?: string;
	},
	uploads: number,
): void {
	const known = new Set(emulator.state.runs.keys());
	emulator.afterRequest(
		{ method: 'POST', path: /\/agents\/\d+\/runs$/ },
		() => {
			for (const run of emulator.state.runs.values()) {
				if (known.has(run.runId)) continue;
				known.add(run.runId);
				const name = run.files[0]?.name;
				if (name === names.deleted) emulator.deleteRun(run.agentId, run.runId);
				else if (name === names.held) emulator.holdRun(run.agentId, run.runId);
				else if (name === names.failed) emulator.finishRun(run.agentId, run.runId, 'failed');
				else if (name === names.partlyRead) run.failingPrompts = ['Total amount'];
				else if (name === names.cancelled) {
					emulator.finishRun(run.agentId, run.runId);
					run.reportedStatus = 'cancelled';
				}
			}
		},
		uploads,
	);
}
