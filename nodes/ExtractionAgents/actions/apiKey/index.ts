import type { INodeProperties } from 'n8n-workflow';
import type { Operation, OperationSelector } from '../types';
import * as create from './create.operation';
import * as deleteKey from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { create, delete: deleteKey, get, getAll } satisfies Record<
	string,
	Operation
>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiKey'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create an API key (its secret is shown once)',
				action: 'Create API key',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete one of your API keys',
				action: 'Delete API key',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one of your API keys',
				action: 'Get API key',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List your API keys',
				action: 'Get many API keys',
			},
		],
		default: 'getAll',
	} satisfies OperationSelector<keyof typeof operations>,
	...create.description,
	...deleteKey.description,
	...get.description,
	...getAll.description,
];
