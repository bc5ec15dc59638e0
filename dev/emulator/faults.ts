/**
 * Fault injection: one-shot queued faults (`emulator.injectFaults`) and random faults
 * (`knobs.faultRate`, deterministic from the seed and the order of requests).
 *
 * This module decides WHICH fault a request gets and builds the fault responses that are plain
 * HTTP answers; the socket-level faults (reset, stall, reset-mid-response) are carried out by
 * server.ts, which owns the sockets.
 */
import { hashString, mulberry32 } from './random';
import type {
	EmulatorKnobs,
	FaultTiming,
	InjectedFault,
	InjectedFaultKind,
	RetryAfterStyle,
} from './types';

export interface FaultDecision {
	kind: InjectedFaultKind;
	timing: FaultTiming;
	retryAfter?: string;
	/** 'missing-fields': which fields to drop (default: see dropFields). */
	dropFields?: string[];
	/** A 'before' fault answered only once the whole request body has arrived. */
	afterBody?: boolean;
	source: 'injected' | 'random';
}

/** Faults that need the real response, so the request is always handled first. */
const ALWAYS_AFTER: ReadonlySet<InjectedFaultKind> = new Set([
	'truncated-json',
	'reset-mid-response',
	'missing-fields',
]);
/** A 429 means the request was not processed, so it is never 'after'. */
const ALWAYS_BEFORE: ReadonlySet<InjectedFaultKind> = new Set(['429']);

function timingOf(kind: InjectedFaultKind, asked: FaultTiming): FaultTiming {
	if (ALWAYS_AFTER.has(kind)) return 'after';
	if (ALWAYS_BEFORE.has(kind)) return 'before';
	return asked;
}

export function pathMatches(path: string, pattern: string | RegExp): boolean {
	return typeof pattern === 'string' ? path.includes(pattern) : pattern.test(path);
}

interface QueuedFault extends InjectedFault {
	remaining: number;
}

export class FaultController {
	private queue: QueuedFault[] = [];
	private rng: () => number;
	private rngSeed: number;

	constructor(private readonly knobs: EmulatorKnobs) {
		this.rngSeed = knobs.seed;
		this.rng = mulberry32(hashString(`${knobs.seed}:faults`));
	}

	inject(faults: InjectedFault[]): void {
		for (const f of faults) this.queue.push({ ...f, remaining: f.times ?? 1 });
	}

	clear(): void {
		this.queue = [];
	}

	/** Queued faults not yet consumed. */
	get pending(): InjectedFault[] {
		return this.queue.map(({ remaining, ...f }) => ({ ...f, times: remaining }));
	}

	/** The fault for this request, if any. Consumes a queued fault or draws a random one. */
	decide(method: string, path: string, query: Record<string, string> = {}): FaultDecision | null {
		const index = this.queue.findIndex((f) => {
			if (f.match?.method && f.match.method.toUpperCase() !== method.toUpperCase()) return false;
			if (f.match?.path !== undefined && !pathMatches(path, f.match.path)) return false;
			return Object.entries(f.match?.query ?? {}).every(([name, value]) => query[name] === value);
		});
		if (index >= 0) {
			const f = this.queue[index];
			if (--f.remaining <= 0) this.queue.splice(index, 1);
			return {
				kind: f.kind,
				timing: timingOf(f.kind, f.timing ?? 'before'),
				retryAfter: f.retryAfter,
				dropFields: f.dropFields,
				afterBody: f.afterBody,
				source: 'injected',
			};
		}
		const { faultRate, faultKinds, faultMethods, faultPaths } = this.knobs;
		if (!(faultRate > 0) || faultKinds.length === 0) return null;
		if (faultMethods && !faultMethods.some((m) => m.toUpperCase() === method.toUpperCase()))
			return null;
		if (faultPaths && !faultPaths.some((p) => pathMatches(path, p))) return null;
		if (this.rngSeed !== this.knobs.seed) {
			this.rngSeed = this.knobs.seed;
			this.rng = mulberry32(hashString(`${this.knobs.seed}:faults`));
		}
		if (this.rng() >= faultRate) return null;
		const kind = faultKinds[Math.floor(this.rng() * faultKinds.length)];
		const asked =
			this.knobs.faultTiming === 'random'
				? this.rng() < 0.5
					? 'before'
					: 'after'
				: this.knobs.faultTiming;
		return { kind, timing: timingOf(kind, asked), source: 'random' };
	}
}

/** A Retry-After value in the configured style, or undefined for 'absent' (service note 7 tolerance). */
export function retryAfterValue(
	style: RetryAfterStyle,
	seconds: number,
	now: number,
): string | undefined {
	if (style === 'absent') return undefined;
	if (style === 'http-date') return new Date(now + seconds * 1000).toUTCString();
	return String(seconds);
}

export interface PlainResponse {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
}

const html = (text: string): Buffer => Buffer.from(text, 'utf8');
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** Responses of the faults that are plain HTTP answers (status faults, 429, non-json). */
export function plainFaultResponse(
	kind: '500' | '502' | '503' | '504' | '429' | '403' | '404' | 'non-json',
	opts: { retryAfter?: string; retryAfterStyle: RetryAfterStyle; now: number },
): PlainResponse {
	const jsonHeaders = { 'content-type': 'application/json' };
	const htmlHeaders = { 'content-type': 'text/html; charset=utf-8' };
	switch (kind) {
		case '500':
			return { status: 500, headers: jsonHeaders, body: json({ detail: 'Internal Server Error' }) };
		case '502':
			// Proxies answer with HTML, not the service's JSON (service note 5 tolerance: non-JSON bodies).
			return {
				status: 502,
				headers: htmlHeaders,
				body: html(
					'<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
				),
			};
		case '403':
			// A refusal tied to one resource (e.g. a Run the key's user may no longer see).
			return {
				status: 403,
				headers: jsonHeaders,
				body: json({ detail: 'Not enough permissions' }),
			};
		case '404':
			// A proxy or a deploy that answers 404 for a moment: the resource still exists.
			return { status: 404, headers: jsonHeaders, body: json({ detail: 'Not Found' }) };
		case '503':
			return {
				status: 503,
				headers: jsonHeaders,
				body: json({ detail: 'Service temporarily unavailable' }),
			};
		case '504':
			return {
				status: 504,
				headers: htmlHeaders,
				body: html(
					'<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
				),
			};
		case '429': {
			const retryAfter = opts.retryAfter ?? retryAfterValue(opts.retryAfterStyle, 1, opts.now);
			return {
				status: 429,
				headers: {
					...jsonHeaders,
					...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
				},
				body: json({ detail: 'Too Many Requests' }),
			};
		}
		case 'non-json':
			return {
				status: 200,
				headers: htmlHeaders,
				body: html(
					'<!doctype html><html><head><title>Scheduled maintenance</title></head><body><h1>We will be back soon</h1><p>The service is under maintenance.</p></body></html>',
				),
			};
	}
}

/** Fields removed by the 'missing-fields' fault (required fields clients may rely on). */
const DROPPABLE = [
	'total_pages',
	'page_number',
	'page_size',
	'status',
	'data',
	'order',
	'usage',
	'next_cursor',
	'total_events',
	'run_id',
];

/** 'missing-fields': the JSON body with required top-level fields (or the `only` ones) removed. */
export function dropFields(value: unknown, only?: string[]): unknown {
	if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
	const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
	if (only) {
		for (const k of only) delete copy[k];
		return copy;
	}
	const present = DROPPABLE.filter((k) => k in copy);
	if (present.length) for (const k of present) delete copy[k];
	else {
		const keys = Object.keys(copy);
		if (keys.length) delete copy[keys[keys.length - 1]];
	}
	return copy;
}
