/**
 * Stand-in of a node that looks something up and replaces the item with its answer (HTTP
 * Request, Google Sheets, a Code node returning new items): the output item has the answer's
 * JSON only, so the input item's files are no longer on it (neither its binary fields nor,
 * in combined binary mode, its JSON's `_files`).
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export const LOOK_UP_TYPE = 'n8n-nodes-harness.lookUp';

export class LookUp implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Look Up',
		name: LOOK_UP_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Replaces every item with a looked-up answer, dropping its files',
		defaults: { name: 'Look Up' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, index) => ({
				json: { customer: `customer ${index + 1}` },
				pairedItem: { item: index },
			})),
		];
	}
}
