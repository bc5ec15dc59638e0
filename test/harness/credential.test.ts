/**
 * The credential's "Test" button against the service emulator, run the way n8n's
 * CredentialsTester runs a credential's `test.request` (see ./credential-test.ts).
 */
import { startEmulator } from '../../dev/emulator';
import { getCredentialType, testCredential, useHarness } from '../../dev/harness/index';

useHarness();

type Emulator = Awaited<ReturnType<typeof startEmulator>>;
let emulator: Emulator;

beforeAll(async () => {
	emulator = await startEmulator();
});

afterAll(async () => {
	await emulator?.stop();
});

const goodKey = () => emulator.keys.alice;

/** What n8n answers for a 401: the credential's own responseCode rule if it has one, else the status text. */
function expected401Message(): string {
	const rule = getCredentialType('extractionAgentsApi').test?.rules?.find(
		(r) => r.type === 'responseCode' && r.properties.value === 401,
	);
	return rule && rule.type === 'responseCode' ? rule.properties.message : 'Unauthorized';
}

describe('credential test (ExtractionAgentsApi.test.request)', () => {
	it('passes with a good key', async () => {
		const before = emulator.requestLog.length;
		const result = await testCredential({ apiKey: goodKey(), baseUrl: emulator.url });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		const sent = emulator.requestLog.slice(before);
		expect(sent).toHaveLength(1);
		expect(sent[0]).toMatchObject({
			method: 'GET',
			path: '/api/v1/client/api-keys',
			query: { page_number: '0', page_size: '1' },
			status: 200,
			userId: 'alice',
		});
		// the credential's authenticate put the key in
		expect(sent[0].headers.authorization).toBe(`Bearer ${goodKey()}`);
	});

	it('passes with a Base URL that has a trailing slash or already ends with /api/v1/client', async () => {
		expect(await testCredential({ apiKey: goodKey(), baseUrl: `${emulator.url}/` })).toMatchObject({
			status: 'OK',
		});
		expect(await testCredential({ apiKey: goodKey(), baseUrl: emulator.apiUrl })).toMatchObject({
			status: 'OK',
		});
		expect(
			await testCredential({ apiKey: goodKey(), baseUrl: `  ${emulator.apiUrl}/  ` }),
		).toMatchObject({
			status: 'OK',
		});
	});

	it('fails with a clear message for a wrong key (401)', async () => {
		const before = emulator.requestLog.length;
		const result = await testCredential({ apiKey: 'not-a-real-key', baseUrl: emulator.url });
		expect(result.status).toBe('Error');
		expect(result.message).toBe(expected401Message());
		// n8n-core's httpRequestWithAuthentication retries once after a 401 (it re-runs the
		// credentials helper's preAuthentication, a no-op here), so n8n sends it twice.
		const sent = emulator.requestLog.slice(before);
		expect(sent).toHaveLength(2);
		expect(sent.map((r) => [r.status, r.headers?.authorization])).toEqual([
			[401, 'Bearer not-a-real-key'],
			[401, 'Bearer not-a-real-key'],
		]);
	});

	it('fails the same way for an expired key', async () => {
		const result = await testCredential({ apiKey: emulator.keys.carol, baseUrl: emulator.url });
		expect(result).toEqual({ status: 'Error', message: expected401Message() });
	});

	it('fails with the credential’s own message for a Base URL without http(s)://', async () => {
		const before = emulator.requestLog.length;
		const host = emulator.url.replace(/^https?:\/\//, '');
		const result = await testCredential({ apiKey: goodKey(), baseUrl: host });
		expect(result.status).toBe('Error');
		expect(result.message).toContain(`The Base URL "${host}"`);
		expect(result.message).toMatch(/must start with http:\/\/ or https:\/\//);
		expect(emulator.requestLog.length).toBe(before); // nothing was sent
	});

	it('fails with the credential’s own message for an empty Base URL', async () => {
		const result = await testCredential({ apiKey: goodKey(), baseUrl: '' });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/Base URL .* is empty/),
		});
	});

	it('reports the network error code when nothing listens there', async () => {
		const result = await testCredential({ apiKey: goodKey(), baseUrl: 'http://127.0.0.1:1' });
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});
});
