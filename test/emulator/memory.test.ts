/**
 * Memory: a 200 MB multipart upload, generated as a stream, to an emulator in a CHILD process must
 * not grow that process's RSS by more than 150 MB (the emulator hashes parts as they stream and
 * never buffers file bytes). The child samples its own RSS every 10 ms during the upload.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const MB = 1024 * 1024;
const FILE_SIZE = 200 * MB;

function tsxRegister(): string {
	try {
		return require.resolve('tsx/cjs');
	} catch {
		return path.join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cjs', 'index.cjs');
	}
}

function nextMessage<T extends { type: string }>(child: ChildProcess, type: string): Promise<T> {
	return new Promise((resolve, reject) => {
		const onMessage = (msg: T): void => {
			if (msg?.type !== type) return;
			child.off('message', onMessage);
			child.off('exit', onExit);
			resolve(msg);
		};
		const onExit = (code: number | null): void =>
			reject(new Error(`emulator child exited (${code}) while waiting for ${type}`));
		child.on('message', onMessage);
		child.once('exit', onExit);
	});
}

/** Streams a multipart body with one FILE_SIZE file; resolves with the response and the file's sha256. */
function streamUpload(
	apiUrl: string,
	key: string,
): Promise<{ status: number; body: any; sha256: string; contentLength: number }> {
	const boundary = `----emulator-memory-${randomBytes(8).toString('hex')}`;
	const head = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big-scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
	);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const chunks = Array.from({ length: 4 }, (_, i) => Buffer.alloc(MB, 0x41 + i));
	const hash = createHash('sha256');
	const contentLength = head.length + FILE_SIZE + tail.length;
	async function* body(): AsyncGenerator<Buffer> {
		yield head;
		for (let i = 0; i < FILE_SIZE / MB; i++) {
			const chunk = chunks[i % chunks.length];
			hash.update(chunk);
			yield chunk;
		}
		yield tail;
	}
	return new Promise((resolve, reject) => {
		const req = http.request(`${apiUrl}/agents/1/runs`, {
			method: 'POST',
			agent: false,
			headers: {
				authorization: `Bearer ${key}`,
				'content-type': `multipart/form-data; boundary=${boundary}`,
				'content-length': String(contentLength),
			},
		});
		req.on('response', (res) => {
			const parts: Buffer[] = [];
			res.on('data', (c: Buffer) => parts.push(c));
			res.on('end', () =>
				resolve({
					status: res.statusCode ?? 0,
					body: JSON.parse(Buffer.concat(parts).toString()),
					sha256: hash.digest('hex'),
					contentLength,
				}),
			);
		});
		req.on('error', reject);
		pipeline(Readable.from(body()), req).catch(reject);
	});
}

test('a 200 MB streamed upload keeps the emulator process under 150 MB of RSS growth', async () => {
	const child = spawn(
		process.execPath,
		['--require', tsxRegister(), path.join(__dirname, 'memory-child.ts')],
		{
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		},
	);
	try {
		const ready = await nextMessage<{ type: string; apiUrl: string; key: string }>(child, 'ready');
		// Warm up the upload path (busboy, hashing, handlers) so the baseline includes loaded code.
		const warm = new FormData();
		warm.append('files', new Blob(['warm-up']), 'warm.pdf');
		expect(
			(
				await fetch(`${ready.apiUrl}/agents/1/runs`, {
					method: 'POST',
					body: warm,
					headers: { authorization: `Bearer ${ready.key}` },
				})
			).status,
		).toBe(200);
		child.send({ type: 'reset-peak' });
		const baseline = (await nextMessage<{ type: string; rss: number }>(child, 'peak-reset')).rss;

		const started = Date.now();
		const result = await streamUpload(ready.apiUrl, ready.key);
		const seconds = (Date.now() - started) / 1000;
		expect(result.status).toBe(200);
		expect(result.body).toMatchObject({ status: 'running', data: {}, files: ['big-scan.pdf'] });

		child.send({ type: 'report' });
		const report = await nextMessage<{ type: string; peak: number; upload: any; status: number }>(
			child,
			'report',
		);
		const growthMb = (report.peak - baseline) / MB;
		// Visible in the test output: the numbers behind the assertion.
		console.log(
			`200 MB upload in ${seconds.toFixed(1)} s; emulator RSS baseline ${(baseline / MB).toFixed(0)} MB, peak growth ${growthMb.toFixed(1)} MB`,
		);
		expect(growthMb).toBeLessThan(150);
		expect(report.upload.files).toHaveLength(1);
		expect(report.upload.files[0]).toMatchObject({
			field: 'files',
			filename: 'big-scan.pdf',
			size: FILE_SIZE,
			sha256: result.sha256,
			kept: false,
		});
		expect(report.upload).toMatchObject({ contentLength: result.contentLength, chunked: false });
	} finally {
		if (child.connected) child.send({ type: 'stop' });
		await new Promise((r) => {
			if (child.exitCode !== null) r(null);
			else child.once('exit', r);
			setTimeout(() => child.kill(), 5000).unref();
		});
	}
}, 60_000);
