/**
 * Debian packages the tests need (Chromium for the editor test, python3-multipart for the
 * upload encoding test), installed with apt when missing: the machines this project runs
 * on are Debian, and the tests run as root there.
 */
import { spawn, spawnSync } from 'node:child_process';

export function onPath(command: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Runs a command, its output streamed to stderr line by line with `[prefix]`. */
export function runLogged(
	prefix: string,
	command: string,
	args: string[],
	timeoutMs: number,
): Promise<void> {
	return new Promise((resolve, reject) => {
		process.stderr.write(`[${prefix}] $ ${command} ${args.join(' ')}\n`);
		const child = spawn(command, args, {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let tail = '';
		const forward = (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			tail = (tail + text).slice(-4000);
			for (const line of text.split('\n'))
				if (line.trim()) process.stderr.write(`[${prefix}]   ${line.trimEnd()}\n`);
		};
		child.stdout.on('data', forward);
		child.stderr.on('data', forward);
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('exit', (code, signal) => {
			clearTimeout(timer);
			if (code === 0) resolve();
			else
				reject(
					new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${tail}`),
				);
		});
	});
}

/** Why apt cannot be used here, or undefined when it can (Linux with apt-get, as root or with passwordless sudo). */
export function aptUnavailableReason(): string | undefined {
	if (process.platform !== 'linux' || !onPath('apt-get')) return 'apt-get is not available here';
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	const sudo =
		!root && onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
	if (!root && !sudo)
		return 'this user can neither run apt-get as root nor use sudo without a password';
	return undefined;
}

/** `apt-get update && apt-get install -y <package>`, as root or with passwordless sudo, output streamed to stderr. */
export async function installWithApt(packageName: string, prefix: string): Promise<void> {
	const unavailable = aptUnavailableReason();
	if (unavailable) throw new Error(`cannot install ${packageName}: ${unavailable}`);
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	const apt = (args: string[], timeoutMs: number) =>
		root
			? runLogged(prefix, 'apt-get', args, timeoutMs)
			: runLogged(prefix, 'sudo', ['-n', 'apt-get', ...args], timeoutMs);
	const started = Date.now();
	process.stderr.write(`[${prefix}] installing Debian's ${packageName} package with apt\n`);
	await apt(['update'], 10 * 60_000);
	await apt(['install', '-y', '-o', 'DPkg::Lock::Timeout=300', packageName], 20 * 60_000);
	process.stderr.write(
		`[${prefix}] apt finished in ${Math.round((Date.now() - started) / 1000)} s\n`,
	);
}
