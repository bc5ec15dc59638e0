/**
 * Generated failing links against an oracle: no secret of a link reaches anything the node
 * produces. Each case is a link in one of the forms users paste (S3, Azure SAS and Google
 * Cloud Storage presigned links, Dropbox, OneDrive and SharePoint share links, a plain
 * `?token=`, parameters of unknown names, a `user:password@`), on the loopback link host
 * (dev/links/host.ts), that fails in one of the ways a link fails (404, a web page with or
 * without a Content-Type, a refused connection, not a web address, a redirect to something
 * that is not, a stall, silence, an encoding n8n cannot unpack, a header too long, a download
 * cut short, a size announced over the limit; or not at all), reached directly or through
 * redirects, with On Error stop or continue.
 * Oracle, per case:
 *   - the node fails the item, with a message that names the link's host (or, for a link that
 *     works, makes its Run: its output item is searched like an error);
 *   - no secret value (raw as in the link, or decoded) is in error.message, error.description,
 *     any output item, the run data n8n keeps, or any line the node or n8n logged (n8n's
 *     logger, at every level, and the console). Left out: an error's `node`, the node as the
 *     workflow defines it, whose parameters hold the link as typed (the workflow itself; n8n
 *     logs it at debug level with a failed execution's error);
 *   - a shown link with a query keeps its parameter names (`X-Amz-Signature=***`).
 * A failing case prints its seed and the case shrunk to the fewest features; add the seed to
 * REPLAYED to keep it.
 */
import { LoggerProxy } from 'n8n-workflow';
import { mulberry32 } from '../../dev/emulator/random';
import { executeNode, useHarness } from '../../dev/harness';
import { startLinkHost, type LinkHost } from '../../dev/links/host';
import { createRunParameters, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

const logged: string[] = [];
let loggedInAll = 0;
const record =
	(level: string) =>
	(message: string, meta?: object): void => {
		logged.push(`${level} ${message} ${meta ? safeJson(meta) : ''}`);
	};

let host: LinkHost;
let restoreConsole: () => void = () => undefined;
let restoreLogger: () => void = () => undefined;
beforeAll(async () => {
	host = await startLinkHost();
	LoggerProxy.init({
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
	});
	// n8n's own logger (n8n-core's, the node's `this.logger`) takes LoggerProxy over once made:
	// every line it is given passes its `log`, whatever the level lets through.
	const { Logger } = require('@n8n/backend-common') as {
		Logger: { prototype: { log: (level: string, message: string, meta?: object) => void } };
	};
	const originalLog = Logger.prototype.log;
	Logger.prototype.log = function (level, message, meta) {
		record(level)(message, meta);
		originalLog.call(this, level, message, meta ?? {});
	};
	restoreLogger = () => (Logger.prototype.log = originalLog);
	const levels = ['log', 'info', 'warn', 'error', 'debug'] as const;
	const originals = levels.map((level) => console[level]);
	levels.forEach((level, index) => {
		console[level] = (...args: unknown[]) => {
			logged.push(args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' '));
			originals[index].apply(console, args);
		};
	});
	restoreConsole = () => levels.forEach((level, index) => (console[level] = originals[index]));
});
afterAll(async () => {
	restoreConsole();
	restoreLogger();
	await host.stop();
});

function safeJson(value: unknown): string {
	const seen = new WeakSet<object>();
	return (
		JSON.stringify(value, (key, inner: unknown) => {
			if (Buffer.isBuffer(inner)) return '[buffer]';
			// The node as the workflow defines it (an error's `node`): its parameters hold the
			// link as the user typed it, which is the workflow itself, not something the node said.
			if (key === 'node' && inner && typeof inner === 'object' && 'parameters' in inner)
				return '[the node]';
			if (inner && typeof inner === 'object') {
				if (seen.has(inner)) return '[circular]';
				seen.add(inner);
				if (inner instanceof Error) {
					const error = inner as Error & { description?: unknown; cause?: unknown };
					return {
						...error,
						message: error.message,
						description: error.description,
						stack: error.stack,
						cause: error.cause,
					};
				}
			}
			return inner;
		}) ?? ''
	);
}

const FORMS = [
	's3',
	'azure-sas',
	'gcs',
	'dropbox',
	'dropbox-legacy',
	'onedrive',
	'sharepoint',
	'token',
	'jwt-path',
	'jwt-last',
	'unknown',
] as const;
const FAILURES = [
	'missing',
	'page',
	'untyped-page',
	'refused',
	'not-web',
	'stall',
	'silent',
	'gzip-twice',
	'zstd',
	'long-header',
	'short',
	'too-large',
	// Not a failure: the Run is made, and its output item is searched too.
	'none',
] as const;

interface SecretCase {
	seed: number;
	form: (typeof FORMS)[number];
	failure: (typeof FAILURES)[number];
	password: boolean;
	/** Redirect hops before the link itself; -1: reached directly. */
	hops: number;
	extra: number;
	continueOnFail: boolean;
}

function generate(seed: number): SecretCase {
	const random = mulberry32(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	return {
		seed,
		form: pick(FORMS),
		failure: pick(FAILURES),
		password: random() < 0.25,
		hops: random() < 0.3 ? Math.floor(random() * 3) : -1,
		extra: random() < 0.3 ? 1 + Math.floor(random() * 3) : 0,
		continueOnFail: random() < 0.4,
	};
}

interface Parameter {
	name: string;
	/** As written in the link (percent-encoded where the form encodes). */
	value: string;
	secret: boolean;
}

interface LinkParts {
	path: string;
	query: Parameter[];
	/** Secrets outside the query: path tokens, the password. */
	secrets: string[];
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = `${LOWER}${LOWER.toUpperCase()}${DIGITS}`;
const HEX = '0123456789abcdef';

/** The link's parts for a case; `seed` draws its secrets, so a shrunk case keeps them. */
function partsOf(testCase: SecretCase): LinkParts {
	const random = mulberry32(testCase.seed ^ 0x5eed);
	const token = (length: number, alphabet = ALNUM): string => {
		// A letter and a digit first, so that every token is one (and never a plain word).
		let text = `${LOWER[Math.floor(random() * 26)]}${DIGITS[Math.floor(random() * 10)]}`;
		while (text.length < length) text += alphabet[Math.floor(random() * alphabet.length)];
		return text;
	};
	const base64 = (length: number) =>
		encodeURIComponent(`${token(length, `${ALNUM}+/`)}=`).replace(/%2F/g, '%2F');
	const secret = (name: string, value: string): Parameter => ({ name, value, secret: true });
	const plain = (name: string, value: string): Parameter => ({ name, value, secret: false });
	const n = Math.floor(random() * 1000);
	let parts: LinkParts;
	switch (testCase.form) {
		case 's3':
			parts = {
				path: `/invoices-bucket/2026/inv-${n}.pdf`,
				query: [
					plain('X-Amz-Algorithm', 'AWS4-HMAC-SHA256'),
					secret(
						'X-Amz-Credential',
						`AKIA${token(16, `${LOWER.toUpperCase()}${DIGITS}`)}%2F20261128%2Feu-west-1%2Fs3%2Faws4_request`,
					),
					plain('X-Amz-Date', '20261128T050000Z'),
					plain('X-Amz-Expires', '900'),
					plain('X-Amz-SignedHeaders', 'host'),
					secret('X-Amz-Security-Token', base64(120)),
					secret('X-Amz-Signature', token(64, HEX)),
				],
				secrets: [],
			};
			break;
		case 'azure-sas':
			parts = {
				path: `/scans/scan-${n}.pdf`,
				query: [
					plain('sv', '2022-11-02'),
					plain('ss', 'b'),
					plain('srt', 'o'),
					plain('sp', 'r'),
					plain('se', '2026-11-28T06%3A00%3A00Z'),
					plain('st', '2026-11-28T05%3A00%3A00Z'),
					plain('spr', 'https'),
					secret('sig', base64(43)),
				],
				secrets: [],
			};
			break;
		case 'gcs':
			parts = {
				path: `/reports-bucket/report-${n}.pdf`,
				query: [
					plain('X-Goog-Algorithm', 'GOOG4-RSA-SHA256'),
					secret(
						'X-Goog-Credential',
						`svc-${token(10, LOWER + DIGITS)}%40project-${n}.iam.gserviceaccount.com%2F20261128%2Fauto%2Fstorage%2Fgoog4_request`,
					),
					plain('X-Goog-Date', '20261128T050000Z'),
					plain('X-Goog-Expires', '900'),
					plain('X-Goog-SignedHeaders', 'host'),
					secret('X-Goog-Signature', token(256, HEX)),
				],
				secrets: [],
			};
			break;
		case 'dropbox':
			parts = {
				path: `/scl/fi/${token(21, LOWER + DIGITS)}/Invoice%20${n}.pdf`,
				query: [
					secret('rlkey', token(25, LOWER + DIGITS)),
					secret('st', token(8, LOWER + DIGITS)),
					plain('dl', random() < 0.5 ? '0' : '1'),
				],
				secrets: [],
			};
			break;
		case 'dropbox-legacy': {
			const share = token(15, LOWER + DIGITS);
			parts = {
				path: `/s/${share}/Invoice-${n}.pdf`,
				query: [plain('dl', '0')],
				secrets: [share],
			};
			break;
		}
		case 'onedrive': {
			const share = `s!${token(26, `${ALNUM}-_`)}`;
			parts = {
				path: `/u/${share}`,
				query: [secret('e', token(6))],
				secrets: [share],
			};
			break;
		}
		case 'sharepoint': {
			const share = `E${token(45, `${ALNUM}-_`)}`;
			parts = {
				path: `/:b:/g/personal/jdoe_contoso_com/${share}`,
				query: [secret('e', token(6))],
				secrets: [share],
			};
			break;
		}
		case 'token':
			parts = { path: `/files/report-${n}.pdf`, query: [secret('token', token(32))], secrets: [] };
			break;
		case 'jwt-path': {
			// A signed token as a path segment (download services that put a JWT in the path):
			// it has dots, as a file name has.
			const pieces = [
				`eyJ${token(17, `${ALNUM}-_`)}`,
				token(40, `${ALNUM}-_`),
				token(43, `${ALNUM}-_`),
			];
			parts = {
				path: `/download/${pieces.join('.')}/report-${n}.pdf`,
				query: [],
				secrets: pieces,
			};
			break;
		}
		case 'jwt-last': {
			// The token is the link's last segment: no file name to take from the path.
			const pieces = [
				`eyJ${token(17, `${ALNUM}-_`)}`,
				token(40, `${ALNUM}-_`),
				token(43, `${ALNUM}-_`),
			];
			parts = { path: `/d/${pieces.join('.')}`, query: [], secrets: pieces };
			break;
		}
		case 'unknown':
			parts = {
				path: `/download/doc-${n}.pdf`,
				query: [secret(`q${token(5, LOWER)}`, token(20))],
				secrets: [],
			};
			break;
	}
	for (let index = 0; index < testCase.extra; index++) {
		parts.query.push(secret(`x${token(4, LOWER)}`, token(12 + Math.floor(random() * 30))));
	}
	if (testCase.password) parts.secrets.push(`pw-${token(14)}`);
	return parts;
}

/** Every secret of a case, raw and decoded. */
function secretsOf(parts: LinkParts): string[] {
	const raw = [...parts.secrets, ...parts.query.filter((p) => p.secret).map((p) => p.value)];
	const decoded = raw.map((value) => {
		try {
			return decodeURIComponent(value);
		} catch {
			return value;
		}
	});
	return [...new Set([...raw, ...decoded])].filter((value) => value.length >= 6);
}

const PREFIX: Record<(typeof FAILURES)[number], string> = {
	missing: '/missing',
	page: '/page',
	'untyped-page': '/untyped-page',
	refused: '',
	'not-web': '/file',
	stall: '/stall',
	silent: '/silent',
	'gzip-twice': '/gzip-twice',
	zstd: '/encoded/zstd',
	'long-header': '/long-header/20000',
	short: '/short',
	'too-large': '/announced/300000000',
	none: '/file',
};

/** The link a user would give for the case, and the address it names before any redirect. */
function linkOf(testCase: SecretCase, parts: LinkParts): string {
	const query = parts.query.map((p) => `${p.name}=${p.value}`).join('&');
	let origin = testCase.failure === 'refused' ? host.url.replace(/:\d+$/, ':9') : host.url;
	if (testCase.failure === 'not-web') origin = origin.replace(/^http:/, 'ftp:');
	if (testCase.password) {
		const password = parts.secrets[parts.secrets.length - 1];
		origin = origin.replace('://', `://anna:${password}@`);
	}
	const address = `${origin}${PREFIX[testCase.failure]}${parts.path}${query ? `?${query}` : ''}`;
	if (testCase.hops < 0) return address;
	return host.link(`/redirect/${testCase.hops}/go.pdf?to=${encodeURIComponent(address)}`);
}

const TIMEOUT_SECONDS = 1;

/** What the oracle found wrong with a case, or undefined. */
async function violations(testCase: SecretCase): Promise<string | undefined> {
	const parts = partsOf(testCase);
	const link = linkOf(testCase, parts);
	loggedInAll += logged.length;
	logged.length = 0;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: createRunParameters({
			binarySource: 'links',
			fileLinks: link,
			waitForCompletion: false,
			options: { requestTimeout: TIMEOUT_SECONDS },
		}),
		inputItems: [{ json: {} }],
		continueOnFail: testCase.continueOnFail,
	});
	const error = result.error ?? result.nodeError;
	const errorJson = result.items[0]?.json?.error;
	const message =
		error?.message ??
		(typeof errorJson === 'string' ? errorJson : String(result.items[0]?.json?.message ?? ''));
	const succeeded = testCase.failure === 'none';
	if (succeeded && (error || result.items[0]?.json?.run_id === undefined))
		return `the item did not make its Run: ${message || safeJson(result.items)}`;
	if (!succeeded && !error && errorJson === undefined)
		return `the item did not fail: ${safeJson(result.items)}`;
	if (!succeeded && !message.includes('127.0.0.1'))
		return `the message does not name the link's host: ${message}`;
	const produced = [
		message,
		(error as { description?: string } | undefined)?.description ?? '',
		safeJson(error),
		safeJson(result.items),
		safeJson(result.outputs),
		safeJson(result.runData),
		...logged,
	].join('\n');
	for (const secret of secretsOf(parts)) {
		if (produced.includes(secret)) {
			const where = message.includes(secret)
				? `error.message: ${message}`
				: produced.slice(Math.max(0, produced.indexOf(secret) - 200), produced.indexOf(secret));
			return `secret ${secret.slice(0, 8)}… shown (${where})`;
		}
	}
	// The shown link keeps its parameters' names: the user can still tell which link it is.
	const named = succeeded ? [] : testCase.hops < 0 ? parts.query.map((p) => p.name) : ['to'];
	const missing = named.filter((name) => !message.includes(`${name}=`));
	if (missing.length > 0) return `the message leaves out the parameter ${missing[0]}: ${message}`;
	return undefined;
}

/** The case with as few features as still fail. */
async function shrink(testCase: SecretCase): Promise<SecretCase> {
	let current = testCase;
	for (let changed = true; changed; ) {
		changed = false;
		const smaller: SecretCase[] = [
			...(current.password ? [{ ...current, password: false }] : []),
			...(current.hops >= 0 ? [{ ...current, hops: current.hops - 1 }] : []),
			...(current.extra > 0 ? [{ ...current, extra: current.extra - 1 }] : []),
			...(current.continueOnFail ? [{ ...current, continueOnFail: false }] : []),
			...(current.failure !== 'missing' ? [{ ...current, failure: 'missing' as const }] : []),
			...(current.form !== 'token' ? [{ ...current, form: 'token' as const }] : []),
		];
		for (const candidate of smaller) {
			if (await violations(candidate)) {
				current = candidate;
				changed = true;
				break;
			}
		}
	}
	return current;
}

/** Seeds that once failed, replayed on every run whatever SECRET_SEED says. */
const REPLAYED: number[] = [];
const CASES = Number(process.env.SECRET_CASES ?? 120);
const FIRST_SEED = Number(process.env.SECRET_SEED ?? 20261128);

describe('generated failing links: no secret of a link in any message, output or log', () => {
	it(`holds for ${CASES} generated links and the replayed seeds`, async () => {
		const seeds = [...REPLAYED, ...Array.from({ length: CASES }, (_, index) => FIRST_SEED + index)];
		const forms = new Set<string>();
		const failures = new Set<string>();
		for (const seed of seeds) {
			const testCase = generate(seed);
			forms.add(testCase.form);
			failures.add(testCase.failure);
			const problem = await violations(testCase);
			if (problem) {
				const shrunk = await shrink(testCase);
				throw new Error(
					`seed ${seed}: ${problem}\nshrunk case: ${JSON.stringify(shrunk)}\nlink: ${linkOf(shrunk, partsOf(shrunk))}`,
				);
			}
		}
		// What n8n logs was captured (the oracle read something), and every form and every
		// failure was drawn, so the oracle was put to each.
		expect(loggedInAll).toBeGreaterThan(0);
		expect([...forms].sort()).toEqual([...FORMS].sort());
		expect([...failures].sort()).toEqual([...FAILURES].sort());
	}, 600_000);
});
