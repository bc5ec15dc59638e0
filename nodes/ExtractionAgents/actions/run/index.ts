import type { INodeProperties } from 'n8n-workflow';
import type { Operation, OperationSelector } from '../types';
import * as create from './create.operation';
import * as deleteRun from './delete.operation';
import * as downloadTemplatedOutput from './downloadTemplatedOutput.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = {
	create,
	delete: deleteRun,
	downloadTemplatedOutput,
	get,
	getAll,
} satisfies Record<string, Operation>;

/**
 * The Run operations in the order of use, not A–Z: the node picker shows them in this order
 * under Run (test/node/picker-order.test.ts), the main job first. A named list for the same
 * reason as the resources' (actions/nodeProperties.ts).
 */
const RUN_OPERATIONS: OperationSelector<keyof typeof operations>['options'] = [
	{
		// The main job: users call it extracting data from files, not creating a Run.
		name: 'Extract Data From Files',
		value: 'create',
		description:
			'Send the item’s files to an Agent (this creates a Run) and, by default, wait for the extracted data',
		action: 'Extract data from files',
	},
	{ name: 'Get', value: 'get', description: 'Get a Run with its results', action: 'Get run' },
	{
		name: 'Get Many',
		value: 'getAll',
		description: 'List the Runs of an Agent',
		action: 'Get many runs',
	},
	{
		name: 'Download Templated Output',
		value: 'downloadTemplatedOutput',
		description:
			'Fill an output template with a Run’s results and get the file (Word, PDF, Excel or CSV)',
		action: 'Download templated output',
	},
	{
		name: 'Delete',
		value: 'delete',
		description: 'Delete a Run and its files',
		action: 'Delete run',
	},
];

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['run'] } },
		options: RUN_OPERATIONS,
		default: 'create',
	} satisfies OperationSelector<keyof typeof operations>,
	...create.description,
	...deleteRun.description,
	...downloadTemplatedOutput.description,
	...get.description,
	...getAll.description,
];
