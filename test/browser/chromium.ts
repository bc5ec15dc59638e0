/**
 * Debian's Chromium for the browser tests, driven by playwright-core (which never downloads a
 * browser of its own: it is pointed at /usr/bin/chromium).
 *
 * ensureChromium() installs the Debian package `chromium` with apt when it is missing (the
 * machines this project runs on are Debian, and the tests run as root there). When that is not
 * possible it throws with a message that says what to do: the browser test fails rather than
 * skipping silently. CHROMIUM_PATH points at another Chromium instead.
 */
import * as fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { aptUnavailableReason, installWithApt, onPath } from '../../dev/harness/apt';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Flags for this machine's closed network: without the background-networking ones Chromium keeps
 * trying to reach Google's hosts at start and gets refused. Playwright adds --headless and a fresh
 * temporary --user-data-dir (removed when the browser closes).
 */
export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

function log(message: string) {
	process.stderr.write(`[chromium] ${message}\n`);
}

function isExecutable(file: string) {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

const HOW_TO = `install Debian's Chromium yourself (as root: apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH to a Chromium binary, or leave the browser test out with N8N_BROWSER=skip`;

/** The Chromium binary; installs Debian's `chromium` package with apt first when it is missing. */
export async function ensureChromium(): Promise<string> {
	if (isExecutable(CHROMIUM_PATH)) return CHROMIUM_PATH;
	if (process.env.CHROMIUM_PATH)
		throw new Error(`CHROMIUM_PATH=${CHROMIUM_PATH} is not an executable file`);
	if (process.platform !== 'linux' || !onPath('apt-get')) {
		throw new Error(
			`Chromium is not installed (${CHROMIUM_PATH} is missing) and apt-get is not available here to install it: ${HOW_TO}`,
		);
	}
	log(`${CHROMIUM_PATH} is missing`);
	await installChromiumWithApt();
	if (!isExecutable(CHROMIUM_PATH))
		throw new Error(
			`apt installed the chromium package but ${CHROMIUM_PATH} is still missing: ${HOW_TO}`,
		);
	return CHROMIUM_PATH;
}

/** `apt-get update && apt-get install -y chromium`, as root or with passwordless sudo, output streamed to stderr. */
export async function installChromiumWithApt(): Promise<void> {
	const unavailable = aptUnavailableReason();
	if (unavailable)
		throw new Error(
			`Chromium is not installed (${CHROMIUM_PATH} is missing) and ${unavailable}: ${HOW_TO}`,
		);
	try {
		await installWithApt('chromium', 'chromium');
	} catch (err) {
		throw new Error(`installing Chromium with apt failed: ${(err as Error).message}\n${HOW_TO}`);
	}
}

/** Headless Debian Chromium, installed first when missing. */
export async function launchChromium(): Promise<Browser> {
	const executablePath = await ensureChromium();
	return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}
