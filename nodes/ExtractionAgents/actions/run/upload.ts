import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { BINARY_ENCODING, NodeOperationError } from 'n8n-workflow';
import {
	FILES_IN_JSON,
	filesInJson,
	filesInTopLevelJson,
	isFileOfThisExecution,
	isBinaryObject,
	isCombinedBinaryMode,
} from './filesOfExecution';
import { STORED_FILE_READ_BYTES, type MultipartFile } from '../../transport/multipart';
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
	if (value === null) return 'an empty value (null)';
	if (value === undefined) return 'nothing: the expression gives no value';
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

/** The file objects of an item's JSON that filesOfItem left out, by file name (see refusedFilesError). */
const refusedFiles = new WeakMap<INodeExecutionData, string[]>();

/**
 * The item's files by the names File Fields takes: its binary fields and, in combined binary
 * mode (n8n 2.x), the files n8n keeps in its JSON: under `_files`, and the top-level fields
 * in which a Form Trigger or a Set node puts files. Only those n8n placed in this execution
 * (isFileOfThisExecution): a file object an outsider typed into a form, a chat message or a
 * webhook's body is no file of the item, wherever a node moved it. A file in two places
 * counts once.
 */
export function filesOfItem(
	context: IExecuteFunctions,
	item: INodeExecutionData,
): Record<string, IBinaryData> {
	const files: Record<string, IBinaryData> = { ...(item.binary ?? {}) };
	if (!isCombinedBinaryMode(context) || !item.json) return files;
	const ids = new Set(Object.values(files).map((binary) => binary.id));
	const refused: string[] = [];
	const add = (name: string, binary: IBinaryData) => {
		if (name in files || (binary.id && ids.has(binary.id))) return;
		if (binary.id && !isFileOfThisExecution(context, binary.id)) {
			// The name is the sender's text: shortened for the message.
			refused.push((binary.fileName ?? name).slice(0, 100));
			return;
		}
		files[name] = binary;
		ids.add(binary.id);
	};
	for (const [name, binary] of Object.entries(filesInJson(item.json))) add(name, binary);
	for (const [name, binary] of filesInTopLevelJson(item.json)) if (binary.id) add(name, binary);
	if (refused.length > 0) refusedFiles.set(item, refused);
	return files;
}

/** An item whose only file objects are ones an outsider could have typed into its data. */
function refusedFilesError(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): NodeOperationError | undefined {
	const refused = refusedFiles.get(item);
	if (!refused?.length) return undefined;
	const more = refused.length > 1 ? ` and ${refused.length - 1} more` : '';
	return new NodeOperationError(
		context.getNode(),
		`Item ${itemIndex + 1} has no ${fileWordsOf(context.getNode()).files}: "${refused[0]}"${more} in its data ${more ? 'are' : 'is'} not a file of this execution`,
		{
			description:
				'A file object in an item’s data is read only where n8n put a file: a form’s file element, or _files as n8n filled it. This one sits where whoever sent the data (a form’s user, a chat’s or a webhook’s caller) can type it, so it could name any stored file, another workflow’s included; it is not read. A chat’s uploads are read when the workflow setting binary mode is "separate".',
			itemIndex,
		},
	);
}

/** Whether the item carries any file, in either binary mode. */
export function itemHasFiles(context: IExecuteFunctions, item: INodeExecutionData): boolean {
	return Object.keys(filesOfItem(context, item)).length > 0;
}

/** Every file of the item; from node version 1.2 without the images an email shows in its text. */
function allFilesOf(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	files: Record<string, IBinaryData>,
	onInlineImagesSkipped?: (fileNames: string[]) => void,
): ChosenFile[] {
	const all = Object.entries(files).map(([field, binary]) => ({ field, binary }));
	if (all.length === 0)
		throw refusedFilesError(context, item, itemIndex) ?? noFilesError(context, itemIndex);
	if (!hasBehaviour(context.getNode(), 'skipInlineImages')) return all;
	const attached = all.filter(({ binary }) => !isShownInEmailText(item, binary));
	if (attached.length < all.length) {
		onInlineImagesSkipped?.(
			all.filter((file) => !attached.includes(file)).map(({ binary }) => binary.fileName ?? ''),
		);
	}
	// From version 1.5 a logo alone is no document: nothing to send and no item to review.
	if (attached.length === 0 && hasBehaviour(context.getNode(), 'noDocumentNoItem')) return [];
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

/** How an expression names a file of an earlier node, in the workflow's binary mode. */
function fileExpressionExample(context: IExecuteFunctions): string {
	return isCombinedBinaryMode(context)
		? `{{ $('Webhook').item.${FILES_IN_JSON}.data }}`
		: "{{ $('Webhook').item.binary.data }}";
}

/**
 * A file object from an expression may be read only when n8n placed it on an item in this
 * execution (isFileOfThisExecution): one typed into data, such as a webhook's JSON, could name
 * any stored file, another workflow's included. Objects that hold their bytes need no check.
 */
function assertFileOfThisExecution(
	context: IExecuteFunctions,
	itemIndex: number,
	binary: IBinaryData,
): void {
	if (!binary.id || isFileOfThisExecution(context, binary.id)) return;
	const words = fileWordsOf(context.getNode());
	throw new NodeOperationError(
		context.getNode(),
		`The file "${binary.fileName ?? 'without a name'}" given in ${words.fieldList} is not a file of this execution`,
		{
			description: `Only files that a node of this workflow produced in this execution can be uploaded; this file object comes from data (e.g. a webhook’s JSON), where it could name any stored file. Give the file itself: the name of the item’s ${words.field}, or an expression that points at the node that produced it, such as ${fileExpressionExample(context)}.`,
			itemIndex,
		},
	);
}

/** In combined binary mode, a path into the item's JSON (`_files.data`), as n8n's own nodes take it. */
function fileAtPath(item: INodeExecutionData, path: string): IBinaryData | undefined {
	let value: unknown = item.json;
	for (const key of path.split('.')) {
		if (!value || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return isBinaryObject(value) ? value : undefined;
}

/** The item's files named in a comma-separated list (File Fields). */
function filesNamed(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	files: Record<string, IBinaryData>,
	list: string,
): ChosenFile[] {
	const words = fileWordsOf(context.getNode());
	const available = Object.keys(files);
	const names = list
		.split(',')
		.map((field) => field.trim())
		.filter((field) => field !== '');
	const combined = isCombinedBinaryMode(context);
	if (names.length > 0 && available.length === 0 && !combined)
		throw noFilesError(context, itemIndex);
	return names.map((field) => {
		if (files[field]) return { field, binary: files[field] };
		const atPath = combined ? fileAtPath(item, field) : undefined;
		if (atPath) {
			assertFileOfThisExecution(context, itemIndex, atPath);
			return { field, binary: atPath };
		}
		if (available.length === 0) throw noFilesError(context, itemIndex);
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex + 1} has no ${words.field} "${field}"`,
			{
				description: `This item’s ${words.fields} are: ${available.join(', ')}. Put one of them in ${words.fieldList}, or choose "${words.all}".`,
				itemIndex,
			},
		);
	});
}

/** Why a File Fields value is no file, and what to enter; combined mode's own way of naming files. */
function notAFileError(
	context: IExecuteFunctions,
	itemIndex: number,
	entry: unknown,
	available: string[],
): NodeOperationError {
	const words = fileWordsOf(context.getNode());
	const combinedHint = isCombinedBinaryMode(context)
		? ` This workflow keeps files in the items’ data (workflow setting binary mode "combined"), under ${FILES_IN_JSON}: e.g. ${fileExpressionExample(context)}.`
		: '';
	return new NodeOperationError(
		context.getNode(),
		`${words.fieldList} holds ${kindOf(entry)}, not ${words.field} names or files`,
		{
			description: `Enter field names separated by commas${available.length ? ` (this item has: ${available.join(', ')})` : ''}, or an expression that gives a file such as {{ $binary.data }}, or choose "${words.all}".${combinedHint}`,
			itemIndex,
		},
	);
}

/**
 * The files of the item that become files of the Run: every file of the item ("all"), or
 * what File Fields (Input Binary Fields before version 1.2) gives — comma-separated field
 * names, a binary object from an expression, or a list of either. Files are found as n8n's own
 * nodes find them, in either binary mode (filesOfItem). From node version 1.2, "all" leaves
 * out the images an email shows inside its text; `onInlineImagesSkipped` hears their names.
 * From 1.5 an item with only such images gives no files (an error before).
 */
export function selectFiles(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	source: 'fields' | 'all',
	fieldValue: unknown,
	onInlineImagesSkipped?: (fileNames: string[]) => void,
): ChosenFile[] {
	const files = filesOfItem(context, item);
	const available = Object.keys(files);
	if (source === 'all') {
		return allFilesOf(context, item, itemIndex, files, onInlineImagesSkipped);
	}
	const words = fileWordsOf(context.getNode());
	const entries = Array.isArray(fieldValue) ? fieldValue : [fieldValue];
	const chosen: ChosenFile[] = [];
	for (const entry of entries) {
		if (isBinaryObject(entry)) {
			assertFileOfThisExecution(context, itemIndex, entry);
			chosen.push({ binary: entry });
		} else if (isFileDescription(entry)) {
			chosen.push(fieldDescribedBy(context, item, itemIndex, entry));
		} else if (typeof entry === 'string') {
			chosen.push(...filesNamed(context, item, itemIndex, files, entry));
		} else {
			throw notAFileError(context, itemIndex, entry, available);
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
	/** One Run per file: the item's files are not one Run's, so their count has no limit here. */
	options: { perFile?: boolean } = {},
): Promise<MultipartFile[]> {
	const words = fileWordsOf(context.getNode());
	if (chosen.length > MAX_FILES_PER_RUN && !options.perFile) {
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
				? async () => await context.helpers.getBinaryStream(binaryId, STORED_FILE_READ_BYTES)
				: () => [Buffer.from(binary.data, BINARY_ENCODING)],
		});
	}
	return files;
}
