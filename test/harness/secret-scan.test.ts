import { NodeApiError } from 'n8n-workflow';
import {
	captureConsole,
	rememberSecret,
	scanForSecrets,
	secretViolations,
	setSecretScanning,
} from '../../dev/harness/secret-scan';

// This file deliberately leaks: it does not call useHarness(), whose afterAll would fail it.
describe('the suite-wide secret scan', () => {
	const key = 'ea_leaky_key_0123456789';
	rememberSecret(key);

	it('flags a key in an output item, an error description or a cause', () => {
		scanForSecrets('clean', [{ json: { ok: true } }]);
		expect(secretViolations()).toEqual([]);
		scanForSecrets('item', [{ json: { header: `Bearer ${key}` } }]);
		const error = new NodeApiError(
			{ name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {}, id: '1' },
			{ message: 'x' },
			{ description: `sent ${key}` },
		);
		scanForSecrets('error', error);
		expect(secretViolations()).toEqual([
			'item: contains the API key ea_lea…',
			'error: contains the API key ea_lea…',
		]);
	});

	it('records nothing while the benchmark has scanning off, and scans again once it is back on', () => {
		const before = secretViolations().length;
		setSecretScanning(false);
		try {
			scanForSecrets('bench', [{ json: { header: `Bearer ${key}` } }]);
			expect(secretViolations()).toHaveLength(before);
		} finally {
			setSecretScanning(true);
		}
		scanForSecrets('after', [{ json: { header: `Bearer ${key}` } }]);
		expect(secretViolations()).toContain('after: contains the API key ea_lea…');
	});

	it('flags a key in console output', () => {
		const restore = captureConsole();
		try {
			console.info(`debug: Authorization Bearer ${key}`);
		} finally {
			restore();
		}
		expect(secretViolations()).toContain('console output: contains the API key ea_lea…');
	});
});
