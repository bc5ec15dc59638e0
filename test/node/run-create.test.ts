import type { INodeParameters } from 'n8n-workflow';
import {
	mkdtempSync,
	openSync,
	closeSync,
	ftruncateSync,
	writeFileSync,
	createWriteStream,
	createReadStream,
} from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { createHash, randomBytes } from 'crypto';
import { executeNode, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { INVOICES, createRunParameters, pdf, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 1200 });
const scratch = mkdtempSync(join(tmpdir(), 'ea-run-create-'));

function postRunsSince(seq: number) {
	return ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
}

describe('Run → Create', () => {
	it('uploads two files as one Run, waits for it and returns one flat item with every Prompt value', async () => {
		const seq = ctx.emulator.lastSeq;
		const first = pdf('invoice INV-1001');
		const second = pdf('invoice INV-1002');
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ binarySource: 'all', filesPerRun: 'item' }),
			inputItems: [
				{
					json: { from: 'mail' },
					binary: {
						attachment_0: { data: first, fileName: 'INV-1001.pdf', mimeType: 'application/pdf' },
						attachment_1: { data: second, fileName: 'INV-1002.pdf', mimeType: 'application/pdf' },
					},
				},
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json).toMatchObject({
			status: 'success',
			agent_id: INVOICES,
			// Node version 1.2's sheet-ready row: lists as text a cell shows.
			files: 'INV-1001.pdf, INV-1002.pdf',
			failed_prompts: '',
		});
		// The Prompt values come first, in the Agent's order; "Total amount" (a form Prompt) is
		// one column per field.
		expect(Object.keys(item.json).slice(0, 5)).toEqual([
			'Invoice number',
			'Invoice date',
			'Vendor',
			'Total amount › amount',
			'Total amount › currency',
		]);
		for (const column of Object.keys(item.json).slice(0, 5))
			expect(item.json[column]).not.toBeNull();
		expect(item.json).not.toHaveProperty('confidence');
		expect(String(item.json.completed)).toMatch(/(Z|[+-]\d\d:\d\d)$/);

		const [upload] = postRunsSince(seq);
		expect(upload.upload?.files.map((file) => [file.filename, file.sha256])).toEqual([
			['INV-1001.pdf', sha256(first)],
			['INV-1002.pdf', sha256(second)],
		]);
		expect(upload.upload?.chunked).toBe(false);
		expect(Number(upload.headers['content-length'])).toBeGreaterThan(first.length + second.length);
	});

	it('the service receives a file name with double quotes and umlauts exactly as n8n holds it', async () => {
		const seq = ctx.emulator.lastSeq;
		const fileName = 'Rechnung "Q1" ü.pdf';
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [
				{ binary: { data: { data: pdf('q1'), fileName, mimeType: 'application/pdf' } } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.files).toEqual(fileName);
		const upload = ctx.emulator.requestsSince(seq).find((entry) => entry.method === 'POST');
		expect(upload?.upload?.files.map((file) => file.filename)).toEqual([fileName]);
	});

	it('gives one item per Prompt result with value, reasoning and citations', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ output: 'promptResult' }),
			inputItems: [
				{
					binary: {
						data: { data: pdf('x'), fileName: 'INV-2001.pdf', mimeType: 'application/pdf' },
					},
				},
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.prompt)).toEqual([
			'Invoice number',
			'Invoice date',
			'Vendor',
			'Total amount',
		]);
		for (const item of result.items) {
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json).toMatchObject({ status: 'success' });
			expect(typeof item.json.reasoning).toBe('string');
			// Node version 1.2: citations as text a cell shows, e.g. "INV-2001.pdf p. 1".
			expect(item.json.citations).toMatch(/^INV-2001\.pdf p\. \d+/);
		}
		// "Total amount" (a form Prompt): its value as one column per field.
		expect(Object.keys(result.items[3].json)).toEqual(
			expect.arrayContaining(['value › amount', 'value › currency']),
		);
	});

	it('version 1.2: a Prompt whose value is a list gives one row per entry, numbered', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ output: 'promptResult' }, DEMO_AGENT_IDS.purchaseOrders),
			inputItems: [{ binary: { data: { data: pdf('po'), fileName: 'PO-7.pdf' } } }],
		});
		expect(result.error).toBeUndefined();
		const runId = result.items[0].json.run_id as number;
		const served = ctx.emulator.getRun(DEMO_AGENT_IDS.purchaseOrders, runId) as {
			data: Record<string, { value: unknown }>;
		};
		const lines = served.data['Line items'].value as string[];
		const lineRows = result.items.filter((item) => item.json.prompt === 'Line items');
		expect(lineRows.map((item) => [item.json.entry, item.json.value])).toEqual(
			lines.map((line, index) => [index + 1, line]),
		);
		expect(result.items.find((item) => item.json.prompt === 'PO number')?.json.entry).toBeNull();
	});

	it('returns the Run at once, still running, when Wait for Completion is off, and sends the user-defined ID and due date', async () => {
		const seq = ctx.emulator.lastSeq;
		const due = new Date(Date.now() + 86_400_000).toISOString();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({
				waitForCompletion: false,
				simplify: false,
				additionalFields: { userDefinedId: 'mail-42', dueDate: due },
			}),
			inputItems: [
				{ binary: { data: { data: pdf('x'), fileName: 'a.pdf', mimeType: 'application/pdf' } } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			status: 'running',
			data: {},
			user_defined_id: 'mail-42',
		});
		const [upload] = postRunsSince(seq);
		expect(upload.upload?.fields.user_defined_id).toBe('mail-42');
		expect(Date.parse(upload.upload?.fields.due_date ?? '')).toBe(Date.parse(due));
	});

	it('makes one Run per input item, each paired with its item', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [0, 1, 2].map((n) => ({
				binary: {
					data: { data: pdf(`n${n}`), fileName: `doc-${n}.pdf`, mimeType: 'application/pdf' },
				},
			})),
		});
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(result.items.map((item) => item.json.files)).toEqual([
			'doc-0.pdf',
			'doc-1.pdf',
			'doc-2.pdf',
		]);
		expect(postRunsSince(seq)).toHaveLength(3);
	});

	describe('refuses before sending any byte', () => {
		async function refused(
			parameters: INodeParameters,
			inputItems: Parameters<typeof executeNode>[0]['inputItems'],
			binaryMode: 'filesystem' | 'default' = 'default',
		) {
			const seq = ctx.emulator.lastSeq;
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters(parameters),
				inputItems,
				binaryMode,
			});
			expect(postRunsSince(seq)).toHaveLength(0);
			expect(result.error).toBeDefined();
			return result.error as Error & { description?: string };
		}

		it('a binary field the item does not have, naming the fields it has', async () => {
			const error = await refused({ binarySource: 'fields', binaryPropertyName: 'invoice' }, [
				{ binary: { attachment_0: { data: pdf('x'), fileName: 'a.pdf' } } },
			]);
			expect(error.message).toBe('Item 1 has no file field "invoice"');
			expect(error.description).toContain('attachment_0');
		});

		it('an item with no binary data at all', async () => {
			const error = await refused({}, [{ json: { subject: 'no attachment' } }]);
			expect(error.message).toBe('Item 1 has no files');
			expect(error.description).toContain('Gmail');
		});

		it('a binary field holding no data', async () => {
			const error = await refused({}, [
				{ binary: { data: { data: Buffer.alloc(0), fileName: 'empty.pdf' } } },
			]);
			expect(error.message).toBe('File field "data" (empty.pdf) of item 1 holds no data');
		});

		it('more than 300 files', async () => {
			const binary: Record<string, { data: Buffer; fileName: string }> = {};
			for (let n = 0; n < 301; n++)
				binary[`file_${n}`] = { data: Buffer.from(`f${n}`), fileName: `f${n}.txt` };
			const error = await refused({ binarySource: 'all', filesPerRun: 'item' }, [{ binary }]);
			expect(error.message).toBe('Item 1 has 301 files; a Run takes at most 300');
		});

		it('a file of 250,000,001 bytes, naming it and its size', async () => {
			const path = join(scratch, 'huge.pdf');
			const fd = openSync(path, 'w');
			ftruncateSync(fd, 250_000_001);
			closeSync(fd);
			const error = await refused(
				{},
				[{ binary: { data: { path, fileName: 'huge.pdf', mimeType: 'application/pdf' } } }],
				'filesystem',
			);
			expect(error.message).toBe(
				'File "huge.pdf" in file field "data" is 250,000,001 bytes; the limit is 250,000,000 bytes',
			);
		});

		it('a due date in the past', async () => {
			const error = await refused({ additionalFields: { dueDate: '2020-01-01T00:00:00Z' } }, [
				{ binary: { data: { data: pdf('x'), fileName: 'a.pdf' } } },
			]);
			expect(error.message).toMatch(/^Due Date 2020-01-01T00:00:00.000(Z|\+00:00) is in the past$/);
		});

		it('a User-Defined ID that an expression made an object, saying to pick one of its fields', async () => {
			const error = await refused({ additionalFields: { userDefinedId: '={{ $json.ref }}' } }, [
				{
					json: { ref: { id: 'INV-1', mailbox: 'ap' } },
					binary: { data: { data: pdf('x'), fileName: 'a.pdf' } },
				},
			]);
			expect(error.message).toBe('User-Defined ID is an object, not text');
			expect(error.description).toContain('{{ $json.ref.id }}');
		});

		it('a due date that is not a date', async () => {
			const error = await refused({ additionalFields: { dueDate: 'next friday' } }, [
				{ binary: { data: { data: pdf('x'), fileName: 'a.pdf' } } },
			]);
			expect(error.message).toBe('Due Date "next friday" is not a date');
		});
	});

	it('with Continue On Fail, a bad item becomes an error item and the others still make Runs', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			continueOnFail: true,
			inputItems: [
				{ binary: { data: { data: pdf('ok'), fileName: 'ok.pdf' } } },
				{ json: { nothing: true } },
				{ binary: { data: { data: pdf('ok2'), fileName: 'ok2.pdf' } } },
			],
		});
		expect(result.items).toHaveLength(3);
		expect(result.items[0].json.status).toBe('running');
		expect(result.items[1].json.error).toBe('Item 2 has no files');
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(result.items[2].json.files).toEqual('ok2.pdf');
	});

	it('streams a 200 MB file from n8n’s filesystem binary store with identical bytes, beside two small ones', async () => {
		const bigPath = join(scratch, 'big.bin');
		await new Promise<void>((resolve, reject) => {
			const out = createWriteStream(bigPath);
			const chunk = randomBytes(1024 * 1024);
			let written = 0;
			const write = () => {
				while (written < 200) {
					written++;
					if (!out.write(chunk)) {
						out.once('drain', write);
						return;
					}
				}
				out.end(resolve);
			};
			out.on('error', reject);
			write();
		});
		const hashBig = await new Promise<string>((resolve) => {
			const hash = createHash('sha256');
			createReadStream(bigPath)
				.on('data', (d) => hash.update(d))
				.on('end', () => resolve(hash.digest('hex')));
		});
		const smallA = randomBytes(1000);
		const smallB = Buffer.from('plain text file\n');
		writeFileSync(join(scratch, 'a.bin'), smallA);
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			binaryMode: 'filesystem',
			timeoutMs: 120_000,
			parameters: createRunParameters({
				binarySource: 'all',
				filesPerRun: 'item',
				waitForCompletion: false,
			}),
			inputItems: [
				{
					binary: {
						big: { path: bigPath, fileName: 'scan-200MB.pdf', mimeType: 'application/pdf' },
						a: {
							path: join(scratch, 'a.bin'),
							fileName: 'a.bin',
							mimeType: 'application/octet-stream',
						},
						b: { data: smallB, fileName: 'notes.txt', mimeType: 'text/plain' },
					},
				},
			],
		});
		expect(result.error).toBeUndefined();
		const [upload] = postRunsSince(seq);
		expect(upload.upload?.files.map((file) => [file.filename, file.size, file.sha256])).toEqual([
			['scan-200MB.pdf', 200 * 1024 * 1024, hashBig],
			['a.bin', 1000, sha256(smallA)],
			['notes.txt', smallB.length, sha256(smallB)],
		]);
		expect(upload.upload?.files.map((file) => file.contentType)).toEqual([
			'application/pdf',
			'application/octet-stream',
			'text/plain',
		]);
	}, 180_000);

	it('keeps an odd file name intact: quotes and non-ASCII read back as sent, line breaks percent-encoded (no header injection)', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [
				{
					binary: {
						data: {
							data: pdf('x'),
							fileName: 'Rechnung "März" №7 – 請求書.pdf\r\nX-Evil: 1',
							mimeType: 'application/pdf',
						},
					},
				},
			],
		});
		expect(result.error).toBeUndefined();
		const [upload] = postRunsSince(seq);
		expect(upload.upload?.files[0].filename).toBe('Rechnung "März" №7 – 請求書.pdf%0D%0AX-Evil: 1');
	});
});

describe('Run → Create: hints', () => {
	it('with Wait for Completion off, the output says once that the Runs are still running and how to get their results', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [
				{ binary: { data: { data: pdf('a'), fileName: 'a.pdf' } } },
				{ binary: { data: { data: pdf('b'), fileName: 'b.pdf' } } },
			],
		});
		expect(result.items.map((item) => item.json.status)).toEqual(['running', 'running']);
		const hints = result.runData[result.nodeName][0].hints ?? [];
		expect(hints.map((hint) => hint.message)).toEqual([
			expect.stringMatching(/^The Runs are still running: Wait for Completion is off/),
		]);
	});

	it('with Wait for Completion on, no still-running hint: only the count of Runs (version 1.3)', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters(),
			inputItems: [{ binary: { data: { data: pdf('c'), fileName: 'c.pdf' } } }],
		});
		expect(result.items[0].json.status).toBe('success');
		expect((result.runData[result.nodeName][0].hints ?? []).map((hint) => hint.message)).toEqual([
			'1 Run: 1 succeeded',
		]);
	});

	it('with Wait for Completion on, version 1.2 shows no hint', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.2,
			parameters: createRunParameters(),
			inputItems: [{ binary: { data: { data: pdf('c'), fileName: 'c.pdf' } } }],
		});
		expect(result.items[0].json.status).toBe('success');
		expect(result.runData[result.nodeName][0].hints ?? []).toEqual([]);
	});
});

describe('Run → Create: waiting', () => {
	it('comes back complete after several polls of a Run that takes a while', async () => {
		ctx.emulator.knobs.runDurationMs = 3500;
		try {
			const seq = ctx.emulator.lastSeq;
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters(),
				inputItems: [{ binary: { data: { data: pdf('x'), fileName: 'INV-3001.pdf' } } }],
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.status).toBe('success');
			const polls = ctx.emulator
				.requestsSince(seq)
				.filter((entry) => entry.method === 'GET' && /\/runs\/\d+$/.test(entry.path));
			expect(polls.length).toBeGreaterThanOrEqual(2);
		} finally {
			ctx.emulator.knobs.runDurationMs = 1200;
		}
	});

	it('gives up at the timeout with the run id and run_url in the error', async () => {
		ctx.emulator.knobs.runOutcome = 'never';
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 0.05 }),
				inputItems: [{ binary: { data: { data: pdf('x'), fileName: 'slow.pdf' } } }],
			});
			const error = result.error as Error & { description?: string };
			expect(error.message).toMatch(/^Run \d+ did not finish within 3 seconds$/);
			const runId = error.message.match(/Run (\d+)/)?.[1];
			expect(error.description).toContain(`${ctx.emulator.webUrl}`);
			expect(error.description).toContain(`Run ${runId}`);
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
		}
	});

	it('stops waiting when the execution is cancelled, instead of at the Wait timeout', async () => {
		ctx.emulator.knobs.runOutcome = 'never';
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				// The Run never finishes and the wait would end at its Timeout after 10 minutes: an
				// execution that ends at all within the harness's timeout (60 s) was ended by the
				// cancel. No wall clock judges how soon (waits tick every 0.2 s by construction).
				parameters: createRunParameters({ timeoutMinutes: 10 }),
				inputItems: [{ binary: { data: { data: pdf('x'), fileName: 'slow.pdf' } } }],
				cancelAfterMs: 1500,
			});
			// n8n marks the execution cancelled or failed; either way the node's own error says
			// why it stopped (the harness keeps what the node threw).
			expect(['canceled', 'error']).toContain(result.status);
			expect(result.error?.message).toMatch(
				/^The execution was cancelled while waiting for Run \d+$/,
			);
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
		}
	});
});

describe('Run → Create: retries', () => {
	it('waits out a 429 with Retry-After and then creates exactly one Run', async () => {
		const before = ctx.emulator.state.runs.size;
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: /\/runs$/ }, kind: '429', retryAfter: '1' },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [{ binary: { data: { data: pdf('x'), fileName: 'rl.pdf' } } }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(postRunsSince(seq).map((entry) => entry.status)).toEqual([429, 200]);
		expect(ctx.emulator.state.runs.size).toBe(before + 1);
	});

	it.each(['before', 'after'] as const)(
		'never repeats a POST that got a 503 (fault %s the Run was made): one Run at most, and a clear error',
		async (timing) => {
			const before = ctx.emulator.state.runs.size;
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: /\/runs$/ }, kind: '503', timing },
			]);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ waitForCompletion: false }),
				inputItems: [{ binary: { data: { data: pdf('x'), fileName: 'once.pdf' } } }],
			});
			const error = result.error as Error & { description?: string };
			expect(error.message).toBe('The Extraction Agents service failed (503)');
			expect(error.description).toContain(
				'so the node did not try again (that could make it twice)',
			);
			expect(postRunsSince(seq)).toHaveLength(1);
			expect(ctx.emulator.state.runs.size).toBe(before + (timing === 'after' ? 1 : 0));
		},
	);
});

describe('Run → Create: a file that cannot be read whole', () => {
	const upload = (damageStoredFile: 'delete' | 'truncate') =>
		executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: [
				{
					binary: {
						data: {
							data: Buffer.alloc(300_000, 7),
							fileName: 'scan.pdf',
							mimeType: 'application/pdf',
							damageStoredFile,
						},
					},
				},
			],
		});

	it('names the file that changed while uploading instead of reporting a dropped connection', async () => {
		const result = await upload('truncate');
		expect(result.error?.message).toBe(
			'File "scan.pdf" changed while uploading: expected 300000 bytes, read 150000',
		);
	});

	it('says the file is missing from its file field, with the store’s reason', async () => {
		const result = await upload('delete');
		expect(result.error?.message).toBe(
			'File "scan.pdf" could not be read from file field "data": File not found',
		);
	});
});
