/**
 * Messages in plain words: each says what happened and what to do, naming the node's fields
 * rather than the API's. A stand-in service on loopback answers with the status under test.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf } from './fixtures';

useHarness();

let answer: { status: number; body: string; type: string } = {
	status: 200,
	body: '{}',
	type: 'application/json',
};
let server: http.Server;
let baseUrl = '';

beforeAll(async () => {
	server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () =>
			res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

async function listAgentsAnswered(status: number, body: unknown) {
	answer = {
		status,
		body: typeof body === 'string' ? body : JSON.stringify(body),
		type: typeof body === 'string' ? 'text/plain' : 'application/json',
	};
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: { apiKey: 'ea_test_key', baseUrl },
		parameters: { resource: 'agent', operation: 'getAll', returnAll: false, limit: 5 },
	});
	return result.error as Error & { description?: string };
}

describe('messages', () => {
	it('a 422 names the node’s field (Limit), not the API’s (page_size)', async () => {
		const error = await listAgentsAnswered(422, {
			detail: [
				{
					loc: ['query', 'page_size'],
					msg: 'Input should be less than or equal to 1000',
					input: '5000',
				},
			],
		});
		expect(error.message).toBe(
			'The Extraction Agents service refused a value: Limit: Input should be less than or equal to 1000 (input: "5000") (422)',
		);
		expect(error.description).toBe('Change that field of the node and run it again.');
	});

	it('a 422 with several problems lists them, file numbers counted from 1', async () => {
		const error = await listAgentsAnswered(422, {
			detail: [
				{ loc: ['body', 'files', 2], msg: 'File too large' },
				{ loc: ['body', 'user_defined_id'], msg: 'String too long' },
			],
		});
		expect(error.message).toBe('The Extraction Agents service refused 2 values (422)');
		expect(error.description).toBe(
			'Change these fields of the node and run it again: Files (file 3): File too large; User-Defined ID: String too long',
		);
	});

	it('a 400 says the service could not read what the node sent, and what to look for', async () => {
		const error = await listAgentsAnswered(400, { detail: 'Invalid header' });
		expect(error.message).toBe(
			'The Extraction Agents service could not read what the node sent (400)',
		);
		expect(error.description).toContain('Look for unusual characters in the node');
		expect(error.description).toContain('The service said: Invalid header');
	});

	it('an unexpected status says so and what to do', async () => {
		const error = await listAgentsAnswered(418, 'teapot');
		expect(error.message).toBe(
			'The Extraction Agents service answered with an unexpected error (418)',
		);
		expect(error.description).toContain('Try again');
	});

	it('a 409 on a request about no Run is an unexpected error, not "… is not finished yet"', async () => {
		const error = await listAgentsAnswered(409, { detail: 'Conflict' });
		expect(error?.message).toBe(
			'The Extraction Agents service answered with an unexpected error (409)',
		);
		expect(error?.message).not.toMatch(/requested resource|not finished/);
	});

	it('an Agent picked From List that the service no longer has is named as the user picked it', async () => {
		answer = {
			status: 404,
			body: JSON.stringify({ detail: 'Agent 12 not found' }),
			type: 'application/json',
		};
		const agent = (mode: string) => ({
			__rl: true,
			mode,
			value: '12',
			...(mode === 'list' ? { cachedResultName: 'Invoices' } : {}),
		});
		const picked = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl },
			parameters: { resource: 'agent', operation: 'get', agent: agent('list') },
		});
		expect(picked.error?.message).toBe('Agent "Invoices" (ID 12) not found');
		expect((picked.error as Error & { description?: string }).description).toMatch(
			/^It may have been deleted.*Pick it again From List\./,
		);
		const byId = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl },
			parameters: { resource: 'agent', operation: 'get', agent: agent('id') },
		});
		expect(byId.error?.message).toBe('Agent 12 not found');
	});

	it('the Base URL is named as the credential holds it, not with the API path the node adds', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl: 'http://127.0.0.1:9/extraction' },
			parameters: { resource: 'agent', operation: 'getAll', returnAll: false, limit: 5 },
		});
		expect(result.error?.message).toBe(
			'Could not reach the Extraction Agents service at http://127.0.0.1:9/extraction',
		);
	});

	it('an ID that is not a number says where to choose the Agent, in the panel’s words', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl },
			parameters: {
				resource: 'agent',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: 'abc' },
			},
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe('"abc" is not a valid Agent ID');
		expect(error.description).toMatch(
			/^Choose the Agent From List, or paste its link from the web app: it contains \/agents\//,
		);
	});

	it('more files than a Run takes says how to send fewer, not to loop over items', async () => {
		const binary = Object.fromEntries(
			Array.from({ length: 301 }, (_, n) => [
				`attachment_${n}`,
				{ data: pdf(`page ${n}`), fileName: `p${n}.pdf`, mimeType: 'application/pdf' },
			]),
		);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl },
			// All the item's files as one Run (with One Run per File each is its own Run).
			parameters: createRunParameters({ filesPerRun: 'item' }),
			inputItems: [{ binary }],
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe('Item 1 has 301 files; a Run takes at most 300');
		expect(error.description).toContain('Specific File Fields');
		expect(error.description).not.toContain('Loop Over Items');
	});
});
