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
		version: 1,
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
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
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
			simplifyField({}),
			{
				displayName: 'Include Full Run',
				name: 'includeFullRun',
				type: 'boolean',
				default: true,
				description:
					'Whether to read each finished Run once more for the details only the single-Run read has: credits used, per-Prompt timings, citation regions and web citations (one extra request per Run)',
			},
			{
				displayName: 'On Re-Activation',
				name: 'onReactivation',
				type: 'options',
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
			optionsField,
		],
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollFinishedRuns.call(this);
	}
}
