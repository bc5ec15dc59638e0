import type { INodeProperties } from 'n8n-workflow';
import type { Operation, OperationSelector } from '../types';
import * as query from './query.operation';

export const operations = { query } satisfies Record<string, Operation>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['accessLog'] } },
		options: [
			{
				name: 'Query',
				value: 'query',
				description: 'Query the access logs of your organization (Enterprise plan)',
				action: 'Query access logs',
			},
		],
		default: 'query',
	} satisfies OperationSelector<keyof typeof operations>,
	...query.description,
];
