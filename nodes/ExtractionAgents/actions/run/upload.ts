import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { BINARY_ENCODING, NodeOperationError } from 'n8n-workflow';
import type { MultipartFile } from '../../transport/multipart';
import { hasBehaviour } from '../../descriptions/versions';
import { fileWordsOf } from '../../descriptions/panelWords';

import {
	MAX_FILE_BYTES,
	MAX_FILES_PER_RUN,
	formatBytes,
	formatMegabytes,
} from '../../transport/serviceLimits';

/** One file chosen for the Run: the item's binary field it is in, or a file given by an expression. */
export interface ChosenFile {
	/** The binary field's name; undefined for a file given as a binary object. */
	field?: string;
	binary: IBinaryData;
}

/**
 * A binary object as n8n hands it to a parameter from an expression (`{{ $binary.data }}`,
 * n8n 1.114 and later): its mime type and either its bytes or its id in n8n's binary store.
 * Checked here rather than with n8n-workflow's own helper, which older n8n versions lack.
 */
function isBinaryObject(value: unknown): value is IBinaryData {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
	const candidate = value as Partial<IBinaryData>;
	return (
		typeof candidate.mimeType === 'string' &&
		(typeof candidate.id === 'string' || typeof candidate.data === 'string')
	);
}

/**
 * Whether a binary object's id may be read: n8n hands an expression the id of a stored file,
 * and the same shape can come from data (a webhook's JSON). An id is trusted only when it is
 * a file of one of this node's input items, or one stored by this execution of this workflow
 * (a file of an earlier node, `{{ $('Gmail').item.binary.attachment_0 }}`). Any other id could
 * name another execution's or another workflow's file.
 */
function isFileOfThisExecution(context: IExecuteFunctions, id: string): boolean {
	for (const item of context.getInputData()) {
		for (const binary of Object.values(item.binary ?? {})) if (binary.id === id) return true;
	}
	const location = /^[^:]+:workflows\/([^/]+)\/executions\/([^/]+)\/binary_data\/[^/]+$/.exec(id);
	if (!location) return false;
	const [, workflowId, executionId] = location;
	const ownExecution = context.getExecutionId();
	return (
		workflowId === String(context.getWorkflow().id) &&
		(executionId === ownExecution || (executionId === 'temp' && !ownExecution))
	);
}

/** A binary object whose bytes were left out (see fieldDescribedBy). */
function isFileDescription(value: unknown): value is Partial<IBinaryData> {
	return (
		!!value &&
		typeof value === 'object' &&
		!Array.isArray(value) &&
		typeof (value as Partial<IBinaryData>).mimeType === 'string'
	);
}

/**
 * With files kept in memory (n8n 1.x's default binary mode) an expression such as
 * `{{ $binary.attachment_1 }}` gives the file's description without its bytes. The item's
 * own field with the same name, type and size is that file; anything else cannot be read.
 */
function fieldDescribedBy(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	described: Partial<IBinaryData>,
): ChosenFile {
	const same = Object.entries(item.binary ?? {}).filter(
		([, binary]) =>
			binary.fileName === described.fileName &&
			binary.mimeType === described.mimeType &&
			(described.fileSize === undefined || binary.fileSize === described.fileSize),
	);
	if (same.length === 1) return { field: same[0][0], binary: same[0][1] };
	const words = fileWordsOf(context.getNode());
	throw new NodeOperationError(
		context.getNode(),
		`The file "${described.fileName ?? 'without a name'}" given in ${words.fieldList} arrived without its content`,
		{
			description: `Enter the name of the ${words.field} instead of an expression (e.g. attachment_0), or choose "${words.all}".`,
			itemIndex,
		},
	);
}

/** The email's HTML as Gmail, Outlook and Email Trigger (IMAP) items carry it, if any. */
function emailHtmlOf(item: INodeExecutionData): string | undefined {
	for (const key of ['html', 'textAsHtml', 'bodyHtml']) {
		const value = item.json[key];
		if (typeof value === 'string' && value !== '') return value;
	}
	const body = item.json.body as { content?: unknown; contentType?: unknown } | undefined;
	if (body && typeof body.content === 'string' && body.contentType === 'html') return body.content;
	return undefined;
}

/**
 * An image the email shows inside its text (a logo, a signature) rather than an attached
 * document: the HTML refers to it by Content-ID (`cid:image001.png@…`, Outlook) or names it
 * in an <img> of a `cid:` source (`alt="image.png"`, Gmail). A photo attached to the email is
 * not referred to, so it is still sent.
 */
function isShownInEmailText(item: INodeExecutionData, binary: IBinaryData): boolean {
	if (!binary.mimeType?.startsWith('image/') || !binary.fileName) return false;
	const html = emailHtmlOf(item);
	if (!html) return false;
	const name = binary.fileName.toLowerCase();
	const text = html.toLowerCase();
	if (text.includes(`cid:${name}`)) return true;
	for (const img of text.match(/<img\b[^>]*>/g) ?? []) {
		if (!/src\s*=\s*["']?cid:/.test(img)) continue;
		const alt = /alt\s*=\s*["']([^"']*)["']/.exec(img)?.[1];
		if (alt === name) return true;
	}
	return false;
}

function kindOf(value: unknown): string {
	if (value === null) return 'empty (null)';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object that is not a file';
	return `a ${typeof value}`;
}

/**
 * An item without files. Most come from a Gmail Trigger left at its defaults, which gives
 * the email without its attachments: the description names the two settings that bring them.
 */
function noFilesError(context: IExecuteFunctions, itemIndex: number): NodeOperationError {
	const words = fileWordsOf(context.getNode());
	return new NodeOperationError(context.getNode(), `Item ${itemIndex + 1} has no ${words.files}`, {
		description:
			'Extract Data From Files uploads the files the item carries, and this item carries none. From a Gmail Trigger: open it, turn Simplify off, and under Options → Add option turn Download Attachments on; then fetch a test event again. Otherwise connect a node that outputs files before this one, e.g. Google Drive (Download) or Read/Write Files from Disk.',
		itemIndex,
	});
}

/**
 * The files of the item that become files of the Run: every file field ("all"), or what
 * File Fields (Input Binary Fields before version 1.2) gives — comma-separated field names, a binary object from an
 * expression, or a list of either. From node version 1.2, "all" leaves out the images an
 * email shows inside its text; `onInlineImagesSkipped` hears their names.
 */
export function selectFiles(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	source: 'fields' | 'all',
	fieldValue: unknown,
	onInlineImagesSkipped?: (fileNames: string[]) => void,
): ChosenFile[] {
	const binaries = item.binary ?? {};
	const available = Object.keys(binaries);
	if (source === 'all') {
		if (available.length === 0) throw noFilesError(context, itemIndex);
		const all = available.map((field) => ({ field, binary: binaries[field] }));
		if (!hasBehaviour(context.getNode(), 'skipInlineImages')) return all;
		const attached = all.filter(({ binary }) => !isShownInEmailText(item, binary));
		if (attached.length < all.length) {
			onInlineImagesSkipped?.(
				all.filter((file) => !attached.includes(file)).map(({ binary }) => binary.fileName ?? ''),
			);
		}
		if (attached.length === 0) {
			throw new NodeOperationError(
				context.getNode(),
				`Item ${itemIndex + 1} has only images shown inside the email text, no attached document`,
				{
					description: `Images placed in an email’s text (logos, signatures) are not sent. To send them anyway, choose ${fileWordsOf(context.getNode()).specific} and name them (e.g. attachment_0).`,
					itemIndex,
				},
			);
		}
		return attached;
	}
	const words = fileWordsOf(context.getNode());
	const entries = Array.isArray(fieldValue) ? fieldValue : [fieldValue];
	const chosen: ChosenFile[] = [];
	for (const entry of entries) {
		if (isBinaryObject(entry)) {
			if (entry.id && !isFileOfThisExecution(context, entry.id)) {
				throw new NodeOperationError(
					context.getNode(),
					`The file "${entry.fileName ?? 'without a name'}" given in ${words.fieldList} is not a file of this execution`,
					{
						description: `A file object that comes from data (e.g. a webhook’s JSON) cannot name stored files. Give the file itself: the name of the item’s file field, or an expression such as {{ $binary.data }}.`,
						itemIndex,
					},
				);
			}
			chosen.push({ binary: entry });
			continue;
		}
		if (isFileDescription(entry)) {
			chosen.push(fieldDescribedBy(context, item, itemIndex, entry));
			continue;
		}
		if (typeof entry !== 'string') {
			throw new NodeOperationError(
				context.getNode(),
				`${words.fieldList} holds ${kindOf(entry)}, not ${words.field} names or files`,
				{
					description: `Enter field names separated by commas${available.length ? ` (this item has: ${available.join(', ')})` : ''}, or an expression that gives a file such as {{ $binary.data }}, or choose "${words.all}".`,
					itemIndex,
				},
			);
		}
		const names = entry
			.split(',')
			.map((field) => field.trim())
			.filter((field) => field !== '');
		if (names.length > 0 && available.length === 0) throw noFilesError(context, itemIndex);
		for (const field of names) {
			if (!available.includes(field)) {
				throw new NodeOperationError(
					context.getNode(),
					`Item ${itemIndex + 1} has no ${words.field} "${field}"`,
					{
						description: `This item’s ${words.fields} are: ${available.join(', ')}. Put one of them in ${words.fieldList}, or choose "${words.all}".`,
						itemIndex,
					},
				);
			}
			chosen.push({ field, binary: binaries[field] });
		}
	}
	if (chosen.length === 0) {
		if (available.length === 0) throw noFilesError(context, itemIndex);
		throw new NodeOperationError(context.getNode(), `${words.fieldList} is empty`, {
			description: `Enter the names of the ${words.fields} to upload (this item has: ${available.join(', ')}), or choose "${words.all}".`,
			itemIndex,
		});
	}
	return chosen;
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
	itemIndex: number,
	chosen: ChosenFile[],
): Promise<MultipartFile[]> {
	const words = fileWordsOf(context.getNode());
	if (chosen.length > MAX_FILES_PER_RUN) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex + 1} has ${chosen.length} files; a Run takes at most ${MAX_FILES_PER_RUN}`,
			{
				description: `Send at most ${MAX_FILES_PER_RUN} files per Run: choose ${words.specific} to pick the files to send, or split the files over several items: each item becomes its own Run.`,
				itemIndex,
			},
		);
	}
	const files: MultipartFile[] = [];
	for (const [index, { field, binary }] of chosen.entries()) {
		const stem = field ?? `file_${index}`;
		const fileName =
			binary.fileName || `${stem}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;
		const where = field ? `${words.field} "${field}"` : `file ${index + 1} of ${words.fieldList}`;
		const size = await binarySize(context, binary);
		if (!Number.isFinite(size) || size <= 0) {
			throw new NodeOperationError(
				context.getNode(),
				`${where.charAt(0).toUpperCase()}${where.slice(1)} (${fileName}) of item ${itemIndex + 1} holds no data`,
				{ description: 'The file is empty (0 bytes). Check the node that produced it.', itemIndex },
			);
		}
		if (size > MAX_FILE_BYTES) {
			throw new NodeOperationError(
				context.getNode(),
				`File "${fileName}" in ${where} is ${formatBytes(size)}; the limit is ${formatBytes(MAX_FILE_BYTES)}`,
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
			source: where,
			open: binaryId
				? async () => await context.helpers.getBinaryStream(binaryId, 256 * 1024)
				: () => [Buffer.from(binary.data, BINARY_ENCODING)],
		});
	}
	return files;
}
