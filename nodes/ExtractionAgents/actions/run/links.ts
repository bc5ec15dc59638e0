import type { IDataObject, IExecuteFunctions, NodeOperationError } from 'n8n-workflow';
import { FileReadError, type MultipartFile } from '../../transport/multipart';
import { resolveApiRoot } from '../../transport/credential';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';
import {
	MAX_FILE_BYTES,
	MAX_FILES_PER_RUN,
	formatBytes,
	formatMegabytes,
} from '../../transport/serviceLimits';
import {
	fetchLink,
	guardedBytes,
	linkError,
	refuseServiceApiLink,
	type LinkAnswer,
	type LinkFingerprint,
	type LinkLimits,
} from './linkDownload';

/**
 * Files given as links (Run → Create, Files: Links, from node version 1.2). Before any Run is
 * created, every link is asked for its file once (linkDownload.ts: no credential, redirects
 * checked hop by hop): an error status, a web page, a redirect loop, a link into the service's
 * own API or a file over the service's limit fails the item there. Where the host announces
 * the file's length, that one answer's body is what the upload sends. Where it does not (or
 * the answer came compressed), the first answer is read through to measure the file, and the
 * upload reads the link a second time, stopping if it gives other bytes. A resent upload
 * (after a 429) reads a link again under the same check. No file is held in memory.
 */

/**
 * The links of one text: one per line, or separated by commas. A comma splits only where a
 * new web address follows it, since a comma is a valid character inside an address.
 */
function linksInText(text: string): string[] {
	return text
		.split(/\s+|,(?=\s*https?:\/\/)/i)
		.map((link) => link.trim())
		.filter((link) => link !== '');
}

/**
 * The links of the parameter: typed text (see linksInText), or a list from an expression,
 * each of whose entries is one link.
 */
export function linksOf(context: IExecuteFunctions, itemIndex: number, value: unknown): string[] {
	const fromList = Array.isArray(value);
	const entries = fromList ? value : [value];
	const links: string[] = [];
	for (const entry of entries) {
		if (entry === undefined || entry === null) continue;
		if (typeof entry !== 'string') {
			throw linkError(
				context,
				itemIndex,
				`File Links must be web addresses; item ${itemIndex + 1} gave ${typeof entry === 'object' ? 'an object' : `a ${typeof entry}`}`,
				'Enter one link per line (https://…), or an expression that gives a link or a list of links, such as {{ $json.url }}.',
			);
		}
		if (fromList) {
			if (entry.trim() !== '') links.push(entry.trim());
		} else {
			links.push(...linksInText(entry));
		}
	}
	if (links.length === 0) {
		throw linkError(
			context,
			itemIndex,
			`File Links of item ${itemIndex + 1} is empty`,
			'Enter the address of each file to upload, one per line (https://…). If it comes from an expression, check that the field it reads exists in this item.',
		);
	}
	if (links.length > MAX_FILES_PER_RUN) {
		throw linkError(
			context,
			itemIndex,
			`Item ${itemIndex + 1} gives ${links.length} links; a Run takes at most ${MAX_FILES_PER_RUN} files`,
			`Give at most ${MAX_FILES_PER_RUN} links per item; split them over several items so that each becomes its own Run.`,
		);
	}
	for (const link of links) {
		if (!URL.canParse(link) || !/^https?:$/.test(new URL(link).protocol)) {
			throw linkError(
				context,
				itemIndex,
				`"${link}" is not a web address`,
				'Each link must start with https:// or http://, e.g. https://files.example.com/invoice.pdf.',
			);
		}
	}
	return links;
}

/** The last part of a path, whichever slash separates it; never `.` or `..`. */
function baseName(name: string): string {
	const last = name.split(/[\\/]/).pop() ?? '';
	return last === '.' || last === '..' ? '' : last;
}

/** The file name a download gives: Content-Disposition's, else the last part of the link's path. */
function fileNameOf(link: string, contentDisposition: unknown): string {
	const header = typeof contentDisposition === 'string' ? contentDisposition : '';
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			const named = baseName(decodeURIComponent(extended[2].trim().replace(/^"|"$/g, '')));
			if (named) return named;
		} catch {
			// A malformed encoding: fall back to the plain name.
		}
	}
	const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
	const named = baseName(plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim() ?? '');
	if (named) return named;
	const segment = new URL(link).pathname.split('/').filter(Boolean).pop() ?? '';
	try {
		return baseName(decodeURIComponent(segment)) || 'download';
	} catch {
		return segment || 'download';
	}
}

/** Why a file of `size` bytes cannot be sent, if it cannot. */
function sizeProblem(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	fileName: string,
	size: number,
): NodeOperationError | undefined {
	if (size === 0) {
		return linkError(
			context,
			itemIndex,
			`The file at ${link} is empty (0 bytes)`,
			'Check that the link gives the file itself.',
		);
	}
	if (size > MAX_FILE_BYTES) {
		return linkError(
			context,
			itemIndex,
			`File "${fileName}" at ${link} is ${formatBytes(size)}; the limit is ${formatBytes(MAX_FILE_BYTES)}`,
			`The service accepts files of at most ${formatMegabytes(MAX_FILE_BYTES)}. Split or compress the file before uploading it.`,
		);
	}
	return undefined;
}

/** Reads a body of unknown length through, counting and checksumming, without keeping it. */
async function measure(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	fileName: string,
	answer: LinkAnswer,
	timeoutMs: number,
): Promise<LinkFingerprint> {
	let fingerprint: LinkFingerprint | undefined;
	let size = 0;
	try {
		for await (const chunk of guardedBytes(context, link, answer, timeoutMs, {}, (complete) => {
			fingerprint = complete;
		})) {
			size += chunk.length;
			// Leaving the loop stops the download as soon as the file passes the limit.
			if (size > MAX_FILE_BYTES) break;
		}
	} catch (error) {
		throw linkError(
			context,
			itemIndex,
			(error as Error).message,
			error instanceof FileReadError ? error.description : 'No Run was made.',
		);
	}
	const problem = sizeProblem(context, itemIndex, link, fileName, fingerprint?.size ?? size);
	if (problem) throw problem;
	return fingerprint as LinkFingerprint;
}

const contentTypeOf = (headers: IDataObject): string => {
	const value = headers['content-type'];
	const text = Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
	return text.split(';')[0].trim().toLowerCase() || 'application/octet-stream';
};

/** One link as a multipart file part; its first answer is `answer`. */
async function linkPart(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	answer: LinkAnswer,
	limits: LinkLimits,
): Promise<MultipartFile> {
	const fileName = fileNameOf(answer.url, answer.headers['content-disposition']);
	const contentType = contentTypeOf(answer.headers);
	let fingerprint: LinkFingerprint;
	let sizeFrom: 'announced' | 'first read' = 'announced';
	let unread: LinkAnswer | undefined;
	if (answer.length !== undefined) {
		const problem = sizeProblem(context, itemIndex, link, fileName, answer.length);
		if (problem) {
			answer.abort();
			throw problem;
		}
		fingerprint = { size: answer.length };
		unread = answer;
	} else {
		fingerprint = await measure(context, itemIndex, link, fileName, answer, limits.timeoutMs);
		sizeFrom = 'first read';
	}
	return {
		fieldName: 'files',
		fileName,
		contentType,
		size: fingerprint.size,
		source: `its link ${link}`,
		open: async () => {
			let read = unread;
			unread = undefined;
			if (!read) {
				read = await fetchLink(context, itemIndex, link, limits);
				if (contentTypeOf(read.headers) !== contentType) {
					read.abort();
					throw linkError(
						context,
						itemIndex,
						`The link ${link} gave a ${contentTypeOf(read.headers)} file where it first gave ${contentType}`,
						'No Run was made. A link must give the same file each time it is read; use a link to a file that does not change.',
					);
				}
			}
			const expected = { size: fingerprint.size, sizeFrom, sha256: fingerprint.sha256 };
			// Every later read is held to this one.
			sizeFrom = 'first read';
			return guardedBytes(context, link, read, limits.timeoutMs, expected, (complete) => {
				fingerprint = complete;
			});
		},
		release: () => {
			unread?.abort();
			unread = undefined;
		},
	};
}

/**
 * The links as multipart file parts, each link asked for its file before any Run is created.
 * A part's body that the upload never reaches is released by the caller (MultipartBody.release).
 */
export async function filesFromLinks(
	context: IExecuteFunctions,
	itemIndex: number,
	links: string[],
): Promise<MultipartFile[]> {
	const limits: LinkLimits = {
		apiRoot: await resolveApiRoot(context, itemIndex),
		timeoutMs: requestTimeoutMs(context, itemIndex),
	};
	for (const link of links) refuseServiceApiLink(context, itemIndex, link, limits.apiRoot);
	const files: MultipartFile[] = [];
	let complete = false;
	try {
		for (const link of links) {
			const answer = await fetchLink(context, itemIndex, link, limits);
			files.push(await linkPart(context, itemIndex, link, answer, limits));
		}
		complete = true;
	} finally {
		// A link that failed its check: the answers already held open are let go.
		if (!complete) for (const file of files) file.release?.();
	}
	return files;
}
