/**
 * The node picker's first screen. n8n's editor lists a node's actions resource by resource,
 * in the order of the Resource options, and within a resource in the order of its Operation
 * options, each by its `action` (n8n's editor-ui, NodeCreator/composables/
 * useActionsGeneration.ts, resourceCategories: no sorting). So the description's order is
 * what a new user sees: Run first with Extract Data From Files at its top, then Agent; the
 * Enterprise-only Access Log last.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { nodeProperties } from '../../nodes/ExtractionAgents/actions/nodeProperties';

const optionsOf = (property: INodeProperties | undefined) =>
	(property?.options ?? []) as INodePropertyOptions[];

/** The picker's action list as the editor builds it from the description (see above). */
function pickerActions(): Array<{ resource: string; action: string }> {
	const resources = optionsOf(nodeProperties.find((property) => property.name === 'resource'));
	return resources.flatMap((resource) =>
		optionsOf(
			nodeProperties.find(
				(property) =>
					property.name === 'operation' &&
					property.displayOptions?.show?.resource?.includes(resource.value),
			),
		).map((operation) => ({
			resource: resource.name,
			action: operation.action ?? `${resource.name} ${operation.name}`,
		})),
	);
}

describe('the node picker', () => {
	it('lists the resources Run first, then Agent, the Enterprise-only Access Log last', () => {
		const resources = optionsOf(nodeProperties.find((property) => property.name === 'resource'));
		expect(resources.map((option) => option.name)).toEqual([
			'Run',
			'Agent',
			'API Key',
			'Usage',
			'Access Log',
		]);
	});

	it('shows Extract data from files as the first action, then the other Run actions, then Agent’s', () => {
		const actions = pickerActions();
		expect(actions[0]).toEqual({ resource: 'Run', action: 'Extract data from files' });
		expect(
			actions.filter((entry) => entry.resource === 'Run').map((entry) => entry.action),
		).toEqual([
			'Extract data from files',
			'Get run',
			'Get many runs',
			'Download templated output',
			'Delete run',
		]);
		expect(actions[5].resource).toBe('Agent');
	});

	it('opens the panel on Run → Extract Data From Files', () => {
		const resource = nodeProperties.find((property) => property.name === 'resource');
		const runOperation = nodeProperties.find(
			(property) =>
				property.name === 'operation' && property.displayOptions?.show?.resource?.includes('run'),
		);
		expect([resource?.default, runOperation?.default]).toEqual(['run', 'create']);
	});
});
