import { createHash } from 'crypto';
import { startEmulator, type Emulator, type EmulatorOptions } from '../emulator';

export const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** An emulator for one test file, started before its tests and stopped after them. */
export function useEmulator(options: Partial<EmulatorOptions> = {}): {
	readonly emulator: Emulator;
	readonly credentials: { apiKey: string; baseUrl: string };
} {
	let emulator: Emulator | undefined;
	beforeAll(async () => {
		emulator = await startEmulator({ logErrors: false, ...options });
	});
	afterAll(async () => {
		await emulator?.stop();
	});
	return {
		get emulator() {
			if (!emulator) throw new Error('emulator not started');
			return emulator;
		},
		get credentials() {
			if (!emulator) throw new Error('emulator not started');
			return { apiKey: emulator.keys.alice, baseUrl: emulator.url };
		},
	};
}

export const agentById = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });
export const runById = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });

/** Requests the emulator saw since `seq`, as "METHOD path" lines. */
export function requestLines(emulator: Emulator, seq: number): string[] {
	return emulator.requestsSince(seq).map((entry) => `${entry.method} ${entry.path}`);
}
