/**
 * Files → Links in memory: ten items, each with a 25 MB link (Items in Parallel at its default,
 * 10), in each of n8n's stores the engine offers: memory (n8n 1.x's default), the database
 * store (n8n 2.x in queue mode) and filesystem. The execution runs in a child process
 * (dev/links/memory.ts) so that its RSS is the engine's alone; the file host and the emulator
 * stay here. Each link is read once and its bytes reach the service whole (SHA-256), and the
 * child's RSS grows by far less than the files it sent: 0.4.0 read each link whole into the
 * memory and database stores (about 720 and 340 MiB of growth here for 250 MB of links).
 * Links that announce no length (chunked, or gzip-encoded on the way) are sent straight on in
 * those stores too, the upload going chunked: 0.5.0 still read them whole into the store.
 */
import { startEmulator, type Emulator } from '../../dev/emulator';
import {
	linksInChild,
	startBigFileHost,
	type BigFileHost,
	type BigFileSending,
} from '../../dev/links/memory';
import type { BinaryMode } from '../../dev/harness';

const MIB = 1024 * 1024;
const ITEMS = 10;
const BYTES = 25_000_000;
/** Generous: streamed, the growth measured was about 40 MiB in each store. */
const BOUND_MIB = 150;

let emulator: Emulator;
let host: BigFileHost;
beforeAll(async () => {
	emulator = await startEmulator({ logErrors: false, seed: 42, keepUploadBytesUnder: 0 });
	host = await startBigFileHost();
});
afterAll(async () => {
	host.stop();
	await emulator.stop();
});

const CASES: Array<[BinaryMode, BigFileSending]> = [
	['default', 'announced'],
	['database', 'announced'],
	['filesystem', 'announced'],
	['default', 'chunked'],
	['database', 'chunked'],
	['default', 'gzip'],
	['database', 'gzip'],
];

describe('Files → Links: memory stays bounded in every store n8n offers', () => {
	it.each(CASES)(
		'ten items of 25 MB links, in parallel, in the %s store, sent %s: each link read once, its bytes uploaded whole, RSS growth under 150 MiB',
		async (binaryMode, sending) => {
			const names = Array.from(
				{ length: ITEMS },
				(_, i) => `${binaryMode}-${sending}-scan-${i}.pdf`,
			);
			const seq = emulator.lastSeq;
			const result = await linksInChild({
				binaryMode,
				apiUrl: emulator.url,
				apiKey: emulator.keys.alice,
				links: names.map((name) => host.link(name, BYTES, sending)),
				warmUpLink: host.link(`${binaryMode}-${sending}-warm-up.pdf`, 1000, sending),
			});
			expect(result.errors).toEqual([]);
			const uploaded = emulator
				.requestsSince(seq)
				.filter((entry) => entry.operation === 'runs.create' && entry.status < 300)
				.flatMap((entry) => entry.upload?.files ?? [])
				.filter((file) => file.filename !== `${binaryMode}-${sending}-warm-up.pdf`)
				.map((file) => [file.filename, file.size, file.sha256])
				.sort();
			expect(uploaded).toEqual(names.map((name) => [name, BYTES, host.sha256(name, BYTES)]).sort());
			expect(names.map((name) => host.reads.get(name))).toEqual(names.map(() => 1));
			const growthMiB = result.growth / MIB;
			console.log(
				`${binaryMode} store, ${sending}: ${ITEMS} × ${BYTES / 1e6} MB links in ${(result.ms / 1000).toFixed(1)} s, RSS growth ${growthMiB.toFixed(0)} MiB`,
			);
			expect(growthMiB).toBeLessThan(BOUND_MIB);
		},
		240_000,
	);
});
