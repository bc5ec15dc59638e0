/**
 * `npm run test:mains`: two n8n mains on one PostgreSQL database with n8n 2.41's durable
 * scheduler on (issue 28 item 5), the case docs/design/trigger-rules.md "Two n8n mains" describes.
 *
 *   1. n8n's own multi-main setup (N8N_MULTI_MAIN_SETUP_ENABLED=true, queue mode, redis): n8n
 *      refuses it without an Enterprise licence; its message is printed.
 *   2. Two plain `n8n start` processes (no multi-main flag, regular execution mode), each with the
 *      packed package in its own user folder, the same encryption key, one PostgreSQL database,
 *      distinct ports, N8N_SCHEDULER_ENABLED + N8N_SCHEDULER_POLL_TRIGGERS_ENABLED. The
 *      scheduler runs on every main (`enabled && instanceType === 'main'` in n8n's
 *      dist/scheduling/durable-scheduler.js): each poll occurrence is a row of scheduled_task
 *      that whichever main claims first runs (claimedBy = that main's host id). Once more with
 *      N8N_POLLER_DURABLE_CURSORS_ENABLED as well.
 *      The Extraction Agents Trigger polls one Agent every MAINS_POLL_SECONDS; the emulator gets
 *      Runs created over MAINS_MINUTES minutes, each finishing 5 s to 3 min later.
 *
 * Checks per way: both mains started; both mains took polls; every Run created after
 * activation and finished is emitted exactly once; nothing else emitted.
 * Prints which main ran how many polls (quiet and emitting) and executions, from n8n's debug log.
 *
 * Env: MAINS_WAYS (scheduler,durable-cursors), MAINS_POLL_SECONDS (10), MAINS_MINUTES (4),
 * MAINS_SEED (28), MAINS_LATENCY_MS (0, added to every answer of the emulator), MAINS_MULTI_MAIN=skip leaves step 1 out, QUEUE_KEEP=1 keeps the temporary
 * folder (logs, databases). Not part of `npm test`: ~10 minutes a way, ~2 GB of memory.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startEmulator, type Emulator } from '../../dev/emulator';
import { mulberry32 } from '../../dev/emulator/random';
import { host, OWNER, type N8nInstall, type N8nServer, type NodeRun } from '../../dev/n8n/session';
import { credentialJson } from '../../dev/n8n/workflows';
import {
	ensureDebianPackages,
	freePort,
	log,
	startPostgres,
	startRedis,
	type Postgres,
} from './services';
import { QUEUE_AGENT_ID, QUEUE_WORKFLOW_IDS, queueTriggerWorkflow } from './workflows';

const VERSION = process.env.N8N_E2E_VERSION || '2.41.1';
const num = (name: string, fallback: number) => {
	const value = Number(process.env[name]);
	return Number.isFinite(value) && value > 0 ? value : fallback;
};
const POLL_SECONDS = num('MAINS_POLL_SECONDS', 10);
const MINUTES = num('MAINS_MINUTES', 4);
const SEED = num('MAINS_SEED', 28);
const MAX_RUN_MS = 180_000;
/** Added to every answer of the emulator: at several seconds a poll outlasts the interval and
 * the next poll task starts on the other main while it runs. */
const LATENCY_MS = Number(process.env.MAINS_LATENCY_MS) || 0;
const KEEP = /^(1|true|yes)$/i.test(process.env.QUEUE_KEEP ?? '');
const SKIP_MULTI_MAIN = /^(skip|0|false|no)$/i.test(process.env.MAINS_MULTI_MAIN ?? '');
const ID_PREFIX = 'mains-';

const SCHEDULER_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
};
const WAYS: Record<string, Record<string, string>> = {
	scheduler: SCHEDULER_ENV,
	'durable-cursors': { ...SCHEDULER_ENV, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' },
};
const wayNames = (process.env.MAINS_WAYS ?? 'scheduler,durable-cursors')
	.split(',')
	.map((w) => w.trim())
	.filter(Boolean);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------
// Cleanup, as in run.ts: everything started here is stopped here, in reverse order.
// ---------------------------------------------------------------------------------------------

const stops: Array<{ name: string; stop: () => Promise<void>; kill: () => void }> = [];
async function stopFrom(index: number) {
	while (stops.length > index) {
		const item = stops.pop()!;
		try {
			await item.stop();
		} catch (err) {
			log(`stopping ${item.name}: ${(err as Error).message}`);
		}
	}
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
		void stopFrom(0).finally(() => process.exit(130));
	});
}

function tail(file: string, chars: number): string {
	try {
		return fs.readFileSync(file, 'utf8').slice(-chars);
	} catch {
		return '';
	}
}

function pgEnv(pg: Postgres, database: string): Record<string, string> {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
	};
}

// ---------------------------------------------------------------------------------------------
// 1. n8n's multi-main setup without a licence
// ---------------------------------------------------------------------------------------------

async function tryMultiMain(n8n: N8nInstall, pg: Postgres, redisPort: number, root: string) {
	const folder = path.join(root, 'multi-main');
	fs.mkdirSync(folder, { recursive: true });
	pg.query('CREATE DATABASE n8n_multi_main');
	const env = {
		...pgEnv(pg, 'n8n_multi_main'),
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		N8N_MULTI_MAIN_SETUP_ENABLED: 'true',
		...SCHEDULER_ENV,
	};
	const started = Date.now();
	try {
		const server = await host.startN8n(n8n, {
			userFolder: folder,
			port: await freePort(),
			env,
			quiet: true,
			readyTimeoutMs: 150_000,
		});
		await server.stop();
		return { refused: false, lines: ['n8n started with N8N_MULTI_MAIN_SETUP_ENABLED=true'] };
	} catch (err) {
		const logText = tail(path.join(folder, 'n8n.log'), 20_000);
		const lines = logText
			.split('\n')
			.filter((line) => /licen|multi-main|multipleMain|exited/i.test(line))
			.map((line) => line.trim())
			.filter((line, i, all) => line && !line.startsWith('at ') && all.indexOf(line) === i);
		log(`multi-main: n8n stopped after ${secs(Date.now() - started)}`);
		return { refused: true, lines: lines.length ? lines : [(err as Error).message.slice(0, 2000)] };
	}
}

// ---------------------------------------------------------------------------------------------
// 2. Two plain mains
// ---------------------------------------------------------------------------------------------

/**
 * In a container n8n's host id is `main-<hostname>` (n8n-core's instance-settings.js), and the
 * scheduler records it as the owner of each poll task it claims. Two containers have two
 * hostnames; two processes here would share one. When we may (root, `unshare --uts`), each main
 * runs in its own UTS namespace with a hostname of its own, as in two containers.
 */
let unshareWorks: boolean | undefined;
function ownHostname(n8n: N8nInstall, folder: string, name: string): N8nInstall {
	unshareWorks ??=
		spawnSync('unshare', ['--uts', 'sh', '-c', 'hostname two-mains-probe'], { stdio: 'ignore' })
			.status === 0;
	if (!unshareWorks) return n8n;
	const wrapper = path.join(folder, 'node-with-own-hostname.sh');
	fs.writeFileSync(
		wrapper,
		`#!/bin/sh\nexec unshare --uts /bin/sh -c 'hostname ${name.toLowerCase()} && exec "$0" "$@"' '${n8n.nodeBin}' "$@"\n`,
		{ mode: 0o755 },
	);
	return { ...n8n, nodeBin: wrapper };
}

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------

interface ExecutionRow {
	id: string;
	status: string;
	startedAt: string;
}

interface WayResult {
	way: string;
	lines: string[];
	checks: Array<{ name: string; ok: boolean; detail: string }>;
}

async function twoMains(
	n8n: N8nInstall,
	pg: Postgres,
	root: string,
	tgz: string,
	way: string,
): Promise<WayResult> {
	const t0 = Date.now();
	const stopIndex = stops.length;
	const database = `n8n_${way.replace(/\W/g, '_')}`;
	pg.query(`CREATE DATABASE ${database}`);
	const sql = (text: string) => pg.query(text, database);
	const emu: Emulator = await startEmulator({ logErrors: false, latencyMs: LATENCY_MS });
	stops.push({ name: `emulator (${way})`, stop: () => emu.stop(), kill: () => undefined });

	const names = ['main-A', 'main-B'] as const;
	const folders = names.map((name) => path.join(root, way, name));
	for (const folder of folders) {
		fs.mkdirSync(folder, { recursive: true });
		await host.installPackageInto(folder, tgz);
	}
	// Debug level: n8n logs each main's host id and each poll task it ran only at that level.
	const env = { ...pgEnv(pg, database), ...WAYS[way], N8N_LOG_LEVEL: 'debug' };
	const options = { userFolder: folders[0], env, quiet: true };
	await host.importCredentials(n8n, options, [credentialJson(emu.url, emu.keys.alice)]);
	await host.importWorkflows(n8n, options, [queueTriggerWorkflow(POLL_SECONDS)]);

	// Both at once, as an orchestrator restarting both would.
	const started = await Promise.allSettled(
		folders.map(async (folder, i) => {
			const server = await host.startN8n(ownHostname(n8n, folder, names[i]), {
				userFolder: folder,
				port: await freePort(),
				env,
				quiet: true,
			});
			stops.push({
				name: `${names[i]} (${way})`,
				stop: () => server.stop(),
				kill: () => undefined,
			});
			return server;
		}),
	);
	const failedStart = started
		.map((s, i) => (s.status === 'rejected' ? `${names[i]}: ${(s.reason as Error).message}` : ''))
		.filter(Boolean);
	if (failedStart.length) {
		await stopFrom(stopIndex);
		return {
			way,
			lines: [`the two mains did not both start:`, ...failedStart.map((l) => l.slice(0, 3000))],
			checks: [{ name: 'both mains started', ok: false, detail: failedStart.join('; ') }],
		};
	}
	const servers = started.map((s) => (s as PromiseFulfilledResult<N8nServer>).value);
	log(
		`${way}: ${names.map((n, i) => `${n} ${servers[i].url}`).join(', ')} (${secs(Date.now() - t0)})`,
	);
	const fullLog = (server: N8nServer) => fs.readFileSync(server.logFile, 'utf8');
	const hostIds = servers.map(
		(server) => /Scheduler started \{"hostId":"([^"]+)"/.exec(fullLog(server))?.[1] ?? '?',
	);

	const api = await host.setupOwner(servers[0].url, OWNER);
	await host.publishWorkflowRest(api, n8n.version, QUEUE_WORKFLOW_IDS.trigger);
	const pollPath = `/api/v1/client/agents/${QUEUE_AGENT_ID}/runs`;
	const polls = () =>
		emu.requestLog.filter((e) => e.method === 'GET' && e.path === pollPath && e.status === 200);
	const deadline = Date.now() + 90_000;
	while (polls().length === 0 && Date.now() < deadline) await sleep(200);
	if (polls().length === 0) throw new Error(`${way}: the trigger did not poll within 90 s`);
	const activatedAt = Date.now();
	log(`${way}: published on main-A, first poll seen; creating Runs for ${MINUTES} min ...`);

	// Runs created over MINUTES minutes, every 5-25 s, 1-3 at a time, finishing 5 s-3 min later.
	const rand = mulberry32(SEED + wayNames.indexOf(way));
	const created: number[] = [];
	const createUntil = Date.now() + MINUTES * 60_000;
	while (Date.now() < createUntil) {
		const count = 1 + Math.floor(rand() * 3);
		for (let i = 0; i < count; i++) {
			const durationMs = 5_000 + Math.floor(rand() * (MAX_RUN_MS - 5_000));
			const run = emu.createRun(
				QUEUE_AGENT_ID,
				[{ name: `${ID_PREFIX}${created.length + 1}.pdf` }],
				{ userDefinedId: `${ID_PREFIX}${created.length + 1}`, durationMs },
			);
			created.push(Number(run.run_id));
		}
		await sleep(5_000 + Math.floor(rand() * 20_000));
	}
	log(
		`${way}: ${created.length} Runs created; waiting until every one has finished and been emitted ...`,
	);

	const executions = (): ExecutionRow[] =>
		sql(
			`SELECT id, status, "startedAt" FROM execution_entity WHERE "workflowId" = '${QUEUE_WORKFLOW_IDS.trigger}' ORDER BY id`,
		)
			.split('\n')
			.filter(Boolean)
			.map((line) => {
				const [id, status, startedAt] = line.split('\t');
				return { id, status, startedAt };
			});
	const flatted = require(path.join(n8n.folder, 'node_modules', 'flatted')) as {
		parse(text: string): unknown;
	};
	const itemsOf = new Map<string, number[]>();
	const emitted = () => {
		const list: Array<{ runId: number; execution: string }> = [];
		for (const row of executions()) {
			if (!['success', 'error', 'crashed', 'canceled'].includes(row.status)) continue;
			if (!itemsOf.has(row.id)) {
				const text = sql(`SELECT data FROM execution_data WHERE "executionId" = ${Number(row.id)}`);
				const parsed = flatted.parse(text.replace(/\n$/, '')) as {
					resultData: { runData: Record<string, NodeRun[]> };
				};
				const items = parsed.resultData.runData['Run finished']?.[0]?.data?.main?.[0] ?? [];
				itemsOf.set(
					row.id,
					items.map((item) => Number(item.json.run_id)),
				);
			}
			for (const runId of itemsOf.get(row.id) ?? []) list.push({ runId, execution: row.id });
		}
		return list;
	};
	const finished = () =>
		created.filter((id) => emu.getRun(QUEUE_AGENT_ID, id)?.status !== 'running');
	// The longest Run, then the trigger's 2-minute skip after an emitting poll, then spare polls.
	const waitDeadline = Date.now() + MAX_RUN_MS + 180_000 + POLL_SECONDS * 6_000;
	for (;;) {
		const seen = new Set(emitted().map((e) => e.runId));
		if (finished().length === created.length && created.every((id) => seen.has(id))) break;
		if (Date.now() > waitDeadline) break;
		await sleep(2000);
	}
	// Four more poll intervals: a late duplicate shows up there.
	await sleep(POLL_SECONDS * 4_000 + 5_000);

	// What happened.
	const emittedNow = emitted();
	const counts = new Map<number, number>();
	for (const e of emittedNow) counts.set(e.runId, (counts.get(e.runId) ?? 0) + 1);
	const createdSet = new Set(created);
	const finishedIds = finished();
	const duplicates = [...counts].filter(([, n]) => n > 1);
	const lost = finishedIds.filter((id) => !counts.has(id));
	const foreign = [...counts.keys()].filter((id) => !createdSet.has(id));
	const stillRunning = created.length - finishedIds.length;

	// Who ran what, from each main's debug log: the scheduler's poll outcomes (with the task id)
	// and the executions each main started ("Execution added" with its id).
	const logs = servers.map(fullLog);
	const idsIn = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]);
	const perMain = logs.map((text) => ({
		emitting: idsIn(text, /Poll returned new data; handed off[^\n]*"taskId":"(\d+)"/g),
		quiet: idsIn(text, /Poll returned no new data[^\n]*"taskId":"(\d+)"/g),
		other: idsIn(
			text,
			/(?:Poll exceeded its timeout|Poll is backing off|Poll failed at runtime|Failed to commit the poll cursor)[^\n]*"taskId":"(\d+)"/g,
		),
		executions: new Set(idsIn(text, /Execution added \{"executionId":"(\d+)"/g)),
	}));
	const tasksOf = (i: number) => [...perMain[i].emitting, ...perMain[i].quiet, ...perMain[i].other];
	const taskOnBoth = tasksOf(0).filter((id) => tasksOf(1).includes(id));
	const ranOn = (execution: string) =>
		names.filter((_, i) => perMain[i].executions.has(execution)).join('+') || '?';
	// What the scheduler's table says: poll tasks by owner (host id) and status.
	const tasks = sql(
		`SELECT coalesce("claimedBy", '(none)'), status, count(*) FROM scheduled_task GROUP BY 1, 2 ORDER BY 1, 2`,
	)
		.split('\n')
		.filter(Boolean)
		.map((line) => line.split('\t'));
	const errors = logs.map((text) =>
		text
			.split('\n')
			// The trigger's own lines (its workflow, its poll tasks), not n8n phoning home.
			.filter(
				(line) =>
					/ \| (error|warn) +\|/.test(line) &&
					(line.includes(QUEUE_WORKFLOW_IDS.trigger) ||
						/Extraction Agents|Poll exceeded/.test(line)),
			)
			.slice(0, 5),
	);
	const execCount = executions().length;
	// Each emitting poll's Runs and the main that ran it, in execution order.
	const perExecution = [...itemsOf]
		.sort(([a], [b]) => Number(a) - Number(b))
		.map(([id, runIds]) => `${id}@${ranOn(id)}:${runIds.length}`);

	const lines = [
		`way: ${way} (${Object.entries(WAYS[way])
			.map(([k, v]) => `${k}=${v}`)
			.join(
				' ',
			)}), two plain mains, one PostgreSQL database, polls every ${POLL_SECONDS} s${LATENCY_MS ? `, ${LATENCY_MS} ms added to every answer` : ''}`,
		`host ids:               ${names.map((n, i) => `${n} ${hostIds[i]}`).join(', ')}`,
		`scheduled_task rows:    ${tasks.map(([by, status, n]) => `${by} ${status} ${n}`).join('; ')}`,
		`polls per main:         ${names.map((n, i) => `${n} ${tasksOf(i).length} (${perMain[i].emitting.length} emitting, ${perMain[i].quiet.length} quiet, ${perMain[i].other.length} other)`).join(', ')}; poll tasks run by both: ${taskOnBoth.length}`,
		`executions per main:    ${names.map((n, i) => `${n} ${perMain[i].executions.size}`).join(', ')}`,
		`emitting executions:    ${perExecution.join(' ')} (execution@main:items)`,
		`Runs created:           ${created.length} over ${MINUTES} min (finished ${finishedIds.length}, still running ${stillRunning})`,
		`Runs emitted:           ${counts.size} distinct, ${emittedNow.length} items in ${execCount} trigger executions`,
		`duplicates:             ${duplicates.length}${
			duplicates.length
				? ` (${duplicates
						.map(
							([id, n]) =>
								`${id}×${n} in executions ${emittedNow
									.filter((e) => e.runId === id)
									.map((e) => `${e.execution}@${ranOn(e.execution)}`)
									.join('+')}`,
						)
						.join(', ')})`
				: ''
		}`,
		`lost:                   ${lost.length}${lost.length ? ` (${lost.join(', ')})` : ''}`,
		`not ours emitted:       ${foreign.length}${foreign.length ? ` (${foreign.join(', ')})` : ''}`,
		`errors in n8n's logs:   ${errors.map((e, i) => `${names[i]} ${e.length ? e.join(' | ').slice(0, 600) : 'none'}`).join('; ')}`,
		`wall time:              ${secs(Date.now() - t0)} (activated ${secs(activatedAt - t0)} after start)`,
	];
	const checks = [
		{ name: `${way}: both mains started on one database`, ok: true, detail: '' },
		{
			name: `${way}: both mains ran poll tasks, none ran by both`,
			ok: names.every((_, i) => tasksOf(i).length > 0) && taskOnBoth.length === 0,
			detail: `${names.map((n, i) => `${n} ${tasksOf(i).length}`).join(', ')}; run by both ${taskOnBoth.join(', ')}`,
		},
		{
			name: `${way}: every Run finished after activation emitted exactly once`,
			ok:
				duplicates.length === 0 && lost.length === 0 && foreign.length === 0 && stillRunning === 0,
			detail: `duplicates ${duplicates.length}, lost ${lost.length}, not ours ${foreign.length}, still running ${stillRunning}`,
		},
	];
	if (KEEP) lines.push(`logs: ${folders.map((f) => path.join(f, 'n8n.log')).join(', ')}`);
	await stopFrom(stopIndex);
	return { way, lines, checks };
}

async function main(): Promise<number> {
	const t0 = Date.now();
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-mains-'));
	stops.push({
		name: 'temporary folder',
		stop: async () => {
			if (!KEEP) fs.rmSync(root, { recursive: true, force: true });
		},
		kill: () => undefined,
	});
	log(`n8n ${VERSION}: two mains on one PostgreSQL, ways ${wayNames.join(', ')}; folder ${root}`);
	for (const way of wayNames) if (!WAYS[way]) throw new Error(`unknown way in MAINS_WAYS: ${way}`);

	const tools = await ensureDebianPackages();
	const n8nPromise = host.ensureN8n(VERSION);
	const pg = await startPostgres(tools.pgBin, path.join(root, 'postgres'));
	stops.push({ name: 'PostgreSQL', stop: pg.stop, kill: pg.kill });
	const n8n = await n8nPromise;
	const tgz = await host.packPackage(path.join(root, 'pack'));

	const out: string[] = [''];
	const checks: WayResult['checks'] = [];
	if (!SKIP_MULTI_MAIN) {
		const redis = await startRedis(tools.redisServer, path.join(root, 'redis'));
		stops.push({ name: 'redis-server', stop: redis.stop, kill: redis.kill });
		log('multi-main: one main with N8N_MULTI_MAIN_SETUP_ENABLED=true in queue mode ...');
		const multi = await tryMultiMain(n8n, pg, redis.port, root);
		out.push(
			`multi-main (N8N_MULTI_MAIN_SETUP_ENABLED=true, queue mode): ${multi.refused ? 'refused' : 'started'}`,
			...multi.lines.map((line) => `  ${line.slice(0, 1500)}`),
			'',
		);
	}
	for (const way of wayNames) {
		try {
			const result = await twoMains(n8n, pg, root, tgz, way);
			for (const line of result.lines) log(`${way}: ${line}`);
			out.push(...result.lines, '');
			checks.push(...result.checks);
		} catch (err) {
			out.push(`way ${way}: ${(err as Error).stack ?? err}`, '');
			checks.push({ name: `${way}: ran to the end`, ok: false, detail: (err as Error).message });
		}
	}
	const failed = checks.filter((c) => !c.ok).length;
	out.push(
		...checks.map(
			(c) => `${c.ok ? 'PASS' : 'FAIL'}  ${c.name}${c.ok ? '' : `\n      ${c.detail}`}`,
		),
		'',
		`total ${secs(Date.now() - t0)}`,
		`mains: ${checks.length - failed} passed, ${failed} failed`,
	);
	process.stdout.write(out.join('\n') + '\n');
	if (KEEP) log(`logs and data: ${root}`);
	return failed === 0 ? 0 : 1;
}

main()
	.then(async (code) => {
		await stopFrom(0);
		process.exit(code);
	})
	.catch(async (err) => {
		process.stderr.write(`[mains] ${(err as Error).stack ?? err}\n`);
		await stopFrom(0);
		process.exit(1);
	});
