/**
 * A service behind a reverse proxy under a path (`https://gateway.example.com/extraction`):
 * the Base URL keeps its path, the node and the credential test add /api/v1/client after it.
 * Here a small proxy on loopback serves the emulator under /extraction.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeNode, testCredential, useHarness } from '../../dev/harness';
import { useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator();

const PREFIX = '/extraction';
let proxy: http.Server;
let proxyUrl = '';

beforeAll(async () => {
	proxy = http.createServer((req, res) => {
		if (!req.url?.startsWith(`${PREFIX}/`)) {
			res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
			return;
		}
		const target = new URL(ctx.emulator.url);
		const forward = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url.slice(PREFIX.length),
				headers: req.headers,
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => proxy.close(resolve));
});

const listAgents = (baseUrl: string) =>
	executeNode({
		nodeType: 'extractionAgents',
		credentials: { apiKey: ctx.emulator.keys.alice, baseUrl },
		parameters: { resource: 'agent', operation: 'getAll', returnAll: true },
	});

describe('Base URL with a path (a service behind a reverse proxy)', () => {
	it.each([
		['the path alone', `${PREFIX}`],
		['a trailing slash', `${PREFIX}/`],
		['the API prefix pasted after it', `${PREFIX}/api/v1/client`],
	])('lists the Agents through the proxy with %s', async (_case, path) => {
		const seq = ctx.emulator.lastSeq;
		const result = await listAgents(`${proxyUrl}${path}`);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.name)).toContain('Invoices');
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.path)).toEqual([
			'/api/v1/client/agents',
		]);
	});

	it('the credential test passes through the proxy', async () => {
		expect(
			await testCredential({ apiKey: ctx.emulator.keys.alice, baseUrl: `${proxyUrl}${PREFIX}` }),
		).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it('refuses a link into the web app, naming the address to enter, before any request', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await listAgents(`${proxyUrl}${PREFIX}/app/agents/12`);
		expect(result.error?.message).toBe(
			`The Base URL "${proxyUrl}${PREFIX}/app/agents/12" in the Extraction Agents credential looks like a link into the web app, not the service address: enter the address without /app/agents/12, e.g. ${proxyUrl}${PREFIX}`,
		);
		expect(ctx.emulator.requestsSince(seq)).toEqual([]);
	});

	it('refuses a path that goes on after /api/v1/client, naming what to enter', async () => {
		const result = await listAgents(`${proxyUrl}${PREFIX}/api/v1/client/agents`);
		expect(result.error?.message).toBe(
			`The Base URL "${proxyUrl}${PREFIX}/api/v1/client/agents" in the Extraction Agents credential goes on after /api/v1/client: enter ${proxyUrl}${PREFIX}`,
		);
	});
});
