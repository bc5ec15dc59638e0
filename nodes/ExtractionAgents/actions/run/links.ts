import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { MultipartFile } from '../../transport/multipart';
import { requestTimeoutMs } from '../../helpers/requestTimeoutOption';
import {
	MAX_FILE_BYTES,
	MAX_FILES_PER_RUN,
	formatBytes,
	formatMegabytes,
} from '../../transport/serviceLimits';

/**
 * Files given as links (Run → Create, Files: Links, from node version 1.2). Each link is
 * downloaded while the upload reads it, so no file is held in memory. Before any Run is
 * created, every link is asked once for its headers: an error status, a web page where a
 * document was expected, a redirect loop or a file over the service's limit fails the item
 * there. A link that does not announce its size is read through once, counting, so that the
 * upload can announce an exact length (the body is streamed as a Blob, see multipart.ts).
 */

/** How a downloaded body arrives from n8n's HTTP helper with `encoding: 'stream'`. */
interface DownloadBody extends AsyncIterable<Uint8Array> {
	destroy?: (error?: Error) => void;
}

interface DownloadResponse {
	statusCode: number;
	statusMessage?: string;
	headers: IDataObject;
	body: DownloadBody;
}

const MAX_REDIRECTS = 10;

function linkError(
	context: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description, itemIndex });
}

/** The links of the parameter: one per line (or comma-separated), or a list from an expression. */
export function linksOf(context: IExecuteFunctions, itemIndex: number, value: unknown): string[] {
	const entries = Array.isArray(value) ? value : [value];
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
		links.push(
			...entry
				.split(/[\s,]+/)
				.map((link) => link.trim())
				.filter((link) => link !== ''),
		);
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

/** The file name a download gives: Content-Disposition's, else the last part of the link's path. */
function fileNameOf(link: string, contentDisposition: unknown): string {
	const header = typeof contentDisposition === 'string' ? contentDisposition : '';
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
		} catch {
			// A malformed encoding: fall back to the plain name.
		}
	}
	const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
	const named = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
	if (named) return named.split(/[\\/]/).pop() || named;
	const segment = new URL(link).pathname.split('/').filter(Boolean).pop() ?? '';
	try {
		return decodeURIComponent(segment) || 'download';
	} catch {
		return segment || 'download';
	}
}

const headerText = (headers: IDataObject, name: string): string => {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
};

async function download(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
): Promise<DownloadResponse> {
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: link,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: requestTimeoutMs(context, itemIndex),
		maxRedirects: MAX_REDIRECTS,
		headers: { Accept: '*/*' },
	};
	try {
		// Through the credential like every request; it adds the API key only for the
		// service's own address (credentials/ExtractionAgentsApi.credentials.ts).
		return (await context.helpers.httpRequestWithAuthentication.call(
			context,
			'extractionAgentsApi',
			options,
		)) as DownloadResponse;
	} catch (error) {
		const { message, code } = error as { message?: string; code?: string };
		if (code === 'ERR_FR_TOO_MANY_REDIRECTS' || /redirect/i.test(message ?? '')) {
			throw linkError(
				context,
				itemIndex,
				`The link ${link} redirects in a loop`,
				`It was redirected more than ${MAX_REDIRECTS} times without reaching a file. Open it in a browser to find the file's own address, and use that.`,
			);
		}
		throw linkError(
			context,
			itemIndex,
			`The file at ${link} could not be downloaded: ${message ?? 'no answer'}`,
			'Check that the link opens from where n8n runs (not only from your own computer), and that it needs no login.',
		);
	}
}

/** Asks for the file and checks what comes back; the body is left unread. */
async function probe(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
): Promise<{ response: DownloadResponse; fileName: string; contentType: string; size?: number }> {
	const response = await download(context, itemIndex, link);
	const { statusCode, headers } = response;
	if (statusCode >= 300) {
		response.body.destroy?.();
		throw linkError(
			context,
			itemIndex,
			`The link ${link} answered ${statusCode}${response.statusMessage ? ` (${response.statusMessage})` : ''} instead of a file`,
			statusCode === 401 || statusCode === 403
				? 'The file needs a login or is not shared. Share it so that anyone with the link can download it, or download it with its own node (e.g. Google Drive → Download) and use File Fields.'
				: 'Check that the link is right and the file still exists.',
		);
	}
	const contentType = headerText(headers, 'content-type').split(';')[0].trim().toLowerCase();
	if (contentType === 'text/html' || contentType === 'application/xhtml+xml') {
		response.body.destroy?.();
		throw linkError(
			context,
			itemIndex,
			`The link ${link} gives a web page, not a document`,
			'Links to a viewer or a sharing page (Google Drive, Dropbox, OneDrive) open a page about the file. Use the file’s direct download link, or download it with its own node and use File Fields.',
		);
	}
	const announced = headerText(headers, 'content-length');
	const size = /^\d+$/.test(announced) ? Number(announced) : undefined;
	const fileName = fileNameOf(link, headers['content-disposition']);
	if (size !== undefined) checkSize(context, itemIndex, link, fileName, size);
	return { response, fileName, contentType: contentType || 'application/octet-stream', size };
}

function checkSize(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	fileName: string,
	size: number,
): void {
	if (size === 0) {
		throw linkError(
			context,
			itemIndex,
			`The file at ${link} is empty (0 bytes)`,
			'Check that the link gives the file itself.',
		);
	}
	if (size > MAX_FILE_BYTES) {
		throw linkError(
			context,
			itemIndex,
			`File "${fileName}" at ${link} is ${formatBytes(size)}; the limit is ${formatBytes(MAX_FILE_BYTES)}`,
			`The service accepts files of at most ${formatMegabytes(MAX_FILE_BYTES)}. Split or compress the file before uploading it.`,
		);
	}
}

/** Reads a body through without keeping it, stopping as soon as it passes the limit. */
async function countBytes(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	fileName: string,
	body: DownloadBody,
): Promise<number> {
	let size = 0;
	for await (const chunk of body) {
		size += chunk.length;
		if (size > MAX_FILE_BYTES) {
			body.destroy?.();
			checkSize(context, itemIndex, link, fileName, size);
		}
	}
	checkSize(context, itemIndex, link, fileName, size);
	return size;
}

/**
 * The links as multipart file parts. Each part downloads its file again when the upload
 * reaches it (and on a resend after a 429), and the upload stops if the file's length
 * differs from the one checked here.
 */
export async function filesFromLinks(
	context: IExecuteFunctions,
	itemIndex: number,
	links: string[],
): Promise<MultipartFile[]> {
	const files: MultipartFile[] = [];
	for (const link of links) {
		const checked = await probe(context, itemIndex, link);
		const size =
			checked.size ??
			(await countBytes(context, itemIndex, link, checked.fileName, checked.response.body));
		checked.response.body.destroy?.();
		files.push({
			fieldName: 'files',
			fileName: checked.fileName,
			contentType: checked.contentType,
			size,
			source: `its link ${link}`,
			open: async () => {
				const response = await download(context, itemIndex, link);
				if (response.statusCode >= 300) {
					response.body.destroy?.();
					throw new Error(`the link answered ${response.statusCode} when the upload reached it`);
				}
				return response.body;
			},
		});
	}
	return files;
}
