import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';
import { cancelSignalOf, executionCancelledError } from '../../transport/cancellation';
import { MAX_FILE_BYTES, formatBytes, formatMegabytes } from '../../transport/serviceLimits';
import { linkError, shownLink, type LinkAnswer } from './linkDownload';

/**
 * A link's one read, into n8n's binary store (`prepareBinaryData` with a stream: on disk in
 * filesystem mode, so memory stays flat whatever the file's size). The upload then sends the
 * stored file like any other, so what is uploaded is exactly what that one read gave, however
 * often the upload is sent (a 429 resends it), and a host whose bytes differ on each read, a
 * one-time link or a host that closes connections left unread cannot break it.
 *
 * While the file comes in, the stall rule holds: no byte for Request Timeout and the link is
 * cut. A file past the service's limit is cut as soon as it passes it.
 */

/** How often a download in progress is checked against the stall rule. */
const WATCH_MS = 250;
const NO_RUN = 'No Run was made.';

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
