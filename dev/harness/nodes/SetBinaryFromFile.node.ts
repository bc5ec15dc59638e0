/**
 * Test-only "Read File from Disk": for every input item, streams a file from disk into
 * n8n's binary store (like n8n's Read/Write Files from Disk node) and adds it to the item.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { storeBinary } from './HarnessInput.node';

export const SET_BINARY_FROM_FILE_TYPE = 'n8n-nodes-harness.setBinaryFromFile';

export class SetBinaryFromFile implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Set Binary From File',
		name: SET_BINARY_FROM_FILE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Adds a file from disk to every item as binary data',
		defaults: { name: 'Set Binary From File' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'File Path', name: 'filePath', type: 'string', default: '', required: true },
			{ displayName: 'File Name', name: 'fileName', type: 'string', default: '' },
			{ displayName: 'MIME Type', name: 'mimeType', type: 'string', default: '' },
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const filePath = this.getNodeParameter('filePath', i) as string;
				const fileName = (this.getNodeParameter('fileName', i) as string) || undefined;
				const mimeType = (this.getNodeParameter('mimeType', i) as string) || undefined;
				const field = this.getNodeParameter('binaryPropertyName', i) as string;
				const binary = await storeBinary(this, field, { path: filePath, fileName, mimeType });
				out.push({
					json: items[i].json,
					binary: { ...(items[i].binary ?? {}), [field]: binary },
					pairedItem: { item: i },
				});
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			}
		}
		return [out];
	}
}
