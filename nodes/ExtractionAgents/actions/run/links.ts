import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';
import { STORED_FILE_READ_BYTES, type MultipartFile } from '../../transport/multipart';
import { resolveApiRoot } from '../../transport/credential';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';
import { MAX_FILES_PER_RUN } from '../../transport/serviceLimits';
import {
	fetchLink,
	linkError,
	refuseServiceApiLink,
	shownLink,
	type LinkLimits,
} from './linkDownload';
import {
	storeKeepsFilesOnDisk,
	storeLinkFile,
	streamLinkFile,
	streamableLength,
} from './linkStore';
import { isSecretSegment } from './shownLink';

/**
 * Files given as links (Run → Create, Files: Links, from node version 1.2). Before its Run is
 * created, every link is asked for its file once, in order (linkDownload.ts: no credential,
 * redirects checked hop by hop): an error status, a web page, a redirect loop, a link into the
 * service's own API or a file over the service's limit fails the item there. (With One Run
 * per File, node version 1.5, each link just before its own Run, and a link that fails is its
 * own output item; a link into the service's API is refused before any Run: checkLinks.) Each link is read
 * once (linkStore.ts): where n8n keeps files on disk, whole into n8n's binary store before the
 * upload (a stalled or cut download fails the item before any Run), and the upload sends the
 * stored files, the same bytes even when it is sent again after a 429; where n8n's store would
 * hold the file in memory, every link is sent straight on into the upload as it downloads
 * (with its announced length, or chunked when it announces none), so no file is held whole in
 * memory in any store.
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
				`"${shownLink(link)}" is not a web address`,
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

/**
 * The file name a download gives: Content-Disposition's, else the last part of the link's path,
 * unless that part is a share token (a OneDrive or SharePoint link's secret, shownLink.ts): a
 * file name goes into messages, the Run and the output items.
 */
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
	if (isSecretSegment(segment)) return 'download';
	try {
		return baseName(decodeURIComponent(segment)) || 'download';
	} catch {
		return segment || 'download';
	}
}

const contentTypeOf = (headers: IDataObject): string => {
	const value = headers['content-type'];
	const text = Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
	return text.split(';')[0].trim().toLowerCase() || 'application/octet-stream';
};

/** Links' files are uploaded from n8n's store: a failed read there is n8n's, not a node's. */
const STORED_LINK_ADVICE =
	'The upload stopped before the file was sent whole, so the service made no Run from it. n8n could not read back the file it had downloaded from the link; check that n8n’s disk (or wherever n8n keeps files) works, then run the item again.';

/** One link as a multipart file part: read once, into n8n's binary store or straight on. */
async function linkPart(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	limits: LinkLimits,
): Promise<MultipartFile> {
	const answer = await fetchLink(context, itemIndex, link, limits);
	const fileName = fileNameOf(answer.url, answer.headers['content-disposition']);
	const contentType = contentTypeOf(answer.headers);
	const part = { fieldName: 'files', fileName, contentType, source: `its link ${shownLink(link)}` };
	if (!(await storeKeepsFilesOnDisk(context))) {
		// Its announced length, if any: without one, the upload goes chunked (transport/multipart.ts).
		const streamed = streamLinkFile(context, itemIndex, link, answer, limits.timeoutMs, {
			fileName,
			size: streamableLength(answer),
		});
		return {
			...part,
			size: streamed.size,
			open: streamed.open,
			release: streamed.release,
			watchesItsOwnStall: true,
		};
	}
	const { binary, size } = await storeLinkFile(context, itemIndex, link, answer, limits.timeoutMs, {
		fileName,
		contentType,
	});
	const binaryId = binary.id;
	return {
		...part,
		size,
		readFailureAdvice: STORED_LINK_ADVICE,
		open: binaryId
			? async () => await context.helpers.getBinaryStream(binaryId, STORED_FILE_READ_BYTES)
			: () => [Buffer.from(binary.data, BINARY_ENCODING)],
	};
}

/**
 * Refuses, before any Run is created, an item whose links include one into the service's own
 * API (under any name of its host): checked again as each link is fetched (filesFromLinks).
 */
export async function checkLinks(
	context: IExecuteFunctions,
	itemIndex: number,
	links: string[],
): Promise<void> {
	const apiRoot = await resolveApiRoot(context, itemIndex);
	for (const link of links) refuseServiceApiLink(context, itemIndex, link, apiRoot);
}

/**
 * The links as multipart file parts: each link, in order, asked for its file before the Run
 * they make is created (a link that fails fails the item there). A part the upload never
 * reaches is released by the caller (MultipartBody.release).
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
		for (const link of links) files.push(await linkPart(context, itemIndex, link, limits));
		complete = true;
	} finally {
		// A link that failed: the answers held open for the upload are let go.
		if (!complete) for (const file of files) file.release?.();
	}
	return files;
}
