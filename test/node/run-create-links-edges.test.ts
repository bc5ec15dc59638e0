/**
 * Files → Links: what the message says matches what happened, at the edges of HTTP a link's
 * host can reach (dev/links/host.ts): a file encoded twice or in an encoding n8n's client does
 * not unpack is refused by name, not uploaded still encoded; an HTML page without a
 * Content-Type is recognised by its first bytes; a header too long for n8n's client is named
 * as such; Request Timeout is one clock from the request to the file's first byte.
 */
import { executeNode, useHarness } from '../../dev/harness';
import { startLinkHost, type LinkHost } from '../../dev/links/host';
import { createRunParameters, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

let host: LinkHost;
beforeAll(async () => {
	host = await startLinkHost();
});
afterAll(async () => {
	await host.stop();
});

const description = (error: unknown) => (error as { description?: string }).description ?? '';

async function createFromLinks(
	fileLinks: string,
	options: { requestTimeout?: number; binaryMode?: 'filesystem' | 'default' | 'database' } = {},
) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: createRunParameters({
			binarySource: 'links',
			fileLinks,
			waitForCompletion: false,
			...(options.requestTimeout ? { options: { requestTimeout: options.requestTimeout } } : {}),
		}),
		inputItems: [{ json: { n: 1 } }],
		binaryMode: options.binaryMode,
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	return { result, uploads };
}

describe('Files → Links: encodings n8n does not unpack are refused by name', () => {
	it('refuses a file sent gzip-encoded twice (Content-Encoding: gzip, gzip), naming the encoding; nothing is uploaded', async () => {
		const { result, uploads } = await createFromLinks(host.link('/gzip-twice/report.pdf'));
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/gzip-twice\/report\.pdf sent its file encoded as "gzip, gzip", which n8n cannot unpack$/,
		);
		expect(uploads.map((entry) => entry.status)).toEqual([]);
		expect(description(result.error)).toContain('No Run was made');
	});

	it('refuses a file in an encoding n8n’s client does not unpack (Content-Encoding: zstd), naming it; nothing is uploaded', async () => {
		const { result, uploads } = await createFromLinks(host.link('/encoded/zstd/report.pdf'));
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/encoded\/zstd\/report\.pdf sent its file encoded as "zstd", which n8n cannot unpack$/,
		);
		expect(uploads.map((entry) => entry.status)).toEqual([]);
		expect(description(result.error)).toContain('No Run was made');
	});

	it('uploads a file that says Content-Encoding: identity as it is', async () => {
		const path = '/encoded/identity/plain.pdf';
		const { result, uploads } = await createFromLinks(host.link(path));
		expect(result.error).toBeUndefined();
		expect(uploads.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
			[sha256(host.bytesOf(path))],
		]);
	});
});

describe('Files → Links: a web page is recognised without a Content-Type', () => {
	it('refuses an HTML page sent without a Content-Type as a web page, from its first bytes', async () => {
		const { result, uploads } = await createFromLinks(host.link('/untyped-page/invoice.pdf'));
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/untyped-page\/invoice\.pdf gives a web page, not a document$/,
		);
		expect(uploads.map((entry) => entry.status)).toEqual([]);
	});

	// Its first bytes are read to tell, then put back: every store gets the file whole.
	it.each(['filesystem', 'default', 'database'] as const)(
		'uploads a PDF sent without a Content-Type, byte for byte (%s binary mode)',
		async (binaryMode) => {
			const path = `/untyped/invoice-${binaryMode}.pdf`;
			const { result, uploads } = await createFromLinks(host.link(path), { binaryMode });
			expect(result.error).toBeUndefined();
			expect(uploads.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
				[sha256(host.bytesOf(path))],
			]);
		},
	);
});

describe('Files → Links: a header too long for n8n is named as such', () => {
	it('a Content-Disposition over 16 KB: the link answered with a header too long to read, not "could not be reached"', async () => {
		const { result, uploads } = await createFromLinks(host.link('/long-header/20000/long.pdf'));
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/long-header\/20000\/long\.pdf answered with headers too long for n8n to read \(over 16 KB\)$/,
		);
		expect(uploads.map((entry) => entry.status)).toEqual([]);
		expect(result.error?.message).not.toMatch(/could not be reached/);
		expect(description(result.error)).toContain('No Run was made');
	});
});

describe('Files → Links: Request Timeout is one clock from the request to the first byte of the file', () => {
	it('headers after 2 s and the first byte 2 s later, Request Timeout 3 s: fails, since the first byte came after 4 s', async () => {
		const { result, uploads } = await createFromLinks(host.link('/late/2000/2000/late.pdf'), {
			requestTimeout: 3,
		});
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/late\/2000\/2000\/late\.pdf sent no byte of its file within 3 s$/,
		);
		expect(uploads.map((entry) => entry.status)).toEqual([]);
		expect(description(result.error)).toContain('No Run was made');
		expect(description(result.error)).toContain('Request Timeout (3 s) to start sending its file');
	});

	it('headers after 1 s and the first byte 1 s later, Request Timeout 5 s: uploaded', async () => {
		const path = '/late/1000/1000/on-time.pdf';
		const { result, uploads } = await createFromLinks(host.link(path), { requestTimeout: 5 });
		expect(result.error).toBeUndefined();
		expect(uploads.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
			[sha256(host.bytesOf(path))],
		]);
	});
});

describe('Files → Links: a link is shown without its secrets', () => {
	it('a failing S3 presigned link is named with its parameters’ names, its expiry, and every other value masked', async () => {
		const query =
			'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE123456789%2F20261128%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261128T050000Z&X-Amz-Expires=900&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE%2B%2F%3D&X-Amz-Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7';
		const { result } = await createFromLinks(host.link(`/missing/bucket/invoice.pdf?${query}`));
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/missing\/bucket\/invoice\.pdf\?X-Amz-Algorithm=\*\*\*&X-Amz-Credential=\*\*\*&X-Amz-Date=20261128T050000Z&X-Amz-Expires=900&X-Amz-Security-Token=\*\*\*&X-Amz-Signature=\*\*\* answered 404 \(Not Found\) instead of a file$/,
		);
	});

	it('a OneDrive share link’s token in the path is masked, and a redirect’s target too', async () => {
		const share = 's!AkVBXGq7xYz2bTc9RfW3eLm0';
		const target = `ftp://files.example.com/u/${share}?e=h7Gk2q`;
		const { result } = await createFromLinks(
			host.link(`/redirect/0/go.pdf?to=${encodeURIComponent(target)}`),
		);
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/redirect\/0\/go\.pdf\?to=\*\*\* redirects to ftp:\/\/files\.example\.com\/u\/\*\*\*\?e=\*\*\*, which is not a web address$/,
		);
	});
});
