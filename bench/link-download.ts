/**
 * A 200 MB link through Run → Create (Files: Links), in n8n's engine (harness, filesystem
 * binary mode), against the emulator and a file host on loopback: the time from the node's
 * start to the Run, and how far the process's RSS grew above where it started (sampled every
 * 50 ms). The emulator and the file host run in this process too, the same for any version
 * of the node, so the figure compares versions rather than stating the node's own memory.
 *
 *   npx tsx bench/link-download.ts [MB]      # default 200
 *
 * To compare with another version of the node, run the same file from a checkout of it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator } from '../dev/emulator';
import { executeNode, shutdownHarness } from '../dev/harness';

const MIB = 1024 * 1024;

async function startBigFileHost(bytes: number): Promise<{ url: string; stop: () => void }> {
	const piece = Buffer.alloc(MIB, 0x25);
	Buffer.from('%PDF-1.4\n').copy(piece);
	const server = http.createServer((req, res) => {
		const size = req.url === '/warm-up.pdf' ? 1000 : bytes;
		res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': size });
		let sent = 0;
		const pump = () => {
			while (sent < size) {
				const part = piece.subarray(0, Math.min(piece.length, size - sent));
				sent += part.length;
				if (!res.write(part)) return void res.once('drain', pump);
			}
			res.end();
		};
		res.on('close', () => (sent = size));
		pump();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/scan-200.pdf`,
		stop: () => {
			server.closeAllConnections();
			server.close();
		},
	};
}

async function main(): Promise<void> {
	const megabytes = Number(process.argv[2] ?? 200);
	const emulator = await startEmulator({ logErrors: false, seed: 42, keepUploadBytesUnder: 0 });
	const host = await startBigFileHost(megabytes * 1_000_000);
	const parameters = {
		resource: 'run',
		operation: 'create',
		agent: { __rl: true, mode: 'id', value: '1' },
		binarySource: 'links',
		fileLinks: host.url,
		waitForCompletion: false,
	};
	const credentials = { apiKey: emulator.keys.alice, baseUrl: emulator.url };
	// Warm-up: modules, DI container and agents loaded, as in a running n8n.
	await executeNode({
		nodeType: 'extractionAgents',
		parameters: { ...parameters, fileLinks: host.url.replace('scan-200.pdf', 'warm-up.pdf') },
		credentials,
		binaryMode: 'filesystem',
	});
	const before = process.memoryUsage().rss;
	let peak = before;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
	const started = performance.now();
	const result = await executeNode({
		nodeType: 'extractionAgents',
		parameters,
		credentials,
		binaryMode: 'filesystem',
		timeoutMs: 10 * 60_000,
	});
	const ms = performance.now() - started;
	clearInterval(sampler);
	const upload = emulator.requestLog.at(-1)?.upload?.files[0];
	console.log(
		JSON.stringify({
			megabytes,
			ok: !result.error,
			error: result.error?.message,
			uploadedBytes: upload?.size,
			seconds: Number((ms / 1000).toFixed(1)),
			rssGrowthMiB: Math.round((peak - before) / MIB),
		}),
	);
	host.stop();
	await emulator.stop();
	await shutdownHarness();
	process.exit(0);
}

void main();
