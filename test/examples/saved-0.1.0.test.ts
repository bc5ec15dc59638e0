/**
 * Workflows saved by 0.1.0 keep resolving to the parameters they had. `saved-0.1.0/` holds
 * 0.1.0's example workflows and `every-operation.json`, a node for every resource, operation
 * and choice of each option, saved the way the 0.1.0 editor saves them (only values that differ
 * from the defaults). `resolved-by-0.1.0.json` is what 0.1.0's own node descriptions made of
 * each of those nodes, defaults filled in. Today's descriptions, at typeVersion 1, must give
 * every one of those values back; a parameter 0.1.0 did not have may only appear with a
 * default that keeps 0.1.0's behaviour, listed below with the reason.
 */
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { ourDescription, parameterProblems, propertiesOf } from './helpers';

const FOLDER = join(__dirname, 'saved-0.1.0');
const resolvedBy010 = JSON.parse(
	readFileSync(join(FOLDER, 'resolved-by-0.1.0.json'), 'utf8'),
) as Record<string, INodeParameters>;

/** Parameters added since 0.1.0, with the value a version-1 node gets and why it changes nothing. */
const ADDED_SINCE_010: Record<string, { value: unknown; why: string }> = {
	options: { value: {}, why: 'an empty Options collection: every option at its version-1 default' },
	simplify: {
		value: false,
		why: 'Agent → Get / Get Many: version 1 returns the whole Agent, as 0.1.0 did',
	},
	output: { value: 'run', why: 'Run → Get Many: one item per Run, as 0.1.0 gave' },
	onReactivation: {
		value: 'emit',
		why: 'the trigger emits Runs that finished while the workflow was inactive, as 0.1.0 did',
	},
};

/**
 * API Key → Get / Delete's Key became a resource locator: an old plain string is read as the
 * locator's value (test/node/account.test.ts runs such a value).
 */
function locatorValue(now: unknown, then: unknown): unknown {
	const isLocator = now && typeof now === 'object' && (now as { __rl?: boolean }).__rl === true;
	return isLocator && typeof then === 'string' ? (now as { value: unknown }).value : now;
}

interface SavedWorkflow {
	nodes: INode[];
}

const savedNodes: Array<[string, INode]> = readdirSync(FOLDER)
	.filter((file) => file.endsWith('.json') && file !== 'resolved-by-0.1.0.json')
	.flatMap((file) => {
		const workflow = JSON.parse(readFileSync(join(FOLDER, file), 'utf8')) as SavedWorkflow;
		return workflow.nodes
			.filter((node) => node.type.startsWith('n8n-nodes-extraction-agents.'))
			.map((node): [string, INode] => [
				file === 'every-operation.json' ? node.name : `${file}: ${node.name}`,
				node,
			]);
	});

describe('workflows saved by 0.1.0, loaded by today’s nodes at typeVersion 1', () => {
	it('covers every resource and operation of the action node and the trigger', () => {
		const operations = new Set(
			savedNodes.map(([, node]) => `${node.parameters.resource}/${node.parameters.operation}`),
		);
		expect(operations.size).toBeGreaterThanOrEqual(16);
		expect(savedNodes.length).toBe(Object.keys(resolvedBy010).length);
	});

	it.each(savedNodes)('%s resolves to the values 0.1.0 gave it', (key, node) => {
		expect(node.typeVersion).toBe(1);
		const description = ourDescription(node.type);
		const now =
			NodeHelpers.getNodeParameters(
				propertiesOf(description),
				node.parameters,
				true,
				false,
				node,
				description,
			) ?? {};
		const then = resolvedBy010[key];
		expect(then).toBeDefined();
		for (const [name, value] of Object.entries(then)) {
			expect({ parameter: name, value: locatorValue(now[name], value) }).toEqual({
				parameter: name,
				value,
			});
		}
		// pollTimes is n8n's own parameter of every polling trigger.
		for (const name of Object.keys(now).filter((name) => !(name in then) && name !== 'pollTimes')) {
			expect({ parameter: name, value: now[name] }).toEqual({
				parameter: name,
				value: ADDED_SINCE_010[name]?.value,
			});
		}
		expect(parameterProblems(node, description)).toEqual([]);
	});
});
