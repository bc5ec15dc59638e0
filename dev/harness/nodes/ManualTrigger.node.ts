/**
 * Stand-in for n8n's "When clicking 'Execute workflow'" node (n8n-nodes-base.manualTrigger),
 * so that workflows exported from the editor run unchanged in `runWorkflow`.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';

export class ManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: "When clicking 'Execute workflow'",
		name: MANUAL_TRIGGER_TYPE,
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: "When clicking 'Execute workflow'" },
		inputs: [],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}
