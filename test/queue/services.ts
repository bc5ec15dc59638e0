/**
 * Debian's redis-server and PostgreSQL for `npm run test:queue`, run as this test's own
 * processes: loopback only, free ports, data in a temporary folder, stopped at the end. Nothing
 * is registered with the system (no pg_ctlcluster, no service units).
 *
 * When either is missing and we are root on a Debian machine, they are installed with
 * `apt-get update && apt-get install -y redis-server postgresql` (progress is printed).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { host } from '../../dev/n8n/session';

export const log = (message: string) => process.stderr.write(`[queue] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free TCP port on 127.0.0.1 (the one helper dev/n8n/host.ts has). */
export const freePort = (): Promise<number> => host.freePort();

function which(command: string): string | undefined {
	const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
	const found = result.stdout.trim();
	return result.status === 0 && found ? found : undefined;
}

/** The newest /usr/lib/postgresql/<version>/bin that has initdb, pg_ctl and createdb. */
function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter(
			(v) =>
				/^\d+(\.\d+)?$/.test(v) &&
				['initdb', 'pg_ctl', 'createdb'].every((b) => fs.existsSync(path.join(root, v, 'bin', b))),
		)
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

/** Runs a command with its output prefixed on stderr; rejects on a non-zero exit. */
function runVisible(
	command: string,
	args: string[],
	env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
		const forward = (chunk: Buffer) => {
			for (const line of chunk.toString('utf8').split(/[\r\n]+/)) {
				// dpkg's "(Reading database ... 35%" counter is one line per step: keep the last only.
				if (line.trim() && !/^\(Reading database \.\.\. \d+%$/.test(line.trim()))
					process.stderr.write(`[queue] [apt] ${line}\n`);
			}
		};
		child.stdout.on('data', forward);
		child.stderr.on('data', forward);
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0
				? resolve()
				: reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
		);
	});
}

export interface DebianTools {
	redisServer: string;
	pgBin: string;
}

/** redis-server and PostgreSQL's binaries; installs Debian's packages when one is missing. */
export async function ensureDebianPackages(): Promise<DebianTools> {
	let redisServer = which('redis-server');
	let pgBin = postgresBinDir();
	if (redisServer && pgBin) return { redisServer, pgBin };
	const missing = [!redisServer && 'redis-server', !pgBin && 'postgresql'].filter(
		Boolean,
	) as string[];
	const isRoot = process.getuid?.() === 0;
	if (!isRoot || !which('apt-get')) {
		throw new Error(
			`missing: ${missing.join(', ')}. Install them (Debian/Ubuntu: sudo apt-get install -y ${missing.join(' ')}) and run again.`,
		);
	}
	const started = Date.now();
	log(
		`installing Debian packages: ${missing.join(', ')} (apt-get update, then apt-get install -y) ...`,
	);
	// Non-interactive, and no service started by the packages' scripts: this test runs its own.
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await runVisible('apt-get', ['update'], env);
	await runVisible('apt-get', ['install', '-y', '--no-install-recommends', ...missing], env);
	redisServer = which('redis-server');
	pgBin = postgresBinDir();
	if (!redisServer || !pgBin)
		throw new Error(
			`apt-get install ${missing.join(' ')} finished, but redis-server / PostgreSQL's initdb are still missing`,
		);
	log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
	return { redisServer, pgBin };
}

export interface Service {
	port: number;
	logFile: string;
	stop(): Promise<void>;
	/** Last resort on process exit: synchronous. */
	kill(): void;
}

/** redis-server on 127.0.0.1:port, in the foreground as our child, without persistence. */
export async function startRedis(redisServer: string, dir: string): Promise<Service> {
	fs.mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const logFile = path.join(dir, 'redis.log');
	const out = fs.openSync(logFile, 'a');
	const child: ChildProcess = spawn(
		redisServer,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--dir',
			dir,
		],
		{ stdio: ['ignore', out, out] },
	);
	fs.closeSync(out);
	let exited = false;
	const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
	const deadline = Date.now() + 20_000;
	while (!(await host.portInUse(port))) {
		if (exited)
			throw new Error(
				`redis-server exited at start:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`,
			);
		if (Date.now() > deadline) {
			child.kill('SIGKILL');
			throw new Error('redis-server did not listen within 20 s');
		}
		await sleep(100);
	}
	return {
		port,
		logFile,
		async stop() {
			if (exited) return;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
			await exit;
			clearTimeout(timer);
		},
		kill() {
			if (!exited) child.kill('SIGKILL');
		},
	};
}

export interface Postgres extends Service {
	user: string;
	password: string;
	database: string;
	/** Runs SQL with psql (in `database`, or n8n's); returns its unaligned, tab-separated output. */
	query(sql: string, database?: string): string;
}

/**
 * A PostgreSQL cluster of its own: initdb into `dir`, pg_ctl start on 127.0.0.1:port (socket in
 * the same folder), a database and a password-protected user for n8n. PostgreSQL refuses to run
 * as root: as root, its commands run as the `postgres` system user (runuser), which owns `dir`.
 */
export async function startPostgres(pgBin: string, dir: string): Promise<Postgres> {
	const port = await freePort();
	const user = 'n8n';
	const password = 'queue-test-password';
	const database = 'n8n';
	const dataDir = path.join(dir, 'data');
	const logFile = path.join(dir, 'postgres.log');
	const pwFile = path.join(dir, 'pwfile');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(pwFile, `${password}\n`);
	const isRoot = process.getuid?.() === 0;
	let asUser = (command: string, args: string[]) => ({ command, args });
	if (isRoot) {
		const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
		const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
		if (!Number.isInteger(uid) || uid <= 0)
			throw new Error(
				'running as root, but there is no `postgres` system user to run PostgreSQL as',
			);
		// Every parent folder must be traversable by that user.
		for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
			const mode = fs.statSync(d).mode;
			if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o011);
		}
		fs.chownSync(dir, uid, gid);
		fs.chownSync(pwFile, uid, gid);
		asUser = (command, args) => ({
			command: 'runuser',
			args: ['-u', 'postgres', '--', command, ...args],
		});
	}
	const exec = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
		const call = asUser(command, args);
		const result = spawnSync(call.command, call.args, {
			encoding: 'utf8',
			env,
			cwd: dir,
			timeout: 120_000,
		});
		if (result.status !== 0) {
			throw new Error(
				`${path.basename(command)} failed (exit ${result.status}):\n${(result.stdout ?? '') + (result.stderr ?? '')}`.slice(
					0,
					4000,
				),
			);
		}
		return result.stdout;
	};
	const bin = (name: string) => path.join(pgBin, name);
	exec(bin('initdb'), [
		'-D',
		dataDir,
		'-U',
		user,
		`--pwfile=${pwFile}`,
		'--auth=scram-sha-256',
		'-E',
		'UTF8',
		'--no-locale',
		'--no-sync',
	]);
	fs.rmSync(pwFile, { force: true });
	const serverOptions = [
		`-p ${port}`,
		"-c listen_addresses='127.0.0.1'",
		`-c unix_socket_directories='${dir}'`,
		'-c fsync=off', // a throw-away cluster: durability buys nothing here
		'-c synchronous_commit=off',
		'-c full_page_writes=off',
	].join(' ');
	exec(bin('pg_ctl'), [
		'-D',
		dataDir,
		'-l',
		logFile,
		'-w',
		'-t',
		'60',
		'-o',
		serverOptions,
		'start',
	]);
	let stopped = false;
	const pgEnv = { ...process.env, PGPASSWORD: password };
	exec(bin('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, database], pgEnv);
	const stopArgs = (mode: string) => ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop'];
	return {
		port,
		logFile,
		user,
		password,
		database,
		query(sql: string, inDatabase = database) {
			return exec(
				bin('psql'),
				[
					'-h',
					'127.0.0.1',
					'-p',
					String(port),
					'-U',
					user,
					'-d',
					inDatabase,
					'-At',
					'-F',
					'\t',
					'-v',
					'ON_ERROR_STOP=1',
					'-c',
					sql,
				],
				pgEnv,
			);
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			exec(bin('pg_ctl'), stopArgs('fast'));
		},
		kill() {
			if (stopped) return;
			stopped = true;
			const call = asUser(bin('pg_ctl'), stopArgs('immediate'));
			spawnSync(call.command, call.args, { stdio: 'ignore', timeout: 30_000 });
		},
	};
}
