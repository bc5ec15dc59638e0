import type { INodeProperties } from 'n8n-workflow';
import type { Operation, OperationSelector } from '../types';
import * as copy from './copy.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as updateMetadata from './updateMetadata.operation';

export const operations = { copy, get, getAll, updateMetadata } satisfies Record<string, Operation>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['agent'] } },
		options: [
			{
				name: 'Copy',
				value: 'copy',
				description: 'Copy an Agent under a new name',
				action: 'Copy agent',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get an Agent with its Prompts and templates',
				action: 'Get agent',
			},
			{ name: 'Get Many', value: 'getAll', description: 'List Agents', action: 'Get many agents' },
			{
				name: 'Update Metadata',
				value: 'updateMetadata',
				description: 'Replace the metadata of an Agent',
				action: 'Update agent metadata',
			},
		],
		default: 'get',
	} satisfies OperationSelector<keyof typeof operations>,
	...copy.description,
	...get.description,
	...getAll.description,
	...updateMetadata.description,
];
