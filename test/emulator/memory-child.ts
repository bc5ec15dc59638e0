/**
 * Child process for memory.test.ts: runs an emulator and reports its own RSS over IPC, so the
 * upload's memory cost is measured in the emulator's process alone.
 *
 * Messages in:  {type: 'reset-peak'} | {type: 'report'} | {type: 'stop'}
 * Messages out: {type: 'ready', apiUrl, key, rss} | {type: 'peak-reset', rss} | {type: 'report', peak, rss, upload, status}
 */
import { startEmulator } from '../../dev/emulator/index';

async function main(): Promise<void> {
	const send = (msg: unknown): void => {
		process.send?.(msg);
	};
	const emu = await startEmulator({ seed: 1 });
	let peak = process.memoryUsage().rss;
	const sample = (): void => {
		const rss = process.memoryUsage().rss;
		if (rss > peak) peak = rss;
	};
	const timer = setInterval(sample, 10);

	process.on('message', (msg: { type?: string }) => {
		if (msg?.type === 'reset-peak') {
			peak = process.memoryUsage().rss;
			send({ type: 'peak-reset', rss: peak });
		} else if (msg?.type === 'report') {
			sample();
			const entry = [...emu.requestLog].reverse().find((e) => e.operation === 'runs.create');
			const upload = entry?.upload && {
				...entry.upload,
				files: entry.upload.files.map(({ bytes, ...f }) => ({ ...f, kept: bytes !== undefined })),
			};
			send({ type: 'report', peak, rss: process.memoryUsage().rss, upload, status: entry?.status });
		} else if (msg?.type === 'stop') {
			clearInterval(timer);
			void emu.stop().then(() => process.exit(0));
		}
	});
	process.on('disconnect', () => process.exit(0));
	send({ type: 'ready', apiUrl: emu.apiUrl, key: emu.keys.alice, rss: process.memoryUsage().rss });
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
