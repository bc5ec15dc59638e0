/**
 * The HTTP server: routing, the request pipeline and the request log.
 *
 * Pipeline of an API request:
 *   log entry -> latency -> fault decision ('before' faults answer here) -> route match (404/405)
 *   -> auth (401) -> rate limit (429) -> settle Runs -> JSON body -> handler -> access-log event
 *   -> 'after' fault or the real response -> discard any unread request body.
 */
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { authenticate } from './auth';
import { ApiError, issue, validationError } from './errors';
import {
	dropFields,
	FaultController,
	FaultDecision,
	plainFaultResponse,
	retryAfterValue,
} from './faults';
import { ClientGoneError } from './multipart';
import { limitFor, RateLimiter } from './rate-limit';
import { accessLogRoutes } from './routes/access-logs';
import { agentRoutes } from './routes/agents';
import { apiKeyRoutes } from './routes/api-keys';
import type { EmuResponse, RequestContext, Route } from './routes/context';
import { runRoutes } from './routes/runs';
import { usageRoutes } from './routes/usage';
import type { EmulatorState } from './store';
import type { EmulatorKnobs, RequestLogEntry, UserRecord } from './types';

export const API_PREFIX = '/api/v1/client';

/** Largest JSON body accepted. */
const MAX_JSON_BYTES = 10 * 1024 * 1024;
/**
 * After answering early (e.g. 422 for a too-large file), the rest of the body is read and
 * discarded so the client can finish sending and read the answer; past this many bytes the
 * connection is closed instead.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

export const ALL_ROUTES: Route[] = [
	...usageRoutes,
	...agentRoutes,
	...runRoutes,
	...apiKeyRoutes,
	...accessLogRoutes,
];

interface CompiledRoute {
	route: Route;
	regex: RegExp;
	names: string[];
}

export class Router {
	private readonly compiled: CompiledRoute[];

	constructor(routes: Route[]) {
		this.compiled = routes.map((route) => {
			const names: string[] = [];
			const pattern = route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
				names.push(name);
				return '([^/]+)';
			});
			return { route, regex: new RegExp(`^${pattern}/?$`), names };
		});
	}

	match(
		method: string,
		path: string,
	): { route: Route; params: Record<string, string> } | { allow: string[] } | null {
		const allow: string[] = [];
		for (const c of this.compiled) {
			const m = c.regex.exec(path);
			if (!m) continue;
			if (c.route.method !== method) {
				allow.push(c.route.method);
				continue;
			}
			const params: Record<string, string> = {};
			c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
			return { route: c.route, params };
		}
		return allow.length ? { allow } : null;
	}
}

export interface ServerDeps {
	state: EmulatorState;
	knobs: EmulatorKnobs;
	faults: FaultController;
	rateLimiter: RateLimiter;
	clock: () => number;
	requestLog: RequestLogEntry[];
	nextSeq: () => number;
	webUrl: () => string;
	apiUrl: () => string;
	logErrors: boolean;
	/** Called once the service has handled a request, before its answer is sent (emulator.afterRequest). */
	onHandled?: (entry: RequestLogEntry) => void;
}

export interface EmulatorServer {
	server: http.Server;
	/** Requests held open by 'stall' faults. */
	stalled: Set<ServerResponse>;
	/** Closes the server and destroys every connection, stalled ones included. */
	close(): Promise<void>;
}

interface Serialised {
	status: number;
	headers: Record<string, string | number>;
	body: Buffer;
}

function serialise(response: EmuResponse): Serialised {
	const headers: Record<string, string | number> = { ...(response.headers ?? {}) };
	let body: Buffer = Buffer.alloc(0);
	if (response.status !== 204 && response.status !== 304) {
		if (response.json !== undefined) {
			body = Buffer.from(JSON.stringify(response.json), 'utf8');
			headers['content-type'] ??= 'application/json';
		} else if (response.body !== undefined) {
			body = typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : response.body;
		}
		headers['content-length'] = body.length;
	}
	return { status: response.status, headers, body };
}

function errorResponse(err: unknown, logErrors: boolean): EmuResponse {
	if (err instanceof ApiError) return { status: err.status, json: err.body, headers: err.headers };
	if (logErrors) console.error('[emulator] unexpected error:', err);
	return { status: 500, json: { detail: 'Internal Server Error' } };
}

const isPage = (json: unknown): json is Record<string, unknown> =>
	typeof json === 'object' && json !== null && !Array.isArray(json) && 'total_pages' in json;

/** What a front that moved the service answers (e.g. nginx sending http:// to https://). */
function redirectResponse(
	redirect: { status: number; location: string; html?: boolean },
	pathAndQuery: string,
): EmuResponse {
	const title = `${redirect.status} ${http.STATUS_CODES[redirect.status] ?? 'Redirect'}`;
	const location = `${redirect.location}${pathAndQuery}`;
	if (!redirect.html) return { status: redirect.status, headers: { location } };
	return {
		status: redirect.status,
		headers: { location, 'content-type': 'text/html' },
		body: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
	};
}

const sleep = (ms: number): Promise<void> =>
	new Promise((resolve) => {
		setTimeout(resolve, ms).unref();
	});

function clientIp(req: IncomingMessage): string {
	// X-Forwarded-For lets tests appear to come from several client IPs (access-log filters).
	const forwarded = req.headers['x-forwarded-for'];
	const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
	const ip = first || req.socket.remoteAddress || '';
	return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** Reads a JSON body (undefined when empty); 422 json_invalid when it does not parse. */
async function readJson(req: IncomingMessage, entry: RequestLogEntry): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of req) {
			size += (chunk as Buffer).length;
			if (size > MAX_JSON_BYTES) throw new ApiError(413, { detail: 'Request body too large' });
			chunks.push(chunk as Buffer);
		}
	} catch (err) {
		if (err instanceof ApiError) throw err;
		throw new ClientGoneError();
	}
	const text = Buffer.concat(chunks).toString('utf8');
	if (text.trim() === '') return undefined;
	try {
		const parsed: unknown = JSON.parse(text);
		entry.body = parsed;
		return parsed;
	} catch (err) {
		entry.body = text;
		const position = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? 0);
		throw validationError([issue.jsonInvalid(position, (err as Error).message)]);
	}
}

/** Discards whatever the client still sends after we answered (bounded, see DRAIN_LIMIT_BYTES). */
function discardRest(req: IncomingMessage): void {
	if (req.complete || req.destroyed) return;
	let seen = 0;
	req.on('data', (chunk: Buffer) => {
		seen += chunk.length;
		if (seen > DRAIN_LIMIT_BYTES) req.socket.destroy();
	});
	req.on('error', () => undefined);
	req.resume();
}

/** Resolves once the request's body has been read to its end (or the request broke). */
function bodyArrived(req: IncomingMessage): Promise<void> {
	if (req.complete || req.destroyed) return Promise.resolve();
	return new Promise((resolve) => {
		req.on('end', resolve);
		req.on('close', resolve);
		req.on('error', () => resolve());
		req.resume();
	});
}

export function createEmulatorServer(deps: ServerDeps): EmulatorServer {
	const router = new Router(ALL_ROUTES);
	const stalled = new Set<ServerResponse>();

	/** Writes a serialised response, then discards any unread request body. */
	const sendRaw = (
		req: IncomingMessage,
		res: ServerResponse,
		entry: RequestLogEntry,
		s: Serialised,
	): void => {
		if (res.destroyed || res.writableEnded) return;
		res.writeHead(s.status, s.headers);
		res.end(s.body);
		entry.status = s.status;
		discardRest(req);
	};
	const send = (
		req: IncomingMessage,
		res: ServerResponse,
		entry: RequestLogEntry,
		response: EmuResponse,
	): void => sendRaw(req, res, entry, serialise(response));

	const applyFault = (
		fault: FaultDecision,
		response: EmuResponse | null,
		req: IncomingMessage,
		res: ServerResponse,
		entry: RequestLogEntry,
	): void => {
		switch (fault.kind) {
			case 'reset':
				req.socket.destroy();
				return;
			case 'stall':
				stalled.add(res);
				res.on('close', () => stalled.delete(res));
				req.on('error', () => undefined);
				req.resume(); // the upload "succeeds", the answer never comes
				return;
			case 'truncated-json': {
				const s = serialise(response ?? { status: 200, json: {} });
				const cut = s.body.subarray(0, Math.floor(s.body.length / 2));
				sendRaw(req, res, entry, {
					...s,
					headers: { ...s.headers, ...(s.body.length ? { 'content-length': cut.length } : {}) },
					body: cut,
				});
				return;
			}
			case 'missing-fields':
				if (response && response.json !== undefined)
					send(req, res, entry, { ...response, json: dropFields(response.json, fault.dropFields) });
				else if (response) send(req, res, entry, response);
				return;
			case 'reset-mid-response': {
				const s = serialise(response ?? { status: 200, json: {} });
				if (res.destroyed) return;
				res.writeHead(s.status, s.headers);
				entry.status = s.status;
				const half = s.body.subarray(0, Math.floor(s.body.length / 2));
				res.write(half, () => req.socket.destroy());
				if (half.length === 0) req.socket.destroy();
				return;
			}
			default:
				send(
					req,
					res,
					entry,
					plainFaultResponse(fault.kind, {
						retryAfter: fault.retryAfter,
						retryAfterStyle: deps.knobs.retryAfterStyle,
						now: deps.clock(),
					}),
				);
		}
	};

	const workspaceFor = (user: UserRecord, params: Record<string, string>): number => {
		const agentId = Number(params.agent_id);
		const agent = Number.isInteger(agentId) ? deps.state.visibleAgent(user, agentId) : undefined;
		return agent?.workspaceId ?? user.workspaces[0] ?? 0;
	};

	/** Runs the API request; null when the client went away (nothing to answer). */
	const dispatch = async (
		req: IncomingMessage,
		entry: RequestLogEntry,
	): Promise<EmuResponse | null> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const sub = entry.path.slice(API_PREFIX.length) || '/';
		const match = router.match(method, sub);
		if (!match) return { status: 404, json: { detail: 'Not Found' } };
		if ('allow' in match)
			return {
				status: 405,
				json: { detail: 'Method Not Allowed' },
				headers: { allow: match.allow.join(', ') },
			};
		const { route, params } = match;
		entry.operation = route.operation;
		const now = deps.clock();
		let auth;
		try {
			auth = authenticate(deps.state, req.headers.authorization, now);
		} catch (err) {
			return errorResponse(err, deps.logErrors);
		}
		entry.user = auth.user.email;
		entry.userId = auth.user.id;
		let ctx: RequestContext | undefined;
		let response: EmuResponse;
		try {
			const rate = deps.rateLimiter.check(
				auth.user.id,
				route.family,
				limitFor(deps.knobs, route.family),
				now,
			);
			if (!rate.ok) {
				const retryAfter = retryAfterValue(deps.knobs.retryAfterStyle, rate.retryAfterSeconds, now);
				throw new ApiError(
					429,
					{ detail: `Rate limit exceeded: ${rate.limit} requests per minute` },
					retryAfter !== undefined ? { 'retry-after': retryAfter } : {},
				);
			}
			deps.state.settle(now);
			const body = route.body === 'json' ? await readJson(req, entry) : undefined;
			ctx = {
				state: deps.state,
				knobs: deps.knobs,
				now,
				clock: deps.clock,
				user: auth.user,
				apiKey: auth.key,
				req,
				params,
				// A service that ignores page_number answers page 0 whatever was asked.
				query: deps.knobs.ignorePageNumber ? { ...entry.query, page_number: '0' } : entry.query,
				body,
				log: entry,
				webUrl: deps.webUrl(),
			};
			response = await route.handle(ctx);
			if (deps.knobs.omitTotalPages && isPage(response.json)) {
				const { total_pages: _omitted, ...rest } = response.json;
				response = { ...response, json: rest };
			}
		} catch (err) {
			if (err instanceof ClientGoneError) return null;
			response = errorResponse(err, deps.logErrors);
		}
		deps.state.addAccessLog({
			timestamp_millis: deps.clock(),
			workspace_id: ctx?.workspaceId ?? workspaceFor(auth.user, params),
			user: auth.user.email,
			operation: route.operation,
			client_ip: clientIp(req),
			http_path: entry.path,
			http_method: method,
			http_status: response.status,
			metadata: {},
		});
		return response;
	};

	/** Pages outside the API: a health document and a stand-in for the web application's run pages. */
	const nonApi = (entry: RequestLogEntry): EmuResponse => {
		if (entry.method === 'GET' && (entry.path === '/' || entry.path === '/health')) {
			return {
				status: 200,
				json: {
					service: 'Document-Extraction Agents emulator',
					status: 'ok',
					api_url: deps.apiUrl(),
				},
			};
		}
		const m = /^\/app\/agents\/(\d+)\/runs\/(\d+)$/.exec(entry.path);
		if (entry.method === 'GET' && m) {
			const run = deps.state.runOf(Number(m[1]), Number(m[2]));
			const text = run
				? `Run ${run.runId} of Agent ${run.agentId}: ${run.files.map((f) => f.name).join(', ')}`
				: 'Run not found';
			return {
				status: run ? 200 : 404,
				headers: { 'content-type': 'text/html; charset=utf-8' },
				body: `<!doctype html><html><head><title>Extraction Agents</title></head><body><h1>${text.replace(/[<>&]/g, '')}</h1></body></html>`,
			};
		}
		return { status: 404, json: { detail: 'Not Found' } };
	};

	const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const startedAt = Date.now();
		const url = new URL(req.url ?? '/', 'http://emulator.invalid');
		const entry: RequestLogEntry = {
			seq: deps.nextSeq(),
			method: (req.method ?? 'GET').toUpperCase(),
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			status: 0,
			startedAt,
			durationMs: 0,
			headers: { ...req.headers },
		};
		deps.requestLog.push(entry);
		const done = (): void => {
			entry.durationMs = Date.now() - startedAt;
		};
		res.on('finish', done);
		res.on('close', done);
		req.on('error', () => undefined);

		if (entry.path !== API_PREFIX && !entry.path.startsWith(`${API_PREFIX}/`)) {
			send(req, res, entry, nonApi(entry));
			return;
		}
		const redirect = deps.knobs.redirect;
		if (
			redirect &&
			(redirect.pathContains === undefined || entry.path.includes(redirect.pathContains))
		) {
			send(req, res, entry, redirectResponse(redirect, req.url ?? entry.path));
			return;
		}
		if (deps.knobs.latencyMs > 0) await sleep(deps.knobs.latencyMs);
		if (res.destroyed) return;
		const fault = deps.faults.decide(entry.method, entry.path, entry.query);
		if (fault) entry.fault = fault.kind;
		if (fault && fault.timing === 'before') {
			if (fault.afterBody) await bodyArrived(req);
			applyFault(fault, null, req, res, entry);
			return;
		}
		const response = await dispatch(req, entry);
		if (!response) {
			res.destroy();
			return;
		}
		deps.onHandled?.(entry);
		if (fault) applyFault(fault, response, req, res, entry);
		else send(req, res, entry, response);
	};

	const server = http.createServer((req, res) => {
		onRequest(req, res).catch((err) => {
			if (deps.logErrors) console.error('[emulator] request failed:', err);
			if (!res.headersSent && !res.destroyed) {
				res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ detail: 'Internal Server Error' }));
			} else res.destroy();
		});
	});
	// Uploads of hundreds of MB may take long; never time a request out server-side.
	server.requestTimeout = 0;
	server.headersTimeout = 60_000;
	// Longer than common client idle timeouts (undici 4 s), so the client closes idle sockets first
	// and never reuses one the server is closing ("other side closed" races).
	server.keepAliveTimeout = 65_000;
	server.on('clientError', (_err, socket: Socket) => socket.destroy());

	const close = (): Promise<void> =>
		new Promise((resolve) => {
			for (const res of stalled) res.destroy();
			stalled.clear();
			server.close(() => resolve());
			server.closeAllConnections();
		});

	return { server, stalled, close };
}
