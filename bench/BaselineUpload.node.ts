/**
 * Test-only baseline for figure 1/2 (never shipped: it lives in bench/, not nodes/).
 * Uploads the item's binaries the way n8n's own document nodes do: each binary read
 * whole into a Buffer with getBinaryDataBuffer, wrapped in a Blob, appended to Node's
 * global FormData and POSTed with httpRequestWithAuthentication.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export class BaselineUpload implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Baseline Upload',
		name: 'baselineUpload',
		group: ['transform'],
		version: 1,
		description: 'Buffers every binary, then POSTs a FormData of Blobs',
		defaults: { name: 'Baseline Upload' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'extractionAgentsApi', required: true }],
		properties: [{ displayName: 'Agent ID', name: 'agentId', type: 'string', default: '1' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		const { baseUrl } = (await this.getCredentials('extractionAgentsApi')) as { baseUrl: string };
		for (let i = 0; i < items.length; i++) {
			const agentId = this.getNodeParameter('agentId', i) as string;
			const form = new FormData();
			for (const [key, binary] of Object.entries(items[i].binary ?? {})) {
				const buffer = await this.helpers.getBinaryDataBuffer(i, key);
				form.append('files', new Blob([buffer], { type: binary.mimeType }), binary.fileName ?? key);
			}
			const body = await this.helpers.httpRequestWithAuthentication.call(
				this,
				'extractionAgentsApi',
				{
					method: 'POST',
					url: `${baseUrl.replace(/\/+$/, '')}/api/v1/client/agents/${agentId}/runs`,
					body: form,
					json: true,
				},
			);
			out.push({ json: body as INodeExecutionData['json'], pairedItem: { item: i } });
		}
		return [out];
	}
}
