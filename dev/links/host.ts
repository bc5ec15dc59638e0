/**
 * A file host on loopback for Files → Links: each path is a way a real host answers, the
 * good ones and the hostile ones, so that tests and the soak can give links that misbehave
 * exactly as a user's would. It logs every request with its headers, so that a test can
 * show the API key never reached it.
 *
 *   const host = await startLinkHost();
 *   host.link('/file/invoice.pdf')            // a plain file with a Content-Length
 *   host.link('/gzip/invoice.pdf')            // gzip-encoded although identity was asked for
 *   host.requests                             // [{ path, headers, ... }]
 *   await host.stop();
 *
 * Every path ends in a file name; the file's bytes are derived from the whole path, so two
 * links never give the same bytes and `host.bytesOf(path)` tells what a link serves.
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';

export interface LinkRequest {
	method: string;
	/** Path and query as sent. */
	url: string;
	path: string;
	headers: http.IncomingHttpHeaders;
}

export interface LinkHost {
	readonly url: string;
	readonly requests: LinkRequest[];
	/** The address of `path` on this host. */
	link(path: string): string;
	/** The bytes `path` serves (its first answer). */
	bytesOf(path: string): Buffer;
	/** Requests to `path` so far (query ignored). */
	readsOf(path: string): number;
	/** The file each answer of `path` gave, decoded (a gzip answer's file, not its gzip), in order. */
	servedOf(path: string): Buffer[];
	/** Answers whose connection this host closed because the client left it unread (`/idle/…`). */
	readonly idleClosed: string[];
	stop(): Promise<void>;
}

/**
 * The hazards, by the first segment of the path:
 * - `/file/…`: the file, with Content-Length.
 * - `/chunked/…`: the file without a length (chunked).
 * - `/once/…`: a single-use link: the first GET gives the file, every later one 410.
 * - `/gzip/…`: gzip-encoded whatever Accept-Encoding asked, Content-Length of the gzip.
 * - `/gzip-larger/…`: like `/gzip/…`, but the file does not compress (random bytes), so its
 *   gzip, whose length is announced, is longer than the file.
 * - `/gzip-chunked/…`: gzip-encoded whatever Accept-Encoding asked, chunked (compressed on the fly).
 * - `/chunked-cut/…`: chunked; half the file, then the connection closed without the last chunk.
 * - `/gzip-bomb/<bytes>/…`: `bytes` zero bytes gzip-encoded, chunked (a few hundred KB on the wire).
 * - `/longer/…`: the file; each answer after the first is 4,096 bytes longer (and says so).
 * - `/grows/…`: chunked, and each answer after the first is longer.
 * - `/swapped/…`: chunked; later answers are other bytes of the same type and length.
 * - `/trickle/…`: one byte a second (Content-Length announced).
 * - `/stall/…`: the headers and half the file, then nothing.
 * - `/silent/…`: accepts the connection and never answers.
 * - `/redirect/<n>/…`: a 302 to `?to=` (URL-encoded absolute address), `n` times through itself first.
 * - `/slow-redirect/<ms>/<n>/…`: like `/redirect/`, each hop answering after `ms`; the last to `/file/…`.
 * - `/stamped/…`: chunked; every answer is other bytes (a PDF stamped with the time it was made).
 * - `/once-chunked/…`: a single-use link without a length: the first GET gives the file, later ones 410.
 * - `/paced/<n>/<ms>/…`: the file (Content-Length announced) in `n` pieces, `ms` apart.
 * - `/short/…`: announces a length, sends half of it, and closes the connection 300 ms later.
 * - `/idle/<ms>/…`: 16 MB (Content-Length announced), closed when the client reads nothing for
 *   `ms` (nginx's send_timeout): an answer held open unread is lost.
 * - `/disposition/<value>/…`: the file with `Content-Disposition: <value>` (URL-decoded).
 * - `/page/…`: an HTML page.
 * - `/untyped-page/…`: an HTML page without a Content-Type (a misconfigured host or share page).
 * - `/untyped/…`: the file without a Content-Type.
 * - `/gzip-twice/…`: the file gzip-encoded twice, `Content-Encoding: gzip, gzip`.
 * - `/encoded/<encoding>/…`: the file's bytes as they are with `Content-Encoding: <encoding>`
 *   (URL-decoded), e.g. `zstd`, which n8n's client does not unpack on every Node.js version.
 * - `/long-header/<bytes>/…`: the file with a Content-Disposition of about `bytes` bytes.
 * - `/late/<headersMs>/<bodyMs>/…`: the headers after `headersMs`, the file's first byte
 *   `bodyMs` after the headers.
 * - `/announced/<bytes>/…`: announces `bytes` of Content-Length and sends none of them.
 * - anything else: 404.
 *
 * The query of a link is ignored, so any path can carry a presigned link's parameters.
 */
export async function startLinkHost(): Promise<LinkHost> {
	const requests: LinkRequest[] = [];
	const reads = new Map<string, number>();
	const served = new Map<string, Buffer[]>();
	const idleClosed: string[] = [];
	const record = (path: string, file: Buffer) => {
		served.set(path, [...(served.get(path) ?? []), file]);
	};
	const server = http.createServer((req, res) => {
		const url = req.url ?? '/';
		const path = new URL(url, 'http://link-host').pathname;
		requests.push({ method: req.method ?? 'GET', url, path, headers: { ...req.headers } });
		const read = (reads.get(path) ?? 0) + 1;
		reads.set(path, read);
		serve(req, res, path, url, read, {
			record: (file) => record(path, file),
			idleClosed: () => idleClosed.push(path),
		});
	});
	server.keepAliveTimeout = 1000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url: base,
		requests,
		link: (path) => `${base}${path}`,
		bytesOf: (path) => fileBytes(new URL(path, 'http://link-host').pathname),
		readsOf: (path) => reads.get(new URL(path, 'http://link-host').pathname) ?? 0,
		servedOf: (path) => served.get(new URL(path, 'http://link-host').pathname) ?? [],
		idleClosed,
		stop: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** A small PDF whose text is the path: distinct bytes per link. */
export function fileBytes(path: string): Buffer {
	const digest = createHash('sha256').update(path).digest('hex');
	return Buffer.from(`%PDF-1.4\n% ${path}\n% ${digest}\n%%EOF\n`);
}

interface ServeLog {
	/** Notes the file an answer gives (decoded). */
	record: (file: Buffer) => void;
	idleClosed: () => void;
}

/** Sends `body` in 64 kB writes; closes the connection when the client reads nothing for `idleMs`. */
function sendUnlessIdle(
	res: http.ServerResponse,
	body: Buffer,
	idleMs: number,
	onClose: () => void,
) {
	let offset = 0;
	let timer: NodeJS.Timeout | undefined;
	const arm = () => {
		clearTimeout(timer);
		timer = setTimeout(() => {
			onClose();
			res.destroy();
		}, idleMs);
	};
	const pump = () => {
		arm();
		while (offset < body.length) {
			const piece = body.subarray(offset, offset + 65_536);
			offset += piece.length;
			if (offset >= body.length) {
				res.end(piece, () => clearTimeout(timer));
				return;
			}
			if (!res.write(piece)) return void res.once('drain', pump);
		}
	};
	res.on('close', () => clearTimeout(timer));
	pump();
}

function serve(
	req: http.IncomingMessage,
	res: http.ServerResponse,
	path: string,
	url: string,
	read: number,
	log: ServeLog,
): void {
	const [, kind, ...rest] = path.split('/');
	const bytes = fileBytes(path);
	const pdf = { 'Content-Type': 'application/pdf' };
	if (['file', 'chunked', 'once', 'disposition', 'paced', 'short'].includes(kind))
		log.record(bytes);
	switch (kind) {
		case 'file':
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			return void res.end(bytes);
		case 'chunked':
			res.writeHead(200, pdf);
			res.write(bytes.subarray(0, 7));
			return void res.end(bytes.subarray(7));
		case 'once':
			if (read > 1) {
				res.writeHead(410, { 'Content-Type': 'text/plain' });
				return void res.end('this download link was already used');
			}
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			return void res.end(bytes);
		case 'gzip-chunked': {
			const big = Buffer.concat(Array.from({ length: 64 }, () => bytes));
			log.record(big);
			res.writeHead(200, { ...pdf, 'Content-Encoding': 'gzip' });
			const zipped = gzipSync(big);
			res.write(zipped.subarray(0, 10));
			return void res.end(zipped.subarray(10));
		}
		case 'chunked-cut':
			log.record(bytes);
			res.writeHead(200, pdf);
			res.write(bytes.subarray(0, bytes.length >> 1));
			// Closed a moment later, once the half has reached the client.
			setTimeout(() => res.destroy(), 300);
			return;
		case 'gzip-bomb': {
			res.writeHead(200, { ...pdf, 'Content-Encoding': 'gzip' });
			const gzip = createGzip({ level: 1 });
			gzip.pipe(res);
			res.on('close', () => gzip.destroy());
			const zeros = Buffer.alloc(1024 * 1024);
			let left = Number(rest[0]);
			const pump = () => {
				while (left > 0 && !res.destroyed) {
					const part = zeros.subarray(0, Math.min(zeros.length, left));
					left -= part.length;
					if (!gzip.write(part)) return void gzip.once('drain', pump);
				}
				gzip.end();
			};
			return pump();
		}
		case 'gzip': {
			// A large body that compresses well: the gzip is far shorter than the file.
			const big = Buffer.concat(Array.from({ length: 64 }, () => bytes));
			const zipped = gzipSync(big);
			log.record(big);
			res.writeHead(200, { ...pdf, 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
			return void res.end(zipped);
		}
		case 'gzip-larger': {
			// Bytes that do not compress (random, seeded by the path): the gzip is the longer.
			const random = Buffer.concat(
				Array.from({ length: 256 }, (_, index) =>
					createHash('sha256').update(`${path}:${index}`).digest(),
				),
			);
			const file = Buffer.concat([bytes, random]);
			const zipped = gzipSync(file);
			log.record(file);
			res.writeHead(200, { ...pdf, 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
			return void res.end(zipped);
		}
		case 'longer': {
			// Each answer after the first announces and sends more than the first did.
			const body = read === 1 ? bytes : Buffer.concat([bytes, Buffer.alloc(4096, 0x41)]);
			res.writeHead(200, { ...pdf, 'Content-Length': body.length });
			return void res.end(body);
		}
		case 'grows':
			res.writeHead(200, pdf);
			return void res.end(read === 1 ? bytes : Buffer.concat([bytes, Buffer.alloc(100, 0x42)]));
		case 'swapped':
			if (read === 1) {
				res.writeHead(200, pdf);
				return void res.end(bytes);
			}
			// Same type, same length, other bytes: a sign-in page served as the file.
			res.writeHead(200, pdf);
			return void res.end(Buffer.from(`<html>${'x'.repeat(bytes.length)}`.slice(0, bytes.length)));
		case 'trickle': {
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			let sent = 0;
			const tick = setInterval(() => {
				if (res.destroyed || sent >= bytes.length) return void clearInterval(tick);
				res.write(bytes.subarray(sent, sent + 1));
				sent += 1;
				if (sent >= bytes.length) res.end();
			}, 1000);
			res.on('close', () => clearInterval(tick));
			return;
		}
		case 'stall':
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			res.write(bytes.subarray(0, bytes.length >> 1));
			return; // never ends
		case 'silent':
			return; // never answers
		case 'redirect': {
			const times = Number(rest[0]);
			const to = new URL(url, 'http://link-host').searchParams.get('to') ?? '/';
			if (times > 0) {
				const next = ['', 'redirect', String(times - 1), ...rest.slice(1)].join('/');
				res.writeHead(302, { Location: `${next}?to=${encodeURIComponent(to)}` });
				return void res.end();
			}
			res.writeHead(302, { Location: to });
			return void res.end();
		}
		case 'disposition':
			res.writeHead(200, {
				...pdf,
				'Content-Length': bytes.length,
				'Content-Disposition': decodeURIComponent(rest[0] ?? ''),
			});
			return void res.end(bytes);
		case 'slow-redirect': {
			const [ms, times] = [Number(rest[0]), Number(rest[1])];
			const next =
				times > 0
					? ['', 'slow-redirect', String(ms), String(times - 1), ...rest.slice(2)].join('/')
					: ['', 'file', ...rest.slice(2)].join('/');
			const timer = setTimeout(() => {
				res.writeHead(302, { Location: next });
				res.end();
			}, ms);
			res.on('close', () => clearTimeout(timer));
			return;
		}
		case 'stamped': {
			// The same document, made anew for each read: its creation time differs.
			const stamped = Buffer.concat([
				bytes,
				Buffer.from(`% made ${process.hrtime.bigint()} #${read}\n`),
			]);
			log.record(stamped);
			res.writeHead(200, pdf);
			res.write(stamped.subarray(0, 9));
			return void res.end(stamped.subarray(9));
		}
		case 'once-chunked':
			if (read > 1) {
				res.writeHead(410, { 'Content-Type': 'text/plain' });
				return void res.end('this download link was already used');
			}
			log.record(bytes);
			res.writeHead(200, pdf);
			res.write(bytes.subarray(0, 9));
			return void res.end(bytes.subarray(9));
		case 'paced': {
			const [pieces, ms] = [Number(rest[0]), Number(rest[1])];
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			const size = Math.ceil(bytes.length / pieces);
			let sent = 0;
			const tick = setInterval(() => {
				if (res.destroyed) return void clearInterval(tick);
				res.write(bytes.subarray(sent, sent + size));
				sent += size;
				if (sent >= bytes.length) {
					clearInterval(tick);
					res.end();
				}
			}, ms);
			res.on('close', () => clearInterval(tick));
			return;
		}
		case 'short':
			res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
			res.write(bytes.subarray(0, bytes.length >> 1));
			// Closed a moment later, once the half has reached the client.
			setTimeout(() => res.destroy(), 300);
			return;
		case 'idle': {
			const big = Buffer.alloc(16 * 1024 * 1024, 0x25);
			bytes.copy(big);
			log.record(big);
			res.writeHead(200, { ...pdf, 'Content-Length': big.length });
			return sendUnlessIdle(res, big, Number(rest[0]), log.idleClosed);
		}
		case 'page':
			res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
			return void res.end('<html><body>Sign in to view this file</body></html>');
		case 'untyped-page': {
			// Node adds no Content-Type of its own.
			const page = Buffer.from(
				'\n  <!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to view this file</body></html>',
			);
			res.writeHead(200, { 'Content-Length': page.length });
			return void res.end(page);
		}
		case 'untyped':
			log.record(bytes);
			res.writeHead(200, { 'Content-Length': bytes.length });
			return void res.end(bytes);
		case 'gzip-twice': {
			const twice = gzipSync(gzipSync(bytes));
			res.writeHead(200, {
				...pdf,
				'Content-Encoding': 'gzip, gzip',
				'Content-Length': twice.length,
			});
			return void res.end(twice);
		}
		case 'encoded':
			res.writeHead(200, {
				...pdf,
				'Content-Encoding': decodeURIComponent(rest[0] ?? ''),
				'Content-Length': bytes.length,
			});
			return void res.end(bytes);
		case 'long-header': {
			const name = 'x'.repeat(Math.max(1, Number(rest[0]) - 30));
			res.writeHead(200, {
				...pdf,
				'Content-Length': bytes.length,
				'Content-Disposition': `attachment; filename="${name}.pdf"`,
			});
			return void res.end(bytes);
		}
		case 'announced':
			res.writeHead(200, { ...pdf, 'Content-Length': Number(rest[0]) });
			return void res.end();
		case 'late': {
			const [headersMs, bodyMs] = [Number(rest[0]), Number(rest[1])];
			let timer = setTimeout(() => {
				res.writeHead(200, { ...pdf, 'Content-Length': bytes.length });
				res.flushHeaders();
				timer = setTimeout(() => res.end(bytes), bodyMs);
			}, headersMs);
			res.on('close', () => clearTimeout(timer));
			return;
		}
		default:
			res.writeHead(404, { 'Content-Type': 'text/plain' });
			return void res.end('not found');
	}
}
