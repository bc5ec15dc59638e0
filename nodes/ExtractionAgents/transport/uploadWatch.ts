import { sleep } from 'n8n-workflow';
import type { MultipartBody } from './multipart';
import { uploadAllowanceMs } from './uploadAllowance';

/**
 * The time rules of an upload (Run → Create), in place of the HTTP client's timeout, which
 * runs as a wall clock from the start of the request to its answer (axios with redirects off):
 * by that clock a big scan over a slow line is cut while its bytes still flow.
 *
 * - While the body is being sent, no clock runs as long as the client keeps taking bytes; an
 *   upload that takes nothing for Request Timeout has stalled. The service then does not have
 *   the whole body, so it cannot have made a Run from it.
 * - Once the client took the last byte, the service has Request Timeout plus 1 s per MB
 *   (uploadAllowance.ts) to take the files in and answer. It then has the whole body, and may
 *   have made the Run.
 */

/** How often an upload in progress is checked against the rules. */
const WATCH_MS = 250;

export type UploadStop =
	/** `totalBytes` undefined: the body's length is not known (a file of unknown length, see MultipartBody). */
	| { kind: 'stalled'; sentBytes: number; totalBytes: number | undefined; idleMs: number }
	| { kind: 'source'; idleMs: number }
	| { kind: 'unanswered'; afterMs: number };

export interface UploadWatch {
	/** Aborts the request when a rule is broken or the execution is cancelled. */
	readonly signal: AbortSignal;
	/** Which rule stopped the upload, if one did. */
	stopped(): UploadStop | undefined;
	end(): void;
}

/** How much longer than a source's own stall rule the watch waits for that source's bytes. */
const SOURCE_GRACE_MS = 5_000;

/**
 * Watches one attempt to send `body`. `timeoutMs` is the request's whole timeout (Request
 * Timeout plus the upload's allowance, helpers/requestTimeoutOption.ts).
 */
export function watchUpload(
	body: MultipartBody,
	timeoutMs: number,
	cancel: AbortSignal | undefined,
): UploadWatch {
	const idleMs = Math.max(1, timeoutMs - uploadAllowanceMs(body.size));
	// A body of unknown length gets its allowance once sent, from the bytes it turned out to have.
	const answerMs = (sentBytes: number) =>
		body.lengthKnown ? timeoutMs : idleMs + uploadAllowanceMs(sentBytes);
	const controller = new AbortController();
	const onCancel = () => controller.abort();
	cancel?.addEventListener('abort', onCancel, { once: true });
	body.resetProgress();
	let stop: UploadStop | undefined;
	let ended = false;
	const judge = (now: number): UploadStop | undefined => {
		const { sentBytes, lastMovedAt, completedAt } = body.progress;
		if (completedAt !== undefined) {
			const afterMs = answerMs(sentBytes);
			return now - completedAt >= afterMs ? { kind: 'unanswered', afterMs } : undefined;
		}
		if (now - lastMovedAt < idleMs) return undefined;
		// Waiting for a file's own next bytes is the file's source stalling, not the service.
		// A source with its own stall rule (a link) says so itself, in its own words, at its own
		// Request Timeout: this watch waits SOURCE_GRACE_MS longer, so that on a busy machine its
		// tick cannot come first with the vaguer words (CI failed so under load).
		const waiting = body.waitingFor;
		if (waiting && now - waiting.sinceMs >= idleMs) {
			if (waiting.file.watchesItsOwnStall && now - waiting.sinceMs < idleMs + SOURCE_GRACE_MS)
				return undefined;
			return { kind: 'source', idleMs };
		}
		return {
			kind: 'stalled',
			sentBytes,
			totalBytes: body.lengthKnown ? body.size : undefined,
			idleMs,
		};
	};
	void (async () => {
		while (!ended) {
			await sleep(WATCH_MS);
			if (ended) return;
			stop = judge(Date.now());
			if (stop) {
				ended = true;
				controller.abort();
			}
		}
	})();
	return {
		signal: controller.signal,
		stopped: () => stop,
		end: () => {
			ended = true;
			cancel?.removeEventListener('abort', onCancel);
		},
	};
}

/**
 * `context` as the upload's request sees it: its execution cancel signal also fires when the
 * upload's rules stop it. n8n 2.x gives a request sent through the credential that signal as
 * its abort signal, in place of the request's own `abortSignal` (which older versions use).
 */
export function withUploadSignal<C extends object>(context: C, signal: AbortSignal): C {
	if (!('getExecutionCancelSignal' in context)) return context;
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as C;
}
