/**
 * `npm run test:queue`: the package in n8n's queue mode, as users who outgrow
 * one n8n run it.
 *
 *   Debian's redis-server and PostgreSQL on loopback (installed with apt when missing)
 *   → n8n 2.41.1 main + two `n8n worker`s, each with the packed package in its own user folder,
 *     one PostgreSQL database, binary data in the database (the store every instance reads)
 *   → 100 files POSTed to a published webhook: the main stores each file and enqueues the
 *     execution; a worker runs a Code node that drops the file from the item, then Create Run
 *     with the file named by an expression (wait), and the webhook answers with the results
 *   → the Extraction Agents Trigger, polled by the main, emits every Run that finishes.
 *
 * Checks: every Run created once, every finished Run emitted once, every file reached the service
 * byte for byte (SHA-256), every execution ran on a worker, both workers took work.
 * Prints the counts and the wall time; exits non-zero when a check fails.
 *
 * Env: QUEUE_EXECUTIONS (100), QUEUE_WORKERS (2), QUEUE_WORKER_CONCURRENCY (10),
 * QUEUE_POLL_SECONDS (10), QUEUE_RUN_MS (3000, how long a Run takes in the emulator),
 * QUEUE_LATENCY_MS (0, added to every answer of the emulator: with 300 and QUEUE_POLL_SECONDS=5
 * a trigger poll outlasts the poll interval, so n8n starts the next poll while one is running),
 * QUEUE_KEEP=1 keeps the temporary folder (logs, databases) and prints where it is.
 * Not part of `npm test`: it needs a few minutes, ~2.5 GB of memory and root or the packages.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startEmulator, type Emulator } from '../../dev/emulator';
import { host, OWNER, type N8nInstall, type N8nServer, type NodeRun } from '../../dev/n8n/session';
import { credentialJson, samplePdf } from '../../dev/n8n/workflows';
import {
	ensureDebianPackages,
	freePort,
	log,
	startPostgres,
	startRedis,
	type Postgres,
	type Service,
} from './services';
import {
	createRunWebhookWorkflow,
	QUEUE_AGENT_ID,
	QUEUE_WEBHOOK_PATH,
	QUEUE_WORKFLOW_IDS,
	queueTriggerWorkflow,
} from './workflows';

const VERSION = process.env.N8N_E2E_VERSION || '2.41.1';
const num = (name: string, fallback: number) => {
	const value = Number(process.env[name]);
	return Number.isFinite(value) && value > 0 ? value : fallback;
};
const EXECUTIONS = num('QUEUE_EXECUTIONS', 100);
const WORKERS = num('QUEUE_WORKERS', 2);
const WORKER_CONCURRENCY = num('QUEUE_WORKER_CONCURRENCY', 10);
const POLL_SECONDS = num('QUEUE_POLL_SECONDS', 10);
const RUN_MS = num('QUEUE_RUN_MS', 3000);
/** Extra delay on every answer of the emulator: slow polls (a poll that outlasts the poll interval). */
const LATENCY_MS = num('QUEUE_LATENCY_MS', 0);
const KEEP = /^(1|true|yes)$/i.test(process.env.QUEUE_KEEP ?? '');
const ID_PREFIX = 'queue-';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// ---------------------------------------------------------------------------------------------
// Cleanup: everything started here is stopped here, in reverse order, also on Ctrl-C.
// ---------------------------------------------------------------------------------------------

const stops: Array<{ name: string; stop: () => Promise<void>; kill: () => void }> = [];
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
	cleaning ??= (async () => {
		for (const item of [...stops].reverse()) {
			try {
				await item.stop();
			} catch (err) {
				log(`stopping ${item.name}: ${(err as Error).message}`);
			}
		}
		stops.length = 0;
	})();
	return cleaning;
}
process.on('exit', () => {
	for (const item of [...stops].reverse()) {
		try {
			item.kill();
		} catch {
			/* already gone */
		}
	}
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		log(`${signal}: stopping everything ...`);
		void cleanup().finally(() => process.exit(130));
	});
}

// ---------------------------------------------------------------------------------------------
// n8n workers (dev/n8n/host.ts starts `n8n start`; a worker is `n8n worker`)
// ---------------------------------------------------------------------------------------------

interface WorkerProcess {
	name: string;
	pid: number;
	logFile: string;
	healthUrl: string;
	stop(): Promise<void>;
	kill(): void;
}

async function startWorker(
	n8n: N8nInstall,
	name: string,
	userFolder: string,
	env: Record<string, string>,
): Promise<WorkerProcess> {
	const healthPort = await freePort();
	const brokerPort = await freePort();
	const logFile = path.join(userFolder, 'n8n-worker.log');
	const out = fs.openSync(logFile, 'a');
	const workerEnv = host.n8nEnv(n8n, {
		userFolder,
		port: healthPort,
		brokerPort,
		env: {
			...env,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		},
	});
	const child: ChildProcess = spawn(
		n8n.nodeBin,
		[n8n.n8nBin, 'worker', `--concurrency=${WORKER_CONCURRENCY}`],
		{
			cwd: userFolder,
			env: workerEnv,
			stdio: ['ignore', out, out],
		},
	);
	fs.closeSync(out);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
	const exit = new Promise<void>((resolve) =>
		child.on('exit', (code, signal) => ((exited = { code, signal }), resolve())),
	);
	const worker: WorkerProcess = {
		name,
		pid: child.pid ?? 0,
		logFile,
		healthUrl: `http://127.0.0.1:${healthPort}/healthz/readiness`,
		async stop() {
			if (exited) return;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
			await exit;
			clearTimeout(timer);
		},
		kill() {
			if (!exited) child.kill('SIGKILL');
		},
	};
	stops.push({ name, stop: worker.stop, kill: worker.kill });
	const started = Date.now();
	for (;;) {
		if (exited)
			throw new Error(
				`${name} exited before it was ready (${JSON.stringify(exited)}):\n${tail(logFile, 4000)}`,
			);
		const status = await fetch(worker.healthUrl).then(
			(r) => r.status,
			() => 0,
		);
		if (status === 200) break;
		if (Date.now() - started > 180_000)
			throw new Error(`${name} was not ready within 180 s:\n${tail(logFile, 4000)}`);
		await sleep(300);
	}
	log(`${name} ready (pid ${worker.pid}, ${secs(Date.now() - started)}; log ${logFile})`);
	return worker;
}

function tail(file: string, chars: number): string {
	try {
		return fs.readFileSync(file, 'utf8').slice(-chars);
	} catch {
		return '';
	}
}

/** Resident memory (MiB) of a process and its direct children (n8n's task runner). */
function rssMiB(pid: number): number {
	const rss = (p: number) => {
		try {
			const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
			return match ? Number(match[1]) : 0;
		} catch {
			return 0;
		}
	};
	let children: number[] = [];
	try {
		children = fs
			.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.trim()
			.split(/\s+/)
			.filter(Boolean)
			.map(Number);
	} catch {
		/* not available */
	}
	return Math.round((rss(pid) + children.reduce((sum, c) => sum + rss(c), 0)) / 1024);
}

// ---------------------------------------------------------------------------------------------
// The files and the webhook calls
// ---------------------------------------------------------------------------------------------

interface TestFile {
	id: string;
	fileName: string;
	filePath: string;
	size: number;
	sha256: string;
}

/** EXECUTIONS distinct PDFs on disk: most 8-200 KB, every tenth 2 MiB. */
function writeFiles(dir: string): TestFile[] {
	fs.mkdirSync(dir, { recursive: true });
	const files: TestFile[] = [];
	for (let i = 1; i <= EXECUTIONS; i++) {
		const id = `${ID_PREFIX}${String(i).padStart(3, '0')}`;
		const fileName = `invoice-${id}.pdf`;
		const pdf = samplePdf(`Invoice ${id} Queue Mode Supplies total ${(i * 17.35).toFixed(2)} EUR`);
		const padding = i % 10 === 0 ? 2 * 1024 * 1024 : 8 * 1024 + ((i * 7919) % 192) * 1024;
		// Incompressible bytes after %%EOF (PDF readers ignore them): every file differs all along.
		const bytes = Buffer.concat([pdf, Buffer.from('%padding\n'), randomBytes(padding)]);
		const filePath = path.join(dir, fileName);
		fs.writeFileSync(filePath, bytes);
		files.push({ id, fileName, filePath, size: bytes.length, sha256: sha256(bytes) });
	}
	return files;
}

interface CallResult {
	file: TestFile;
	status: number;
	ms: number;
	body: unknown;
	error?: string;
}

async function postFile(baseUrl: string, file: TestFile): Promise<CallResult> {
	const started = Date.now();
	try {
		const form = new FormData();
		form.append('id', file.id);
		form.append(
			'file',
			new Blob([fs.readFileSync(file.filePath)], { type: 'application/pdf' }),
			file.fileName,
		);
		const res = await fetch(`${baseUrl}/webhook/${QUEUE_WEBHOOK_PATH}`, {
			method: 'POST',
			body: form,
		});
		const text = await res.text();
		let body: unknown = text;
		try {
			body = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { file, status: res.status, ms: Date.now() - started, body };
	} catch (err) {
		return { file, status: 0, ms: Date.now() - started, body: null, error: (err as Error).message };
	}
}

// ---------------------------------------------------------------------------------------------
// What n8n stored: executions in PostgreSQL
// ---------------------------------------------------------------------------------------------

interface ExecutionRow {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string;
}

function executionsOf(pg: Postgres, workflowId: string): ExecutionRow[] {
	const out = pg.query(
		`SELECT id, "workflowId", mode, status, finished, "startedAt" FROM execution_entity WHERE "workflowId" = '${workflowId}' ORDER BY id`,
	);
	return out
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const [id, wf, mode, status, finished, startedAt] = line.split('\t');
			return { id, workflowId: wf, mode, status, finished: finished === 't', startedAt };
		});
}

function executionRunData(
	pg: Postgres,
	flatted: { parse(text: string): unknown },
	id: string,
): Record<string, NodeRun[]> {
	const text = pg
		.query(`SELECT data FROM execution_data WHERE "executionId" = ${Number(id)}`)
		.replace(/\n$/, '');
	const parsed = flatted.parse(text) as { resultData: { runData: Record<string, NodeRun[]> } };
	return parsed.resultData.runData;
}

/** Execution ids each worker's log says it ran ("Worker started execution N (job M)"). */
function executionsByWorker(workers: WorkerProcess[]): Map<string, string[]> {
	const where = new Map<string, string[]>();
	for (const worker of workers) {
		for (const match of fs
			.readFileSync(worker.logFile, 'utf8')
			.matchAll(/Worker started execution (\d+) \(job /g)) {
			where.set(match[1], [...(where.get(match[1]) ?? []), worker.name]);
		}
	}
	return where;
}

// ---------------------------------------------------------------------------------------------

interface Check {
	name: string;
	ok: boolean;
	detail: string;
}

async function main(): Promise<number> {
	const t0 = Date.now();
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-queue-'));
	stops.push({
		name: 'temporary folder',
		stop: async () => {
			if (!KEEP) fs.rmSync(root, { recursive: true, force: true });
		},
		kill: () => undefined,
	});
	log(
		`n8n ${VERSION} in queue mode: 1 main + ${WORKERS} workers (concurrency ${WORKER_CONCURRENCY}), ${EXECUTIONS} executions; folder ${root}`,
	);

	// 1. Services.
	const tools = await ensureDebianPackages();
	const n8nPromise = host.ensureN8n(VERSION);
	const redis: Service = await startRedis(tools.redisServer, path.join(root, 'redis'));
	stops.push({ name: 'redis-server', stop: redis.stop, kill: redis.kill });
	const pg = await startPostgres(tools.pgBin, path.join(root, 'postgres'));
	stops.push({ name: 'PostgreSQL', stop: pg.stop, kill: pg.kill });
	log(
		`redis-server on 127.0.0.1:${redis.port}, PostgreSQL on 127.0.0.1:${pg.port} (${secs(Date.now() - t0)})`,
	);

	const emu: Emulator = await startEmulator({
		runDurationMs: RUN_MS,
		latencyMs: LATENCY_MS,
		logErrors: false,
	});
	stops.push({ name: 'emulator', stop: () => emu.stop(), kill: () => undefined });

	// 2. n8n: the packed package in each instance's own user folder; one database.
	const n8n = await n8nPromise;
	const folders = {
		main: path.join(root, 'main'),
		workers: Array.from({ length: WORKERS }, (_, i) => path.join(root, `worker-${i + 1}`)),
	};
	for (const folder of [folders.main, ...folders.workers])
		fs.mkdirSync(folder, { recursive: true });
	const tgz = await host.packPackage(path.join(root, 'pack'));
	for (const folder of [folders.main, ...folders.workers])
		await host.installPackageInto(folder, tgz);
	log(`package installed into ${1 + WORKERS} user folders (${secs(Date.now() - t0)})`);

	const queueEnv: Record<string, string> = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		// The webhook's file is written by the main and read by a worker: a store both reach.
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
	};
	const mainOptions = { userFolder: folders.main, env: queueEnv, quiet: false };
	await host.importCredentials(n8n, mainOptions, [credentialJson(emu.url, emu.keys.alice)]);
	await host.importWorkflows(n8n, mainOptions, [
		createRunWebhookWorkflow(),
		queueTriggerWorkflow(POLL_SECONDS),
	]);
	log(`credential and workflows imported into PostgreSQL (${secs(Date.now() - t0)})`);

	const server: N8nServer = await host.startN8n(n8n, { ...mainOptions, port: await freePort() });
	stops.push({ name: 'n8n main', stop: () => server.stop(), kill: () => undefined });
	const mainPid = server.process.pid ?? 0;
	const workers = await Promise.all(
		folders.workers.map((folder, i) => startWorker(n8n, `worker-${i + 1}`, folder, queueEnv)),
	);
	const api = await host.setupOwner(server.url, OWNER);
	// The trigger's first poll (at publishing) only records where the Agent's history ends.
	const pollPath = `/api/v1/client/agents/${QUEUE_AGENT_ID}/runs`;
	const polls = (since: number) =>
		emu.requestLog.filter(
			(e) => e.method === 'GET' && e.path === pollPath && e.status === 200 && e.startedAt >= since,
		);
	for (const id of Object.values(QUEUE_WORKFLOW_IDS))
		await host.publishWorkflowRest(api, n8n.version, id);
	const deadline = Date.now() + 60_000;
	while (polls(0).length === 0 && Date.now() < deadline) await sleep(200);
	if (polls(0).length === 0)
		throw new Error(
			`the trigger did not poll within 60 s of publishing:\n${tail(server.logFile, 4000)}`,
		);
	const setupMs = Date.now() - t0;
	log(
		`main ${server.url} (pid ${mainPid}) and ${WORKERS} workers up, workflows published (${secs(setupMs)})`,
	);

	// Memory of the n8n processes while they work.
	const peakRss = new Map<string, number>();
	const sampleRss = () => {
		for (const [name, pid] of [
			['main', mainPid],
			...workers.map((w) => [w.name, w.pid] as const),
		] as Array<[string, number]>) {
			peakRss.set(name, Math.max(peakRss.get(name) ?? 0, rssMiB(pid)));
		}
	};
	sampleRss();
	const sampler = setInterval(sampleRss, 1000);

	// 3. The executions: every file at once; the main queues them, the workers take 10 each.
	const files = writeFiles(path.join(root, 'files'));
	const totalMiB = files.reduce((sum, f) => sum + f.size, 0) / 1024 / 1024;
	log(
		`${EXECUTIONS} files (${totalMiB.toFixed(1)} MiB) → POST /webhook/${QUEUE_WEBHOOK_PATH}, all at once ...`,
	);
	const driveStart = Date.now();
	let done = 0;
	const results = await Promise.all(
		files.map((file) =>
			postFile(server.url, file).then((result) => {
				done++;
				if (done % 20 === 0 || done === files.length)
					log(
						`  ${done}/${files.length} webhook calls answered (${secs(Date.now() - driveStart)})`,
					);
				return result;
			}),
		),
	);
	const driveMs = Date.now() - driveStart;

	// 4. The trigger: wait until every Run created here has been emitted, then two more polls.
	const flatted = require(path.join(n8n.folder, 'node_modules', 'flatted')) as {
		parse(text: string): unknown;
	};
	const ourRuns = () =>
		[...emu.state.runs.values()].filter(
			(r) =>
				r.agentId === QUEUE_AGENT_ID &&
				!r.historical &&
				String(r.userDefinedId ?? '').startsWith(ID_PREFIX),
		);
	const parsedTriggerData = new Map<
		string,
		Array<{ run_id: number; user_defined_id: string | null; status: string }>
	>();
	const emittedItems = () => {
		const list: Array<{
			run_id: number;
			user_defined_id: string | null;
			status: string;
			execution: string;
		}> = [];
		for (const row of executionsOf(pg, QUEUE_WORKFLOW_IDS.trigger)) {
			if (!['success', 'error', 'crashed', 'canceled'].includes(row.status)) continue;
			if (!parsedTriggerData.has(row.id)) {
				const runData = executionRunData(pg, flatted, row.id);
				const items = runData['Run finished']?.[0]?.data?.main?.[0] ?? [];
				parsedTriggerData.set(
					row.id,
					items.map((item) => ({
						run_id: Number(item.json.run_id),
						user_defined_id: (item.json.user_defined_id as string | null) ?? null,
						status: String(item.json.status),
					})),
				);
			}
			for (const item of parsedTriggerData.get(row.id) ?? [])
				list.push({ ...item, execution: row.id });
		}
		return list;
	};
	const emitDeadline = Date.now() + Math.max(180_000, POLL_SECONDS * 6_000);
	let allEmittedAt = 0;
	for (;;) {
		const emitted = new Set(emittedItems().map((e) => e.run_id));
		const created = ourRuns();
		if (created.length > 0 && created.every((r) => emitted.has(r.runId))) {
			allEmittedAt = Date.now();
			break;
		}
		if (Date.now() > emitDeadline) break;
		await sleep(1000);
	}
	const wallMs = (allEmittedAt || Date.now()) - driveStart;
	log(
		allEmittedAt
			? `every Run emitted by the trigger ${secs(wallMs)} after the first webhook call; watching two more polls for duplicates ...`
			: 'not every Run was emitted in time; counting what there is ...',
	);
	const settleFrom = Date.now();
	const settleDeadline = settleFrom + POLL_SECONDS * 4000 + 30_000;
	while (polls(settleFrom).length < 2 && Date.now() < settleDeadline) await sleep(500);
	await sleep(5000); // time for an execution those polls would have started to finish
	const pendingDeadline = Date.now() + 30_000;
	while (
		executionsOf(pg, QUEUE_WORKFLOW_IDS.trigger).some(
			(e) => !e.finished && ['new', 'running'].includes(e.status),
		) &&
		Date.now() < pendingDeadline
	)
		await sleep(500);
	clearInterval(sampler);
	sampleRss();

	// 5. Count.
	const created = ourRuns();
	const createdById = new Map<string, number[]>();
	for (const run of created)
		createdById.set(String(run.userDefinedId), [
			...(createdById.get(String(run.userDefinedId)) ?? []),
			run.runId,
		]);
	const createDuplicates = [...createdById.values()].reduce((sum, ids) => sum + ids.length - 1, 0);
	const createMissing = files.filter((f) => !createdById.has(f.id)).map((f) => f.id);

	const emitted = emittedItems();
	const emittedCount = new Map<number, number>();
	for (const item of emitted)
		emittedCount.set(item.run_id, (emittedCount.get(item.run_id) ?? 0) + 1);
	const createdIds = new Set(created.map((r) => r.runId));
	const emitDuplicates = [...emittedCount.values()].reduce((sum, n) => sum + n - 1, 0);
	const emitMissing = created.filter((r) => !emittedCount.has(r.runId)).map((r) => r.runId);
	const emitForeign = [...emittedCount.keys()].filter((id) => !createdIds.has(id));
	const emittedStatusOk = emitted
		.filter((e) => createdIds.has(e.run_id))
		.every((e) => e.status === emu.getRun(QUEUE_AGENT_ID, e.run_id)?.status);

	// Binaries: what the service received for each id against the file on disk.
	const uploads = emu.requestLog.filter(
		(e) => e.method === 'POST' && e.path === pollPath && e.upload,
	);
	const uploadsById = new Map<string, typeof uploads>();
	for (const entry of uploads) {
		const id = entry.upload?.fields.user_defined_id ?? '';
		uploadsById.set(id, [...(uploadsById.get(id) ?? []), entry]);
	}
	const binaryMismatch: string[] = [];
	let checksumsMatched = 0;
	for (const file of files) {
		const entries = uploadsById.get(file.id) ?? [];
		const ok =
			entries.length === 1 &&
			entries[0].status >= 200 &&
			entries[0].status < 300 &&
			entries[0].upload?.files.length === 1 &&
			entries[0].upload.files[0].sha256 === file.sha256 &&
			entries[0].upload.files[0].size === file.size &&
			entries[0].upload.files[0].filename === file.fileName;
		if (ok) checksumsMatched++;
		else
			binaryMismatch.push(
				`${file.id}: ${entries.length} upload(s) ${JSON.stringify(entries.map((e) => ({ status: e.status, files: e.upload?.files.map((f) => [f.filename, f.size, f.sha256.slice(0, 12)]) })))}`,
			);
	}

	// Webhook answers: one item, the Run with its results, for the id sent.
	const badAnswers = results.filter((r) => {
		const items = Array.isArray(r.body) ? (r.body as Array<Record<string, unknown>>) : [];
		return !(
			r.status === 200 &&
			items.length === 1 &&
			items[0].user_defined_id === r.file.id &&
			items[0].status === 'success' &&
			createdById.get(r.file.id)?.includes(Number(items[0].run_id))
		);
	});

	// Where the executions ran.
	const webhookExecutions = executionsOf(pg, QUEUE_WORKFLOW_IDS.createRun);
	const triggerExecutions = executionsOf(pg, QUEUE_WORKFLOW_IDS.trigger);
	const byWorker = executionsByWorker(workers);
	const notOnWorker = [...webhookExecutions, ...triggerExecutions]
		.filter((e) => (byWorker.get(e.id) ?? []).length !== 1)
		.map((e) => `${e.id} (${(byWorker.get(e.id) ?? []).join('+') || 'no worker'})`);
	const perWorker = workers.map((w) => ({
		name: w.name,
		webhook: webhookExecutions.filter((e) => byWorker.get(e.id)?.[0] === w.name).length,
		trigger: triggerExecutions.filter((e) => byWorker.get(e.id)?.[0] === w.name).length,
	}));
	const mainRanExecutions = /Worker started execution/.test(tail(server.logFile, 10_000_000));
	const failedExecutions = [...webhookExecutions, ...triggerExecutions].filter(
		(e) => e.status !== 'success',
	);
	const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
	const pct = (p: number) =>
		latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];

	const checks: Check[] = [
		{
			name: 'every webhook call answered 200 with its finished Run',
			ok: badAnswers.length === 0,
			detail: badAnswers
				.slice(0, 5)
				.map((r) => `${r.file.id}: ${r.status} ${r.error ?? JSON.stringify(r.body).slice(0, 300)}`)
				.join('; '),
		},
		{
			name: 'every Run created once',
			ok: created.length === EXECUTIONS && createDuplicates === 0 && createMissing.length === 0,
			detail: `created ${created.length}, duplicates ${createDuplicates}, missing ${createMissing.join(', ')}`,
		},
		{
			name: 'every finished Run emitted once by the trigger',
			ok:
				emitMissing.length === 0 &&
				emitDuplicates === 0 &&
				emitForeign.length === 0 &&
				emittedStatusOk,
			detail: `missing ${emitMissing.join(', ')}; duplicates ${emitDuplicates}; not ours ${emitForeign.join(', ')}; statuses ok ${emittedStatusOk}`,
		},
		{
			name: 'every file reached the service byte for byte (SHA-256, size, name)',
			ok: checksumsMatched === EXECUTIONS,
			detail: binaryMismatch.slice(0, 5).join('; '),
		},
		{
			name: `${EXECUTIONS} webhook executions stored, all successful`,
			ok: webhookExecutions.length === EXECUTIONS && failedExecutions.length === 0,
			detail: `${webhookExecutions.length} stored; not successful: ${failedExecutions.map((e) => `${e.id} ${e.status}`).join(', ')}`,
		},
		{
			name: 'every execution ran on exactly one worker, none on the main',
			ok: notOnWorker.length === 0 && !mainRanExecutions,
			detail: `${notOnWorker.slice(0, 10).join(', ')}${mainRanExecutions ? ' (the main ran executions)' : ''}`,
		},
		{
			name: 'every worker took a share of the webhook executions',
			ok: perWorker.every((w) => w.webhook > 0),
			detail: JSON.stringify(perWorker),
		},
		{
			name: 'the trigger ran on the main (its polls) and emitted through the workers',
			ok: triggerExecutions.length > 0 && triggerExecutions.every((e) => e.mode === 'trigger'),
			detail: `${triggerExecutions.length} trigger executions`,
		},
	];

	const pgVersion = pg.query('SHOW server_version').trim().split(' ')[0];
	const redisVersion =
		/v=(\S+)/.exec(spawnSync(tools.redisServer, ['--version'], { encoding: 'utf8' }).stdout)?.[1] ??
		'?';
	const passed = checks.filter((c) => c.ok).length;
	const failed = checks.length - passed;
	const lines = [
		'',
		`n8n ${n8n.version} queue mode: 1 main + ${WORKERS} workers (concurrency ${WORKER_CONCURRENCY} each), redis-server ${redisVersion} :${redis.port}, PostgreSQL ${pgVersion} :${pg.port}, binary data mode "database"`,
		`executions:             ${EXECUTIONS} (files ${totalMiB.toFixed(1)} MiB, ${files.filter((f) => f.size > 1024 * 1024).length} of 2 MiB), all POSTed at once`,
		`Runs created:           ${created.length} (distinct ids ${createdById.size})`,
		`Runs emitted:           ${emittedCount.size} distinct, ${emitted.length} items in ${triggerExecutions.length} trigger executions`,
		`duplicates:             created ${createDuplicates}, emitted ${emitDuplicates}`,
		`missing:                created ${createMissing.length}, emitted ${emitMissing.length}`,
		`binary checksums:       ${checksumsMatched}/${EXECUTIONS} matched`,
		`executions per worker:  ${perWorker.map((w) => `${w.name} ${w.webhook} webhook + ${w.trigger} trigger`).join(', ')}`,
		`webhook round trip:     median ${secs(pct(50))}, p95 ${secs(pct(95))}, max ${secs(latencies.at(-1) ?? 0)} (Run duration in the emulator ${secs(RUN_MS)}${LATENCY_MS ? `, ${LATENCY_MS} ms added to every answer` : ''})`,
		`peak memory (RSS):      ${[...peakRss].map(([name, mib]) => `${name} ${mib} MiB`).join(', ')} (each with its task runner)`,
		`wall time:              setup ${secs(setupMs)}; ${EXECUTIONS} webhook executions ${secs(driveMs)}; first call → every Run emitted ${allEmittedAt ? secs(wallMs) : 'not reached'}; total ${secs(Date.now() - t0)}`,
		'',
		...checks.map(
			(c) => `${c.ok ? 'PASS' : 'FAIL'}  ${c.name}${c.ok ? '' : `\n      ${c.detail}`}`,
		),
		'',
	];
	if (emitDuplicates > 0) {
		// Which trigger executions repeated Runs, and from which poll: a poll that began before an
		// earlier one had stored its state starts from that older state and emits its Runs again.
		const seen = new Set<number>();
		lines.push(
			'trigger executions (started on the worker; items; Runs already emitted by an earlier execution):',
		);
		for (const row of triggerExecutions) {
			const items = parsedTriggerData.get(row.id) ?? [];
			const again = items.filter((item) => seen.has(item.run_id)).length;
			for (const item of items) seen.add(item.run_id);
			const ids = items.map((item) => item.run_id);
			lines.push(
				`  ${row.id} ${row.startedAt}: ${items.length} items (Runs ${Math.min(...ids)}-${Math.max(...ids)}), ${again} repeated`,
			);
		}
		lines.push('');
	}
	process.stdout.write(lines.join('\n') + '\n');
	if (failed > 0) {
		process.stderr.write(`\n[queue] n8n main log tail:\n${tail(server.logFile, 4000)}\n`);
		for (const w of workers)
			process.stderr.write(`\n[queue] ${w.name} log tail:\n${tail(w.logFile, 3000)}\n`);
	}
	if (KEEP || failed > 0)
		log(`logs and data: ${root}${KEEP ? '' : ' (removed at exit; QUEUE_KEEP=1 keeps it)'}`);
	process.stdout.write(`queue: ${passed} passed, ${failed} failed\n`);
	return failed === 0 ? 0 : 1;
}

main()
	.then(async (code) => {
		await cleanup();
		process.exit(code);
	})
	.catch(async (err) => {
		process.stderr.write(`[queue] ${(err as Error).stack ?? err}\n`);
		await cleanup();
		process.exit(1);
	});
