/**
 * The harness's own tests, with test-only nodes (dev/harness/nodes): binaries really go
 * through n8n's binary data service in both modes, pairedItem and "On Error: Continue"
 * behave as in n8n, credentials are applied by the credential's own authenticate,
 * cancellation reaches the node, and poll static data is stored like n8n stores it.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import type { ICredentialType, INode } from 'n8n-workflow';
import { NodeOperationError, Workflow } from 'n8n-workflow';

import {
	AGGREGATE_BINARIES_TYPE,
	BINARY_DATA_STORAGE_PATH,
	HarnessCredentialsHelper,
	HarnessNodeTypes,
	MANUAL_TRIGGER_TYPE,
	SCRATCH_FOLDER,
	SET_BINARY_FROM_FILE_TYPE,
	createPoller,
	executeNode,
	registerCredentialType,
	runWorkflow,
	useHarness,
} from '../../dev/harness/index';
import { HarnessPoller } from '../../dev/harness/nodes/HarnessPoller.node';
import { SetBinaryFromFile } from '../../dev/harness/nodes/SetBinaryFromFile.node';
import { HARNESS_PROBE_TYPE, HarnessProbe } from '../../dev/harness/nodes/HarnessProbe.node';

useHarness();

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A tiny API stand-in that records the Authorization header it got. */
async function startEchoServer() {
	const seen: Array<{ url: string; authorization?: string }> = [];
	const server = http.createServer((req, res) => {
		seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ ok: true, path: req.url }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { url, seen, close: async () => await new Promise<void>((r) => server.close(() => r())) };
}

let bigFile: string;
let bigFileHash: string;
const smallBuffer = Buffer.from('%PDF-1.4 tiny test file\n', 'utf8');

beforeAll(() => {
	bigFile = path.join(SCRATCH_FOLDER, 'big-scan.pdf');
	const content = randomBytes(3 * 1024 * 1024 + 17);
	fs.writeFileSync(bigFile, content);
	bigFileHash = sha256(content);
});

describe('binaries', () => {
	it('filesystem mode: inputs are real files in the binary store, read back by stream', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'hashBinary', binaryPropertyName: 'data' },
			binaryMode: 'filesystem',
			inputItems: [
				{ json: { n: 0 }, binary: { data: { path: bigFile, fileName: 'scan.pdf' } } },
				{
					json: { n: 1 },
					binary: {
						data: { data: smallBuffer, fileName: 'tiny.pdf', mimeType: 'application/pdf' },
					},
				},
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		const [big, small] = result.items.map((i) => i.json);
		expect(big).toMatchObject({
			sha256: bigFileHash,
			bytes: 3 * 1024 * 1024 + 17,
			storedAs: 'file',
			fileExists: true,
		});
		expect(big.fileName).toBe('scan.pdf');
		expect(big.mimeType).toBe('application/pdf');
		expect(big.metadataSize).toBe(3 * 1024 * 1024 + 17);
		expect(String(big.filePath).startsWith(BINARY_DATA_STORAGE_PATH)).toBe(true);
		expect(String(big.binaryId)).toMatch(/^filesystem-v2:/);
		expect(small).toMatchObject({
			sha256: sha256(smallBuffer),
			storedAs: 'file',
			fileExists: true,
		});
		// pairedItem survives: each output item points at its input item
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('memory ("default") mode: binaries are base64 in the item, no file', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'hashBinary' },
			binaryMode: 'default',
			inputItems: [
				{ binary: { data: { path: bigFile } } },
				{ binary: { data: { data: smallBuffer, fileName: 'x.pdf' } } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.storedAs)).toEqual(['memory', 'memory']);
		expect(result.items.map((i) => i.json.binaryId)).toEqual([null, null]);
		expect(result.items.map((i) => i.json.sha256)).toEqual([bigFileHash, sha256(smallBuffer)]);
		expect(result.items[0].json.fileName).toBe('big-scan.pdf');
	});

	it.each(['filesystem', 'default'] as const)(
		'readBinary reads a binary the node produced (%s)',
		async (binaryMode) => {
			const result = await executeNode({
				nodeType: new HarnessProbe(),
				parameters: { operation: 'makeBinary', text: 'héllo binary' },
				binaryMode,
			});
			expect(result.error).toBeUndefined();
			const item = result.items[0];
			expect((await result.readBinary(item)).toString('utf8')).toBe('héllo binary');
			if (binaryMode === 'filesystem') {
				expect(fs.existsSync(result.binaryPath(item)!)).toBe(true);
				expect(item.binary!.data.id).toBeDefined();
			} else {
				expect(result.binaryPath(item)).toBeUndefined();
				expect(item.binary!.data.data).toBe(Buffer.from('héllo binary').toString('base64'));
			}
		},
	);
});

describe('errors', () => {
	const inputItems = [
		{ json: { fail: false }, binary: { data: { data: smallBuffer, fileName: 'a.pdf' } } },
		{ json: { fail: true }, binary: { data: { data: smallBuffer, fileName: 'b.pdf' } } },
		{ json: { fail: false }, binary: { data: { data: smallBuffer, fileName: 'c.pdf' } } },
	];

	it('continueOnFail turns a failing item into an error item, paired to its input', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'hashBinary' },
			inputItems,
			continueOnFail: true,
		});
		expect(result.status).toBe('success');
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items[1].json).toEqual({ error: 'Item 1 asked to fail' });
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(result.items[2].json.sha256).toBe(sha256(smallBuffer));
	});

	it('without continueOnFail the execution fails with the node error', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'hashBinary' },
			inputItems,
		});
		expect(result.status).toBe('error');
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error!.message).toBe('Item 1 asked to fail');
		expect(result.items).toEqual([]);
	});

	it('a required parameter left empty stops the run before it starts, as n8n does', async () => {
		const result = await executeNode({
			nodeType: new SetBinaryFromFile(),
			parameters: { filePath: '' },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			'The \'Set Binary From File\' node has issues:\n- Parameter "File Path" is required.',
		);
		expect(result.runData).toEqual({});
	});

	it('a missing binary field gives n8n’s own assertBinaryData message', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'hashBinary', binaryPropertyName: 'file' },
			inputItems: [{ binary: { data: { data: smallBuffer, fileName: 'a.pdf' } } }],
		});
		expect(result.error?.message).toBe("The item has no binary field 'file' [item 0]");
	});
});

describe('credentials and cancellation', () => {
	let server: Awaited<ReturnType<typeof startEchoServer>>;
	beforeAll(async () => {
		server = await startEchoServer();
	});
	afterAll(async () => {
		await server.close();
	});

	it("applies the credential's own authenticate (function form)", async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'request', url: `${server.url}/api/v1/client/ping` },
			credentials: { apiKey: 'key-123', baseUrl: server.url },
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.response).toEqual({ ok: true, path: '/api/v1/client/ping' });
		expect(server.seen.at(-1)?.authorization).toBe('Bearer key-123');
		expect(result.authenticatedRequests).toHaveLength(1);
	});

	it("surfaces the credential's own error for a Base URL without http(s)://", async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			parameters: { operation: 'request', url: `${server.url}/x` },
			credentials: { apiKey: 'key-123', baseUrl: 'extraction.example.com' },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/must start with http:\/\/ or https:\/\//);
	});

	it('applies a generic authenticate with expressions like n8n’s CredentialsHelper', async () => {
		const genericType: ICredentialType = {
			name: 'harnessGenericApi',
			displayName: 'Generic',
			properties: [
				{ displayName: 'Key', name: 'apiKey', type: 'string', default: '' },
				{ displayName: 'Region', name: 'region', type: 'string', default: 'eu' },
			],
			authenticate: {
				type: 'generic',
				properties: {
					headers: { Authorization: '={{"Bearer " + $credentials.apiKey}}', 'X-Static': 'static' },
					qs: { region: '={{$credentials.region}}' },
				},
			},
		};
		registerCredentialType(genericType);
		const helper = new HarnessCredentialsHelper(
			new Map([['harnessGenericApi', { apiKey: 'g-1' }]]),
		);
		const node: INode = {
			id: '1',
			name: 'N',
			type: HARNESS_PROBE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: new HarnessNodeTypes({ [HARNESS_PROBE_TYPE]: new HarnessProbe() }),
		});
		const decrypted = await helper.getDecrypted(
			{} as never,
			{ id: 'x', name: 'x' },
			'harnessGenericApi',
			'manual',
		);
		expect(decrypted).toEqual({ apiKey: 'g-1', region: 'eu' }); // defaults applied
		const request = await helper.authenticate(
			decrypted,
			'harnessGenericApi',
			{ url: '/x', headers: { A: 'b' } },
			workflow,
			node,
		);
		expect(request.headers).toEqual({ A: 'b', Authorization: 'Bearer g-1', 'X-Static': 'static' });
		expect(request.qs).toEqual({ region: 'eu' });
	});

	it('cancelAfterMs stops the execution like the Stop button: the node sees the abort signal', async () => {
		const result = await executeNode({
			nodeType: new HarnessProbe(),
			// The probe would wait 10 minutes: an execution that ends at all within the harness's
			// timeout (60 s), with the probe reporting the signal, was ended by cancelAfterMs.
			parameters: { operation: 'waitForCancel', waitMs: 600_000 },
			cancelAfterMs: 150,
		});
		expect(result.status).toBe('canceled');
		expect(result.runData['Harness Probe'][0].data?.main[0]?.[0].json.cancelled).toBe(true);
		expect(result.error?.name).toMatch(/Cancel/);
	});

	it('timeoutMs rejects when the execution takes too long', async () => {
		await expect(
			executeNode({
				nodeType: new HarnessProbe(),
				parameters: { operation: 'waitForCancel', waitMs: 20_000 },
				timeoutMs: 150,
			}),
		).rejects.toThrow(/did not finish within 150 ms/);
	});
});

describe('polling', () => {
	let server: Awaited<ReturnType<typeof startEchoServer>>;
	beforeAll(async () => {
		server = await startEchoServer();
	});
	afterAll(async () => {
		await server.close();
	});
	const credentials = () => ({ apiKey: 'poll-key', baseUrl: server.url });
	const events = (...ids: number[]) => JSON.stringify(ids.map((id) => ({ id })));

	it('stores static data only after successful polls, as JSON, and survives a restart', async () => {
		const poller = createPoller({
			nodeType: new HarnessPoller(),
			parameters: { events: events(1, 2), url: `${server.url}/api/v1/client/runs` },
			credentials: credentials(),
		});
		const first = await poller.poll();
		expect(first?.[0].map((i) => i.json.id)).toEqual([1, 2]);
		expect(first?.[0][0].json.fetched).toEqual({ ok: true, path: '/api/v1/client/runs' });
		expect(server.seen.at(-1)?.authorization).toBe('Bearer poll-key');
		expect(poller.nodeStaticData).toMatchObject({ lastId: 2, polls: 1 });
		expect(Object.keys(poller.staticData)).toEqual(['node:Harness Poller']);
		// JSON round-trip: the Date the node stored comes back as a string
		expect(typeof poller.nodeStaticData!.lastPolledAt).toBe('string');

		expect(await poller.poll()).toBeNull();
		expect(poller.nodeStaticData).toMatchObject({ lastId: 2, polls: 2 });

		// A manual poll ("Fetch Test Event") never stores static data.
		const manual = await poller.poll('manual');
		expect(manual?.[0][0].json).toEqual({ id: 2, manual: true });
		expect(poller.nodeStaticData).toMatchObject({ lastId: 2, polls: 2 });

		// A failing poll changes static data in memory, but n8n does not store it.
		const failing = createPoller({
			nodeType: new HarnessPoller(),
			parameters: { events: events(1, 2, 3), fail: true },
			credentials: credentials(),
			staticData: poller.staticData,
		});
		await expect(failing.poll()).rejects.toThrow('The poll failed on purpose');
		expect(failing.nodeStaticData).toMatchObject({ lastId: 2, polls: 2 });
		expect(failing.history.at(-1)).toMatchObject({ ok: false, staticDataSaved: false });

		// "Restart": a new poller from the stored static data picks up where it left off.
		const restarted = createPoller({
			nodeType: new HarnessPoller(),
			parameters: { events: events(1, 2, 3) },
			credentials: credentials(),
			staticData: JSON.parse(JSON.stringify(failing.staticData)),
		});
		const next = await restarted.poll();
		expect(next?.[0].map((i) => i.json.id)).toEqual([3]);
		expect(restarted.nodeStaticData).toMatchObject({ lastId: 3, polls: 3 });
	});
});

describe('runWorkflow', () => {
	it('runs a multi-node workflow: files → aggregate with binaries → probe', async () => {
		const second = path.join(SCRATCH_FOLDER, 'second.txt');
		fs.writeFileSync(second, 'second file');
		const result = await runWorkflow(
			{
				nodes: [
					{ name: 'Start', type: MANUAL_TRIGGER_TYPE, typeVersion: 1, parameters: {} },
					{
						name: 'Read',
						type: SET_BINARY_FROM_FILE_TYPE,
						typeVersion: 1,
						parameters: { filePath: '={{ $json.path }}' },
					},
					{ name: 'Aggregate', type: AGGREGATE_BINARIES_TYPE, typeVersion: 1, parameters: {} },
					{
						name: 'Probe',
						type: HARNESS_PROBE_TYPE,
						typeVersion: 1,
						parameters: { operation: 'hashBinary', binaryPropertyName: 'data_1' },
					},
				],
				connections: {
					Start: { main: [[{ node: 'Read', type: 'main', index: 0 }]] },
					Read: { main: [[{ node: 'Aggregate', type: 'main', index: 0 }]] },
					Aggregate: { main: [[{ node: 'Probe', type: 'main', index: 0 }]] },
				},
				pinData: { Start: [{ json: { path: bigFile } }, { json: { path: second } }] },
			},
			{ nodeTypes: { [HARNESS_PROBE_TYPE]: new HarnessProbe() } },
		);
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		const aggregated = result.outputOf('Aggregate')[0];
		expect(Object.keys(aggregated.binary ?? {})).toEqual(['data', 'data_1']);
		expect(aggregated.json.data).toEqual([{ path: bigFile }, { path: second }]);
		expect(sha256(await result.readBinary(aggregated, 'data'))).toBe(bigFileHash);
		expect(result.lastNodeExecuted).toBe('Probe');
		expect(result.lastNodeItems[0].json).toMatchObject({
			sha256: sha256(Buffer.from('second file')),
			storedAs: 'file',
		});
	});
});
