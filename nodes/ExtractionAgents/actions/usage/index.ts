import type { INodeProperties } from 'n8n-workflow';
import * as getAll from './getMany.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['usage'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List billed credit usage records',
				action: 'Get many usage records',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
