import type { INodeProperties } from 'n8n-workflow';
import type { Operation, OperationSelector } from '../types';
import * as getAll from './getAll.operation';

export const operations = { getAll } satisfies Record<string, Operation>;

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
				description: 'List the credits used, one record per Run',
				action: 'Get many usage records',
			},
		],
		default: 'getAll',
	} satisfies OperationSelector<keyof typeof operations>,
	...getAll.description,
];
