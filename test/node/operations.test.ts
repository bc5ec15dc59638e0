/**
 * The compiler checks that every Operation option names an operation (actions/types.ts,
 * OperationSelector); this checks the other direction, which a type cannot: every
 * operation a resource has is offered in its Operation list, and the file is named after
 * the value saved in workflows.
 */
import { existsSync } from 'fs';
import { join } from 'path';
import type { INodePropertyOptions } from 'n8n-workflow';
import { resourceProperties } from '../../nodes/ExtractionAgents/actions/resources';
import { resources } from '../../nodes/ExtractionAgents/actions/router';

const ACTIONS = join(__dirname, '..', '..', 'nodes', 'ExtractionAgents', 'actions');

describe.each(Object.entries(resources))('resource %s', (resource, operations) => {
	const selector = resourceProperties.find(
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
