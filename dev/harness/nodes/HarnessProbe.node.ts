/**
 * Test-only node used by the harness's own tests. Operations:
 * - hashBinary: reads an input binary back (by stream when n8n stored it as a file) and
 *   outputs its sha256, size and where it was stored; an item with `json.fail` throws,
 *   which exercises "On Error: Continue";
 * - request: GET `url` with the extractionAgentsApi credential (httpRequestWithAuthentication);
 * - makeBinary: outputs a new binary holding `text`;
 * - waitForCancel: waits for the execution's cancel signal (or `waitMs`).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const HARNESS_PROBE_TYPE = 'n8n-nodes-harness.harnessProbe';

export class HarnessProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Probe',
		name: HARNESS_PROBE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Test-only node for the harness tests',
		defaults: { name: 'Harness Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'extractionAgentsApi', required: false }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Hash Binary', value: 'hashBinary' },
					{ name: 'Request', value: 'request' },
					{ name: 'Make Binary', value: 'makeBinary' },
					{ name: 'Wait for Cancel', value: 'waitForCancel' },
				],
				default: 'hashBinary',
			},
			{
				displayName: 'Input Binary Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
			},
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'Wait (ms)', name: 'waitMs', type: 'number', default: 10000 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operation = this.getNodeParameter('operation', 0) as string;
		const out: INodeExecutionData[] = [];

		if (operation === 'waitForCancel') {
			const waitMs = this.getNodeParameter('waitMs', 0) as number;
			const signal = this.getExecutionCancelSignal();
			const started = Date.now();
			const cancelled = await new Promise<boolean>((resolve) => {
				if (signal?.aborted) return resolve(true);
				const timer = setTimeout(() => resolve(false), waitMs);
				signal?.addEventListener('abort', () => {
					clearTimeout(timer);
					resolve(true);
				});
			});
			return [[{ json: { cancelled, waitedMs: Date.now() - started }, pairedItem: { item: 0 } }]];
		}

		for (let i = 0; i < items.length; i++) {
			try {
				if (items[i].json.fail === true) {
					throw new NodeOperationError(this.getNode(), `Item ${i} asked to fail`, { itemIndex: i });
				}
				if (operation === 'hashBinary') {
					const field = this.getNodeParameter('binaryPropertyName', i) as string;
					const binary = this.helpers.assertBinaryData(i, field);
					const hash = createHash('sha256');
					let bytes = 0;
					let storedAs: 'file' | 'memory';
					let filePath: string | undefined;
					let metadataSize: number | undefined;
					if (binary.id) {
						storedAs = 'file';
						filePath = this.helpers.getBinaryPath(binary.id);
						metadataSize = (await this.helpers.getBinaryMetadata(binary.id)).fileSize;
						const stream = await this.helpers.getBinaryStream(binary.id, 64 * 1024);
						for await (const chunk of stream) {
							hash.update(chunk as Buffer);
							bytes += (chunk as Buffer).length;
						}
					} else {
						storedAs = 'memory';
						const buffer = await this.helpers.getBinaryDataBuffer(i, field);
						hash.update(buffer);
						bytes = buffer.length;
					}
					out.push({
						json: {
							sha256: hash.digest('hex'),
							bytes,
							storedAs,
							filePath: filePath ?? null,
							fileExists: filePath ? fs.existsSync(filePath) : false,
							metadataSize: metadataSize ?? null,
							fileName: binary.fileName ?? null,
							mimeType: binary.mimeType,
							binaryId: binary.id ?? null,
						},
						pairedItem: { item: i },
					});
				} else if (operation === 'request') {
					const url = this.getNodeParameter('url', i) as string;
					const response = await this.helpers.httpRequestWithAuthentication.call(
						this,
						'extractionAgentsApi',
						{
							method: 'GET',
							url,
							json: true,
						},
					);
					out.push({ json: { response }, pairedItem: { item: i } });
				} else if (operation === 'makeBinary') {
					const text = this.getNodeParameter('text', i) as string;
					const binary = await this.helpers.prepareBinaryData(
						Buffer.from(text, 'utf8'),
						'made.txt',
						'text/plain',
					);
					out.push({ json: { made: true }, binary: { data: binary }, pairedItem: { item: i } });
				} else {
					throw new NodeOperationError(this.getNode(), `Unknown operation ${operation}`);
				}
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw error;
			}
		}
		return [out];
	}
}
