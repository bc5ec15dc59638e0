/**
 * Streaming multipart parsing for POST runs. File bytes are NEVER buffered: each part is hashed
 * (sha256) and counted as it streams through busboy; bytes are kept only for small files
 * (keepUploadBytesUnder), so tests can inspect them.
 *
 * Limits (spec "Limits", service note 16): at most maxFiles `files` parts, each at most maxFileSize bytes.
 * A too-large file stops the parse at once (the caller answers 422 and discards the rest of the
 * body, see server.ts); too many files are counted to the end so the 422 can give the real number.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { ValidationIssue } from './errors';
import type { UploadInfo, UploadedFileInfo } from './types';

export interface UploadLimits {
	maxFiles: number;
	maxFileSize: number;
	keepBytesUnder: number;
	/** Read the body at most this fast (a slow link); null or absent = as fast as it comes. */
	bytesPerSecond?: number | null;
	/** Read this many bytes, then nothing more (a stalled upload); null or absent = all. */
	stallAfterBytes?: number | null;
	/** Read this many bytes, then close the connection (an upload cut midway); null or absent = off. */
	resetAfterBytes?: number | null;
}

/**
 * Passes chunks on no faster than `bytesPerSecond`: with backpressure, the client's
 * upload takes about size / rate seconds, as over a slow link.
 */
function throttle(bytesPerSecond: number): Transform {
	const started = Date.now();
	let passed = 0;
	return new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			passed += chunk.length;
			const due = started + (passed / bytesPerSecond) * 1000;
			const wait = Math.max(0, due - Date.now());
			setTimeout(() => callback(null, chunk), wait).unref();
		},
	});
}

/** Passes `bytes` on, then holds every later chunk forever: the client's upload stalls. */
function stallAfter(bytes: number): Transform {
	let passed = 0;
	return new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			if (passed >= bytes) return; // never calls back: nothing more is read
			passed += chunk.length;
			callback(null, chunk);
		},
	});
}

/** Passes `bytes` on, then closes the connection: the client's upload is cut midway. */
function resetAfter(bytes: number, req: IncomingMessage): Transform {
	let passed = 0;
	return new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			if (passed >= bytes) return void req.socket.destroy();
			passed += chunk.length;
			callback(null, chunk);
		},
	});
}

export type UploadResult =
	| { kind: 'ok' }
	/** A limit was hit; `bodyComplete` false means the rest of the body was not read. */
	| { kind: 'invalid'; issues: ValidationIssue[]; bodyComplete: boolean }
	/** Not a parsable multipart body (FastAPI answers 400 "There was an error parsing the body"). */
	| { kind: 'malformed'; message: string; bodyComplete: boolean };

/** The client went away before the body was complete: there is nobody to answer. */
export class ClientGoneError extends Error {
	constructor() {
		super('client closed the connection during the upload');
	}
}

/** The field name every file goes under (service note 15). */
export const FILES_FIELD = 'files';

export function newUploadInfo(req: IncomingMessage): UploadInfo {
	const length = req.headers['content-length'];
	return {
		contentLength: length !== undefined ? Number(length) : undefined,
		chunked: /chunked/i.test(String(req.headers['transfer-encoding'] ?? '')),
		files: [],
		fields: {},
	};
}

/**
 * Parses the request body into `upload` (filled in place, so the request log sees partial uploads).
 * Resolves when the body is done or a limit stops it; rejects with ClientGoneError on abort.
 */
export function parseUpload(
	req: IncomingMessage,
	limits: UploadLimits,
	upload: UploadInfo,
): Promise<UploadResult> {
	return new Promise<UploadResult>((resolve, reject) => {
		let parser: busboy.Busboy;
		try {
			parser = busboy({
				headers: req.headers,
				// Filenames are UTF-8 in practice (browsers, form-data, undici); busboy's default is latin1.
				defParamCharset: 'utf8',
				// The service (python-multipart) keeps a file name as sent, path parts included;
				// busboy would cut them off and hide a name such as ../../x.pdf.
				preservePath: true,
				// busboy flags a file when it REACHES fileSize, so allow one byte more: exactly maxFileSize is fine.
				limits: { fileSize: limits.maxFileSize + 1, fieldSize: 1024 * 1024, fields: 1000 },
			});
		} catch (err) {
			resolve({ kind: 'malformed', message: (err as Error).message, bodyComplete: false });
			return;
		}

		const rate = limits.bytesPerSecond;
		const stallAt = limits.stallAfterBytes;
		const resetAt = limits.resetAfterBytes;
		const slowLink =
			resetAt !== null && resetAt !== undefined
				? resetAfter(resetAt, req)
				: stallAt !== null && stallAt !== undefined
					? stallAfter(stallAt)
					: rate && rate > 0
						? throttle(rate)
						: undefined;
		const source: Readable = slowLink ? req.pipe(slowLink) : req;
		/** Stops feeding the parser, leaving the rest of the body to the caller. */
		const detach = (): void => {
			source.unpipe(parser);
			if (slowLink) req.unpipe(slowLink);
		};

		let settled = false;
		let parserFinished = false;
		let pendingFiles = 0;
		let fileParts = 0;

		const finish = (result: UploadResult): void => {
			if (settled) return;
			settled = true;
			cleanup();
			if (result.kind !== 'ok' && !('bodyComplete' in result && result.bodyComplete)) detach();
			resolve(result);
		};
		const maybeDone = (): void => {
			if (parserFinished && pendingFiles === 0) finish({ kind: 'ok' });
		};
		const onAborted = (): void => {
			if (settled) return;
			settled = true;
			cleanup();
			detach();
			parser.destroy();
			reject(new ClientGoneError());
		};
		const onReqClose = (): void => {
			if (!req.complete) onAborted();
		};
		const cleanup = (): void => {
			req.off('aborted', onAborted);
			req.off('close', onReqClose);
		};
		req.on('aborted', onAborted);
		req.on('close', onReqClose);

		parser.on('file', (field, stream, info) => {
			const record: UploadedFileInfo = {
				field,
				filename: info.filename ?? '',
				contentType: info.mimeType,
				size: 0,
				sha256: '',
				headers: { filename: info.filename, encoding: info.encoding, mimeType: info.mimeType },
			};
			upload.files.push(record);
			const index = field === FILES_FIELD ? fileParts++ : -1;
			if (settled || (field === FILES_FIELD && fileParts > limits.maxFiles)) {
				// Over the file-count limit: only counted, not hashed (the request fails anyway).
				stream.resume();
				return;
			}
			pendingFiles++;
			const hash = createHash('sha256');
			let kept: Buffer[] | null = limits.keepBytesUnder > 0 ? [] : null;
			stream.on('data', (chunk: Buffer) => {
				hash.update(chunk);
				record.size += chunk.length;
				if (kept && record.size >= limits.keepBytesUnder) kept = null;
				else kept?.push(chunk);
			});
			stream.on('limit', () => {
				record.truncated = true;
				record.size = limits.maxFileSize + 1;
				stream.resume();
				finish({
					kind: 'invalid',
					bodyComplete: false,
					issues: [
						{
							loc: ['body', FILES_FIELD, index >= 0 ? index : upload.files.length - 1],
							msg: `File too large: "${record.filename}" is larger than the limit of ${limits.maxFileSize} bytes`,
							type: 'file_too_large',
							input: record.filename,
							ctx: { max_size: limits.maxFileSize },
						},
					],
				});
			});
			stream.on('end', () => {
				record.sha256 = hash.digest('hex');
				if (kept) record.bytes = Buffer.concat(kept);
				pendingFiles--;
				maybeDone();
			});
			stream.on('error', () => {
				pendingFiles--;
			});
		});

		parser.on('field', (name, value) => {
			upload.fields[name] = value;
		});

		parser.on('finish', () => {
			parserFinished = true;
			maybeDone();
		});

		parser.on('error', (err: Error) => {
			if (!req.complete && req.destroyed) {
				onAborted();
				return;
			}
			finish({ kind: 'malformed', message: err.message, bodyComplete: req.complete });
		});

		source.pipe(parser);
	});
}

/** Counts the `files` parts of a parsed upload. */
export function countFileParts(upload: UploadInfo): number {
	return upload.files.filter((f) => f.field === FILES_FIELD).length;
}
