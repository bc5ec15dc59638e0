/**
 * Secret hygiene across the whole suite: every API key a test hands the
 * harness as a credential is remembered, and everything the nodes produce through the
 * harness — output items, errors (message, description, cause, what n8n stores of
 * them), run data, trigger static data — and every console line of the test file is
 * searched for it. `useHarness()` fails the file in its afterAll when one shows up.
 */
const secrets = new Set<string>();
const violations: string[] = [];
const consoleLines: string[] = [];

/** Keys shorter than this are test noise ("x"), not secrets worth scanning for. */
const MIN_SECRET_LENGTH = 12;

export function rememberSecret(apiKey: unknown): void {
	if (typeof apiKey === 'string' && apiKey.trim().length >= MIN_SECRET_LENGTH)
		secrets.add(apiKey.trim());
}

function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		return (
			JSON.stringify(value, (_key, inner: unknown) => {
				if (Buffer.isBuffer(inner)) return '[buffer]';
				if (inner && typeof inner === 'object') {
					if (seen.has(inner)) return '[circular]';
					seen.add(inner);
					if (inner instanceof Error) {
						const error = inner as Error & {
							description?: unknown;
							cause?: unknown;
							toJSON?: () => unknown;
						};
						return {
							...error,
							message: error.message,
							description: error.description,
							stack: error.stack,
							cause: error.cause,
							json: typeof error.toJSON === 'function' ? error.toJSON() : undefined,
						};
					}
				}
				return inner;
			}) ?? ''
		);
	} catch (error) {
		return `[unserialisable: ${(error as Error).message}]`;
	}
}

let scanning = true;

/**
 * `npm run bench` turns the scan off: it is a test assertion, not part of the package, and
 * serialising 100,000 output items twice per execution (~0.6 s) would be billed to the node.
 */
export function setSecretScanning(enabled: boolean): void {
	scanning = enabled;
}

/** Searches what a harness call produced for every secret seen so far. */
export function scanForSecrets(label: string, ...produced: unknown[]): void {
	if (!scanning || secrets.size === 0) return;
	const text = produced.map(safeStringify).join('\n');
	for (const secret of secrets) {
		if (text.includes(secret))
			violations.push(`${label}: contains the API key ${secret.slice(0, 6)}…`);
	}
}

/** Records console output of the test file, to be searched at the end. */
export function captureConsole(): () => void {
	const levels = ['log', 'info', 'warn', 'error', 'debug'] as const;
	const originals = levels.map((level) => console[level]);
	levels.forEach((level, index) => {
		console[level] = (...args: unknown[]) => {
			consoleLines.push(
				args.map((arg) => (typeof arg === 'string' ? arg : safeStringify(arg))).join(' '),
			);
			originals[index].apply(console, args);
		};
	});
	return () => levels.forEach((level, index) => (console[level] = originals[index]));
}

export function secretViolations(): string[] {
	const found = [...violations];
	const logged = consoleLines.join('\n');
	for (const secret of secrets) {
		if (logged.includes(secret))
			found.push(`console output: contains the API key ${secret.slice(0, 6)}…`);
	}
	return found;
}

export function secretsSeen(): number {
	return secrets.size;
}
