/**
 * Stand-in of n8n's Webhook (or Form Trigger) receiving a multipart upload: a start node that
 * emits one item per request given to it, `{ headers, params, query, body }` as the Webhook
 * node gives it, with the uploaded files as binary fields. n8n stores a webhook's files before
 * the execution exists (WebhookContext → copyBinaryFile with no execution id), so they sit
 * under `workflows/<id>/executions/temp/` (a `temp` row in database mode) while the execution
 * runs; this node stores them the same way, through n8n-core's BinaryDataService.
 */
import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { binaryDataService } from '../core';
import { type HarnessBinaryInput, mimeTypeFor } from './HarnessInput.node';

export const WEBHOOK_UPLOAD_TYPE = 'n8n-nodes-harness.webhookUpload';

/** n8n's Webhook node's type name. */
export const WEBHOOK_TYPE = 'n8n-nodes-base.webhook';

export interface WebhookRequest {
	/** The request's JSON or form fields, as the Webhook node's `body`. */
	body?: IDataObject;
	/** The request's query string, parsed as n8n parses it (`a[b]=c` becomes an object). */
	query?: IDataObject;
	/** The request's headers. */
	headers?: IDataObject;
	/** The uploaded files by form field name. */
	files?: Record<string, Required<Pick<HarnessBinaryInput, 'data'>> & HarnessBinaryInput>;
}

const description: INodeTypeDescription = {
	displayName: 'Webhook Upload',
	name: WEBHOOK_UPLOAD_TYPE,
	group: ['trigger'],
	version: 1,
	description:
		'Emits the requests given to the test as n8n’s Webhook node emits a multipart upload',
	defaults: { name: 'Webhook' },
	inputs: [],
	outputs: ['main'],
	properties: [],
};

export async function storeAsWebhookFile(
	workflowId: string,
	field: string,
	file: Required<Pick<HarnessBinaryInput, 'data'>> & HarnessBinaryInput,
) {
	return await binaryDataService().store(
		// No execution id yet: n8n's store files it under "temp".
		{ type: 'execution', workflowId, executionId: '' },
		file.data,
		{ data: '', mimeType: mimeTypeFor(file), fileName: file.fileName ?? field },
	);
}

/**
 * A Webhook stand-in that emits `requests` (one item each). Registered under n8n's own type
 * name (WEBHOOK_TYPE) it is n8n's Webhook as far as the node under test can tell.
 */
export function createWebhookUpload(
	requests: WebhookRequest[],
	type: string = WEBHOOK_UPLOAD_TYPE,
): INodeType {
	return {
		description: { ...description, name: type },
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const workflowId = String(this.getWorkflow().id);
			const out: INodeExecutionData[] = [];
			for (const request of requests) {
				let binary: IBinaryKeyData | undefined;
				for (const [field, file] of Object.entries(request.files ?? {})) {
					binary ??= {};
					binary[field] = await storeAsWebhookFile(workflowId, field, file);
				}
				out.push({
					json: {
						headers: request.headers ?? {},
						params: {},
						query: request.query ?? {},
						body: request.body ?? {},
					},
					...(binary ? { binary } : {}),
					pairedItem: { item: 0 },
				});
			}
			return [out];
		},
	};
}
