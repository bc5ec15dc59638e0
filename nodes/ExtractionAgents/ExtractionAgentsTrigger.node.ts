import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { listSearch } from './methods';
import { SIMPLIFY_RUN_DESCRIPTION, agentLocator, simplifyField } from './descriptions/parameters';
import { optionsField } from './descriptions/options';
import { TRIGGER_NODE_VERSIONS, triggerVersions } from './descriptions/versions';
import { pollFinishedRuns } from './trigger/poll';

/** Include Full Run, at the top level (version 1) and under Options (1.1 on): one meaning. */
const INCLUDE_FULL_RUN_DESCRIPTION =
	'Whether to read each finished Run once more for credits used, timings and where each answer was found (one more read request per Run)';

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
					{
						name: 'Succeeded',
						value: 'success',
						description:
							'The Run’s status is success; its failed_prompts column names any Prompts that failed',
					},
					{
						name: 'Failed',
						value: 'failed',
						description:
							'The Run’s status is failed. A Run that succeeded with some Prompts failed counts as Succeeded.',
					},
					{
						name: 'Ended Another Way',
						value: 'other',
						description:
							'A final status other than success or failed that the service may add, such as cancelled',
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
				description: SIMPLIFY_RUN_DESCRIPTION,
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
				description: INCLUDE_FULL_RUN_DESCRIPTION,
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
						description: INCLUDE_FULL_RUN_DESCRIPTION,
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
