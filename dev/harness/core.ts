/**
 * Loading and process-wide state of n8n-core: the DI container, the binary data service
 * (switchable between n8n's two local modes per execution) and the shutdown of services
 * that keep the event loop alive.
 */
import { BINARY_DATA_STORAGE_PATH, HARNESS_ROOT, SCRATCH_FOLDER, USER_FOLDER } from './env';

import * as fs from 'node:fs';

import type * as N8nCore from 'n8n-core';
import type { Container as DiContainer } from '@n8n/di';

import { InMemoryDatabaseStore } from './database-store';

/**
 * n8n's binary data modes: 'filesystem' stores files on disk, 'default' keeps them in memory
 * (base64 in the item), 'database' in n8n's database (a stand-in: ./database-store.ts).
 */
export type BinaryMode = 'filesystem' | 'default' | 'database';

/** n8n-core, required only after ./env has pointed N8N_USER_FOLDER at the temp folder. */
export function core(): typeof N8nCore {
	return require('n8n-core') as typeof N8nCore;
}

export function container(): typeof DiContainer {
	return (require('@n8n/di') as { Container: typeof DiContainer }).Container;
}

let initialised: Promise<void> | undefined;
/** The rows of the 'database' mode, kept for the life of the process as n8n's table would be. */
export const databaseStore = new InMemoryDatabaseStore();
let currentMode: BinaryMode | undefined;
let modeLock: Promise<unknown> = Promise.resolve();

async function initOnce(): Promise<void> {
	for (const dir of [USER_FOLDER, BINARY_DATA_STORAGE_PATH, SCRATCH_FOLDER]) {
		fs.mkdirSync(dir, { recursive: true });
	}
	const { BinaryDataService, BinaryDataConfig, InstanceSettings } = core();
	const Container = container();
	// InstanceSettings writes <N8N_USER_FOLDER>/.n8n/config on first resolution.
	Container.get(InstanceSettings);
	const config = Container.get(BinaryDataConfig);
	config.localStoragePath = BINARY_DATA_STORAGE_PATH;
	config.mode = 'filesystem';
	await Container.get(BinaryDataService).init();
	currentMode = 'filesystem';
}

/** Idempotent start-up of the n8n-core services the harness relies on. */
export async function ensureCore(): Promise<void> {
	initialised ??= initOnce();
	await initialised;
}

/**
 * Switches n8n's binary data mode the way the server configures it at boot
 * (N8N_DEFAULT_BINARY_DATA_MODE → BinaryDataConfig.mode → BinaryDataService.init()).
 * The service holds one mode per process, so executions with different modes are
 * serialised through {@link withBinaryMode}.
 */
async function setBinaryMode(mode: BinaryMode): Promise<void> {
	await ensureCore();
	if (currentMode === mode) return;
	const { BinaryDataService, BinaryDataConfig } = core();
	const Container = container();
	const config = Container.get(BinaryDataConfig);
	config.mode = mode;
	config.localStoragePath = BINARY_DATA_STORAGE_PATH;
	// As the n8n server does at start (BaseCommand): register the database manager by its mode.
	if (mode === 'database') Container.get(BinaryDataService).setManager('database', databaseStore);
	// init() maps 'filesystem' → 'filesystem-v2' and leaves 'default' without a manager,
	// which is n8n's in-memory mode. The filesystem manager stays registered so that ids
	// stored earlier can still be read.
	await Container.get(BinaryDataService).init();
	currentMode = mode;
}

/**
 * Runs `fn` with the binary data service in `mode`. Calls in the same mode run side by
 * side (as executions do in n8n, e.g. two polls of one trigger); a call in another mode
 * waits until the running ones are done, switches, then runs.
 */
let running = 0;
let drained: Array<() => void> = [];
export async function withBinaryMode<T>(mode: BinaryMode, fn: () => Promise<T>): Promise<T> {
	for (;;) {
		await modeLock;
		if (currentMode === mode) break;
		if (running === 0) {
			const switching = setBinaryMode(mode);
			modeLock = switching.catch(() => undefined);
			await switching;
			continue;
		}
		await new Promise<void>((resolve) => drained.push(resolve));
	}
	running++;
	try {
		return await fn();
	} finally {
		running--;
		if (running === 0) {
			const waiting = drained;
			drained = [];
			waiting.forEach((resolve) => resolve());
		}
	}
}

export function binaryDataService(): N8nCore.BinaryDataService {
	return container().get(core().BinaryDataService);
}

/**
 * Stops what n8n-core leaves running (SSH client clean-up timer and its process-exit
 * listeners, scheduled tasks) so that jest can exit, and removes the temp folder.
 * Safe to call more than once; the harness can be used again afterwards.
 */
export async function shutdownHarness(options: { removeFiles?: boolean } = {}): Promise<void> {
	const Container = container();
	try {
		const { SSHClientsManager } = require('n8n-core/dist/execution-engine/ssh-clients-manager') as {
			SSHClientsManager: new (...args: never[]) => { onShutdown(): void };
		};
		if (Container.has(SSHClientsManager as never))
			(Container.get(SSHClientsManager as never) as { onShutdown(): void }).onShutdown();
	} catch {
		// not created in this process
	}
	try {
		const { ScheduledTaskManager } = core();
		if (Container.has(ScheduledTaskManager)) {
			const manager = Container.get(ScheduledTaskManager) as unknown as {
				cronsByGroupType?: Map<string, unknown>;
				deregisterGroups(groupType: string): void;
			};
			for (const groupType of [...(manager.cronsByGroupType?.keys() ?? [])]) {
				manager.deregisterGroups(groupType);
			}
		}
	} catch {
		// not created in this process
	}
	if (options.removeFiles ?? true) {
		fs.rmSync(HARNESS_ROOT, { recursive: true, force: true });
	}
	initialised = undefined;
	currentMode = undefined;
}
