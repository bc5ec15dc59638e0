import { randomBytes } from 'crypto';

/**
 * Why a file's bytes could not be read whole, in words for the user: thrown by a part's
 * source (a link, see actions/run/linkDownload.ts) or made here.
 */
export class FileReadError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
	}
}

const BINARY_DATA_ADVICE =
	'The upload stopped before the file was sent whole, so the service made no Run from it. Check the node that produced the file (was it changed or removed meanwhile?), then run the item again.';

/** One file part: its bytes are read only while the body is being sent. */
export interface MultipartFile {
	fieldName: string;
	fileName: string;
	contentType: string;
	/**
	 * Its length in bytes, or undefined when it is known only once the file was read whole (a
	 * link whose host does not announce it): the body is then sent without a Content-Length.
	 */
	size: number | undefined;
	/** Where the bytes come from, for messages, in the words of the item's panel (e.g. `file field "data"`). */
	source: string;
	open: () => Promise<AsyncIterable<Uint8Array>> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
	/** Lets go of anything `open` would have read, if never opened. */
	release?: () => void;
	/** What to do when the bytes cannot be read whole; the advice for a node's files otherwise. */
	readFailureAdvice?: string;
	/**
	 * The source has its own stall rule, told in its own words (a link sent straight on,
	 * actions/run/linkStore.ts): the upload's watch leaves a wait for its bytes to that rule
	 * (uploadWatch.ts).
	 */
	watchesItsOwnStall?: true;
}

export interface MultipartField {
	fieldName: string;
	value: string;
}

type Segment = Buffer | MultipartFile;

export interface UploadProgress {
	/** Bytes the HTTP client took; with a file of unknown length, the body's length once completed. */
	sentBytes: number;
	lastMovedAt: number;
	completedAt?: number;
}

const CRLF = '\r\n';
/**
 * The largest piece handed to the HTTP client at once. Its body stream holds up to 16 pieces
 * ahead of the network per upload, so the piece sets what ten parallel uploads keep in memory
 * (16 KiB: 2.5 MiB for ten; 64 KiB: 10 MiB).
 */
const PROGRESS_SLICE_BYTES = 16 * 1024;

/**
 * How much of a file in n8n's binary store is read at once (`getBinaryStream`): as much again
 * waits in the read stream, so ten uploads hold about twice this each.
 */
export const STORED_FILE_READ_BYTES = 64 * 1024;

/**
 * A name inside a part header's quoted string. `\` and `"` are sent as quoted-pairs
 * (`\\`, `\"`, RFC 9110 §5.6.4), which busboy and python-multipart (FastAPI's parser)
 * both read back to the original name; browsers' `%22` is decoded by neither
 * (test/node/multipart.test.ts). Non-ASCII characters go as UTF-8, which both read
 * too. CR and LF cannot be inside a header, so they are percent-encoded as browsers do. The
 * other control characters (a name from a link's Content-Disposition may hold a bell or an
 * escape) make the service refuse the part header, so each becomes `_` and the name stays
 * readable; a tab, which a quoted string may hold, is kept.
 */
function escapeHeaderValue(value: string): string {
	return withoutControls(value.replace(/\r/g, '%0D').replace(/\n/g, '%0A'), '_').replace(
		/[\\"]/g,
		'\\$&',
	);
}

/** `value` with each control character but a tab (C0, DEL) replaced by `replacement`. */
function withoutControls(value: string, replacement: string): string {
	return Array.from(value, (character) => {
		const code = character.charCodeAt(0);
		return (code < 0x20 && character !== '\t') || code === 0x7f ? replacement : character;
	}).join('');
}

/**
 * A multipart/form-data body that is never held in memory: the part headers are
 * small buffers and each file's bytes are pulled from its stream while sending.
 *
 * It presents itself as a Blob (size, type, stream()) because that is the one body
 * shape n8n's HTTP client (axios) streams with an exact `Content-Length` without the
 * node importing Node's `stream` module, which community nodes may not. When a file's length
 * is unknown (`lengthKnown` false), the request leaves Content-Length out and the body goes
 * chunked (Transfer-Encoding: chunked, transport/buildRequest.ts); it is then sent whole once
 * every file's source ended and its last byte was taken.
 */
export class MultipartBody {
	/** The body's length; when `lengthKnown` is false, only what is known of it (the files of known length and the part headers). */
	readonly size: number;

	/** Whether every file's length is known, so that the body's is. */
	readonly lengthKnown: boolean;

	/** The files whose length is unknown until they were read whole. */
	readonly filesOfUnknownLength: MultipartFile[];

	readonly type: string;

	readonly boundary: string;

	private readonly segments: Segment[];

	constructor(segments: Segment[], boundary: string) {
		this.segments = segments;
		this.boundary = boundary;
		this.type = `multipart/form-data; boundary=${boundary}`;
		this.size = segments.reduce(
			(total, segment) => total + (Buffer.isBuffer(segment) ? segment.length : (segment.size ?? 0)),
			0,
		);
		this.filesOfUnknownLength = segments.filter(
			(segment): segment is MultipartFile =>
				!Buffer.isBuffer(segment) && segment.size === undefined,
		);
		this.lengthKnown = this.filesOfUnknownLength.length === 0;
	}

	get [Symbol.toStringTag](): string {
		return 'Blob';
	}

	/**
	 * Why the last pass stopped when a file could not be read whole. The HTTP client
	 * reports such a failure as a broken connection, losing its reason; the transport
	 * reads it from here instead (transport/classifyAnswer.ts).
	 */
	readFailure: FileReadError | undefined;

	/** The file whose next bytes the last pass was waiting for, if it was, and since when. */
	waitingFor: { file: MultipartFile; sinceMs: number } | undefined;

	/**
	 * How far the last pass got: bytes the HTTP client took, when it last took some, and when
	 * it took the last byte (transport/uploadWatch.ts judges a stalled upload from it).
	 */
	progress: UploadProgress = { sentBytes: 0, lastMovedAt: Date.now() };

	/** Which pass is the latest: an abandoned pass's late failure is not the latest one's. */
	private passNumber = 0;

	/** The file source the latest pass is reading, if it is amid a file. */
	private openSource: unknown;

	/**
	 * Closes the file the latest pass was reading when its attempt ended midway (stalled,
	 * cancelled, answered early): the HTTP client lets go of the body without ending it, and
	 * the file of n8n's binary store would stay open until garbage collection.
	 */
	closePass(): void {
		const source = this.openSource as { destroy?: () => void } | undefined;
		this.openSource = undefined;
		source?.destroy?.();
	}

	/** Starts the progress afresh, as an attempt to send the body begins. */
	resetProgress(): void {
		this.progress = { sentBytes: 0, lastMovedAt: Date.now() };
	}

	/** Each call starts a fresh pass over the files, so a retried request resends them. */
	async *stream(): AsyncGenerator<Uint8Array> {
		this.resetProgress();
		for await (const chunk of this.parts()) {
			// In slices, so that the client holds little ahead of the network and the progress
			// tells how far the upload really got.
			for (let offset = 0; offset < chunk.length; offset += PROGRESS_SLICE_BYTES) {
				const slice = chunk.subarray(offset, offset + PROGRESS_SLICE_BYTES);
				this.progress.lastMovedAt = Date.now();
				yield slice;
				// The client asks for more: what it took has moved on.
				this.progress.sentBytes += slice.length;
				this.progress.lastMovedAt = Date.now();
			}
		}
		this.progress.completedAt = Date.now();
	}

	private async *parts(): AsyncGenerator<Uint8Array> {
		const pass = ++this.passNumber;
		this.readFailure = undefined;
		for (const segment of this.segments) {
			if (Buffer.isBuffer(segment)) {
				yield segment;
				continue;
			}
			let sent = 0;
			try {
				this.waitingFor = { file: segment, sinceMs: Date.now() };
				const source = await segment.open();
				if (pass === this.passNumber) this.openSource = source;
				for await (const chunk of source) {
					this.waitingFor = undefined;
					if (segment.size !== undefined && sent + chunk.length > segment.size) {
						// Never past the announced length: the surplus would reach the service as
						// the start of another request.
						throw new FileReadError(
							`File "${segment.fileName}" from ${segment.source} is longer than the ${segment.size.toLocaleString('en-US')} bytes announced for it`,
							segment.readFailureAdvice ?? BINARY_DATA_ADVICE,
						);
					}
					sent += chunk.length;
					yield chunk;
					this.waitingFor = { file: segment, sinceMs: Date.now() };
				}
				this.waitingFor = undefined;
				if (pass === this.passNumber) this.openSource = undefined;
			} catch (error) {
				const failure =
					error instanceof FileReadError
						? error
						: new FileReadError(
								`File "${segment.fileName}" could not be read from ${segment.source}: ${(error as Error).message}`,
								segment.readFailureAdvice ?? BINARY_DATA_ADVICE,
							);
				// A pass abandoned by an earlier attempt says nothing about the latest one.
				if (pass === this.passNumber) {
					this.waitingFor = undefined;
					this.readFailure = failure;
				}
				throw failure;
			}
			if (segment.size !== undefined && sent !== segment.size) {
				// A length mismatch would corrupt every later part; stop the upload instead.
				this.readFailure = new FileReadError(
					`File "${segment.fileName}" changed while uploading: expected ${segment.size} bytes, read ${sent}`,
					segment.readFailureAdvice ?? BINARY_DATA_ADVICE,
				);
				throw this.readFailure;
			}
		}
	}

	/** Lets go of what the files not yet read hold (see MultipartFile.release). */
	release(): void {
		for (const segment of this.segments) if (!Buffer.isBuffer(segment)) segment.release?.();
	}
}

/** Builds the body: every file part, then the text fields, then the closing boundary. */
export function encodeMultipartStream(
	files: MultipartFile[],
	fields: MultipartField[] = [],
	boundary = `----n8nExtractionAgents${randomBytes(12).toString('hex')}`,
): MultipartBody {
	const segments: Segment[] = [];
	for (const file of files) {
		segments.push(
			Buffer.from(
				`--${boundary}${CRLF}` +
					`Content-Disposition: form-data; name="${escapeHeaderValue(file.fieldName)}"; filename="${escapeHeaderValue(file.fileName)}"${CRLF}` +
					`Content-Type: ${withoutControls(file.contentType, '')}${CRLF}${CRLF}`,
				'utf8',
			),
		);
		segments.push(file);
		segments.push(Buffer.from(CRLF));
	}
	for (const field of fields) {
		segments.push(
			Buffer.from(
				`--${boundary}${CRLF}` +
					`Content-Disposition: form-data; name="${escapeHeaderValue(field.fieldName)}"${CRLF}${CRLF}` +
					`${field.value}${CRLF}`,
				'utf8',
			),
		);
	}
	segments.push(Buffer.from(`--${boundary}--${CRLF}`));
	return new MultipartBody(segments, boundary);
}
