/**
 * Files → Links in a REAL n8n: peak memory of n8n's processes while Run → Create downloads and
 * uploads N links of M MB each (Items in Parallel at its default), in the stores issue #41 names:
 *
 * - `1.123.81-default`: n8n 1.123.81, its default binary data store (memory; no
 *   N8N_DEFAULT_BINARY_DATA_MODE set), task runner on (the host's recipe);
 * - `2.41.1-queue-database`: n8n 2.41.1 in queue mode, one main + one `n8n worker`, PostgreSQL,
 *   Redis, N8N_DEFAULT_BINARY_DATA_MODE=database (as test/queue/run.ts sets it up);
 * - `2.41.1-filesystem`: n8n 2.41.1, N8N_DEFAULT_BINARY_DATA_MODE=filesystem.
 *
 * Each config runs each variant in an n8n of its own (fresh user folder, fresh database):
 * - `ours`: this checkout's package (npm pack of dist/, as the E2E suite installs it);
 * - `0.3.0`: the package as of 0.3.0 (commit e33e569): `git archive` of that commit into
 *   bench/tmp/pkg-e33e569, built there with its own tsconfig and gulpfile (this checkout's
 *   node_modules linked in), packed and installed into n8n the same way.
 *
 * The workflow is the same for both: Webhook (answers at once) → Code (one item per link of the
 * call's body, `url`) → Extraction Agents Run → Create at typeVersion 1.2 (the newest 0.3.0 has;
 * Items in Parallel 10 by default there and here), Files: Links, `{{ $json.url }}`, no waiting.
 * The links point at a loopback host (dev/links/memory.ts startBigFileHost) that makes each
 * file's bytes on the fly with a Content-Length; the service is the emulator, in this process,
 * keeping no upload bytes but the size and SHA-256 of each file: a link counts as uploaded whole
 * when exactly its bytes (size and SHA-256 of what the host served) arrived.
 *
 * Memory: the RSS of each n8n process (main; in queue mode the worker, which runs the
 * execution) and of its children (the task runner) is sampled every 50 ms from /proc. Before
 * the measured call, a warm-up execution of the same workflow with small links (1 kB) loads the
 * modules; then a full garbage collection (bench/n8n-preload.cjs on SIGUSR2), and the median of
 * the 1.5 s of quiet before the call is the baseline. Growth = highest RSS from the call until
 * the execution has finished − that baseline. Time = the Create Run node's execution time as n8n
 * records it.
 *
 *   npx tsx bench/real-n8n-links.ts [--links=10] [--link-mb=250]
 *     [--configs=1.123.81-default,2.41.1-queue-database,2.41.1-filesystem] [--variants=ours,0.3.0]
 *     [--reps=1] [--no-write] [--out=bench/RESULTS-links-n8n.md] [--keep]
 *
 * --reps=N makes N measured calls in each n8n, one after the other (each after a full garbage
 * collection and its own quiet baseline), each a row.
 *
 * Writes bench/RESULTS-links-n8n.md (unless --no-write). Not part of `npm test`: it starts n8n,
 * PostgreSQL and Redis and moves GBs.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { startEmulator, type Emulator } from '../dev/emulator';
import { startBigFileHost, type BigFileHost } from '../dev/links/memory';
import { host, OWNER, waitForWebhook, type N8nInstall, type RestClient } from '../dev/n8n/session';
import {
	ACTION_TYPE,
	chain,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	credentialJson,
	workflow,
	type WorkflowJson,
} from '../dev/n8n/workflows';
import { DEFAULT_ITEMS_IN_PARALLEL } from '../nodes/ExtractionAgents/descriptions/options';
import {
	ensureDebianPackages,
	startPostgres,
	startRedis,
	type Postgres,
	type Service,
} from '../test/queue/services';
import { median, procRss, REPO_ROOT } from './figures';

const execFileP = promisify(execFile);
const MiB = 1024 * 1024;
const RELEASE_0_3_0 = 'e33e569';
const WORKFLOW_ID = 'eaBenchLinks0001'; // n8n's ids are 16 characters
const WEBHOOK_PATH = 'bench-links';
const WEBHOOK_ID = '5b0c8a43-5a8e-4c55-9f39-0e2eb0000041';
const CREATE_RUN = 'Create Run';
/** The newest node version 0.3.0 has: the same saved workflow for both variants. */
const NODE_VERSION = 1.2;
/** Quiet before the call whose median RSS is the baseline. */
const BASELINE_MS = 1500;
const SAMPLE_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) =>
	process.stderr.write(`[links-n8n ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

type ConfigName = '1.123.81-default' | '2.41.1-queue-database' | '2.41.1-filesystem';
type Variant = 'ours' | '0.3.0';

interface Config {
	name: ConfigName;
	version: string;
	queue: boolean;
	/** N8N_DEFAULT_BINARY_DATA_MODE, or undefined for n8n's default. */
	binaryMode?: 'filesystem' | 'database';
	words: string;
}

const CONFIGS: Record<ConfigName, Config> = {
	'1.123.81-default': {
		name: '1.123.81-default',
		version: '1.123.81',
		queue: false,
		words: 'n8n 1.123.81, default store (memory)',
	},
	'2.41.1-queue-database': {
		name: '2.41.1-queue-database',
		version: '2.41.1',
		queue: true,
		binaryMode: 'database',
		words: 'n8n 2.41.1 queue mode (main + 1 worker, PostgreSQL, Redis), database store',
	},
	'2.41.1-filesystem': {
		name: '2.41.1-filesystem',
		version: '2.41.1',
		queue: false,
		binaryMode: 'filesystem',
		words: 'n8n 2.41.1, filesystem store',
	},
};

// ---------------------------------------------------------------------------------------------
// The workflow
// ---------------------------------------------------------------------------------------------

function linksWorkflow(): WorkflowJson {
	return workflow(
		WORKFLOW_ID,
		'Bench: Files → Links in real n8n',
		[
			{
				id: `${WEBHOOK_ID}-node`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				// Answers at once: the execution may take minutes (a fetch would time out waiting).
				parameters: {
					httpMethod: 'POST',
					path: WEBHOOK_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				id: 'bench-links-code',
				name: 'One item per link',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: 'return $input.first().json.body.links.map((url) => ({ json: { url } }));',
				},
			},
			{
				id: 'bench-links-create',
				name: CREATE_RUN,
				type: ACTION_TYPE,
				typeVersion: NODE_VERSION,
				position: [440, 0],
				credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				parameters: {
					resource: 'run',
					operation: 'create',
					agent: { __rl: true, mode: 'id', value: '1' },
					binarySource: 'links',
					fileLinks: '={{ $json.url }}',
					waitForCompletion: false,
				},
			},
		],
		chain('Webhook', 'One item per link', CREATE_RUN),
	);
}

// ---------------------------------------------------------------------------------------------
// The packages
// ---------------------------------------------------------------------------------------------

/** npm pack of `dir` into `dest`; the .tgz path. */
async function npmPack(dir: string, dest: string): Promise<string> {
	fs.mkdirSync(dest, { recursive: true });
	const { stdout } = await execFileP(
		'npm',
		['pack', '--json', '--pack-destination', dest, '--ignore-scripts'],
		{ cwd: dir, maxBuffer: 64 * MiB },
	);
	const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
	return path.join(dest, info[0].filename);
}

/** 0.3.0's package: its sources from git, built with its own tsconfig and gulpfile, packed. */
async function package030(): Promise<string> {
	const dir = path.join(REPO_ROOT, 'bench', 'tmp', `pkg-${RELEASE_0_3_0}`);
	const tgz = path.join(REPO_ROOT, 'bench', 'tmp', `pack-${RELEASE_0_3_0}`);
	if (
		!fs.existsSync(path.join(dir, 'dist', 'nodes', 'ExtractionAgents', 'ExtractionAgents.node.js'))
	) {
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		await execFileP('sh', [
			'-c',
			`git -C "${REPO_ROOT}" archive ${RELEASE_0_3_0} | tar -x -C "${dir}"`,
		]);
		fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
		log(`building 0.3.0 (${RELEASE_0_3_0}) in ${dir} ...`);
		await execFileP('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: dir });
		await execFileP('npx', ['gulp', 'build:assets'], { cwd: dir });
	}
	const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
		version: string;
	};
	if (version !== '0.3.0') throw new Error(`${dir} is version ${version}, not 0.3.0`);
	return await npmPack(dir, tgz);
}

// ---------------------------------------------------------------------------------------------
// Processes and their memory
// ---------------------------------------------------------------------------------------------

function childPids(pid: number): number[] {
	try {
		return fs
			.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.split(/\s+/)
			.filter((p) => p !== '')
			.map(Number);
	} catch {
		return [];
	}
}

interface Sample {
	at: number;
	/** RSS of each watched process, and of its children summed (`<name>+`). */
	rss: Record<string, number>;
}

/** Samples every SAMPLE_MS the RSS of each named process and of its children. */
function recordRss(pids: Record<string, number>): { samples: Sample[]; stop: () => void } {
	const samples: Sample[] = [];
	const children: Record<string, number[]> = {};
	let tick = 0;
	const sample = () => {
		const rss: Record<string, number> = {};
		for (const [name, pid] of Object.entries(pids)) {
			if (tick % 20 === 0) children[name] = childPids(pid);
			rss[name] = procRss(pid) ?? 0;
			rss[`${name}+`] = (children[name] ?? []).reduce((s, c) => s + (procRss(c) ?? 0), 0);
		}
		tick++;
		samples.push({ at: Date.now(), rss });
	};
	sample();
	const timer = setInterval(sample, SAMPLE_MS);
	return { samples, stop: () => clearInterval(timer) };
}

interface Growth {
	baseline: number;
	peak: number;
	growth: number;
}

function growthOf(samples: Sample[], key: string, callAt: number, endAt: number): Growth {
	const quiet = samples.filter((s) => s.at >= callAt - BASELINE_MS && s.at < callAt);
	const during = samples.filter((s) => s.at >= callAt && s.at <= endAt);
	if (quiet.length === 0 || during.length === 0)
		throw new Error(`no RSS samples of ${key} (${quiet.length} before, ${during.length} during)`);
	const baseline = median(quiet.map((s) => s.rss[key] ?? 0));
	const peak = Math.max(...during.map((s) => s.rss[key] ?? 0));
	return { baseline, peak, growth: peak - baseline };
}

interface Worker {
	pid: number;
	logFile: string;
	stop(): Promise<void>;
}

/** `n8n worker` (one), ready once its health check answers. */
async function startWorker(
	n8n: N8nInstall,
	userFolder: string,
	env: Record<string, string>,
): Promise<Worker> {
	const healthPort = await host.freePort();
	const logFile = path.join(userFolder, 'n8n-worker.log');
	const out = fs.openSync(logFile, 'a');
	const child: ChildProcess = spawn(n8n.nodeBin, [n8n.n8nBin, 'worker', '--concurrency=10'], {
		cwd: userFolder,
		env: host.n8nEnv(n8n, {
			userFolder,
			port: healthPort,
			brokerPort: await host.freePort(),
			env: {
				...env,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			},
		}),
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	let exited = false;
	const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
	process.on('exit', () => {
		if (!exited) child.kill('SIGKILL');
	});
	const stop = async () => {
		if (exited) return;
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
		await exit;
		clearTimeout(timer);
	};
	const deadline = Date.now() + 180_000;
	for (;;) {
		if (exited)
			throw new Error(
				`the worker exited at start:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`,
			);
		const status = await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`).then(
			(r) => r.status,
			() => 0,
		);
		if (status === 200) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error('the worker was not ready within 180 s');
		}
		await sleep(300);
	}
	return { pid: child.pid ?? 0, logFile, stop };
}

// ---------------------------------------------------------------------------------------------
// One measurement: one config, one variant, in an n8n of its own
// ---------------------------------------------------------------------------------------------

interface Result {
	config: Config;
	variant: Variant;
	/** Which call in this n8n (1: the first after the warm-up). */
	rep: number;
	n8nVersion: string;
	ok: boolean;
	whole: number;
	links: number;
	linkBytes: number;
	/** The Create Run node's execution time (ms), as n8n records it. */
	nodeMs: number;
	/** From the webhook call to the execution's end (ms), as n8n records it. */
	executionMs: number;
	main: Growth;
	mainChildren: Growth;
	worker?: Growth;
	workerChildren?: Growth;
	/** Executions on the worker (queue mode): the measured one must be among them. */
	ranOnWorker?: boolean;
	errors: string[];
	maxReads: number;
}

interface NodeRunData {
	startTime?: number;
	executionTime?: number;
	error?: { message?: string; description?: string };
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
}

async function measure(
	config: Config,
	variant: Variant,
	tgz: string,
	emu: Emulator,
	files: BigFileHost,
	services: { redis?: Service; pg?: Postgres },
	linkCount: number,
	linkBytes: number,
	reps: number,
	keep: boolean,
): Promise<Result[]> {
	const n8n = await host.ensureN8n(config.version);
	const root = fs.mkdtempSync(path.join(os.tmpdir(), `ea-bench-links-${config.name}-${variant}-`));
	const mainFolder = path.join(root, 'main');
	const workerFolder = path.join(root, 'worker');
	const stops: Array<() => Promise<void>> = [];
	try {
		for (const folder of config.queue ? [mainFolder, workerFolder] : [mainFolder]) {
			fs.mkdirSync(folder, { recursive: true });
			await host.installPackageInto(folder, tgz);
		}
		const env: Record<string, string> = {
			NODE_OPTIONS: `--require ${path.join(__dirname, 'n8n-preload.cjs')}`,
			...(config.binaryMode ? { N8N_DEFAULT_BINARY_DATA_MODE: config.binaryMode } : {}),
		};
		if (config.queue) {
			const { redis, pg } = services;
			if (!redis || !pg) throw new Error('queue mode without Redis and PostgreSQL');
			const database = `links_${variant.replace(/\W/g, '')}_${Date.now()}`;
			pg.query(`CREATE DATABASE ${database} OWNER ${pg.user}`, 'postgres');
			Object.assign(env, {
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redis.port),
				QUEUE_BULL_PREFIX: database,
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(pg.port),
				DB_POSTGRESDB_DATABASE: database,
				DB_POSTGRESDB_USER: pg.user,
				DB_POSTGRESDB_PASSWORD: pg.password,
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
			});
		}
		const mainOptions: host.HostOptions = { userFolder: mainFolder, env, quiet: true };
		await host.importCredentials(n8n, mainOptions, [credentialJson(emu.url, emu.keys.alice)]);
		await host.importWorkflows(n8n, mainOptions, [linksWorkflow()]);
		const server = await host.startN8n(n8n, { ...mainOptions, port: await host.freePort() });
		stops.push(() => server.stop());
		const pids: Record<string, number> = { main: server.process.pid ?? 0 };
		let worker: Worker | undefined;
		if (config.queue) {
			worker = await startWorker(n8n, workerFolder, env);
			stops.push(() => worker!.stop());
			pids.worker = worker.pid;
		}
		const api: RestClient = await host.setupOwner(server.url, OWNER);
		await host.publishWorkflowRest(api, n8n.version, WORKFLOW_ID);
		await waitForWebhook(server.url, WEBHOOK_PATH);
		log(
			`${config.name} ${variant}: n8n ${n8n.version} up (main pid ${pids.main}${worker ? `, worker pid ${worker.pid}` : ''})`,
		);

		const executions = async () => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
			const data = await api.get<{
				results: Array<{ id: string; status: string; stoppedAt?: string | null }>;
			}>(`/rest/executions?filter=${filter}&limit=50`);
			return data.results;
		};
		const done = (e: { status: string; stoppedAt?: string | null }) =>
			!['new', 'running', 'waiting'].includes(e.status) && !!e.stoppedAt;
		const waitFor = async (count: number, timeoutMs: number) => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const list = await executions();
				if (list.filter(done).length >= count)
					return [...list].sort((a, b) => Number(b.id) - Number(a.id))[0];
				if (Date.now() > deadline)
					throw new Error(
						`${list.filter(done).length} of ${count} executions finished after ${timeoutMs / 1000} s:\n${server.logs().slice(-3000)}`,
					);
				await sleep(250);
			}
		};
		const call = async (links: string[]) => {
			const res = await fetch(`${server.url}/webhook/${WEBHOOK_PATH}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ links }),
			});
			const text = await res.text();
			if (res.status !== 200)
				throw new Error(`the webhook answered ${res.status}: ${text.slice(0, 500)}`);
		};
		const flatted = require(path.join(n8n.folder, 'node_modules', 'flatted')) as {
			parse(text: string): unknown;
		};
		const runOf = async (id: string) => {
			const data = await api.get<{ data: string | Record<string, unknown> }>(
				`/rest/executions/${id}`,
			);
			const parsed = (typeof data.data === 'string' ? flatted.parse(data.data) : data.data) as {
				resultData: { runData: Record<string, NodeRunData[]> };
			};
			return parsed.resultData.runData;
		};

		// Warm-up: the same workflow with small links (modules, agents, the runner loaded).
		const tag = `${config.name}-${variant}`.replace(/\./g, '_');
		await call(
			Array.from({ length: linkCount }, (_, i) => files.link(`warm-${tag}-${i}.pdf`, 1000)),
		);
		await waitFor(1, 180_000);

		const rss = recordRss(pids);
		const results: Result[] = [];
		try {
			for (let rep = 1; rep <= reps; rep++) {
				// Garbage of the execution before collected, then the quiet whose median is the baseline.
				await sleep(2000);
				for (const pid of Object.values(pids)) process.kill(pid, 'SIGUSR2');
				await sleep(1000 + BASELINE_MS);
				const names = Array.from({ length: linkCount }, (_, i) => `${tag}-r${rep}-${i}.pdf`);
				const seq = emu.lastSeq;
				const callAt = Date.now();
				log(
					`${config.name} ${variant} (${rep}/${reps}): ${linkCount} links × ${linkBytes / 1e6} MB → webhook`,
				);
				await call(names.map((name) => files.link(name, linkBytes)));
				const latest = await waitFor(1 + rep, 60 * 60_000);
				const endAt = Date.now();
				const runData = await runOf(latest.id);
				const run = runData[CREATE_RUN]?.[0];
				const items = run?.data?.main?.[0] ?? [];
				const errors = [
					...(run?.error ? [`${run.error.message ?? ''} ${run.error.description ?? ''}`] : []),
					...(!run ? [`${CREATE_RUN} did not run (ran: ${Object.keys(runData).join(', ')})`] : []),
					...items.flatMap((item) => (item.json.error ? [String(item.json.error)] : [])),
				];
				const started = (run?.startTime ?? callAt) - 0;
				const uploads = emu
					.requestsSince(seq)
					.filter((e) => e.operation === 'runs.create' && e.status < 300)
					.flatMap((e) => e.upload?.files ?? []);
				let whole = 0;
				for (const name of names) {
					const got = uploads.filter((f) => f.filename === name);
					if (
						got.length === 1 &&
						got[0].size === linkBytes &&
						got[0].sha256 === files.sha256(name, linkBytes)
					)
						whole++;
				}
				const ranOnWorker = worker
					? new RegExp(`Worker started execution ${latest.id} \\(`).test(
							fs.readFileSync(worker.logFile, 'utf8'),
						)
					: undefined;
				const result: Result = {
					config,
					variant,
					rep,
					n8nVersion: n8n.version,
					ok: errors.length === 0 && whole === names.length && ranOnWorker !== false,
					whole,
					links: names.length,
					linkBytes,
					nodeMs: run?.executionTime ?? NaN,
					executionMs: endAt - Math.min(callAt, started),
					main: growthOf(rss.samples, 'main', callAt, endAt),
					mainChildren: growthOf(rss.samples, 'main+', callAt, endAt),
					...(worker
						? {
								worker: growthOf(rss.samples, 'worker', callAt, endAt),
								workerChildren: growthOf(rss.samples, 'worker+', callAt, endAt),
							}
						: {}),
					ranOnWorker,
					errors,
					maxReads: Math.max(...names.map((name) => files.reads.get(name) ?? 0)),
				};
				log(`${config.name} ${variant}: ${lineOf(result)}`);
				results.push(result);
			}
			return results;
		} finally {
			rss.stop();
		}
	} finally {
		for (const stop of stops.reverse()) await stop().catch(() => undefined);
		if (!keep) fs.rmSync(root, { recursive: true, force: true });
		else log(`kept ${root}`);
	}
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

const HEADER = [
	'| Config | Variant | Peak RSS growth main (MiB) | Worker (MiB) | Task runners (MiB) | Create Run time (s) | Links uploaded whole | Reads per link |',
	'| --- | --- | --- | --- | --- | --- | --- | --- |',
];

function lineOf(r: Result): string {
	const runners = [r.mainChildren, ...(r.workerChildren ? [r.workerChildren] : [])]
		.map((g) => mib(g.growth))
		.join(' / ');
	return `| ${r.config.name} | ${r.variant}${r.rep > 1 ? ` (call ${r.rep})` : ''} | ${mib(r.main.growth)} | ${r.worker ? mib(r.worker.growth) : '—'} | ${runners} | ${(r.nodeMs / 1000).toFixed(1)} | ${r.whole}/${r.links}${r.ok ? '' : ' NOT OK'} | ${r.maxReads} |`;
}

function detailOf(r: Result): string {
	const g = (name: string, x: Growth) =>
		`${name} baseline ${mib(x.baseline)} MiB, peak ${mib(x.peak)} MiB`;
	return [
		`- ${r.config.name} ${r.variant}${r.rep > 1 ? ` (call ${r.rep})` : ''} (n8n ${r.n8nVersion}): ${g('main', r.main)}; ${g('main’s children', r.mainChildren)}`,
		r.worker ? `; ${g('worker', r.worker)}; ${g('worker’s children', r.workerChildren!)}` : '',
		r.ranOnWorker !== undefined ? `; the execution ran on the worker: ${r.ranOnWorker}` : '',
		`; call → execution stored ${(r.executionMs / 1000).toFixed(1)} s`,
		r.errors.length ? `; errors: ${r.errors.slice(0, 3).join(' | ')}` : '',
	].join('');
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const arg = (name: string, fallback: string) =>
		argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
	const linkCount = Number(arg('links', '10'));
	const linkMB = Number(arg('link-mb', '250'));
	const linkBytes = Math.round(linkMB * 1e6);
	const configs = arg('configs', Object.keys(CONFIGS).join(','))
		.split(',')
		.map((name) => {
			const config = CONFIGS[name as ConfigName];
			if (!config)
				throw new Error(`unknown config ${name}: one of ${Object.keys(CONFIGS).join(', ')}`);
			return config;
		});
	const variants = arg('variants', 'ours,0.3.0').split(',') as Variant[];
	const keep = argv.includes('--keep');
	const reps = Number(arg('reps', '1'));
	const out = path.resolve(arg('out', path.join(__dirname, 'RESULTS-links-n8n.md')));
	// What `ours` is: the dist/ that npm pack takes, built when its node file was written.
	const distBuilt = fs
		.statSync(path.join(REPO_ROOT, 'dist', 'nodes', 'ExtractionAgents', 'ExtractionAgents.node.js'))
		.mtime.toISOString();
	const loadBefore = os.loadavg();
	const commit = (
		await execFileP('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'])
	).stdout.trim();
	const dirty =
		(
			await execFileP('git', [
				'-C',
				REPO_ROOT,
				'status',
				'--porcelain',
				'--',
				'nodes',
				'credentials',
			])
		).stdout.trim() !== '';
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-bench-links-pack-'));
	process.on('exit', () => fs.rmSync(packDir, { recursive: true, force: true }));
	const tgzs: Record<Variant, string> = {
		ours: variants.includes('ours') ? await host.packPackage(packDir) : '',
		'0.3.0': variants.includes('0.3.0') ? await package030() : '',
	};
	const emu = await startEmulator({ logErrors: false, seed: 42, keepUploadBytesUnder: 0 });
	const files = await startBigFileHost();
	const services: { redis?: Service; pg?: Postgres } = {};
	const serviceRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-bench-links-services-'));
	const results: Result[] = [];
	const failures: string[] = [];
	const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
	const render = (final: boolean) =>
		[
			'# Files → Links in a real n8n: peak memory',
			'',
			'Written by `npx tsx bench/real-n8n-links.ts` (issue #41, "Must show").',
			'',
			...(final ? [] : ['**In progress**: the rows so far.', '']),
			`- Date: ${new Date().toISOString()}; checkout ${commit}${dirty ? ' (with uncommitted changes in nodes/ or credentials/)' : ''}; ours = dist/ built ${distBuilt}; 0.3.0 = commit ${RELEASE_0_3_0} built with its own tsconfig and gulpfile, packed and installed the same way`,
			`- ${linkCount} links × ${linkMB} MB (${linkBytes} bytes each, Content-Length announced, bytes made on the fly by a loopback host); Items in Parallel ${DEFAULT_ITEMS_IN_PARALLEL} (the default); Webhook → Code → Run → Create (typeVersion ${NODE_VERSION}, Files: Links) against the emulator; host and emulator run in the bench process, not in n8n's`,
			`- Machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${load(loadBefore)} before, ${load(os.loadavg())} now. The machine is shared with other long CPU jobs: times are inflated and noisy; memory is the figure that matters.`,
			`- RSS sampled every ${SAMPLE_MS} ms from /proc. Growth = the highest RSS from the webhook call to the execution's end − the median of the ${BASELINE_MS / 1000} s of quiet before the call (after a warm-up execution with 1 kB links and a full garbage collection). "Task runners" = the children of the main (/ of the worker). Whole = the emulator received the link's exact size and SHA-256, in one upload. Reads per link = the most GETs the host answered for one link.`,
			...configs.map((c) => `- ${c.name}: ${c.words}`),
			'',
			...HEADER,
			...results.map(lineOf),
			'',
			...results.map(detailOf),
			...(failures.length ? ['', 'Failed:', ...failures.map((f) => `- ${f.split('\n')[0]}`)] : []),
			'',
		].join('\n');
	const write = (final: boolean) => fs.writeFileSync(out, render(final));
	try {
		if (configs.some((c) => c.queue)) {
			const tools = await ensureDebianPackages();
			services.redis = await startRedis(tools.redisServer, path.join(serviceRoot, 'redis'));
			services.pg = await startPostgres(tools.pgBin, path.join(serviceRoot, 'postgres'));
			process.on('exit', () => {
				services.pg?.kill();
				services.redis?.kill();
			});
		}
		for (const config of configs) {
			for (const variant of variants) {
				try {
					results.push(
						...(await measure(
							config,
							variant,
							tgzs[variant],
							emu,
							files,
							services,
							linkCount,
							linkBytes,
							reps,
							keep,
						)),
					);
				} catch (error) {
					const message = `${config.name} ${variant}: ${(error as Error).message.slice(0, 2000)}`;
					log(`FAILED ${message}`);
					failures.push(message);
				}
				if (!argv.includes('--no-write')) write(false);
			}
		}
	} finally {
		files.stop();
		await emu.stop();
		await services.pg?.stop().catch(() => undefined);
		await services.redis?.stop().catch(() => undefined);
		fs.rmSync(serviceRoot, { recursive: true, force: true });
	}
	console.log(render(true));
	if (!argv.includes('--no-write')) write(true);
	if (failures.length || results.some((r) => !r.ok)) process.exitCode = 1;
}

main().then(
	() => process.exit(process.exitCode ?? 0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
