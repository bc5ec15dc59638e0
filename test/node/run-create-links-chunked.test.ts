/**
 * Files → Links whose host announces no length (a chunked answer, or one compressed on the
 * way and unpacked by n8n's client), where n8n's store would hold a file in memory (memory
 * mode, the database store): the link is sent straight on into the upload as it downloads,
 * read once, and the upload goes without a Content-Length (Transfer-Encoding: chunked). What
 * the emulator received (its request log: the body's framing, each part's SHA-256) is compared
 * with what the host served; a link cut mid-body, a gzip bomb and a service that needs the
 * length (411) each fail the item by name, with no Run made.
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeNode, useHarness, type BinaryMode } from '../../dev/harness';
import { startLinkHost, type LinkHost } from '../../dev/links/host';
import { startBigFileHost, type BigFileHost } from '../../dev/links/memory';
import { createRunParameters, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

let host: LinkHost;
let bigHost: BigFileHost;
beforeAll(async () => {
	host = await startLinkHost();
	bigHost = await startBigFileHost();
});
afterAll(async () => {
	await host.stop();
	bigHost.stop();
});
afterEach(() => {
	ctx.emulator.knobs.uploadStallAfterBytes = null;
	ctx.emulator.knobs.uploadResetAfterBytes = null;
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const description = (error: unknown) => (error as { description?: string }).description ?? '';
const MEMORY_STORES = ['default', 'database'] as const;

async function createFromLinks(
	fileLinks: string,
	binaryMode: BinaryMode,
	baseUrl: string = ctx.credentials.baseUrl,
	more: { typeVersion?: number; requestTimeout?: number } = {},
) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: { ...ctx.credentials, baseUrl },
		typeVersion: more.typeVersion,
		// One Run of all the item's links: the test reads the upload's parts side by side.
		parameters: createRunParameters({
			binarySource: 'links',
			fileLinks,
			filesPerRun: 'item',
			waitForCompletion: false,
			...(more.requestTimeout ? { options: { requestTimeout: more.requestTimeout } } : {}),
		}),
		inputItems: [{ json: { n: 1 } }],
		binaryMode,
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	const created = uploads.filter((entry) => entry.status >= 200 && entry.status < 300);
	return { result, uploads, created };
}

const framing = (entry: { upload?: { chunked: boolean; contentLength?: number } }) => ({
	chunked: entry.upload?.chunked,
	contentLength: entry.upload?.contentLength,
});

describe('Files → Links without a length, in a store that keeps files in memory: sent on chunked', () => {
	it.each(MEMORY_STORES)(
		'uploads a chunked link and a gzip-encoded chunked link byte for byte, each read once, the upload chunked without a Content-Length (%s store)',
		async (binaryMode) => {
			const paths = [`/chunked/${binaryMode}-a.pdf`, `/gzip-chunked/${binaryMode}-b.pdf`];
			const { result, created } = await createFromLinks(
				paths.map(host.link).join('\n'),
				binaryMode,
			);
			expect(result.error).toBeUndefined();
			expect(paths.map((path) => host.readsOf(path))).toEqual([1, 1]);
			expect(created.map(framing)).toEqual([{ chunked: true, contentLength: undefined }]);
			expect(created.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
				paths.map((path) => sha256(host.servedOf(path)[0])),
			]);
			expect(host.servedOf(paths[1])[0].length).toBeGreaterThan(1000);
		},
	);

	it('a link with a length beside one without: both uploaded whole in one chunked body', async () => {
		const paths = ['/file/mixed-a.pdf', '/chunked/mixed-b.pdf'];
		const { result, created } = await createFromLinks(paths.map(host.link).join('\n'), 'default');
		expect(result.error).toBeUndefined();
		expect(created.map(framing)).toEqual([{ chunked: true, contentLength: undefined }]);
		expect(created.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
			paths.map((path) => sha256(host.servedOf(path)[0])),
		]);
	});

	it('in the filesystem store a chunked link is still stored whole first and uploaded with its length', async () => {
		const path = '/chunked/on-disk.pdf';
		const { result, created } = await createFromLinks(host.link(path), 'filesystem');
		expect(result.error).toBeUndefined();
		expect(created.map(framing)).toEqual([
			{ chunked: false, contentLength: expect.any(Number) as number },
		]);
		expect(created.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
			[sha256(host.servedOf(path)[0])],
		]);
	});
});

describe('Files → Links without a length: what fails is said by name, and no Run is made', () => {
	it.each(MEMORY_STORES)(
		'a chunked link whose host closes the connection mid-body: ended early after N bytes, no Run (%s store)',
		async (binaryMode) => {
			const path = `/chunked-cut/${binaryMode}-cut.pdf`;
			const { result, uploads, created } = await createFromLinks(host.link(path), binaryMode);
			expect(created).toEqual([]);
			expect(uploads.map((entry) => entry.status >= 200 && entry.status < 300)).toEqual([false]);
			expect(host.readsOf(path)).toBe(1);
			const half = host.bytesOf(path).length >> 1;
			expect(result.error?.message).toBe(
				`The link ${host.link(path)} ended early: its host closed the connection after ${half.toLocaleString('en-US')} bytes`,
			);
			expect(description(result.error)).toMatch(/^No Run was made from this link\. /);
		},
	);

	it('a service that stops taking a chunked upload: stalled after N MB (its whole length unknown), no Run', async () => {
		ctx.emulator.knobs.uploadStallAfterBytes = 1_000_000;
		const link = bigHost.link('stalled-chunked.pdf', 14_000_000, 'chunked');
		const { result, created } = await createFromLinks(link, 'default', undefined, {
			requestTimeout: 1,
		});
		expect(created).toEqual([]);
		expect(bigHost.reads.get('stalled-chunked.pdf')).toBe(1);
		expect(result.error?.message).toMatch(
			/^The upload to the Extraction Agents service stalled: it took nothing for 1 s after [\d.]+ MB$/,
		);
		expect(description(result.error)).toMatch(
			/^No Run was made: the service did not get the whole upload/,
		);
	});

	it('a connection that breaks during a chunked upload (1.4): cut after N MB, no Run made', async () => {
		ctx.emulator.knobs.uploadResetAfterBytes = 1_000_000;
		const link = bigHost.link('cut-chunked.pdf', 14_000_000, 'chunked');
		const { result, created } = await createFromLinks(link, 'default', undefined, {
			typeVersion: 1.4,
			requestTimeout: 5,
		});
		expect(created).toEqual([]);
		expect(bigHost.reads.get('cut-chunked.pdf')).toBe(1);
		expect(result.error?.message).toMatch(
			/^The connection to the Extraction Agents service broke during the upload, after ([\d.]+ MB|[\d,]+ bytes)$/,
		);
		expect(description(result.error)).toMatch(
			/^No Run was made: the service did not get the whole upload/,
		);
	});

	it('a gzip bomb (300 MB of zeros, a few hundred KB on the wire) is cut at the service’s 250 MB limit, no Run', async () => {
		const path = '/gzip-bomb/300000000/bomb.pdf';
		const { result, created } = await createFromLinks(host.link(path), 'default');
		expect(created).toEqual([]);
		expect(result.error?.message).toBe(
			`The file at ${host.link(path)} is larger than the service accepts: the download stopped at 250 MB`,
		);
		expect(description(result.error)).toMatch(/^No Run was made from this link\. /);
	}, 240_000);

	it('a service that needs the upload’s length (411 Length Required): the item fails by name with what to do, the link read once', async () => {
		// A front of the emulator that refuses a chunked upload, as a server needing the length would.
		const front = http.createServer((req, res) => {
			if (
				req.method === 'POST' &&
				/\/runs$/.test(req.url ?? '') &&
				!req.headers['content-length']
			) {
				res.writeHead(411, { 'Content-Type': 'application/json', Connection: 'close' });
				res.end(JSON.stringify({ detail: 'Length Required' }));
				return;
			}
			const target = new URL(ctx.emulator.url);
			const forward = http.request(
				{
					host: target.hostname,
					port: target.port,
					method: req.method,
					path: req.url,
					headers: { ...req.headers, host: target.host },
					// No kept-alive connection left to hold the emulator open when it stops.
					agent: false,
				},
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			req.pipe(forward);
		});
		await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = ctx.credentials.baseUrl.replace(
				new URL(ctx.credentials.baseUrl).host,
				`127.0.0.1:${(front.address() as AddressInfo).port}`,
			);
			const path = '/chunked/needs-length.pdf';
			const { result, created } = await createFromLinks(host.link(path), 'default', baseUrl);
			expect(created).toEqual([]);
			expect(host.readsOf(path)).toBe(1);
			expect(result.error?.message).toBe(
				`The Extraction Agents service needs to know the upload’s length before it takes it (411 Length Required), and the file from its link ${host.link(path)} does not say its length`,
			);
			expect(description(result.error)).toMatch(
				/^No Run was made\. .*announces the file’s length.*filesystem mode/,
			);
		} finally {
			front.closeAllConnections();
			await new Promise((resolve) => front.close(resolve));
		}
	});
});
