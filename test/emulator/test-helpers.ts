/**
 * Small HTTP helpers for the emulator's own tests (plain fetch / node:http, no client code).
 */
import http from 'node:http';
import type { Emulator } from '../../dev/emulator/index';

type FetchBody = NonNullable<Parameters<typeof fetch>[1]>['body'];

export interface Reply<T = any> {
	status: number;
	headers: Headers;
	json: T;
	text: string;
}

/** A tiny client bound to one API key. */
export function client(emu: Emulator, key: string | null) {
	const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
		...(key !== null ? { authorization: `Bearer ${key}` } : {}),
		...extra,
	});
	const call = async <T = any>(
		method: string,
		path: string,
		init: { body?: FetchBody; headers?: Record<string, string> } = {},
	): Promise<Reply<T>> => {
		const res = await fetch(emu.apiUrl + path, {
			method,
			headers: headers(init.headers),
			body: init.body,
		});
		const text = await res.text();
		let json: any;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		return { status: res.status, headers: res.headers, json, text };
	};
	return {
		get: <T = any>(path: string) => call<T>('GET', path),
		del: <T = any>(path: string) => call<T>('DELETE', path),
		send: <T = any>(method: 'POST' | 'PATCH' | 'PUT', path: string, body: unknown) =>
			call<T>(method, path, {
				body: JSON.stringify(body),
				headers: { 'content-type': 'application/json' },
			}),
		form: <T = any>(path: string, form: FormData) => call<T>('POST', path, { body: form }),
		raw: async (
			method: string,
			path: string,
			body?: unknown,
		): Promise<{ status: number; headers: Headers; bytes: Buffer }> => {
			const res = await fetch(emu.apiUrl + path, {
				method,
				headers: headers(body !== undefined ? { 'content-type': 'application/json' } : {}),
				body: body !== undefined ? JSON.stringify(body) : undefined,
			});
			return {
				status: res.status,
				headers: res.headers,
				bytes: Buffer.from(await res.arrayBuffer()),
			};
		},
		call,
	};
}

/** FormData with the given files under `files` (service note 15) plus fields. */
export function filesForm(
	files: Array<{ name: string; content: string | Buffer; type?: string }>,
	fields: Record<string, string> = {},
): FormData {
	const form = new FormData();
	for (const f of files)
		form.append('files', new Blob([f.content], { type: f.type ?? 'application/pdf' }), f.name);
	for (const [k, v] of Object.entries(fields)) form.append(k, v);
	return form;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Low-level request with node:http, for cases fetch hides (sockets reset, partial bodies). */
export function rawRequest(
	url: string,
	opts: {
		method?: string;
		headers?: Record<string, string>;
		body?: Buffer | string;
		timeoutMs?: number;
	} = {},
): Promise<
	{ status: number; headers: http.IncomingHttpHeaders; body: Buffer } | { error: string }
> {
	return new Promise((resolve) => {
		const req = http.request(
			url,
			{ method: opts.method ?? 'GET', headers: opts.headers, agent: false },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						body: Buffer.concat(chunks),
					}),
				);
				res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
				res.on('aborted', () => resolve({ error: 'aborted' }));
			},
		);
		req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
		if (opts.timeoutMs)
			req.setTimeout(opts.timeoutMs, () =>
				req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
			);
		req.end(opts.body);
	});
}

/** Flattens the runs list (service note 12: array of arrays, or flat). */
export function flattenRuns(runs: unknown[]): any[] {
	return runs.flatMap((r) => (Array.isArray(r) ? r : [r]));
}
