import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { listSearch } from './methods';
import { agentLocator, simplifyField } from './descriptions/parameters';
import { optionsField } from './descriptions/options';
import { TRIGGER_NODE_VERSIONS, triggerVersions } from './descriptions/versions';
import { pollFinishedRuns } from './trigger/poll';

export class ExtractionAgentsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Extraction Agents Trigger',
		name: 'extractionAgentsTrigger',
		icon: {
			light: 'file:icons/extractionAgents.svg',
			dark: 'file:icons/extractionAgents.dark.svg',
		},
		group: ['trigger'],
		version: TRIGGER_NODE_VERSIONS,
		defaultVersion: Math.max(...TRIGGER_NODE_VERSIONS),
		subtitle:
			'={{ "Runs finished: " + ($parameter["agentScope"] === "all" ? "all Agents" : "one Agent") }}',
		description: 'Starts the workflow when a Run of an Extraction Agent finishes',
		defaults: { name: 'Extraction Agents Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: [
			{
				displayName: 'Watch',
				name: 'agentScope',
				type: 'options',
				default: 'one',
				options: [
					{ name: 'One Agent', value: 'one' },
					{
						name: 'All Agents',
						value: 'all',
						description: 'Every Agent the API key can see, including ones added later',
					},
				],
			},
			{ ...agentLocator, displayOptions: { show: { agentScope: ['one'] } } },
			{
				displayName: 'Trigger On',
				name: 'statuses',
				type: 'multiOptions',
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', true) } },
				default: ['success', 'failed'],
				options: [
					{ name: 'Run Succeeded', value: 'success' },
					{
						name: 'Run Failed',
						value: 'failed',
						description: 'One or more Prompts of the Run could not be answered',
					},
					{
						name: 'Run Ended Another Way',
						value: 'other',
						description: 'An ending the service may add later, such as cancelled',
					},
				],
				description: 'Which finished Runs start the workflow',
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				displayOptions: { show: { '@version': triggerVersions('sheetReadyRuns', true) } },
				description:
					'Whether to return one row per Run, ready for a sheet: a column per Prompt with its value, then the Run’s ID, status and link. Off: the Run as the service sends it.',
			},
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', false) } },
				default: ['success', 'failed'],
				options: [
					{ name: 'Success', value: 'success' },
					{ name: 'Failed', value: 'failed' },
					{
						name: 'Other',
						value: 'other',
						description:
							'A final status the service adds later (e.g. cancelled): a Run in it counts as finished once it has a completed time',
					},
				],
				description: 'Fire for Runs that finished with these statuses',
			},
			{
				// The action node's field with its tooltip of before version 1.2: trigger 1 gives that row.
				...simplifyField({})[0],
				displayOptions: { show: { '@version': triggerVersions('sheetReadyRuns', false) } },
			},
			{
				displayName: 'Include Full Run',
				name: 'includeFullRun',
				type: 'boolean',
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', false) } },
				default: true,
				description:
					'Whether to read each finished Run once more for the details only the single-Run read has: credits used, per-Prompt timings, citation regions and web citations (one extra request per Run)',
			},
			{
				displayName: 'On Re-Activation',
				name: 'onReactivation',
				type: 'options',
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', false) } },
				default: 'emit',
				options: [
					{
						name: 'Emit Runs Finished While Inactive',
						value: 'emit',
						description:
							'Go on from where the trigger stopped: every Run that finished while the workflow was inactive is emitted once',
					},
					{
						name: 'Skip Them',
						value: 'skip',
						description:
							'Start afresh, as on the first activation: only Runs that finish from now on are emitted',
					},
				],
				description:
					'What to do with the Runs that finished while the workflow was inactive, when it is activated again',
			},
			{
				...optionsField,
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', false) } },
			},
			{
				...optionsField,
				displayOptions: { show: { '@version': triggerVersions('settingsInOptions', true) } },
				options: [
					{
						displayName: 'Include Full Run',
						name: 'includeFullRun',
						type: 'boolean',
						default: true,
						description:
							'Whether to read each finished Run once more for what only that read gives: credits used, timings and where on the page each answer was found. Costs one request per Run.',
					},
					{
						displayName: 'When Reactivated',
						name: 'onReactivation',
						type: 'options',
						default: 'emit',
						options: [
							{
								name: 'Catch Up',
								value: 'emit',
								description:
									'Start the workflow once for every Run that finished while it was inactive',
							},
							{
								name: 'Skip Them',
								value: 'skip',
								description: 'Only Runs that finish from now on start the workflow',
							},
						],
						description:
							'What to do, when the workflow is activated again, with the Runs that finished while it was inactive',
					},
					// Items in Parallel is the action node's: a trigger has no items to send.
					...(optionsField.options ?? []).filter((option) => option.name === 'requestTimeout'),
				],
			},
		],
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollFinishedRuns.call(this);
	}
}
