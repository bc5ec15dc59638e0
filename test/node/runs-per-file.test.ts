/**
 * Node version 1.5, Run → Create: each file its own Run and its own output item (Runs → One
 * Run per File, the default), a partly read document on the error output, a logo alone giving
 * nothing, and a creation that failed midway tried again only where the Agent's newest Runs
 * show that no Run was made (a User-Defined ID). Each against the emulator, through n8n's
 * engine: the uploads in the emulator's request log, the Runs it holds, the output items.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeExecutionData } from 'n8n-workflow';
import type { HarnessInputItem } from '../../dev/harness';
import { executeNode, useHarness } from '../../dev/harness';
import type { RequestLogEntry } from '../../dev/emulator';
import { createRunParameters, INVOICES, pdf, shapeRunsByFileName, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });

const RUNS_PATH = /\/agents\/\d+\/runs$/;

function postRunsSince(seq: number): RequestLogEntry[] {
	return ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && RUNS_PATH.test(entry.path));
}

/** The requests on the Agent's Runs since `seq`: "POST 503", "GET", "POST 200"… */
function runRequestsSince(seq: number): string[] {
	return ctx.emulator
		.requestsSince(seq)
		.filter((entry) => RUNS_PATH.test(entry.path))
		.map((entry) => (entry.method === 'POST' ? `POST ${entry.status}` : entry.method));
}

/** An email item as Gmail gives it: its PDFs as attachment_0, attachment_1… */
function email(...fileNames: string[]): HarnessInputItem {
	return {
		json: { subject: 'Invoices' },
		binary: Object.fromEntries(
			fileNames.map((fileName, index) => [
				`attachment_${index}`,
				{ data: pdf(fileName), fileName, mimeType: 'application/pdf' },
			]),
		),
	};
}

const errorOf = (item: INodeExecutionData) => item.json.error as Record<string, unknown>;

const runsOfAgent = () =>
	[...ctx.emulator.state.runs.values()].filter((run) => run.agentId === INVOICES);

describe('Run → Create 1.5, Runs: One Run per File', () => {
	it('an email with two invoices makes two Runs and two items, each paired with the email and naming its file', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters(),
			inputItems: [email('other.pdf'), email('invoice-1.pdf', 'invoice-2.pdf')],
		});
		expect(result.error).toBeUndefined();
		expect(postRunsSince(seq).map((entry) => entry.upload?.files.map((f) => f.filename))).toEqual(
			expect.arrayContaining([['other.pdf'], ['invoice-1.pdf'], ['invoice-2.pdf']]),
		);
		expect(postRunsSince(seq)).toHaveLength(3);
		expect(
			result.items.map((item) => [item.pairedItem, item.json.file_name, item.json.files]),
		).toEqual([
			[{ item: 0 }, 'other.pdf', 'other.pdf'],
			[{ item: 1 }, 'invoice-1.pdf', 'invoice-1.pdf'],
			[{ item: 1 }, 'invoice-2.pdf', 'invoice-2.pdf'],
		]);
	});

	it('numbers the User-Defined ID of each file’s Run in file order; an item of one file keeps it as it is', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({
				waitForCompletion: false,
				options: { itemsInParallel: 1 },
				additionalFields: { userDefinedId: '={{ $json.id }}' },
			}),
			inputItems: [
				{ ...email('a.pdf', 'b.pdf', 'c.pdf'), json: { id: 'mail-7' } },
				{ ...email('d.pdf'), json: { id: 'mail-8' } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(
			postRunsSince(seq).map((entry) => [
				entry.upload?.files[0].filename,
				entry.upload?.fields.user_defined_id,
			]),
		).toEqual([
			['a.pdf', 'mail-7#1'],
			['b.pdf', 'mail-7#2'],
			['c.pdf', 'mail-7#3'],
			['d.pdf', 'mail-8'],
		]);
		expect(result.items.map((item) => item.json.user_defined_id)).toEqual([
			'mail-7#1',
			'mail-7#2',
			'mail-7#3',
			'mail-8',
		]);
	});

	it('a file whose Run fails goes to the error output alone, naming its file; the invoice beside it is a result', async () => {
		shapeRunsByFileName(ctx.emulator, { failed: 'unreadable-scan.pdf' }, 2);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters(),
			inputItems: [email('invoice.pdf', 'unreadable-scan.pdf')],
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.pairedItem, item.json.file_name, item.json.status])).toEqual(
			[[{ item: 0 }, 'invoice.pdf', 'success']],
		);
		expect(failed.map((item) => [item.pairedItem, errorOf(item).file_name])).toEqual([
			[{ item: 0 }, 'unreadable-scan.pdf'],
		]);
		expect(errorOf(failed[0]).message).toBe(
			'"unreadable-scan.pdf": none of the 4 Prompts could be answered',
		);
	});

	it('a file whose upload the service refused (503) goes to the error output naming the file in files, as a failed Run’s item does', async () => {
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'before' },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [email('refused.pdf', 'next.pdf')],
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success.map((item) => item.json.file_name)).toEqual(['next.pdf']);
		expect(failed.map((item) => [errorOf(item).file_name, errorOf(item).files])).toEqual([
			['refused.pdf', 'refused.pdf'],
		]);
	});

	it('without Continue, a failed file stops the node and names the Run the other file made', async () => {
		shapeRunsByFileName(ctx.emulator, { failed: 'bad.pdf' }, 2);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters(),
			inputItems: [email('good.pdf', 'bad.pdf')],
		});
		const error = result.error as Error & { description?: string };
		expect(error.message).toBe('"bad.pdf": none of the 4 Prompts could be answered');
		const good = runsOfAgent().find((run) => run.files[0]?.name === 'good.pdf' && run.runId > 1010);
		expect(error.description).toContain(
			`Other files and items had already created 1 Run(s), which go on in the service: item 1: Run ${good?.runId}`,
		);
	});

	it('One Run per Item sends all the item’s files as one Run, as before', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({ filesPerRun: 'item' }),
			inputItems: [email('invoice.pdf', 'delivery-note.pdf')],
		});
		expect(result.error).toBeUndefined();
		expect(postRunsSince(seq).map((entry) => entry.upload?.files.map((f) => f.filename))).toEqual([
			['invoice.pdf', 'delivery-note.pdf'],
		]);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).not.toHaveProperty('file_name');
	});
});

describe('Run → Create 1.5, One Run per File for every file source', () => {
	let server: http.Server;
	let base = '';
	/** The links asked for, each with the emulator's last request then (its log's order, not a clock). */
	const fetched: Array<{ name: string; afterSeq: number }> = [];
	beforeAll(async () => {
		server = http.createServer((req, res) => {
			const name = (req.url ?? '/').slice(1);
			fetched.push({ name, afterSeq: ctx.emulator.lastSeq });
			if (name.startsWith('missing')) {
				res.writeHead(404, { 'Content-Type': 'text/plain' });
				res.end('Not Found');
				return;
			}
			const body = pdf(`linked ${name}`);
			res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': body.length });
			res.end(body);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => await new Promise<void>((resolve) => server.close(() => resolve())));

	it.each([
		['File Fields', { binarySource: 'fields', binaryPropertyName: 'attachment_1, attachment_0' }],
		['Links', { binarySource: 'links', fileLinks: '={{ $json.links }}' }],
	])('%s: each file its own Run, in the order given', async (_, parameters) => {
		const seq = ctx.emulator.lastSeq;
		const item = email('first.pdf', 'second.pdf');
		item.json = { links: [`${base}/L1.pdf`, `${base}/L2.pdf`] };
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({ waitForCompletion: false, ...parameters }),
			inputItems: [item],
		});
		expect(result.error).toBeUndefined();
		const expected =
			parameters.binarySource === 'links' ? ['L1.pdf', 'L2.pdf'] : ['second.pdf', 'first.pdf'];
		expect(postRunsSince(seq).map((entry) => entry.upload?.files.map((f) => f.filename))).toEqual(
			expected.map((name) => [name]),
		);
		expect(result.items.map((out) => [out.pairedItem, out.json.file_name])).toEqual(
			expected.map((name) => [{ item: 0 }, name]),
		);
	});

	it('Links: each link is fetched just before its own Run, and a link that fails is its own error item while the others make their Runs', async () => {
		const seq = ctx.emulator.lastSeq;
		fetched.length = 0;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({
				waitForCompletion: false,
				binarySource: 'links',
				fileLinks: '={{ $json.links }}',
			}),
			inputItems: [
				{ json: { links: [`${base}/A1.pdf`, `${base}/missing-A2.pdf`, `${base}/A3.pdf`] } },
			],
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		const posts = postRunsSince(seq);
		expect(posts.map((entry) => entry.upload?.files.map((f) => f.filename))).toEqual([
			['A1.pdf'],
			['A3.pdf'],
		]);
		expect(success.map((out) => [out.pairedItem, out.json.file_name])).toEqual([
			[{ item: 0 }, 'A1.pdf'],
			[{ item: 0 }, 'A3.pdf'],
		]);
		expect(failed.map((out) => [out.pairedItem, errorOf(out).file_name])).toEqual([
			[{ item: 0 }, `${base}/missing-A2.pdf`],
		]);
		expect(String(errorOf(failed[0]).message)).toContain('missing-A2.pdf');
		// A1's upload had reached the service before A2 and A3 were asked for, and A3 was asked
		// for after A2: no link's answer waits through another link's upload.
		expect(fetched.map((entry) => entry.name)).toEqual(['A1.pdf', 'missing-A2.pdf', 'A3.pdf']);
		const afterSeq = (name: string) => fetched.find((entry) => entry.name === name)?.afterSeq;
		expect(afterSeq('A1.pdf')).toBeLessThan(posts[0].seq);
		expect(afterSeq('missing-A2.pdf')).toBeGreaterThanOrEqual(posts[0].seq);
		expect(afterSeq('A3.pdf')).toBeLessThan(posts[1].seq);
	});

	it('Links: a link into the service’s own API among them is refused before any link is fetched or any Run made', async () => {
		const seq = ctx.emulator.lastSeq;
		fetched.length = 0;
		const apiLink = `${ctx.emulator.apiUrl}/agents`;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({
				waitForCompletion: false,
				binarySource: 'links',
				fileLinks: '={{ $json.links }}',
			}),
			inputItems: [{ json: { links: [`${base}/B1.pdf`, apiLink] } }],
		});
		expect(result.error?.message).toBe(
			`The link ${apiLink} is an address of the Extraction Agents API itself`,
		);
		expect(postRunsSince(seq)).toEqual([]);
		expect(fetched).toEqual([]);
	});
});

describe('Run → Create 1.5, Runs with Failed Prompts', () => {
	it('Output as Results keeps a partly read Run as a row naming the failed Prompt', async () => {
		shapeRunsByFileName(ctx.emulator, { partlyRead: 'partly.pdf' }, 1);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({ options: { partlyReadRuns: 'results' } }),
			inputItems: [email('partly.pdf')],
			onError: 'continueErrorOutput',
		});
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.json.status, item.json.failed_prompts])).toEqual([
			['success', 'Total amount'],
		]);
		expect(failed ?? []).toEqual([]);
	});

	it('the hint counts a partly read Run apart, with where it went', async () => {
		shapeRunsByFileName(ctx.emulator, { partlyRead: 'partly.pdf' }, 2);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters(),
			inputItems: [email('whole.pdf', 'partly.pdf')],
			onError: 'continueErrorOutput',
		});
		const hints = (result.runData[result.nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
		expect(hints).toContain('2 Runs: 1 succeeded, 1 with failed Prompts → error output');
	});
});

describe('Run → Create 1.5 with a User-Defined ID: a creation that failed midway', () => {
	const create = (userDefinedId: string) =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({
				waitForCompletion: false,
				additionalFields: { userDefinedId },
			}),
			inputItems: [email(`${userDefinedId}.pdf`)],
		});
	const runsWithId = (id: string) => runsOfAgent().filter((run) => run.userDefinedId === id);

	it.each([
		['a 503', '503'],
		['a dropped connection', 'reset'],
	] as const)(
		'%s after the Run was made: the Run is found among the newest, none is made twice',
		async (_, kind) => {
			const seq = ctx.emulator.lastSeq;
			const id = `made-then-${kind}`;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: /\/runs$/ }, kind, timing: 'after' },
			]);
			const result = await create(id);
			expect(result.error).toBeUndefined();
			expect(runsWithId(id)).toHaveLength(1);
			expect(runRequestsSince(seq)).toEqual([`POST ${kind === 'reset' ? 0 : 503}`, 'GET']);
			expect(result.items.map((item) => [item.json.run_id, item.json.user_defined_id])).toEqual([
				[runsWithId(id)[0].runId, id],
			]);
		},
	);

	it('a 503 before the Run was made: the list does not show it, and since a Run may be listed late the 503 stands, not sent again', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'before' },
		]);
		const result = await create('not-listed');
		expect(result.error?.message).toBe('The Extraction Agents service failed (503)');
		expect((result.error as Error & { description?: string }).description).toContain(
			'No Run of the Agent with the User-Defined ID "not-listed" and these files is listed yet',
		);
		// Two list reads, the second 5 s after the failure, both without the ID; no second POST.
		expect(runRequestsSince(seq)).toEqual(['POST 503', 'GET', 'GET']);
		expect(runsWithId('not-listed')).toHaveLength(0);
	});

	it('a Run the list shows only 3 s late is found by the second read, not made again', async () => {
		ctx.emulator.knobs.lateListing = { rate: 1, delayMs: 3_000 };
		try {
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'after' },
			]);
			const result = await create('listed-late');
			expect(result.error).toBeUndefined();
			expect(runRequestsSince(seq)).toEqual(['POST 503', 'GET', 'GET']);
			expect(runsWithId('listed-late')).toHaveLength(1);
		} finally {
			ctx.emulator.knobs.lateListing = null;
		}
	});

	it('a service that does not show user_defined_id on Runs: the 503 stands, nothing sent again', async () => {
		ctx.emulator.knobs.omitUserDefinedId = true;
		try {
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'before' },
			]);
			const result = await create('cannot-tell');
			expect(result.error?.message).toBe('The Extraction Agents service failed (503)');
			expect((result.error as Error & { description?: string }).description).toContain(
				'The service does not show User-Defined IDs on its Runs, so the node could not tell whether the Run was made.',
			);
			expect(runRequestsSince(seq)).toEqual(['POST 503', 'GET']);
			expect(runsWithId('cannot-tell')).toHaveLength(0);
		} finally {
			ctx.emulator.knobs.omitUserDefinedId = false;
		}
	});

	it('an upload that broke before its last byte was sent made no Run: sent again, one Run, no list read', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: 'reset', timing: 'before' },
		]);
		const result = await create('cut-once');
		expect(result.error).toBeUndefined();
		expect(runRequestsSince(seq)).toEqual(['POST 0', 'POST 200']);
		expect(runsWithId('cut-once')).toHaveLength(1);
	});

	it('an upload broken on every attempt: sent at most four times, then the message that no Run was made', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: 'reset', timing: 'before', times: 10 },
		]);
		try {
			const result = await create('always-cut');
			expect(result.error?.message).toMatch(/broke during the upload/);
			expect((result.error as Error & { description?: string }).description).toContain(
				'No Run was made',
			);
			expect(runRequestsSince(seq)).toEqual(['POST 0', 'POST 0', 'POST 0', 'POST 0']);
			expect(runsWithId('always-cut')).toHaveLength(0);
		} finally {
			ctx.emulator.clearFaults();
		}
	});

	it('without a User-Defined ID the 503 stands, as before: no list read, no second POST', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing: 'before' },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [email('no-id.pdf')],
		});
		expect(result.error?.message).toBe('The Extraction Agents service failed (503)');
		expect(runRequestsSince(seq)).toEqual(['POST 503']);
	});
});
