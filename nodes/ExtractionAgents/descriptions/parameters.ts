import type { DisplayCondition, INodeProperties } from 'n8n-workflow';
import { versionsWith, versionsWithout } from './versions';

/**
 * The Agent picker, used by every Agent and Run operation and by the trigger. The
 * node reads and checks the ID itself (ids.ts), from an ID or from a link, instead of
 * through the picker's `extractValue` and `validation` regexes: n8n runs those in a
 * sandbox with a 250 ms limit that a busy machine can hit, failing the whole item.
 */
export const agentLocator: INodeProperties = {
	displayName: 'Agent',
	name: 'agent',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The Agent (a configured set of Prompts) to use',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an Agent...',
			typeOptions: { searchListMethod: 'searchAgents', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 12',
		},
		{
			displayName: 'By URL',
			name: 'url',
			type: 'string',
			placeholder: 'e.g. https://extraction.example.com/app/agents/12',
		},
	],
};

export const runLocator: INodeProperties = {
	displayName: 'Run',
	name: 'run',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The Run (one upload of files to the Agent)',
	// The list shows the chosen Agent's Runs: reload it when the Agent changes.
	typeOptions: { loadOptionsDependsOn: ['agent.value'] },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a Run...',
			typeOptions: { searchListMethod: 'searchRuns', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 345',
		},
		{
			displayName: 'By URL',
			name: 'url',
			type: 'string',
			placeholder: 'e.g. https://extraction.example.com/app/agents/12/runs/345',
		},
	],
};

/** Display rules only when there are any (an empty `show` would still be carried along). */
function showWhen(show: Record<string, string[]>): Pick<INodeProperties, 'displayOptions'> {
	return Object.keys(show).length > 0 ? { displayOptions: { show } } : {};
}

export function returnAllAndLimit(show: Record<string, string[]>): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			...showWhen(show),
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

/** Simplify's tooltip wherever it gives the sheet-ready row: the action node and the trigger say the same. */
export const SIMPLIFY_RUN_DESCRIPTION =
	'Whether to return one row per Run, ready for a sheet: a column per Prompt, then the Run’s ID, status and link';

/**
 * Simplify of the Run operations, its tooltip describing the row the node version gives:
 * the Run's fields first before version 1.2, the Prompt values first from it (sheetReadyRuns).
 */
export function simplifyField(show: Record<string, string[]>): INodeProperties[] {
	const field = (description: string, versions: DisplayCondition[]): INodeProperties => ({
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description,
		displayOptions: { show: { ...show, '@version': versions } },
	});
	return [
		field(
			'Whether to return a flat version of the Run (its ID, status, link, files and one field per Prompt) instead of the raw data',
			versionsWithout('sheetReadyRuns'),
		),
		field(SIMPLIFY_RUN_DESCRIPTION, versionsWith('sheetReadyRuns')),
	];
}

export function runOutputField(show: Record<string, string[]>): INodeProperties {
	return {
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'run',
		options: [
			{
				name: 'One Item per Run',
				value: 'run',
				description: 'One item holding all Prompt results of the Run',
			},
			{
				name: 'One Item per Prompt Result',
				value: 'promptResult',
				description:
					'One item per Prompt with its value, reasoning and citations: rows for a sheet',
			},
		],
		...showWhen(show),
	};
}

/**
 * The API key picker of Get and Delete. Workflows saved before it was a picker hold the
 * ID as plain text; apiKeyIdParameter (helpers/apiKeys.ts) reads both.
 */
export const apiKeyIdField: INodeProperties = {
	displayName: 'API Key',
	name: 'keyId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'One of your API keys (not its secret)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an API key...',
			typeOptions: { searchListMethod: 'searchApiKeys', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. ak_2x9f…, as listed by Get Many',
		},
	],
};

const SIMPLIFY_AGENT_DESCRIPTION =
	'Whether to return a short version of the Agent (name, objective, Prompt names, template names, metadata) instead of the raw data';

/**
 * Simplify of Agent → Get / Get Many. Node version 1.1 introduced it on by default; a
 * workflow saved with version 1 keeps the full Agent it always had unless turned on.
 */
export const simplifyAgentFields: INodeProperties[] = [
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description: SIMPLIFY_AGENT_DESCRIPTION,
		displayOptions: { show: { '@version': versionsWithout('agentSimplifyByDefault') } },
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: SIMPLIFY_AGENT_DESCRIPTION,
		displayOptions: { show: { '@version': versionsWith('agentSimplifyByDefault') } },
	},
];
