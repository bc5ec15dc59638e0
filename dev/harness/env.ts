/**
 * Process-level set-up that must happen before n8n-core is first loaded.
 *
 * n8n-core's InstanceSettings reads N8N_USER_FOLDER when it is first resolved from the DI
 * container and writes `<folder>/.n8n/config` (with a generated encryption key), so the
 * folder is pointed at a throw-away temp dir. Every harness module imports this file first
 * (`import './env'`), and loads n8n-core only after it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const g = globalThis as { __extractionAgentsHarnessRoot?: string };

function createRoot(): string {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-n8n-harness-'));
	fs.mkdirSync(path.join(root, 'user'), { recursive: true });
	fs.mkdirSync(path.join(root, 'binary-data'), { recursive: true });
	fs.mkdirSync(path.join(root, 'files'), { recursive: true });
	return root;
}

/** Temp folder of this test process (user folder, binary-data store, scratch files). */
export const HARNESS_ROOT: string = (g.__extractionAgentsHarnessRoot ??= createRoot());
export const USER_FOLDER = path.join(HARNESS_ROOT, 'user');
export const BINARY_DATA_STORAGE_PATH = path.join(HARNESS_ROOT, 'binary-data');
export const SCRATCH_FOLDER = path.join(HARNESS_ROOT, 'files');

// Pinned (not defaulted) so that the tests never touch the developer's own ~/.n8n.
process.env.N8N_USER_FOLDER = USER_FOLDER;
process.env.N8N_BINARY_DATA_STORAGE_PATH = BINARY_DATA_STORAGE_PATH;
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED ??= 'false';
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS ??= 'false';
// n8n-core logs node errors (its ErrorReporter) to the console; quiet unless asked for.
process.env.N8N_LOG_LEVEL = process.env.HARNESS_LOG_LEVEL ?? 'silent';
process.env.N8N_BLOCK_ENV_ACCESS_IN_NODE ??= 'false';
