'use strict';
/**
 * What streaming a file costs a Node process by the size of its live heap and by the chunk
 * size, outside n8n: the Create Run upload path in miniature (a FileHandle read stream, as
 * n8n's binary store opens it → an async generator, as the multipart body → Readable.from, as
 * axios sends a Blob → a loopback socket into a sink in another process). Each case runs in a
 * fresh process; CPU is that process's user + system time. Used by bench/RESULTS-n8n.md.
 *
 *   <node> bench/stream-gc.cjs <file> [--heap-mib=10,300] [--chunk-kib=256,1024] [--passes=8] [--reps=2]
 *
 * (n8n's Node: ~/.cache/n8n-nodes-extraction-agents/node-24.21.0/node_modules/node/bin/node)
 */
const { fork } = require('node:child_process');
const fsp = require('node:fs/promises');
const net = require('node:net');
const { PerformanceObserver } = require('node:perf_hooks');
const { Readable } = require('node:stream');

const [mode] = process.argv.slice(2);

if (mode === 'sink') {
	const server = net.createServer((socket) => {
		socket.on('data', () => {});
		socket.on('end', () => socket.end());
	});
	server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else if (mode === 'case') {
	const [, file, port, heapMiB, chunkKiB, passes] = process.argv
		.slice(2)
		.map((a, i) => (i === 1 ? a : Number(a)));
	// A live heap of small objects, as a server's (n8n's is several hundred MiB).
	globalThis.live = Array.from({ length: heapMiB * 16 * 1024 }, (_, i) => ({ i, s: `x${i}` }));
	const heapUsedMiB = process.memoryUsage().heapUsed / 1024 / 1024;
	const gcs = { count: 0, ms: 0 };
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) {
			gcs.count++;
			gcs.ms += entry.duration;
		}
	}).observe({ entryTypes: ['gc'] });
	(async () => {
		const cpu = process.cpuUsage();
		const started = performance.now();
		let bytes = 0;
		for (let pass = 0; pass < passes; pass++) {
			const handle = await fsp.open(file, 'r');
			const stream = handle.createReadStream({ highWaterMark: chunkKiB * 1024 });
			async function* body() {
				for await (const chunk of stream) {
					bytes += chunk.length;
					yield chunk;
				}
			}
			await new Promise((resolve, reject) => {
				const socket = net.connect(port, '127.0.0.1', () =>
					Readable.from(body()).pipe(socket).on('finish', resolve).on('error', reject),
				);
			});
		}
		const used = process.cpuUsage(cpu);
		process.send({
			heapUsedMiB,
			chunkKiB,
			bytes,
			ms: performance.now() - started,
			cpuS: (used.user + used.system) / 1e6,
			gcCount: gcs.count,
			gcMs: gcs.ms,
		});
	})();
} else {
	const file = mode;
	const arg = (name, fallback) =>
		(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
			.split(',')
			.map(Number);
	const heaps = arg('heap-mib', '10,300');
	const chunks = arg('chunk-kib', '256,1024');
	const [passes] = arg('passes', '8');
	const [reps] = arg('reps', '2');
	const once = (child) => new Promise((resolve) => child.once('message', resolve));
	(async () => {
		const sink = fork(__filename, ['sink']);
		const port = await once(sink);
		console.log(`Node ${process.version}, ${file} × ${passes}`);
		console.log('| Live heap (heapUsed) | Chunk | MB/s | CPU s | GCs | GC pauses ms |');
		console.log('| --- | --- | --- | --- | --- | --- |');
		for (let rep = 0; rep < reps; rep++)
			for (const heapMiB of heaps)
				for (const chunkKiB of chunks) {
					const child = fork(__filename, ['case', file, port, heapMiB, chunkKiB, passes]);
					const r = await once(child);
					child.kill();
					console.log(
						`| ${r.heapUsedMiB.toFixed(0)} MiB | ${r.chunkKiB} KiB | ${(r.bytes / 1e6 / (r.ms / 1000)).toFixed(0)} | ${r.cpuS.toFixed(2)} | ${r.gcCount} | ${r.gcMs.toFixed(0)} |`,
					);
				}
		sink.kill();
	})();
}
