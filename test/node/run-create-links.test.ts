/**
 * Node version 1.2: Run → Create takes its files from links (Files: Links). Each file is
 * downloaded once, before the upload; an error status, a web page, a redirect loop, an
 * empty file or one over the service's limit fails the item before any Run is created. The
 * API key never goes to the file's host. A real file server on loopback serves the links.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 100 });

const invoice = pdf('invoice INV-9 from a link');
const receipt = pdf('receipt R-10, sent without a length');
const seen: Array<{ path: string; authorization?: string }> = [];
let server: http.Server;
let base = '';

beforeAll(async () => {
	server = http.createServer((req, res) => {
		seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
		const path = new URL(req.url ?? '/', 'http://files').pathname;
		switch (path) {
			case '/download/4711':
				res.writeHead(200, {
					'Content-Type': 'application/pdf',
					'Content-Length': invoice.length,
					'Content-Disposition': `attachment; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`,
				});
				return res.end(invoice);
			case '/files/receipt-10.pdf':
				// Chunked: no Content-Length.
				res.writeHead(200, { 'Content-Type': 'application/pdf' });
				res.write(receipt.subarray(0, 10));
				return res.end(receipt.subarray(10));
			case '/viewer':
				res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
				return res.end('<html><body>Sign in to view this file</body></html>');
			case '/loop':
				res.writeHead(302, { Location: '/loop' });
				return res.end();
			case '/huge.pdf':
				res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': 300_000_000 });
				return res.end(); // the node must not read it
			case '/huge-unannounced.pdf': {
				res.writeHead(200, { 'Content-Type': 'application/pdf' });
				const chunk = Buffer.alloc(4 * 1024 * 1024);
				let sent = 0;
				const pump = () => {
					while (sent <= 260_000_000) {
						sent += chunk.length;
						if (!res.write(chunk)) {
							res.once('drain', pump);
							return;
						}
					}
					res.end();
				};
				res.on('close', () => (sent = Infinity));
				pump();
				return;
			}
			default:
				res.writeHead(404, { 'Content-Type': 'text/plain' });
				return res.end('not found');
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

async function createFromLinks(fileLinks: string) {
	const seq = ctx.emulator.lastSeq;
	seen.length = 0;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		// The links' files as one Run, one upload (1.5 makes one Run per file by default).
		parameters: createRunParameters({ binarySource: 'links', fileLinks, filesPerRun: 'item' }),
		inputItems: [{ json: { n: 1 } }],
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	return { result, uploads };
}

const description = (error: unknown) => (error as { description?: string }).description ?? '';

describe('Run → Create (version 1.2), Files: Links', () => {
	it('uploads the files of every link as one Run, byte for byte, named by Content-Disposition or the path', async () => {
		const { result, uploads } = await createFromLinks(
			`${base}/download/4711\n${base}/files/receipt-10.pdf`,
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).toBe('success');
		expect(uploads).toHaveLength(1);
		expect(uploads[0].upload?.files.map((file) => [file.filename, file.sha256])).toEqual([
			['Rechnung März.pdf', sha256(invoice)],
			['receipt-10.pdf', sha256(receipt)],
		]);
	});

	it('never sends the API key to the file’s host', async () => {
		await createFromLinks(`${base}/download/4711`);
		expect(seen.length).toBeGreaterThan(0);
		expect(seen.map((request) => request.authorization)).toEqual(seen.map(() => undefined));
	});

	it.each([
		[
			'an error status',
			'/gone.pdf',
			/^The link http:\/\/127\.0\.0\.1:\d+\/gone\.pdf answered 404 \(Not Found\) instead of a file$/,
			'still exists',
		],
		[
			'a web page',
			'/viewer',
			/^The link http:\/\/127\.0\.0\.1:\d+\/viewer gives a web page, not a document$/,
			'direct download link',
		],
		[
			'a redirect loop',
			'/loop',
			/^The link http:\/\/127\.0\.0\.1:\d+\/loop redirects in a loop$/,
			'more than 10 times',
		],
		[
			'a size over the limit, announced',
			'/huge.pdf',
			/^File "huge\.pdf" at http:\/\/127\.0\.0\.1:\d+\/huge\.pdf is 300,000,000 bytes; the limit is 250,000,000 bytes$/,
			'at most 250 MB',
		],
		[
			'a size over the limit, found while reading',
			'/huge-unannounced.pdf',
			/^The file at http:\/\/127\.0\.0\.1:\d+\/huge-unannounced\.pdf is larger than the service accepts: the download stopped at 250 MB$/,
			'at most 250 MB',
		],
	])('%s fails the item before any Run is created', async (_case, path, message, advice) => {
		const { result, uploads } = await createFromLinks(`${base}/download/4711\n${base}${path}`);
		expect(uploads).toEqual([]);
		expect(result.error?.message).toMatch(message);
		expect(description(result.error)).toContain(advice);
	});

	it('refuses something that is not a web address, naming it', async () => {
		const { result, uploads } = await createFromLinks('invoice.pdf');
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe('"invoice.pdf" is not a web address');
	});
});
