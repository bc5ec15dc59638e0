/**
 * What Files → Links costs in memory, measured from outside the engine: a host of big files
 * (announcing their length, chunked, or gzip-encoded in chunks), and one execution of Run → Create (one link per item) in a
 * child process (memory-child.ts) whose RSS is the engine's alone: the host and the emulator
 * stay in the caller's process. Used by test/node/links-memory.test.ts and bench/link-download.ts.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createGzip } from 'node:zlib';
import type { BinaryMode } from '../harness';
import type { LinksChildArgs, LinksChildResult } from './memory-child';

const MIB = 1024 * 1024;

/**
 * How the host sends a file: with its Content-Length (`announced`), without a length
 * (`chunked`), or gzip-encoded without a length (`gzip`, as a host compressing on the fly does).
 */
export type BigFileSending = 'announced' | 'chunked' | 'gzip';

export interface BigFileHost {
	/** The address of a file of `bytes` bytes, sent as `sending` says; `name` makes its bytes its own. */
	link(name: string, bytes: number, sending?: BigFileSending): string;
	/** The SHA-256 of what `link(name, bytes)` serves. */
	sha256(name: string, bytes: number): string;
	/** GETs per file name. */
	readonly reads: Map<string, number>;
	stop(): void;
}

/** The byte at each position of a file: its name's seed, cheap to make again for the hash. */
function pieceOf(name: string): Buffer {
	const seed = createHash('sha256').update(name).digest();
	const piece = Buffer.alloc(MIB);
	for (let offset = 0; offset < piece.length; offset += seed.length) seed.copy(piece, offset);
	Buffer.from('%PDF-1.4\n').copy(piece);
	return piece;
}

/**
 * Serves `/<sending>/<bytes>/<name>`: `bytes` bytes, written as the client reads, with
 * Content-Length (`announced`), chunked, or gzip-encoded and chunked.
 */
export async function startBigFileHost(): Promise<BigFileHost> {
	const reads = new Map<string, number>();
	const server = http.createServer((req, res) => {
		const match = /^\/(announced|chunked|gzip)\/(\d+)\/([^/?]+)$/.exec(req.url ?? '');
		if (!match) return void res.writeHead(404).end();
		const [sending, size, name] = [match[1] as BigFileSending, Number(match[2]), match[3]];
		reads.set(name, (reads.get(name) ?? 0) + 1);
		const piece = pieceOf(name);
		res.writeHead(200, {
			'Content-Type': 'application/pdf',
			...(sending === 'announced' ? { 'Content-Length': size } : {}),
			...(sending === 'gzip' ? { 'Content-Encoding': 'gzip' } : {}),
		});
		const gzip = sending === 'gzip' ? createGzip({ level: 1 }) : undefined;
		gzip?.pipe(res);
		const out = gzip ?? res;
		let sent = 0;
		const pump = () => {
			while (sent < size) {
				const part = piece.subarray(0, Math.min(piece.length, size - sent));
				sent += part.length;
				if (!out.write(part)) return void out.once('drain', pump);
			}
			out.end();
		};
		res.on('close', () => {
			sent = size;
			gzip?.destroy();
		});
		pump();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		link: (name, bytes, sending = 'announced') => `${url}/${sending}/${bytes}/${name}`,
		sha256: (name, bytes) => {
			const hash = createHash('sha256');
			const piece = pieceOf(name);
			for (let done = 0; done < bytes; done += piece.length) {
				hash.update(piece.subarray(0, Math.min(piece.length, bytes - done)));
			}
			return hash.digest('hex');
		},
		reads,
		stop: () => {
			server.closeAllConnections();
			server.close();
		},
	};
}

export interface LinksInChild extends LinksChildResult {
	/** Peak RSS growth of the child while the node ran, in bytes. */
	growth: number;
}

/**
 * One execution of Run → Create with one item per link (Items in Parallel at its default) in
 * a fresh child process, in `binaryMode`. `nodeArgs` are the child's Node options.
 */
export async function linksInChild(
	args: {
		binaryMode: BinaryMode;
		apiUrl: string;
		apiKey: string;
		links: string[];
		warmUpLink: string;
	},
	nodeArgs: string[] = [],
): Promise<LinksInChild> {
	const childArgs: LinksChildArgs = args;
	const child = fork(path.join(__dirname, 'memory-child.ts'), [JSON.stringify(childArgs)], {
		cwd: path.resolve(__dirname, '../..'),
		execArgv: ['--import', 'tsx', ...nodeArgs],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const result = await new Promise<LinksChildResult>((resolve) => {
		child.on('message', (message: LinksChildResult) => {
			if (message?.type === 'done') resolve(message);
		});
		child.on('exit', (code) =>
			resolve({
				type: 'done',
				ok: false,
				errors: [`the child exited with code ${code}`],
				rssBefore: 0,
				rssPeak: 0,
				ms: 0,
			}),
		);
	});
	await new Promise((resolve) =>
		child.exitCode === null ? child.once('exit', resolve) : resolve(null),
	);
	return { ...result, growth: result.rssPeak - result.rssBefore };
}
