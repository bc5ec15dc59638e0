/**
 * Shared helpers of the trigger suite: fresh Agents on the emulator, trigger parameters,
 * a deterministic shuffle, and a probe that records the node's in-memory static data.
 */
import { mulberry32 } from '../../dev/emulator/random';
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	IPollFunctions,
} from 'n8n-workflow';
import type { Emulator, RequestLogEntry } from '../../dev/emulator';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { createPoller, type Poller } from '../../dev/harness';
import { ExtractionAgentsTrigger } from '../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node';
import { agentById } from '../node/fixtures';

export { agentById, finishedRun, useEmulator, requestLines } from '../node/fixtures';

export interface TriggerParameterOverrides {
	agentScope?: 'one' | 'all';
	statuses?: string[];
	simplify?: boolean;
	includeFullRun?: boolean;
	onReactivation?: 'emit' | 'skip';
}

/** The trigger's parameters at its newest version. */
export function triggerParameters(
	agentId: number | undefined,
	overrides: TriggerParameterOverrides = {},
): INodeParameters {
	return {
		agentScope: overrides.agentScope ?? 'one',
		...(agentId !== undefined ? { agent: agentById(agentId) } : {}),
		statuses: overrides.statuses ?? ['success', 'failed'],
		simplify: overrides.simplify ?? true,
		// The newest version's place for them (version 1 had them at the top level).
		options: {
			includeFullRun: overrides.includeFullRun ?? true,
			...(overrides.onReactivation ? { onReactivation: overrides.onReactivation } : {}),
		},
	};
}

/**
 * A new, empty Agent of alice's workspace, made the way a user would: POST /agents/{id}/copy.
 * Each test gets its own, so no test sees another's Runs.
 */
export async function newAgent(
	emulator: Emulator,
	name: string,
	source: number = DEMO_AGENT_IDS.invoices,
): Promise<number> {
	const response = await fetch(`${emulator.apiUrl}/agents/${source}/copy`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${emulator.keys.alice}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ name }),
	});
	if (response.status !== 200)
		throw new Error(`copy failed: ${response.status} ${await response.text()}`);
	const agent = (await response.json()) as { id: number };
	return agent.id;
}

/** A small seeded PRNG (the emulator's), so every "random" order in the suite is reproducible. */
export const seededRandom = mulberry32;

export function shuffled<T>(values: T[], random: () => number): T[] {
	const copy = [...values];
	for (let i = copy.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[copy[i], copy[j]] = [copy[j], copy[i]];
	}
	return copy;
}

/** The json of the items one poll returned ([] for null). */
export function itemsOf(result: INodeExecutionData[][] | null): IDataObject[] {
	if (result === null) return [];
	expect(result).toHaveLength(1);
	return result[0].map((item) => item.json);
}

export const runIdsOf = (result: INodeExecutionData[][] | null): number[] =>
	itemsOf(result).map((json) => Number(json.run_id));

/** Creates a Run that stays running until emulator.finishRun(). Returns its id. */
export function heldRun(
	emulator: Emulator,
	agentId: number,
	name = 'doc.pdf',
	createdAt?: number,
): number {
	const run = emulator.createRun(agentId, [{ name }], {
		hold: true,
		...(createdAt !== undefined ? { createdAt } : {}),
	});
	return Number(run.run_id);
}

/** The service requests of a poll, classified. */
export function classify(entries: RequestLogEntry[]): {
	lists: RequestLogEntry[];
	runReads: RequestLogEntry[];
	agentLists: RequestLogEntry[];
	other: RequestLogEntry[];
} {
	const lists: RequestLogEntry[] = [];
	const runReads: RequestLogEntry[] = [];
	const agentLists: RequestLogEntry[] = [];
	const other: RequestLogEntry[] = [];
	for (const entry of entries) {
		if (entry.method === 'GET' && /\/agents\/\d+\/runs$/.test(entry.path)) lists.push(entry);
		else if (entry.method === 'GET' && /\/agents\/\d+\/runs\/\d+$/.test(entry.path))
			runReads.push(entry);
		else if (entry.method === 'GET' && /\/agents$/.test(entry.path)) agentLists.push(entry);
		else other.push(entry);
	}
	return { lists, runReads, agentLists, other };
}

/** Exact path regex of one Run's single read, for injectFaults. */
export const runPath = (agentId: number, runId: number) =>
	new RegExp(`/agents/${agentId}/runs/${runId}$`);
export const listPath = (agentId: number) => new RegExp(`/agents/${agentId}/runs$`);

/**
 * The package's trigger, wrapped so that every poll records what the node left in
 * `getWorkflowStaticData('node')` in memory — whether the poll succeeded or threw, and
 * whether n8n stores it or not. This is what tells "the node committed its state only
 * after every request succeeded" apart from "the harness threw the state away".
 */
export function probedTrigger(): { type: ExtractionAgentsTrigger; inMemory: IDataObject[] } {
	const inMemory: IDataObject[] = [];
	const base = new ExtractionAgentsTrigger();
	const type = Object.create(base) as ExtractionAgentsTrigger;
	type.description = structuredClone(base.description);
	type.poll = async function (this: IPollFunctions) {
		try {
			return await base.poll.call(this);
		} finally {
			inMemory.push(JSON.parse(JSON.stringify(this.getWorkflowStaticData('node'))) as IDataObject);
		}
	};
	return { type, inMemory };
}

/** The ids of an Agent's pending Runs in the trigger's static data, in the order they are re-read. */
export function pendingRunIds(nodeStaticData: IDataObject | undefined, agentId: number): number[] {
	const agents = (
		nodeStaticData as { agents?: Record<string, { pending: Array<[number, number]> }> } | undefined
	)?.agents;
	return (agents?.[agentId]?.pending ?? []).map(([runId]) => runId);
}

/** Polls and asserts it emitted nothing. */
export async function expectNothing(
	poller: Poller,
	mode: 'trigger' | 'manual' = 'trigger',
): Promise<void> {
	expect(await poller.poll(mode)).toBeNull();
}

export { createPoller };

export { simulatedClock } from '../../dev/harness';

/** The Agents whose Run list the requests read, one entry per list request. */
export function listReadsByAgent(entries: RequestLogEntry[]): Map<number, number> {
	const reads = new Map<number, number>();
	for (const entry of classify(entries).lists) {
		const agentId = Number(/\/agents\/(\d+)\/runs$/.exec(entry.path)?.[1]);
		reads.set(agentId, (reads.get(agentId) ?? 0) + 1);
	}
	return reads;
}
