import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import { cancelSignalOf, executionCancelledError } from '../../transport/cancellation';
import { FileReadError } from '../../transport/multipart';
import { MAX_FILE_BYTES, formatBytes, formatMegabytes } from '../../transport/serviceLimits';
import { linkError, shownLink, type LinkAnswer } from './linkDownload';

/**
 * A link's one read, and where its bytes go on the way to the upload. Which way depends on
 * where n8n's binary store keeps files:
 *
 * - **On disk** (filesystem mode, n8n 2.x's default outside queue mode): the link is read
 *   whole into the store (`storeLinkFile`: `prepareBinaryData` with a stream, written as it
 *   comes, so memory stays flat whatever the file's size), and the upload sends the stored
 *   file like any other. What is uploaded is exactly what that one read gave, however often
 *   the upload is sent (a 429 resends it), and a host whose bytes differ on each read, a
 *   one-time link or a host that closes connections left unread cannot break it.
 * - **Anywhere else** (memory mode, n8n 1.x's default; the database store of n8n 2.x in queue
 *   mode; S3): the store takes a file whole into memory before it answers, so ten items of
 *   250 MB links would hold gigabytes. No link is stored there: its one answer is sent
 *   straight on into the upload as the upload reads it (`streamLinkFile`), and memory holds
 *   only what is in flight. Nothing of it stays in n8n's store afterwards. A link whose host
 *   announces its length (and sends the file unencoded) is uploaded with that length; one
 *   without a length (chunked, or compressed and unpacked on the way) makes the upload go
 *   without a Content-Length (chunked, transport/multipart.ts), and the service's 411, if it
 *   ever needs the length, fails the item by name (transport/classifyAnswer.ts).
 *
 * While the file comes in, the stall rule holds: no byte for Request Timeout and the link is
 * cut. A file past the service's limit is cut as soon as it passes it.
 */

/** How often a download in progress is checked against the stall rule. */
const WATCH_MS = 250;
const NO_RUN = 'No Run was made from this link.';

export interface StoredLinkFile {
	binary: IBinaryData;
	/** Bytes stored: the file as its host gave it (unpacked, if it came gzip-encoded). */
	size: number;
}

/**
 * The length the host announced. For a file its host sent gzip-encoded (n8n's client unpacks
 * it) this is the packed length, so it only ever words a message, never judges the file: a
 * download cut short fails as a broken connection, whatever its length.
 */
function announcedLength(answer: LinkAnswer): number | undefined {
	const value = answer.headers['content-length'];
	const text = String(Array.isArray(value) ? value[0] : (value ?? ''));
	return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** What went wrong with one download, in words: built by `storeLinkFile`'s watch and reads. */
class DownloadProblems {
	constructor(
		private readonly context: IExecuteFunctions,
		private readonly itemIndex: number,
		private readonly link: string,
		private readonly timeoutMs: number,
		private readonly announced: number | undefined,
	) {}

	private error(message: string, description: string): NodeOperationError {
		return linkError(this.context, this.itemIndex, message, description);
	}

	private of(received: number): string {
		const bytes = received.toLocaleString('en-US');
		return this.announced === undefined || received > this.announced
			? `${bytes} bytes`
			: `${bytes} of its ${this.announced.toLocaleString('en-US')} bytes`;
	}

	stalled(received: number): NodeOperationError {
		const seconds = Math.round(this.timeoutMs / 1000);
		return this.error(
			`The link ${shownLink(this.link)} stalled: nothing came for ${seconds} s after ${this.of(received)}`,
			`${NO_RUN} A link may pause for at most Request Timeout (${seconds} s) between two pieces of its file. Try again later; if its host is known to pause longer, raise Options → Request Timeout.`,
		);
	}

	endedEarly(received: number): NodeOperationError {
		const shown = shownLink(this.link);
		return this.error(
			this.announced === undefined || received > this.announced
				? `The link ${shown} ended early: its host closed the connection after ${received.toLocaleString('en-US')} bytes`
				: `The link ${shown} ended early, at ${received.toLocaleString('en-US')} of ${this.announced.toLocaleString('en-US')} bytes`,
			`${NO_RUN} Its host closed the connection before the whole file came. Try again; if it keeps happening, open the link in a browser to check that the whole file downloads.`,
		);
	}

	tooLarge(): NodeOperationError {
		return this.error(
			`The file at ${shownLink(this.link)} is larger than the service accepts: the download stopped at ${formatMegabytes(MAX_FILE_BYTES)}`,
			`${NO_RUN} The service accepts files of at most ${formatMegabytes(MAX_FILE_BYTES)}. Split or compress the file, then give the link to the smaller file.`,
		);
	}

	announcedTooLarge(fileName: string): NodeOperationError {
		return this.error(
			`File "${fileName}" at ${shownLink(this.link)} is ${formatBytes(this.announced ?? 0)}; the limit is ${formatBytes(MAX_FILE_BYTES)}`,
			`${NO_RUN} The service accepts files of at most ${formatMegabytes(MAX_FILE_BYTES)}. Split or compress the file before uploading it.`,
		);
	}

	empty(): NodeOperationError {
		return this.error(
			`The file at ${shownLink(this.link)} is empty (0 bytes)`,
			`${NO_RUN} Check that the link gives the file itself.`,
		);
	}

	/**
	 * A link sent straight on can be read only once: a second pass of the upload (after the
	 * service asked n8n to wait, a 429, or an upload cut before its last byte) would need it again.
	 */
	alreadySent(): NodeOperationError {
		return this.error(
			`The file at ${shownLink(this.link)} could not be sent again: a link is downloaded only once, and its upload had to start over (the service asked to wait, or the connection broke)`,
			`${NO_RUN} Run the item again later; if the service is often busy, lower Options → Items in Parallel. (n8n keeps files in memory here, so a link's file is sent on as it downloads, not kept for a second try.)`,
		);
	}

	/** A link sent straight on that gave more than it announced: its size went out already. */
	longerThanAnnounced(): NodeOperationError {
		return this.error(
			`The link ${shownLink(this.link)} gave more than the ${(this.announced ?? 0).toLocaleString('en-US')} bytes it announced`,
			`${NO_RUN} Its host may have compressed the file on the way although n8n asked for it as it is (some S3 buckets do). n8n keeps files in memory here, so a link's file is sent on as it downloads, with the length its host announced; in n8n's filesystem mode (N8N_DEFAULT_BINARY_DATA_MODE=filesystem) such a link is downloaded whole first and works.`,
		);
	}

	/**
	 * A link sent straight on whose answer ended in good order short of the length it announced:
	 * a connection its host closed early breaks the read instead, so the length changed on the
	 * way. n8n's client unpacked a file its host compressed although asked not to (a file that
	 * does not compress, such as a scan, packs larger), leaving the packed length.
	 */
	shorterThanAnnounced(received: number): NodeOperationError {
		return this.error(
			`The link ${shownLink(this.link)} gave ${received.toLocaleString('en-US')} bytes, fewer than the ${(this.announced ?? 0).toLocaleString('en-US')} it announced`,
			`${NO_RUN} Its host likely compressed the file on the way although n8n asked for it as it is (some S3 buckets do), and announced the compressed length. n8n keeps files in memory here, so a link's file is sent on as it downloads, with the length its host announced; in n8n's filesystem mode (N8N_DEFAULT_BINARY_DATA_MODE=filesystem) such a link is downloaded whole first and works.`,
		);
	}

	notStored(reason: string): NodeOperationError {
		return this.error(
			`The file at ${shownLink(this.link)} could not be kept for the upload: ${reason}`,
			`${NO_RUN} n8n could not save the downloaded file. Check that n8n's disk (or wherever n8n keeps files) has room, then run the item again.`,
		);
	}
}

/**
 * Reads the link's answer once into n8n's binary store, under the stall rule and the size
 * limit. The store reads the body itself (the readable n8n's HTTP helper gave); the bytes are
 * counted from its 'data' events, which every read of a Node readable emits, and a broken
 * rule destroys the body with the rule's error, which the store's read then fails with. The
 * counter is attached only when the store starts reading (its 'data' or 'readable' listener):
 * attached earlier, it would set the body flowing and the first bytes would reach only it.
 */
export async function storeLinkFile(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	answer: LinkAnswer,
	timeoutMs: number,
	file: { fileName: string; contentType: string },
): Promise<StoredLinkFile> {
	const announced = announcedLength(answer);
	const problems = new DownloadProblems(context, itemIndex, link, timeoutMs, announced);
	const body = answer.body;
	if (announced !== undefined && announced > MAX_FILE_BYTES) {
		answer.abort();
		throw problems.announcedTooLarge(file.fileName);
	}
	const cancel = cancelSignalOf(context);
	let received = 0;
	let lastByteAt = Date.now();
	let done = false;
	let problem: NodeOperationError | undefined;
	let bodyFailed = false;
	let bodyEnded = false;
	const stop = (reason: NodeOperationError) => {
		if (problem) return;
		problem = reason;
		done = true;
		body.destroy(reason);
		answer.abort();
	};
	const countBytes = (chunk: Uint8Array) => {
		lastByteAt = Date.now();
		received += chunk.length;
		if (received > MAX_FILE_BYTES) stop(problems.tooLarge());
	};
	const countWhenRead = (event: string | symbol) => {
		if (event !== 'data' && event !== 'readable') return;
		body.off('newListener', countWhenRead);
		body.on('data', countBytes);
	};
	body.on('newListener', countWhenRead);
	// Stays attached: an error after the store let go of the body is no one's to report.
	body.on('error', () => (bodyFailed = true));
	// Once the whole file came, the store may take its time (S3 takes it in one piece).
	body.on('end', () => (bodyEnded = true));
	void (async () => {
		while (!done) {
			await sleep(WATCH_MS);
			if (done) return;
			if (cancel?.aborted) stop(executionCancelledError(context.getNode(), itemIndex));
			else if (!bodyEnded && Date.now() - lastByteAt >= timeoutMs) {
				stop(problems.stalled(received));
			}
		}
	})();
	try {
		const binary = await context.helpers.prepareBinaryData(
			body as unknown as Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
			file.fileName,
			file.contentType,
		);
		if (problem) throw problem;
		if (received === 0) throw problems.empty();
		return { binary, size: received };
	} catch (error) {
		if (problem) throw problem;
		// The body failed under the store's read: its host broke the connection.
		if (bodyFailed) throw problems.endedEarly(received);
		// The node's own errors (an empty file) as they are; the store's in words.
		throw error instanceof NodeOperationError
			? error
			: problems.notStored(error instanceof Error ? error.message : String(error));
	} finally {
		done = true;
		body.off('newListener', countWhenRead);
		body.off('data', countBytes);
		answer.abort();
	}
}

/** Whether n8n's binary store writes files to disk as it reads them, per execution. */
const storesOnDisk = new WeakMap<object, Promise<boolean>>();

/**
 * Whether n8n's binary store keeps a file on disk (filesystem mode) rather than taking it into
 * memory (memory mode, the database store, S3). n8n tells nodes its store only through what
 * the store gives back: a stored file's id starts with its mode (`filesystem-v2:…`,
 * `database:…`, `s3:…`), and in memory mode a file has no id. So one empty file is stored
 * once per execution to ask; the answer does not change while n8n runs.
 */
export async function storeKeepsFilesOnDisk(context: IExecuteFunctions): Promise<boolean> {
	let answer = storesOnDisk.get(context);
	if (!answer) {
		answer = context.helpers
			.prepareBinaryData(Buffer.alloc(0), 'store-mode', 'application/octet-stream')
			.then((probe) => (probe.id ?? '').startsWith('filesystem'));
		storesOnDisk.set(context, answer);
	}
	return await answer;
}

/**
 * The file's length, when its host announced one and sent the file as it is (no
 * Content-Encoding, or identity, as the node asks); otherwise undefined, and the upload goes
 * without a length (chunked). A host that compresses the file anyway, against the node's
 * Accept-Encoding: identity, and announces the packed length is unpacked by n8n's client,
 * which drops the Content-Encoding header and leaves that length: such a file stops the upload
 * at the first byte past it (no Run is made, and the message says so; in filesystem mode it
 * is read whole first and works). A compressed file sent in chunks has no length and goes
 * chunked.
 */
export function streamableLength(answer: LinkAnswer): number | undefined {
	const announced = announcedLength(answer);
	const value = answer.headers['content-encoding'];
	const encoding = String(Array.isArray(value) ? value.join(',') : (value ?? ''))
		.trim()
		.toLowerCase();
	return encoding === '' || encoding === 'identity' ? announced : undefined;
}

export interface StreamedLinkFile {
	/** The announced length; undefined when the link did not announce one (see streamableLength). */
	size: number | undefined;
	/** The link's bytes, read as the upload takes them; only once. */
	open: () => AsyncIterable<Uint8Array>;
	/** Stops the download if the upload never reached it. */
	release: () => void;
}

/**
 * A link sent straight on into the upload, read once as the upload reads it (for a store that
 * would hold the file in memory, see the top of this file). Its length is the one its host
 * announced (`streamableLength`), checked against the service's limit before any Run is
 * made; without one, the bytes are counted as they pass and cut at the limit (a gzip bomb
 * stops at 250 MB). While the upload waits for its bytes the stall rule holds; a host that
 * closes the connection early, or pauses too long, stops the upload before the service has
 * the whole body, so no Run is made, and the message names the link as a stored link's would.
 */
export function streamLinkFile(
	context: IExecuteFunctions,
	itemIndex: number,
	link: string,
	answer: LinkAnswer,
	timeoutMs: number,
	file: { fileName: string; size: number | undefined },
): StreamedLinkFile {
	const problems = new DownloadProblems(context, itemIndex, link, timeoutMs, file.size);
	if (file.size !== undefined && file.size > MAX_FILE_BYTES) {
		answer.abort();
		throw problems.announcedTooLarge(file.fileName);
	}
	if (file.size === 0) {
		answer.abort();
		throw problems.empty();
	}
	const asReadFailure = (error: NodeOperationError) =>
		new FileReadError(error.message, error.description ?? NO_RUN);
	let opened = false;
	/**
	 * Set when the read ends, or when the upload lets go of it midway (its pass abandoned: a
	 * stall of the service, a cut connection), which never resumes the read to end it.
	 */
	let done = false;
	const read = async function* (): AsyncGenerator<Uint8Array> {
		const body = answer.body as unknown as AsyncIterable<Uint8Array>;
		const chunks = body[Symbol.asyncIterator]();
		let received = 0;
		let lastByteAt = Date.now();
		let waiting = false;
		let stalled = false;
		// One clock, waking when the rule would break: a stall is told at exactly Request
		// Timeout after the last byte, before the upload's own watch would call it the source's.
		// While the upload holds a piece (not waiting for the link), it only looks every second.
		void (async () => {
			while (!done) {
				const untilStall = lastByteAt + timeoutMs - Date.now();
				await sleep(waiting ? Math.max(1, Math.min(1000, untilStall)) : 1000);
				if (!done && waiting && Date.now() - lastByteAt >= timeoutMs) {
					stalled = true;
					answer.abort();
					return;
				}
			}
		})();
		try {
			for (;;) {
				waiting = true;
				let next: IteratorResult<Uint8Array>;
				try {
					next = await chunks.next();
				} catch {
					// The host broke the connection, or the stall rule cut it.
					throw asReadFailure(stalled ? problems.stalled(received) : problems.endedEarly(received));
				} finally {
					waiting = false;
				}
				if (stalled) throw asReadFailure(problems.stalled(received));
				if (next.done) break;
				if (file.size !== undefined && received + next.value.length > file.size) {
					throw asReadFailure(problems.longerThanAnnounced());
				}
				if (received + next.value.length > MAX_FILE_BYTES) {
					throw asReadFailure(problems.tooLarge());
				}
				received += next.value.length;
				lastByteAt = Date.now();
				yield next.value;
				lastByteAt = Date.now();
			}
			if (received === 0) throw asReadFailure(problems.empty());
			if (file.size !== undefined && received < file.size) {
				throw asReadFailure(problems.shorterThanAnnounced(received));
			}
		} finally {
			done = true;
			answer.abort();
		}
	};
	return {
		size: file.size,
		open: () => {
			if (opened) throw asReadFailure(problems.alreadySent());
			opened = true;
			// The upload closes a pass it left midway (MultipartBody.closePass): the download too.
			return Object.assign(read(), {
				destroy: () => {
					done = true;
					answer.abort();
				},
			});
		},
		release: () => {
			if (!opened) answer.abort();
		},
	};
}
