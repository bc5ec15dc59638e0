/**
 * The compiler checks that every Operation option names an operation (actions/types.ts,
 * OperationSelector); this checks the other direction, which a type cannot: every
 * operation a resource has is offered in its Operation list, and the file is named after
 * the value saved in workflows.
 */
import { existsSync } from 'fs';
import { join } from 'path';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { nodeProperties } from '../../nodes/ExtractionAgents/actions/nodeProperties';
import { operationsByResource } from '../../nodes/ExtractionAgents/actions/operations';
import { OPERATIONS_WITH_ITEMS_IN_PARALLEL } from '../../nodes/ExtractionAgents/descriptions/options';

const ACTIONS = join(__dirname, '..', '..', 'nodes', 'ExtractionAgents', 'actions');

describe.each(Object.entries(operationsByResource))('resource %s', (resource, operations) => {
	const selector = nodeProperties.find(
		(property) =>
			property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
	);
	const offered = ((selector?.options ?? []) as INodePropertyOptions[]).map(
		(option) => option.value,
	);

	it('offers exactly the operations the router runs', () => {
		expect([...offered].sort()).toEqual(Object.keys(operations).sort());
	});

	it.each(Object.keys(operations))('keeps operation %s in <value>.operation.ts', (operation) => {
		expect(existsSync(join(ACTIONS, resource, `${operation}.operation.ts`))).toBe(true);
	});
});

describe('Items in Parallel', () => {
	const options = nodeProperties.find((property) => property.name === 'options');
	const itemsInParallelOptions = ((options?.options ?? []) as INodeProperties[]).filter(
		(option) => option.name === 'itemsInParallel',
	);
	const shownFor = (option: INodeProperties, resource: string, operation: string) =>
		(option.displayOptions?.show?.['/resource'] ?? []).includes(resource) &&
		(option.displayOptions?.show?.['/operation'] ?? []).includes(operation);

	it('lists only operations the router runs', () => {
		for (const [resource, operations] of Object.entries(OPERATIONS_WITH_ITEMS_IN_PARALLEL)) {
			for (const operation of operations) {
				expect(Object.keys(operationsByResource)).toContain(resource);
				expect(Object.keys(operationsByResource[resource as 'run'])).toContain(operation);
			}
		}
	});

	it.each(
		Object.entries(operationsByResource).flatMap(([resource, operations]) =>
			Object.keys(operations).map((operation) => [resource, operation]),
		),
	)('is shown for %s → %s exactly when its items run side by side', (resource, operation) => {
		const parallel = (OPERATIONS_WITH_ITEMS_IN_PARALLEL[resource] ?? []).includes(operation);
		expect(itemsInParallelOptions).toHaveLength(2);
		for (const option of itemsInParallelOptions) {
			expect(shownFor(option, resource, operation)).toBe(parallel);
		}
	});
});
