import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import { API_PREFIX } from '../../transport/baseUrl';
import { cancelSignalOf, executionCancelledError } from '../../transport/cancellation';
import { FileReadError } from '../../transport/multipart';

/**
 * One link's download, for Files → Links (links.ts). A link is fetched with n8n's plain HTTP
 * helper, never through the credential, so the API key cannot reach a link's host on any hop;
 * redirects are followed here, hop by hop, so that each hop is checked (a web address, not
 * the service's own API). Bodies are read through `guardedBytes`, which holds a link to the
 * rule that docs/design/files-from-links.md states for slow links:
 *
 *   a link has Request Timeout to answer and to resume after a pause, and must average
 *   MIN_LINK_BYTES_PER_SECOND after its first Request Timeout.
 */

/** 100 kB/s: a 10 MB file may take Request Timeout + 100 s. */
const MIN_LINK_BYTES_PER_SECOND = 100_000;
const MAX_REDIRECTS = 10;
/** How often a download in progress is checked against the rule. */
const WATCH_MS = 250;

/** A body as n8n's HTTP helper gives it with `encoding: 'stream'` (a Node readable). */
interface DownloadBody extends AsyncIterable<Uint8Array> {
	destroy?: (error?: Error) => void;
}

export interface LinkAnswer {
	/** The address that gave the file, after any redirects. */
	url: string;
	headers: IDataObject;
	body: DownloadBody;
	/** The Content-Length, if any: the body must give exactly that many bytes. */
	length?: number;
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

const NO_RUN = 'No Run was made.';

/**
 * Whether `address` lies in the service's API. Compared on the decoded, lower-cased path with
 * repeated slashes folded, as a server would route it. No key is ever sent on a link whatever
 * this says; it is here so that such a link fails with a message rather than a 401.
 */
function isServiceApiAddress(address: string, apiRoot: string): boolean {
	if (!URL.canParse(address)) return false;
	const url = new URL(address);
	const root = new URL(apiRoot);
	if (url.origin !== root.origin) return false;
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

/**
 * The Content-Length, if any. Downloads ask for the file uncompressed; a host that compresses
 * it anyway has it unzipped by n8n's client under the compressed length, and is stopped by
 * guardedBytes at the first byte past that length.
 */
function announcedLength(headers: IDataObject): number | undefined {
	const announced = headerText(headers, 'content-length');
	return /^\d+$/.test(announced) ? Number(announced) : undefined;
}

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

/** A request that the execution's cancellation or a deadline can abort. */
async function requestWithDeadline(
	context: IExecuteFunctions,
	options: IHttpRequestOptions,
	timeoutMs: number,
	controller: AbortController,
): Promise<Outcome> {
	const cancel = cancelSignalOf(context);
	const onCancel = () => controller.abort();
	cancel?.addEventListener('abort', onCancel, { once: true });
	let settled = false;
	let timedOut = false;
	const deadline = Date.now() + timeoutMs;
	void (async () => {
		while (!settled) {
			await sleep(Math.max(1, Math.min(WATCH_MS, deadline - Date.now())));
			if (!settled && Date.now() >= deadline) {
				timedOut = true;
				controller.abort();
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

/**
 * GETs a link, following its redirects hop by hop, and checks the answer: a file (not an
 * error status or a web page). The body is left unread.
 */
export async function fetchLink(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	limits: LinkLimits,
): Promise<LinkAnswer> {
	const fail = (message: string, description: string) =>
		linkError(context, itemIndex, message, description);
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
				// The file as it is stored: a compressed answer would make its length unknown.
				headers: { Accept: '*/*', 'Accept-Encoding': 'identity' },
			},
			limits.timeoutMs,
			controller,
		);
		if (cancelSignalOf(context)?.aborted) {
			if (outcome.kind === 'answer') controller.abort();
			throw executionCancelledError(context.getNode(), itemIndex);
		}
		if (outcome.kind === 'timeout') {
			throw fail(
				`The link ${link} did not answer within ${Math.round(limits.timeoutMs / 1000)} s`,
				`${NO_RUN} Check that the link opens from where n8n runs, or raise Options → Request Timeout.`,
			);
		}
		if (outcome.kind === 'failed') {
			const code = networkCode(outcome.error);
			throw fail(
				`The link ${link} could not be reached: ${unreachable(code)}`,
				`${NO_RUN} Check that the link opens from where n8n runs (not only from your own computer), and that it needs no login.${code ? ` (${code})` : ''}`,
			);
		}
		const answer = outcome.answer;
		const { statusCode, headers, body } = answer;
		if (statusCode >= 300 && statusCode < 400) {
			controller.abort();
			const location = headerText(headers, 'location');
			if (!location) {
				throw fail(
					`The link ${link} answered ${statusCode} without saying where the file is`,
					'Open it in a browser to find the file’s own address, and use that.',
				);
			}
			if (hops >= MAX_REDIRECTS) {
				throw fail(
					`The link ${link} redirects in a loop`,
					`It was redirected more than ${MAX_REDIRECTS} times without reaching a file. Open it in a browser to find the file's own address, and use that.`,
				);
			}
			const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
			if (!next || !/^https?:$/.test(next.protocol)) {
				throw fail(
					`The link ${link} redirects to ${location}, which is not a web address`,
					'n8n downloads only http:// and https:// links. Use the file’s own web address.',
				);
			}
			if (isServiceApiAddress(next.href, limits.apiRoot)) {
				throw fail(
					`The link ${link} redirects to ${next.href}, an address of the Extraction Agents API itself`,
					apiLinkAdvice,
				);
			}
			url = next.href;
			continue;
		}
		if (statusCode >= 300) {
			controller.abort();
			throw fail(
				`The link ${link} answered ${statusCode}${answer.statusMessage ? ` (${answer.statusMessage})` : ''} instead of a file`,
				statusCode === 401 || statusCode === 403
					? 'The file needs a login or is not shared. Share it so that anyone with the link can download it, or download it with its own node (e.g. Google Drive → Download) and use File Fields.'
					: 'Check that the link is right and the file still exists.',
			);
		}
		const contentType = headerText(headers, 'content-type').split(';')[0].trim().toLowerCase();
		if (contentType === 'text/html' || contentType === 'application/xhtml+xml') {
			controller.abort();
			throw fail(
				`The link ${link} gives a web page, not a document`,
				'Links to a viewer or a sharing page (Google Drive, Dropbox, OneDrive) open a page about the file. Use the file’s direct download link, or download it with its own node and use File Fields.',
			);
		}
		return {
			url,
			headers,
			body,
			length: announcedLength(headers),
			abort: () => controller.abort(),
		};
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
		`The link ${link} is an address of the Extraction Agents API itself`,
		apiLinkAdvice,
	);
}

/** What one complete read of a link gave: checked against every later read. */
export interface LinkFingerprint {
	size: number;
	sha256?: string;
}

/**
 * The body's bytes, held to the slow-link rule and to `expected`: a byte past the expected
 * size is never given out, and the last chunk is held back until the read is known to match
 * (size, and the checksum of an earlier complete read), so that a mismatch stops the upload
 * before its part is complete. `onComplete` hears the checksum of a complete read.
 */
export async function* guardedBytes(
	context: IExecuteFunctions,
	link: string,
	answer: Pick<LinkAnswer, 'body' | 'abort'>,
	timeoutMs: number,
	expected: { size?: number; sizeFrom?: 'announced' | 'first read'; sha256?: string },
	onComplete?: (fingerprint: LinkFingerprint) => void,
): AsyncGenerator<Uint8Array> {
	const { body } = answer;
	const hash = createHash('sha256');
	const startedAt = Date.now();
	let lastByteAt = startedAt;
	let received = 0;
	let done = false;
	const cancel = cancelSignalOf(context);
	const seconds = Math.round(timeoutMs / 1000);
	void (async () => {
		while (!done) {
			await sleep(WATCH_MS);
			if (done) return;
			const now = Date.now();
			let problem: FileReadError | undefined;
			if (cancel?.aborted) problem = new FileReadError('The execution was cancelled', '');
			else if (now - lastByteAt >= timeoutMs) {
				problem = new FileReadError(
					`The link ${link} stopped sending for ${seconds} s after ${received.toLocaleString('en-US')} bytes`,
					`${NO_RUN} A link may pause for at most Request Timeout (${seconds} s). Try again later, raise Options → Request Timeout, or download the file with its own node first and use File Fields.`,
				);
			} else if (
				now - startedAt > timeoutMs &&
				received < ((now - startedAt - timeoutMs) / 1000) * MIN_LINK_BYTES_PER_SECOND
			) {
				problem = new FileReadError(
					`The link ${link} sent its file too slowly: ${received.toLocaleString('en-US')} bytes in ${Math.round((now - startedAt) / 1000)} s`,
					`${NO_RUN} After its first ${seconds} s (Request Timeout), a link must send at least ${MIN_LINK_BYTES_PER_SECOND / 1000} kB a second on average. Use a faster link, raise Options → Request Timeout, or download the file with its own node first and use File Fields.`,
				);
			}
			if (problem) {
				done = true;
				body.destroy?.(problem);
				answer.abort();
			}
		}
	})();
	let held: Uint8Array | undefined;
	try {
		for await (const chunk of body) {
			if (done) break;
			lastByteAt = Date.now();
			received += chunk.length;
			if (expected.size !== undefined && received > expected.size) {
				throw new FileReadError(
					`The link ${link} gave more than the ${expected.size.toLocaleString('en-US')} bytes it ${expected.sizeFrom === 'first read' ? 'gave the first time' : 'announced'}`,
					`${NO_RUN} The upload stopped before any extra byte was sent. ${expected.sizeFrom === 'first read' ? 'A link must give the same file each time it is read; use a link to a file that does not change.' : 'Its host may send the file compressed although n8n asked for it as it is; download it with its own node first (e.g. HTTP Request) and use File Fields.'}`,
				);
			}
			hash.update(chunk);
			if (held) yield held;
			held = chunk;
		}
		if (expected.size !== undefined && received < expected.size) {
			throw new FileReadError(
				`The link ${link} gave ${received.toLocaleString('en-US')} bytes where it announced ${expected.size.toLocaleString('en-US')}`,
				`${NO_RUN} The download ended early. Try again; if it goes on, download the file with its own node first and use File Fields.`,
			);
		}
		const sha256 = hash.digest('hex');
		if (expected.sha256 !== undefined && sha256 !== expected.sha256) {
			throw new FileReadError(
				`The link ${link} gave other bytes than when it was first read`,
				`${NO_RUN} A link whose host does not announce the file’s length is read twice (once to measure it, once to upload it), and the two answers differed. Use a link to a file that does not change, or download it with its own node first and use File Fields.`,
			);
		}
		onComplete?.({ size: received, sha256 });
		if (held) yield held;
	} finally {
		done = true;
		body.destroy?.();
		answer.abort();
	}
}
