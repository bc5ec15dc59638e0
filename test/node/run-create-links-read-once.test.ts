/**
 * Files → Links, each link read exactly once whatever its host does: a file host on loopback
 * (dev/links/host.ts) gives links whose bytes differ on every read, one-time links without a
 * length, gzip-encoded files, connections it closes when left unread, slow links within the
 * stall rule, stalled links, links that end early; and the service's API under another name
 * of its host. What the emulator received (bytes by SHA-256) is compared with what the host
 * served, and every failure is read as the user sees it: the link (password masked), what
 * its host did, and what to do.
 */
import { createHash } from 'node:crypto';
import { executeNode, useHarness } from '../../dev/harness';
import { startLinkHost, type LinkHost } from '../../dev/links/host';
import { createRunParameters, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

let host: LinkHost;
beforeAll(async () => {
	host = await startLinkHost();
});
afterAll(async () => {
	await host.stop();
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const description = (error: unknown) => (error as { description?: string }).description ?? '';

async function createFromLinks(
	fileLinks: string,
	options: { requestTimeout?: number; binaryMode?: 'filesystem' | 'default' } = {},
) {
	const seq = ctx.emulator.lastSeq;
	host.requests.length = 0;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: createRunParameters({
			binarySource: 'links',
			// The links' files as one Run, one upload (1.5 makes one Run per file by default).
			filesPerRun: 'item',
			fileLinks,
			waitForCompletion: false,
			...(options.requestTimeout ? { options: { requestTimeout: options.requestTimeout } } : {}),
		}),
		inputItems: [{ json: { n: 1 } }],
		binaryMode: options.binaryMode,
	});
	const requests = ctx.emulator.requestsSince(seq);
	const uploads = requests.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	const created = uploads.filter((entry) => entry.status >= 200 && entry.status < 300);
	return { result, uploads, created, requests };
}

/**
 * No Run from a link that failed. In filesystem mode the link is read whole before the upload,
 * so nothing is sent; in memory mode it is sent on as it downloads (linkStore.ts), so the
 * upload has begun and is stopped before the service has the whole body.
 */
function expectNoRun(
	binaryMode: 'filesystem' | 'default',
	uploads: Array<{ status: number }>,
	created: unknown[],
): void {
	expect(created).toEqual([]);
	if (binaryMode === 'filesystem') expect(uploads).toEqual([]);
	else expect(uploads.map((entry) => entry.status >= 200 && entry.status < 300)).toEqual([false]);
}

const uploadedHashes = (entry: { upload?: { files: Array<{ sha256: string }> } }) =>
	entry.upload?.files.map((file) => file.sha256);

describe('Files → Links: each link is read once, and its one answer is what is uploaded', () => {
	it.each(['filesystem', 'default'] as const)(
		'uploads a link whose bytes differ on every read (an export stamped with its time), read once (%s binary mode)',
		async (binaryMode) => {
			const path = `/stamped/export-${binaryMode}.pdf`;
			const { result, created } = await createFromLinks(host.link(path), { binaryMode });
			expect(result.error).toBeUndefined();
			expect(host.readsOf(path)).toBe(1);
			expect(created.map(uploadedHashes)).toEqual([[sha256(host.servedOf(path)[0])]]);
		},
	);

	it('uploads a one-time link that announces no length (its second read would be 410)', async () => {
		const path = '/once-chunked/token-7.pdf';
		const { result, created } = await createFromLinks(host.link(path));
		expect(result.error).toBeUndefined();
		expect(host.readsOf(path)).toBe(1);
		expect(created.map(uploadedHashes)).toEqual([[sha256(host.bytesOf(path))]]);
	});

	it('uploads the decoded file of a gzip-encoded link (Content-Encoding: gzip), read once', async () => {
		const path = '/gzip/report.pdf';
		const { result, created } = await createFromLinks(host.link(path));
		expect(result.error).toBeUndefined();
		expect(host.readsOf(path)).toBe(1);
		const decoded = host.servedOf(path)[0];
		expect(decoded.length).toBeGreaterThan(1000);
		expect(created.map(uploadedHashes)).toEqual([[sha256(decoded)]]);
	});

	it('reads every link before uploading, so a host that closes connections left unread loses none', async () => {
		// The first link takes a while; the second's host closes its connection after 800 ms unread.
		const first = '/paced/6/400/first.pdf';
		const second = '/idle/800/second.pdf';
		const { result, created } = await createFromLinks(`${host.link(first)}\n${host.link(second)}`);
		expect(result.error).toBeUndefined();
		expect(host.idleClosed).toEqual([]);
		expect(created.map(uploadedHashes)).toEqual([
			[sha256(host.bytesOf(first)), sha256(host.servedOf(second)[0])],
		]);
	});

	it('keeps a slow link that never pauses for Request Timeout (pieces 500 ms apart, 1 s timeout)', async () => {
		const path = '/paced/8/500/slow.pdf';
		const { result, created } = await createFromLinks(host.link(path), { requestTimeout: 1 });
		expect(result.error).toBeUndefined();
		expect(created.map(uploadedHashes)).toEqual([[sha256(host.bytesOf(path))]]);
	});
});

describe('Files → Links: a link that fails is named, with what its host did and what to do', () => {
	it.each(['filesystem', 'default'] as const)(
		'a link that stops sending for Request Timeout: stalled, after how many of its bytes (%s binary mode)',
		async (binaryMode) => {
			const { result, uploads, created } = await createFromLinks(host.link('/stall/half.pdf'), {
				requestTimeout: 1,
				binaryMode,
			});
			expectNoRun(binaryMode, uploads, created);
			expect(result.error?.message).toMatch(
				/^The link http:\/\/127\.0\.0\.1:\d+\/stall\/half\.pdf stalled: nothing came for 1 s after \d+ of its \d+ bytes$/,
			);
			expect(description(result.error)).toContain('No Run was made');
			expect(description(result.error)).toContain('Request Timeout');
			expect(description(result.error)).not.toMatch(/node that produced the file/);
		},
	);

	it.each(['filesystem', 'default'] as const)(
		'a link whose host closes the connection before the announced length: ended early at N of M bytes (%s binary mode)',
		async (binaryMode) => {
			const path = '/short/cut.pdf';
			const { result, uploads, created } = await createFromLinks(host.link(path), { binaryMode });
			expectNoRun(binaryMode, uploads, created);
			const length = host.bytesOf(path).length;
			expect(result.error?.message).toBe(
				`The link ${host.link(path)} ended early, at ${length >> 1} of ${length} bytes`,
			);
			expect(description(result.error)).toContain('No Run was made');
			expect(description(result.error)).not.toMatch(/node that produced the file|aborted/);
		},
	);

	it('a redirect chain gets one Request Timeout to reach its file, not one per hop', async () => {
		// Three hops of 700 ms each: 2.1 s against a Request Timeout of 1 s.
		const { result, uploads } = await createFromLinks(host.link('/slow-redirect/700/2/chain.pdf'), {
			requestTimeout: 1,
		});
		expect(uploads).toEqual([]);
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/slow-redirect\/700\/2\/chain\.pdf did not give its file within 1 s/,
		);
		expect(description(result.error)).toContain('Request Timeout');
	});

	it.each(['s3cr3t-pw', 's3cr@t-pw'])(
		'a link with a password is shown with the password masked, like the Base URL (%s)',
		async (password) => {
			const link = host.link('/missing/report.pdf').replace('http://', `http://anna:${password}@`);
			const { result } = await createFromLinks(link);
			expect(result.error?.message).toMatch(
				/^The link http:\/\/\*\*\*@127\.0\.0\.1:\d+\/missing\/report\.pdf answered 404 \(Not Found\) instead of a file$/,
			);
			expect(description(result.error)).not.toContain('t-pw');
		},
	);

	it('a file name with control characters is sent readable in the part header (a bell and an escape as _, a line break as browsers send it), and the Run is made', async () => {
		const disposition = encodeURIComponent(
			`attachment; filename*=UTF-8''Rechnung%07%1B%0D%0AM%C3%A4rz%09.pdf`,
		);
		const path = `/disposition/${disposition}/d`;
		const { result, created } = await createFromLinks(host.link(path));
		expect(result.error).toBeUndefined();
		expect(created.map((entry) => entry.upload?.files.map((file) => file.filename))).toEqual([
			['Rechnung__%0D%0AMärz\t.pdf'],
		]);
	});
});

describe('Files → Links: the service’s API is refused under any name of its host', () => {
	const names = ['localhost', 'LOCALHOST.', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]', '127.0.0.2'];
	it.each(names)('refuses the API root as %s, sending nothing', async (name) => {
		const link = `${ctx.emulator.url.replace('127.0.0.1', name)}/api/v1/client/api-keys`;
		const { result, requests } = await createFromLinks(link);
		expect(requests).toEqual([]);
		expect(result.error?.message).toMatch(/is an address of the Extraction Agents API itself$/);
	});

	it('refuses a redirect to the API root under another name of its host', async () => {
		const into = `${ctx.emulator.url.replace('127.0.0.1', 'localhost')}/api/v1/client/agents`;
		const { result, requests } = await createFromLinks(
			host.link(`/redirect/1/doc.pdf?to=${encodeURIComponent(into)}`),
		);
		expect(requests).toEqual([]);
		expect(result.error?.message).toMatch(
			/redirects to .* an address of the Extraction Agents API/,
		);
	});
});
