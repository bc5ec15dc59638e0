/**
 * Files → Links against hosts that misbehave (dev/links/host.ts): the API key never leaves the
 * service, each link is read once (its later answers, which would differ, are never asked
 * for, even when the upload is resent), a stalled or silent link is bounded and blamed by
 * name. More hazards, each read once, in run-create-links-read-once.test.ts.
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
afterEach(() => {
	ctx.emulator.knobs.redirect = null;
	ctx.emulator.clearFaults();
});

const description = (error: unknown) => (error as { description?: string }).description ?? '';

async function createFromLinks(fileLinks: unknown, options: { requestTimeout?: number } = {}) {
	const seq = ctx.emulator.lastSeq;
	host.requests.length = 0;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: createRunParameters({
			binarySource: 'links',
			// The links' files as one Run, one upload (1.5 makes one Run per file by default).
			filesPerRun: 'item',
			fileLinks: fileLinks as string,
			...(options.requestTimeout ? { options: { requestTimeout: options.requestTimeout } } : {}),
		}),
		inputItems: [{ json: { n: 1 } }],
	});
	const requests = ctx.emulator.requestsSince(seq);
	const uploads = requests.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	return { result, uploads, requests };
}

const apiRoot = () => `${ctx.emulator.url}/api/v1/client`;

describe('Files → Links: the API key stays with the service', () => {
	it('refuses a link into the service’s API before sending anything, naming what to use instead', async () => {
		const { result, requests } = await createFromLinks(`${apiRoot()}/api-keys?page_size=50`);
		expect(requests).toEqual([]);
		expect(result.error?.message).toMatch(/is an address of the Extraction Agents API itself/);
		expect(description(result.error)).toContain('Run → Get');
		expect(description(result.error)).toContain('Download Templated Output');
	});

	it('sends no Authorization to another origin that a link on the API root redirects to', async () => {
		ctx.emulator.knobs.redirect = {
			status: 302,
			location: host.link('/file'),
			pathContains: '/files/',
		};
		const { result } = await createFromLinks(`${apiRoot()}/files/report.pdf`);
		expect(host.requests.map((request) => request.headers.authorization)).toEqual(
			host.requests.map(() => undefined),
		);
		expect(result.error?.message).toMatch(/is an address of the Extraction Agents API itself/);
	});

	it('refuses a redirect into the service’s API, and sends the key on no hop', async () => {
		const into = `${apiRoot()}/api-keys?page_size=50`;
		const { result, requests } = await createFromLinks(
			host.link(`/redirect/2/doc.pdf?to=${encodeURIComponent(into)}`),
		);
		expect(requests).toEqual([]);
		expect(host.requests).toHaveLength(3);
		expect(host.requests.every((request) => request.headers.authorization === undefined)).toBe(
			true,
		);
		expect(result.error?.message).toMatch(
			/redirects to .*api-keys.*the Extraction Agents API itself/,
		);
	});

	it('asks every link for its file uncompressed (Accept-Encoding: identity), without the key', async () => {
		const { result } = await createFromLinks(host.link('/file/a.pdf'));
		expect(result.error).toBeUndefined();
		expect(
			host.requests.map((request) => [
				request.headers['accept-encoding'],
				request.headers.authorization,
			]),
		).toEqual([['identity', undefined]]);
	});
});

describe('Files → Links: what is sent is what the link gave', () => {
	it('reads a link that announces its length once, and uploads that one answer (a single-use link works)', async () => {
		const { result, uploads } = await createFromLinks(host.link('/once/token-81.pdf'));
		expect(result.error).toBeUndefined();
		expect(host.readsOf('/once/token-81.pdf')).toBe(1);
		expect(uploads[0].upload?.files.map((file) => file.sha256)).toEqual([
			sha256(host.bytesOf('/once/token-81.pdf')),
		]);
	});

	it('uploads the first answer of a link whose later answers would be longer, reading it once', async () => {
		const { result, uploads } = await createFromLinks(host.link('/grows/x.pdf'));
		expect(result.error).toBeUndefined();
		expect(host.readsOf('/grows/x.pdf')).toBe(1);
		expect(uploads.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
			[sha256(host.bytesOf('/grows/x.pdf'))],
		]);
	});

	it('sends the same bytes again when the upload is resent after a 429, without reading the link again', async () => {
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '429', retryAfter: '1', times: 1 },
		]);
		const { result, uploads } = await createFromLinks(host.link('/longer/z.pdf'));
		expect(result.error).toBeUndefined();
		expect(host.readsOf('/longer/z.pdf')).toBe(1);
		expect(uploads.map((entry) => entry.status)).toEqual([429, 200]);
		expect(uploads[1].upload?.files.map((file) => file.sha256)).toEqual([
			sha256(host.bytesOf('/longer/z.pdf')),
		]);
	});
});

describe('Files → Links: slow, silent and broken links are blamed by name', () => {
	it('fails a link that stops sending halfway, naming it', async () => {
		const { result } = await createFromLinks(host.link('/stall/half.pdf'), { requestTimeout: 2 });
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/stall\/half\.pdf stalled: nothing came for 2 s after 50 of its 100 bytes$/,
		);
		expect(description(result.error)).toContain('No Run was made');
	});

	it('fails a link that never answers within Request Timeout, naming it', async () => {
		const { result, requests } = await createFromLinks(host.link('/silent/never.pdf'), {
			requestTimeout: 2,
		});
		expect(requests).toEqual([]);
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:\d+\/silent\/never\.pdf did not answer within 2 s$/,
		);
	});

	it('says the link’s host refused the connection, not the service', async () => {
		const closed = host.url.replace(/:\d+$/, ':9');
		const { result } = await createFromLinks(`${closed}/doc.pdf`);
		expect(result.error?.message).toMatch(
			/^The link http:\/\/127\.0\.0\.1:9\/doc\.pdf could not be reached: its host refused the connection/,
		);
	});

	it('says a redirect to file:// is not a web address (not a redirect loop)', async () => {
		const { result } = await createFromLinks(
			host.link(`/redirect/0/a.pdf?to=${encodeURIComponent('file:///etc/passwd')}`),
		);
		expect(result.error?.message).toMatch(
			/redirects to file:\/\/\/etc\/passwd, which is not a web address/,
		);
	});
});

describe('Files → Links: names and lists', () => {
	it('keeps only the file name of a filename*= that holds path parts', async () => {
		const disposition = encodeURIComponent(`attachment; filename*=UTF-8''..%2F..%2Fx.pdf`);
		const { result, uploads } = await createFromLinks(host.link(`/disposition/${disposition}/d`));
		expect(result.error).toBeUndefined();
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual(['x.pdf']);
	});

	it('takes each entry of an expression’s list whole, commas included', async () => {
		const link = host.link('/file/a,b.pdf');
		const { result, uploads } = await createFromLinks(`={{ ["${link}"] }}`);
		expect(result.error).toBeUndefined();
		expect(uploads[0].upload?.files.map((file) => file.sha256)).toEqual([
			sha256(host.bytesOf('/file/a,b.pdf')),
		]);
	});

	it('splits typed links on new lines and on commas before a web address, not on a comma inside one', async () => {
		const { result, uploads } = await createFromLinks(
			`${host.link('/file/a,b.pdf')}, ${host.link('/file/c.pdf')}\n${host.link('/file/d.pdf')}`,
		);
		expect(result.error).toBeUndefined();
		expect(uploads[0].upload?.files.map((file) => file.sha256)).toEqual(
			['/file/a,b.pdf', '/file/c.pdf', '/file/d.pdf'].map((path) => sha256(host.bytesOf(path))),
		);
	});
});
