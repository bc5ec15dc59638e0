import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { BINARY_ENCODING, NodeOperationError } from 'n8n-workflow';
import type { MultipartFile } from '../../transport/multipart';

import {
	MAX_FILE_BYTES,
	MAX_FILES_PER_RUN,
	formatBytes,
	formatMegabytes,
} from '../../transport/serviceLimits';

/** Which binary fields of the item become files of the Run. */
export function selectBinaryFields(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	source: 'fields' | 'all',
	fieldList: string,
): string[] {
	const available = Object.keys(item.binary ?? {});
	if (available.length === 0) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex + 1} has no files (binary data)`,
			{
				description:
					'Create Run uploads the item’s binary data. Connect a node that outputs files before this one, e.g. Gmail (Download Attachments on), Google Drive (Download) or Read/Write Files from Disk.',
				itemIndex,
			},
		);
	}
	if (source === 'all') return available;
	const wanted = fieldList
		.split(',')
		.map((field) => field.trim())
		.filter((field) => field !== '');
	if (wanted.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Input Binary Fields is empty', {
			description: `Enter the binary field names to upload (this item has: ${available.join(', ')}), or choose "All Binary Fields of the Item".`,
			itemIndex,
		});
	}
	for (const field of wanted) {
		if (!available.includes(field)) {
			throw new NodeOperationError(
				context.getNode(),
				`Item ${itemIndex + 1} has no binary field "${field}"`,
				{
					description: `This item’s binary fields are: ${available.join(', ')}. Put one of them in Input Binary Fields, or choose "All Binary Fields of the Item".`,
					itemIndex,
				},
			);
		}
	}
	return wanted;
}

async function binarySize(context: IExecuteFunctions, binary: IBinaryData): Promise<number> {
	if (binary.id) {
		const metadata = await context.helpers.getBinaryMetadata(binary.id);
		return Number(metadata.fileSize);
	}
	return Buffer.byteLength(binary.data ?? '', BINARY_ENCODING);
}

/**
 * Turns the chosen binary fields into multipart file parts, checking every limit
 * before any byte is sent. Nothing is read into memory: a part opens its binary as a
 * stream when the upload reaches it (binaries held in memory by n8n are already
 * buffers and are sent from there).
 */
export async function filesForUpload(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	fields: string[],
): Promise<MultipartFile[]> {
	if (fields.length > MAX_FILES_PER_RUN) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex + 1} has ${fields.length} files; a Run takes at most ${MAX_FILES_PER_RUN}`,
			{
				description: `Split the files over several items (e.g. with the Loop Over Items node) so that each Run gets at most ${MAX_FILES_PER_RUN}.`,
				itemIndex,
			},
		);
	}
	const files: MultipartFile[] = [];
	for (const field of fields) {
		const binary = item.binary?.[field] as IBinaryData;
		const fileName =
			binary.fileName || `${field}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;
		const size = await binarySize(context, binary);
		if (!Number.isFinite(size) || size <= 0) {
			throw new NodeOperationError(
				context.getNode(),
				`Binary field "${field}" (${fileName}) of item ${itemIndex + 1} holds no data`,
				{ description: 'The file is empty (0 bytes). Check the node that produced it.', itemIndex },
			);
		}
		if (size > MAX_FILE_BYTES) {
			throw new NodeOperationError(
				context.getNode(),
				`File "${fileName}" in binary field "${field}" is ${formatBytes(size)}; the limit is ${formatBytes(MAX_FILE_BYTES)}`,
				{
					description: `The service accepts files of at most ${formatMegabytes(MAX_FILE_BYTES)}. Split or compress the file before uploading it.`,
					itemIndex,
				},
			);
		}
		const binaryId = binary.id;
		files.push({
			fieldName: 'files',
			fileName,
			contentType: binary.mimeType || 'application/octet-stream',
			size,
			open: binaryId
				? async () => await context.helpers.getBinaryStream(binaryId, 256 * 1024)
				: () => [Buffer.from(binary.data, BINARY_ENCODING)],
		});
	}
	return files;
}
