import type { INodeProperties } from 'n8n-workflow';
import * as create from './create.operation';
import * as deleteKey from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getMany.operation';

export { create, deleteKey as delete, get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiKey'] } },
		options: [
			{ name: 'Create', value: 'create', description: 'Create an API key (its secret is shown once)', action: 'Create an API key' },
			{ name: 'Delete', value: 'delete', description: 'Delete one of your API keys', action: 'Delete an API key' },
			{ name: 'Get', value: 'get', description: 'Get one of your API keys', action: 'Get an API key' },
			{ name: 'Get Many', value: 'getAll', description: 'List your API keys', action: 'Get many API keys' },
		],
		default: 'getAll',
	},
	...create.description,
	...deleteKey.description,
	...get.description,
	...getAll.description,
];
