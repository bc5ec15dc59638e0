import type { INodeProperties } from 'n8n-workflow';
import * as accessLog from './accessLog';
import * as agent from './agent';
import * as apiKey from './apiKey';
import * as run from './run';
import * as usage from './usage';
import { optionsField } from '../descriptions/options';

/** The resource selector followed by every resource's operations and fields. */
export const resourceProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Access Log', value: 'accessLog' },
			{ name: 'Agent', value: 'agent' },
			{ name: 'API Key', value: 'apiKey' },
			{ name: 'Run', value: 'run' },
			{ name: 'Usage', value: 'usage' },
		],
		default: 'run',
	},
	...accessLog.description,
	...agent.description,
	...apiKey.description,
	...run.description,
	...usage.description,
	optionsField,
];
