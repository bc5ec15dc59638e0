/**
 * Trigger version 1.1 names the statuses "Trigger On", puts Include Full Run and On
 * Re-Activation under Options and makes Simplify sheet-ready. A workflow saved at version 1
 * keeps its parameters where they were and its items as they were.
 */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { createPoller, useHarness } from '../../dev/harness';
import { ExtractionAgentsTrigger } from '../../nodes/ExtractionAgents/ExtractionAgentsTrigger.node';
import {
	agentById,
	expectNothing,
	finishedRun,
	itemsOf,
	newAgent,
	triggerParameters,
	useEmulator,
} from './helpers';

useHarness();
const ctx = useEmulator({ runDurationMs: 60_000 });

/** Version 1's parameters as 0.2.0 saved them: settings at the top level. */
function versionOneParameters(agentId: number, overrides: INodeParameters = {}): INodeParameters {
	return {
		agentScope: 'one',
		agent: agentById(agentId),
		statuses: ['success', 'failed'],
		simplify: true,
		includeFullRun: true,
		...overrides,
	};
}

function shownAt(version: number): INodeProperties[] {
	const { properties } = new ExtractionAgentsTrigger().description;
	const parameters: INodeParameters = { agentScope: 'one' };
	const node = { typeVersion: version, parameters } as never;
	return properties.filter((property) =>
		NodeHelpers.displayParameter(parameters, property, node, { properties } as never),
	);
}

async function oneFinishedRun(
	typeVersion: number,
	parameters: (agentId: number) => INodeParameters,
) {
	const { emulator, credentials } = ctx;
	const agentId = await newAgent(emulator, `version ${typeVersion}`);
	const activation = createPoller({ parameters: parameters(agentId), credentials, typeVersion });
	await expectNothing(activation);
	const run = finishedRun(emulator, agentId, { fileName: 'INV-4711.pdf' });
	const poller = createPoller({
		parameters: parameters(agentId),
		credentials,
		typeVersion,
		staticData: activation.staticData,
	});
	const seq = emulator.lastSeq;
	const items = itemsOf(await poller.poll());
	const singleReads = emulator
		.requestsSince(seq)
		.filter((entry) => /\/runs\/\d+$/.test(entry.path)).length;
	return { items, run, singleReads, agentId };
}

describe('Extraction Agents Trigger: version 1.1 and version 1', () => {
	it('1.1 shows Trigger On and Options (Include Full Run, When Reactivated); 1 shows Statuses, Include Full Run and On Re-Activation at the top level', () => {
		const names = (version: number) =>
			shownAt(version).map((property) => `${property.displayName}`);
		expect(names(1.1)).toEqual(['Watch', 'Agent', 'Trigger On', 'Simplify', 'Options']);
		expect(names(1)).toEqual([
			'Watch',
			'Agent',
			'Statuses',
			'Simplify',
			'Include Full Run',
			'On Re-Activation',
			'Options',
		]);
		const options = shownAt(1.1).find((property) => property.name === 'options');
		expect((options?.options as INodeProperties[]).map((option) => option.displayName)).toEqual([
			'Include Full Run',
			'When Reactivated',
			'Request Timeout (Seconds)',
		]);
	});

	it('1.1: Simplify gives a sheet-ready row (Prompt values first, files as text); Options → Include Full Run off is obeyed', async () => {
		const { items, run, singleReads } = await oneFinishedRun(1.1, (agentId) =>
			triggerParameters(agentId, { includeFullRun: false }),
		);
		expect(items.map((item) => item.run_id)).toEqual([run.run_id]);
		expect(Object.keys(items[0])[0]).toBe('Invoice number');
		expect(items[0].files).toBe('INV-4711.pdf');
		expect(singleReads).toBe(0);
	});

	it('1: Simplify keeps its shape (Run fields first, files as a list); a top-level Include Full Run off is obeyed', async () => {
		const { items, run, singleReads } = await oneFinishedRun(1, (agentId) =>
			versionOneParameters(agentId, { includeFullRun: false }),
		);
		expect(items.map((item) => item.run_id)).toEqual([run.run_id]);
		expect(Object.keys(items[0])[0]).toBe('run_id');
		expect(items[0].files).toEqual(['INV-4711.pdf']);
		expect(singleReads).toBe(0);
	});

	it('1: a top-level Include Full Run on reads the Run once more, as before', async () => {
		const { items, singleReads } = await oneFinishedRun(1, (agentId) =>
			versionOneParameters(agentId),
		);
		expect(typeof (items[0] as IDataObject).credits_used).toBe('number');
		expect(singleReads).toBe(1);
	});
});

describe('Extraction Agents Trigger: Simplify with column names that collide, version 1.2 and 1.1', () => {
	async function simplifiedRow(typeVersion: number) {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, `columns ${typeVersion}`);
		emulator.createRun(agentId, [{ name: 'doc.pdf' }], {
			durationMs: 0,
			prompts: [
				{ name: 'run_id', value: 'A' },
				{ name: 'run_id (prompt)', value: 'B' },
			],
		});
		const poller = createPoller({
			parameters: triggerParameters(agentId),
			credentials,
			typeVersion,
		});
		const [row] = itemsOf(await poller.poll('manual'));
		return Object.fromEntries(Object.entries(row).filter(([key]) => key.startsWith('run_id (')));
	}

	it('1.2 gives a column name already taken " (2)": both values kept', async () => {
		expect(await simplifiedRow(1.2)).toEqual({
			'run_id (prompt)': 'A',
			'run_id (prompt) (2)': 'B',
		});
	});

	it('1.1 keeps its column names: the later value takes the column', async () => {
		expect(await simplifiedRow(1.1)).toEqual({ 'run_id (prompt)': 'B' });
	});
});
