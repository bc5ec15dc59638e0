import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import { API_PREFIX } from '../../transport/baseUrl';
import { cancelSignalOf, executionCancelledError } from '../../transport/cancellation';
import { MAX_FILE_BYTES } from '../../transport/serviceLimits';
import { shownLink } from './shownLink';

/**
 * One link's download, for Files → Links (links.ts). A link is fetched with n8n's plain HTTP
 * helper, never through the credential, so the API key cannot reach a link's host on any hop;
 * redirects are followed here, hop by hop, so that each hop is checked (a web address, not
 * the service's own API). Each link is read exactly once, into n8n's binary store
 * (`storeLinkFile`) or straight into the upload (`streamLinkFile`, linkStore.ts), under the
 * rule that docs/design/files-from-links.md states for links:
 *
 *   a link has Request Timeout to give its file's first byte, redirects included; after
 *   that, it may pause for at most Request Timeout between two pieces of its file.
 */

const MAX_REDIRECTS = 10;
/** How often a download in progress is checked against the rule. */
const WATCH_MS = 250;

/** A body as n8n's HTTP helper gives it with `encoding: 'stream'`: a Node readable. */
interface DownloadBody {
	destroy: (error?: Error) => void;
	on: (event: string | symbol, listener: (...args: never[]) => void) => unknown;
	off: (event: string | symbol, listener: (...args: never[]) => void) => unknown;
	/** What the body holds so far (null when nothing is buffered), in paused mode. */
	read: () => unknown;
	/** Puts bytes read back at the front, for the next reader. */
	unshift: (chunk: never) => void;
}

export interface LinkAnswer {
	/** The address that gave the file, after any redirects. */
	url: string;
	headers: IDataObject;
	body: DownloadBody;
	/** Stops the download, the connection included (destroying the body alone may leave it open). */
	abort: () => void;
}

export interface LinkLimits {
	apiRoot: string;
	timeoutMs: number;
}

export function linkError(
	context: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description, itemIndex });
}

/** A link as messages show it, without its secrets (shownLink.ts says the rule). */
export { shownLink };

const NO_RUN = 'No Run was made from this link.';

/** A host name as compared: without brackets, trailing dots or case; every loopback name as one. */
function hostKey(hostname: string): string {
	const bare = hostname
		.replace(/^\[|\]$/g, '')
		.replace(/\.+$/, '')
		.toLowerCase();
	const loopback =
		bare === 'localhost' ||
		bare.endsWith('.localhost') ||
		/^127\.\d+\.\d+\.\d+$/.test(bare) ||
		bare === '0.0.0.0' ||
		bare === '::' ||
		bare === '::1' ||
		// IPv4-mapped and -compatible forms of 127.x.x.x and 0.0.0.0, as URL writes them.
		/^::(ffff:)?(7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)$/.test(bare);
	return loopback ? 'loopback' : bare;
}

/**
 * Whether `address` lies in the service's API: on its host under any of the host's names
 * (any port: the API's own front may listen on another), on the decoded, lower-cased path
 * with repeated slashes folded, as a server would route it. No key is ever sent on a link
 * whatever this says; it is here so that such a link fails with a message rather than a 401.
 */
function isServiceApiAddress(address: string, apiRoot: string): boolean {
	if (!URL.canParse(address)) return false;
	const url = new URL(address);
	const root = new URL(apiRoot);
	if (hostKey(url.hostname) !== hostKey(root.hostname)) return false;
	const normalized = (path: string): string => {
		let decoded = path;
		try {
			decoded = decodeURIComponent(path);
		} catch {
			// Not valid percent-encoding: compare it as it is.
		}
		return decoded
			.replace(/\/{2,}/g, '/')
			.replace(/\/+$/, '')
			.toLowerCase();
	};
	const rootPath = normalized(root.pathname);
	const path = normalized(url.pathname);
	return path === rootPath || path.startsWith(`${rootPath}/`) || path.includes(API_PREFIX);
}

const apiLinkAdvice =
	'Files → Links downloads files from other hosts and never sends your API key. To read a Run’s results, use Run → Get; to get a Run’s results as a file, use Run → Download Templated Output.';

const headerText = (headers: IDataObject, name: string): string => {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
};

function networkCode(error: unknown): string {
	for (const candidate of [error, (error as { cause?: unknown })?.cause]) {
		const code = (candidate as { code?: unknown })?.code;
		if (typeof code === 'string' && code !== '') return code;
	}
	return '';
}

/**
 * What a failed connection to a link's host means, in words. The code goes to the
 * description: n8n replaces a message that contains a network code with its own words,
 * which speak of "the service".
 */
function unreachable(code: string): string {
	if (code === 'ECONNREFUSED') return 'its host refused the connection';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name was not found';
	if (/CERT|SSL|TLS/.test(code)) return 'its host’s certificate is not trusted';
	if (code === 'ECONNRESET') return 'its host closed the connection';
	return 'the connection failed';
}

interface RawAnswer {
	statusCode: number;
	statusMessage?: string;
	headers: IDataObject;
	body: DownloadBody;
}

/** A request's outcome: its answer, a deadline passed first, or the error it failed with. */
type Outcome =
	| { kind: 'answer'; answer: RawAnswer }
	| { kind: 'timeout' }
	| { kind: 'failed'; error: unknown };

/** A request that the execution's cancellation or `deadline` (epoch ms) can abort. */
async function requestWithDeadline(
	context: IExecuteFunctions,
	options: IHttpRequestOptions,
	deadline: number,
	controller: AbortController,
): Promise<Outcome> {
	const cancel = cancelSignalOf(context);
	const onCancel = () => controller.abort();
	cancel?.addEventListener('abort', onCancel, { once: true });
	let settled = false;
	let timedOut = false;
	void (async () => {
		while (!settled) {
			await sleep(Math.max(1, Math.min(WATCH_MS, deadline - Date.now())));
			if (!settled && Date.now() >= deadline) {
				timedOut = true;
				controller.abort();
				return;
			}
		}
	})();
	try {
		const answer = (await context.helpers.httpRequest({
			...options,
			abortSignal: controller.signal,
		})) as RawAnswer;
		return { kind: 'answer', answer };
	} catch (error) {
		return timedOut ? { kind: 'timeout' } : { kind: 'failed', error };
	} finally {
		settled = true;
		cancel?.removeEventListener('abort', onCancel);
	}
}

/** The next hop of a redirect answer, checked; throws what is wrong with it. */
function redirectTarget(
	fail: (message: string, description: string) => NodeOperationError,
	shown: string,
	answer: RawAnswer,
	url: string,
	hops: number,
	apiRoot: string,
): string {
	const location = headerText(answer.headers, 'location');
	if (!location) {
		throw fail(
			`The link ${shown} answered ${answer.statusCode} without saying where the file is`,
			'Open it in a browser to find the file’s own address, and use that.',
		);
	}
	if (hops >= MAX_REDIRECTS) {
		throw fail(
			`The link ${shown} redirects in a loop`,
			`It was redirected more than ${MAX_REDIRECTS} times without reaching a file. Open it in a browser to find the file's own address, and use that.`,
		);
	}
	const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
	if (!next || !/^https?:$/.test(next.protocol)) {
		throw fail(
			`The link ${shown} redirects to ${shownLink(location)}, which is not a web address`,
			'n8n downloads only http:// and https:// links. Use the file’s own web address.',
		);
	}
	if (isServiceApiAddress(next.href, apiRoot)) {
		throw fail(
			`The link ${shown} redirects to ${shownLink(next.href)}, an address of the Extraction Agents API itself`,
			apiLinkAdvice,
		);
	}
	return next.href;
}

/** Why an answer that is not a redirect is not a file, if it is not. */
function notAFile(
	fail: (message: string, description: string) => NodeOperationError,
	shown: string,
	answer: RawAnswer,
): NodeOperationError | undefined {
	const { statusCode } = answer;
	if (statusCode >= 300) {
		return fail(
			`The link ${shown} answered ${statusCode}${answer.statusMessage ? ` (${answer.statusMessage})` : ''} instead of a file`,
			statusCode === 401 || statusCode === 403
				? 'The file needs a login or is not shared. Share it so that anyone with the link can download it, or download it with its own node (e.g. Google Drive → Download) and use File Fields.'
				: statusCode >= 500
					? `${NO_RUN} The link’s host failed. Try again later; if it keeps happening, check the link in a browser.`
					: `${NO_RUN} Check that the link is right and the file still exists.`,
		);
	}
	const contentType = contentTypeOf(answer);
	if (contentType === 'text/html' || contentType === 'application/xhtml+xml') {
		return webPage(fail, shown);
	}
	return undefined;
}

const contentTypeOf = (answer: RawAnswer): string =>
	headerText(answer.headers, 'content-type').split(';')[0].trim().toLowerCase();

function webPage(
	fail: (message: string, description: string) => NodeOperationError,
	shown: string,
): NodeOperationError {
	return fail(
		`The link ${shown} gives a web page, not a document`,
		'Links to a viewer or a sharing page (Google Drive, Dropbox, OneDrive) open a page about the file. Use the file’s direct download link, or download it with its own node and use File Fields.',
	);
}

/**
 * A file its host sent in an encoding n8n's client did not unpack. The client unpacks one
 * layer of gzip, deflate or br (zstd on newer Node.js) and then drops the header, so a
 * Content-Encoding still there (`gzip, gzip`, `zstd` on Node.js 20, anything unknown) means the
 * body is not the file: it is refused by name rather than uploaded still encoded.
 */
function undecodedEncoding(
	fail: (message: string, description: string) => NodeOperationError,
	shown: string,
	answer: RawAnswer,
): NodeOperationError | undefined {
	const encoding = headerText(answer.headers, 'content-encoding').trim();
	const layers = encoding
		.split(',')
		.map((layer) => layer.trim().toLowerCase())
		.filter((layer) => layer !== '' && layer !== 'identity');
	if (layers.length === 0) return undefined;
	return fail(
		`The link ${shown} sent its file encoded as "${encoding.slice(0, 60)}", which n8n cannot unpack`,
		`${NO_RUN} n8n asked for the file as it is stored and unpacks a file compressed once with gzip, deflate or br; this host compressed it another way or more than once, so what came is not the file. Ask whoever runs the host to serve it uncompressed, or download it with its own node and use File Fields.`,
	);
}

/** Content types that say nothing about the file: its first bytes decide whether it is a page. */
const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/**
 * An HTML page sent without a Content-Type (or as a generic binary), recognised from its first
 * bytes as browsers sniff it: after white space and a byte-order mark, an HTML tag or comment.
 * No document format the service reads starts so.
 */
function looksLikeUntypedPage(answer: RawAnswer, chunk: Uint8Array): boolean {
	if (!UNTYPED.has(contentTypeOf(answer))) return false;
	const start = Buffer.from(chunk.subarray(0, 512))
		.toString('latin1')
		.replace(/^(\xef\xbb\xbf|\s)+/, '');
	return /^<(!doctype\s+html|html|head|body|script|iframe|title|meta|style|div|table|a|p|h1|br|b|font|!--)[\s>/]/i.test(
		start,
	);
}

type FirstBytes =
	| { kind: 'bytes'; chunk: Uint8Array | undefined }
	| { kind: 'timeout' }
	| { kind: 'cancelled' }
	| { kind: 'failed' };

/**
 * Waits for the body's first bytes (or its end) until `deadline`, and puts them back for the
 * store to read, so that nothing is lost. Read in paused mode: a 'data' listener would set the
 * body flowing before its reader is there.
 */
async function firstBytes(
	context: IExecuteFunctions,
	body: DownloadBody,
	deadline: number,
): Promise<FirstBytes> {
	const cancel = cancelSignalOf(context);
	let outcome: FirstBytes | undefined;
	let wake: () => void = () => undefined;
	const settle = (result: FirstBytes) => {
		outcome ??= result;
		wake();
	};
	const onReadable = () => {
		// Once settled, a 'readable' that the unshift itself raised is left for the store.
		if (outcome) return;
		const chunk = body.read();
		if (chunk === null || chunk === undefined) return;
		body.unshift(chunk as never);
		settle({ kind: 'bytes', chunk: chunk as Uint8Array });
	};
	const onEnd = () => settle({ kind: 'bytes', chunk: undefined });
	const onError = () => settle({ kind: 'failed' });
	const onCancel = () => settle({ kind: 'cancelled' });
	body.on('readable', onReadable);
	body.on('end', onEnd);
	body.on('error', onError);
	cancel?.addEventListener('abort', onCancel, { once: true });
	try {
		const event = new Promise<void>((resolve) => (wake = resolve));
		void (async () => {
			while (!outcome) {
				await sleep(Math.max(1, Math.min(WATCH_MS, deadline - Date.now())));
				if (!outcome && Date.now() >= deadline) settle({ kind: 'timeout' });
			}
		})();
		if (!outcome) await event;
		return outcome ?? { kind: 'timeout' };
	} finally {
		body.off('readable', onReadable);
		body.off('end', onEnd);
		body.off('error', onError);
		cancel?.removeEventListener('abort', onCancel);
	}
}

/**
 * GETs a link, following its redirects hop by hop, and checks the answer: a file (not an
 * error status, a web page, or bytes still encoded). One Request Timeout runs from the first
 * request to the file's first byte, redirects included. The first bytes, read to tell a page
 * sent without a Content-Type, are put back: the body is handed over whole and unread.
 */
export async function fetchLink(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	limits: LinkLimits,
): Promise<LinkAnswer> {
	const fail = (message: string, description: string) =>
		linkError(context, itemIndex, message, description);
	const shown = shownLink(link);
	const seconds = Math.round(limits.timeoutMs / 1000);
	const deadline = Date.now() + limits.timeoutMs;
	let url = link;
	for (let hops = 0; ; hops++) {
		const controller = new AbortController();
		const outcome = await requestWithDeadline(
			context,
			{
				method: 'GET',
				url,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				// The file as it is stored; a host that compresses it anyway is unpacked by n8n's client.
				headers: { Accept: '*/*', 'Accept-Encoding': 'identity' },
			},
			deadline,
			controller,
		);
		if (cancelSignalOf(context)?.aborted) {
			if (outcome.kind === 'answer') controller.abort();
			throw executionCancelledError(context.getNode(), itemIndex);
		}
		if (outcome.kind === 'timeout') {
			throw fail(
				hops === 0
					? `The link ${shown} did not answer within ${seconds} s`
					: `The link ${shown} did not give its file within ${seconds} s (${hops} redirects on the way)`,
				`${NO_RUN} A link has Request Timeout (${seconds} s) to start sending its file, redirects included. Check that the link opens from where n8n runs, or raise Options → Request Timeout.`,
			);
		}
		if (outcome.kind === 'failed') {
			const code = networkCode(outcome.error);
			if (code === 'HPE_HEADER_OVERFLOW') {
				throw fail(
					`The link ${shown} answered with headers too long for n8n to read (over 16 KB)`,
					`${NO_RUN} Its host sent a header longer than n8n’s HTTP client accepts, usually a very long file name in Content-Disposition. Ask whoever runs the host to shorten it, or download the file with its own node and use File Fields. (${code})`,
				);
			}
			throw fail(
				`The link ${shown} could not be reached: ${unreachable(code)}`,
				`${NO_RUN} Check that the link opens from where n8n runs (not only from your own computer), and that it needs no login.${code ? ` (${code})` : ''}`,
			);
		}
		const answer = outcome.answer;
		if (answer.statusCode >= 300 && answer.statusCode < 400) {
			controller.abort();
			url = redirectTarget(fail, shown, answer, url, hops, limits.apiRoot);
			continue;
		}
		const problem = notAFile(fail, shown, answer) ?? undecodedEncoding(fail, shown, answer);
		if (problem) {
			controller.abort();
			throw problem;
		}
		const done = {
			url,
			headers: answer.headers,
			body: answer.body,
			abort: () => controller.abort(),
		};
		// A file announced over the limit is refused by the store before any byte is read.
		if (Number(headerText(answer.headers, 'content-length')) > MAX_FILE_BYTES) return done;
		// The same clock runs on to the file's first byte: a host that answers its headers in
		// time and then holds the file back does not get a second Request Timeout.
		const first = await firstBytes(context, answer.body, deadline);
		if (first.kind !== 'bytes') controller.abort();
		if (first.kind === 'cancelled') throw executionCancelledError(context.getNode(), itemIndex);
		if (first.kind === 'timeout') {
			throw fail(
				`The link ${shown} sent no byte of its file within ${seconds} s`,
				`${NO_RUN} A link has Request Timeout (${seconds} s) to start sending its file, redirects included. Check that the link opens from where n8n runs, or raise Options → Request Timeout.`,
			);
		}
		if (first.kind === 'failed') {
			throw fail(
				`The link ${shown} ended before any of its file came: its host closed the connection`,
				`${NO_RUN} Try again; if it keeps happening, open the link in a browser to check that the file downloads.`,
			);
		}
		if (!first.chunk) {
			throw fail(
				`The file at ${shown} is empty (0 bytes)`,
				`${NO_RUN} Check that the link gives the file itself.`,
			);
		}
		if (looksLikeUntypedPage(answer, first.chunk)) {
			controller.abort();
			throw webPage(fail, shown);
		}
		return done;
	}
}

/** Refuses a link into the service's own API before anything is sent. */
export function refuseServiceApiLink(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	apiRoot: string,
): void {
	if (!isServiceApiAddress(link, apiRoot)) return;
	throw linkError(
		context,
		itemIndex,
		`The link ${shownLink(link)} is an address of the Extraction Agents API itself`,
		apiLinkAdvice,
	);
}
