/**
 * Start node of `executeNode`: a trigger-like node without inputs that emits the items the
 * test gave it. Binaries go through n8n-core's real `prepareBinaryData`, so in 'filesystem'
 * mode they become files in n8n's binary store (a `path` is streamed there, never buffered)
 * and in 'default' mode base64 data in the item, exactly as a real upstream node would
 * produce them.
 */
import { createReadStream, truncateSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';

import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

const { lookup } = require('mime-types') as { lookup(pathOrExt: string): string | false };

export interface HarnessBinaryInput {
	/** The file's bytes. */
	data?: Buffer;
	/** A file on disk, streamed into n8n's binary store (use for large files). */
	path?: string;
	/** Defaults to the base name of `path`. */
	fileName?: string;
	mimeType?: string;
	/**
	 * Damage the stored file after storing it (filesystem mode), so the next node finds
	 * n8n's store out of step with the binary's metadata: 'delete' removes the file,
	 * 'truncate' cuts it to half its size.
	 */
	damageStoredFile?: 'delete' | 'truncate';
}

export interface HarnessInputItem {
	json?: IDataObject;
	binary?: Record<string, HarnessBinaryInput>;
}

export const HARNESS_INPUT_TYPE = 'n8n-nodes-harness.harnessInput';

/**
 * The MIME type n8n would settle on, decided here so that n8n-core never falls back to
 * `import('file-type')` (a dynamic ESM import that jest's CommonJS sandbox refuses).
 */
export function mimeTypeFor(binary: HarnessBinaryInput): string {
	return (
		binary.mimeType ?? (lookup(binary.fileName || binary.path || '') || 'application/octet-stream')
	);
}

/** Stores one binary through the node's real helpers (stream for a path, buffer otherwise). */
export async function storeBinary(
	ctx: IExecuteFunctions,
	field: string,
	input: HarnessBinaryInput,
) {
	const mimeType = mimeTypeFor(input);
	if (input.path !== undefined) {
		const fileName = input.fileName || path.basename(input.path);
		return await ctx.helpers.prepareBinaryData(createReadStream(input.path), fileName, mimeType);
	}
	if (input.data !== undefined) {
		return await ctx.helpers.prepareBinaryData(input.data, input.fileName ?? field, mimeType);
	}
	throw new Error(`Harness input binary "${field}" needs either data or path`);
}

export const harnessInputDescription: INodeTypeDescription = {
	displayName: 'Harness Input',
	name: HARNESS_INPUT_TYPE,
	group: ['trigger'],
	version: 1,
	description: 'Emits the items given to the test harness',
	defaults: { name: 'Harness Input' },
	inputs: [],
	outputs: ['main'],
	properties: [],
};

/** A start node type that emits `items` (one per execution: the items live in its closure). */
export function createHarnessInput(items: HarnessInputItem[] = [{ json: {} }]): INodeType {
	return {
		description: harnessInputDescription,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const out: INodeExecutionData[] = [];
			for (const item of items) {
				let binary: IBinaryKeyData | undefined;
				for (const [field, input] of Object.entries(item.binary ?? {})) {
					binary ??= {};
					binary[field] = await storeBinary(this, field, input);
					const storedId = binary[field].id;
					if (input.damageStoredFile && storedId) {
						const storedPath = this.helpers.getBinaryPath(storedId);
						if (input.damageStoredFile === 'delete') unlinkSync(storedPath);
						else truncateSync(storedPath, Math.floor(Number(binary[field].bytes ?? 0) / 2));
					}
				}
				// Every item stems from the single trigger item, as with a real trigger.
				out.push({
					json: { ...(item.json ?? {}) },
					...(binary ? { binary } : {}),
					pairedItem: { item: 0 },
				});
			}
			return [out];
		},
	};
}
