/**
 * Files → Links where n8n's store would hold a file in memory (memory mode, the database
 * store): a link that announces its length is sent straight on into the upload as it
 * downloads (linkStore.ts), read once, and nothing of it is kept in n8n's store. What that
 * way cannot do is said by name: a resend after a 429 (the link was read already) and a host
 * that sends more than it announced (it compressed the file on the way). The stall and
 * ended-early rules in these stores are in run-create-links-read-once.test.ts.
 */
import { createHash } from 'node:crypto';
import { databaseStore, executeNode, useHarness } from '../../dev/harness';
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
const MEMORY_STORES = ['default', 'database'] as const;

async function createFromLinks(fileLinks: string, binaryMode: 'default' | 'database') {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		// One Run of all the item's links: the test reads the upload's parts side by side.
		parameters: createRunParameters({
			binarySource: 'links',
			fileLinks,
			filesPerRun: 'item',
			waitForCompletion: false,
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

describe('Files → Links in a store that keeps files in memory: sent straight on, read once', () => {
	it.each(MEMORY_STORES)(
		'uploads links that announce their length as their hosts gave them, each read once, none kept in the store (%s store)',
		async (binaryMode) => {
			const paths = [`/file/${binaryMode}-a.pdf`, `/idle/5000/${binaryMode}-b.pdf`];
			const rowsBefore = databaseStore.rows.size;
			const { result, created } = await createFromLinks(
				paths.map(host.link).join('\n'),
				binaryMode,
			);
			expect(result.error).toBeUndefined();
			expect(paths.map((path) => host.readsOf(path))).toEqual([1, 1]);
			expect(created.map((entry) => entry.upload?.files.map((file) => file.sha256))).toEqual([
				paths.map((path) => sha256(host.servedOf(path)[0])),
			]);
			// The database store got the one empty file that asks its mode, not the links' files.
			const added = [...databaseStore.rows.values()].slice(rowsBefore);
			expect(added.map((row) => row.data.length)).toEqual(binaryMode === 'database' ? [0] : []);
		},
	);

	it.each(MEMORY_STORES)(
		'a 429 after the upload began: the link is not read again, the item fails by name and no Run is made (%s store)',
		async (binaryMode) => {
			const path = `/file/${binaryMode}-busy.pdf`;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: '/runs' }, kind: '429', retryAfter: '1' },
			]);
			const { result, uploads, created } = await createFromLinks(host.link(path), binaryMode);
			expect(created).toEqual([]);
			expect(uploads.map((entry) => entry.status)).toEqual([429]);
			expect(host.readsOf(path)).toBe(1);
			expect(result.error?.message).toBe(
				`The file at ${host.link(path)} could not be sent again: a link is downloaded only once, and its upload had to start over (the service asked to wait, or the connection broke)`,
			);
			expect(description(result.error)).toMatch(/^No Run was made from this link\. /);
		},
	);

	it.each(MEMORY_STORES)(
		'a host that compresses the file although asked not to: more than it announced, said by name, no Run (%s store)',
		async (binaryMode) => {
			const path = `/gzip/${binaryMode}-report.pdf`;
			const { result, created } = await createFromLinks(host.link(path), binaryMode);
			expect(created).toEqual([]);
			expect(host.readsOf(path)).toBe(1);
			expect(result.error?.message).toMatch(
				/^The link http:\/\/127\.0\.0\.1:\d+\/gzip\/\w+-report\.pdf gave more than the \d+ bytes it announced$/,
			);
			expect(description(result.error)).toMatch(
				/^No Run was made from this link\. .*filesystem mode/,
			);
		},
	);

	it.each(MEMORY_STORES)(
		'a host that compresses a file that does not compress: less than it announced, said as compression, not as a closed connection, no Run (%s store)',
		async (binaryMode) => {
			const path = `/gzip-larger/${binaryMode}-scan.pdf`;
			const { result, created } = await createFromLinks(host.link(path), binaryMode);
			expect(created).toEqual([]);
			expect(host.readsOf(path)).toBe(1);
			expect(result.error?.message).toMatch(
				/^The link http:\/\/127\.0\.0\.1:\d+\/gzip-larger\/\w+-scan\.pdf gave [\d,]+ bytes, fewer than the [\d,]+ it announced$/,
			);
			expect(description(result.error)).toMatch(
				/^No Run was made from this link\. .*compressed.*filesystem mode/,
			);
		},
	);
});
