import type { INodeProperties } from 'n8n-workflow';
import * as accessLog from './accessLog';
import * as agent from './agent';
import * as apiKey from './apiKey';
import * as run from './run';
import * as usage from './usage';
import { optionsField } from '../descriptions/options';

/** Title Case for the canvas subtitle (n8n's UI text style); acronyms such as API stay as they are. */
function titleCase(text: string): string {
	return text.replace(
		/(^|\s)([a-z])/g,
		(_match, space: string, letter: string) => space + letter.toUpperCase(),
	);
}

/**
 * The canvas subtitle: the chosen operation's action in Title Case ("Extract Data From
 * Files"), from the same operation selectors the panel shows, never the raw values.
 */
export function subtitleExpression(properties: INodeProperties[]): string {
	const subtitles: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'operation') continue;
		const resource = property.displayOptions?.show?.resource?.[0];
		for (const option of (property.options ?? []) as Array<{ value: string; action?: string }>) {
			subtitles[`${String(resource)}:${option.value}`] = titleCase(option.action ?? option.value);
		}
	}
	return `={{ ${JSON.stringify(subtitles)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}

/** The action node's parameters: the resource selector, every resource's operations and fields, and Options. */
export const nodeProperties: INodeProperties[] = [
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
