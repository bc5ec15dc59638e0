import { executeNode, useHarness, type HarnessInputItem } from '../../dev/harness';
import type { RequestLogEntry } from '../../dev/emulator';
import { DEFAULT_ITEMS_IN_PARALLEL } from '../../nodes/ExtractionAgents/descriptions/options';
import { INVOICES, agentById, createRunParameters, pdf, runById, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 1500 });
const RUN_CREATE = /\/agents\/\d+\/runs$/;
const RUN_READ = /\/agents\/\d+\/runs\/\d+$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function documents(
	count: number,
	options: { withoutFileAt?: number; size?: number } = {},
): HarnessInputItem[] {
	return Array.from({ length: count }, (_, index) =>
		index === options.withoutFileAt
			? { json: { n: index } }
			: {
					json: { n: index },
					binary: {
						data: {
							data: options.size
								? Buffer.alloc(options.size, index % 251)
								: pdf(`invoice ${index}`),
							fileName: `doc-${index}.pdf`,
							mimeType: 'application/pdf',
						},
					},
				},
	);
}

function sent(seq: number, method: string, path: RegExp): RequestLogEntry[] {
	return ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === method && path.test(entry.path));
}

/** The most requests of `entries` that were being handled by the emulator at one moment. */
function mostAtOnce(entries: RequestLogEntry[]): number {
	const edges = entries.flatMap((entry) => [
		{ at: entry.startedAt, delta: 1 },
		{ at: entry.startedAt + entry.durationMs, delta: -1 },
	]);
	edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
	let current = 0;
	let most = 0;
	for (const edge of edges) {
		current += edge.delta;
		most = Math.max(most, current);
	}
	return most;
}

describe('Run → Create over many items', () => {
	it('creates one Run per item with up to Items in Parallel uploads at once, and returns the results in input order, each paired with its item', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters(),
			inputItems: documents(50, { size: 200_000 }),
			timeoutMs: 120_000,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 50 }, (_, item) => ({ item })),
		);
		expect(result.items.map((item) => item.json.files)).toEqual(
			Array.from({ length: 50 }, (_, n) => `doc-${n}.pdf`),
		);
		expect(result.items.every((item) => item.json.status === 'success')).toBe(true);

		const posts = sent(seq, 'POST', RUN_CREATE);
		expect(posts).toHaveLength(50);
		expect(new Set(result.items.map((item) => item.json.run_id)).size).toBe(50);
		const atOnce = mostAtOnce(posts);
		expect(atOnce).toBeGreaterThan(1);
		expect(atOnce).toBeLessThanOrEqual(DEFAULT_ITEMS_IN_PARALLEL);
	});

	it('waits for all Runs in one loop: one status read per still-running Run at a time, each Run read again at most every second', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters(),
			inputItems: documents(20),
		});
		expect(result.error).toBeUndefined();
		const reads = sent(seq, 'GET', RUN_READ);
		const byRun = new Map<string, RequestLogEntry[]>();
		for (const read of reads) byRun.set(read.path, [...(byRun.get(read.path) ?? []), read]);
		expect(byRun.size).toBe(20);
		for (const runReads of byRun.values()) {
			expect(mostAtOnce(runReads)).toBeLessThanOrEqual(1);
			for (let i = 1; i < runReads.length; i++) {
				// The schedule checks up to 10 % early (jitter), never twice within 0.9 s.
				expect(runReads[i].startedAt - runReads[i - 1].startedAt).toBeGreaterThanOrEqual(850);
			}
			// A 1.5 s Run is seen finished by its second or third read.
			expect(runReads.length).toBeLessThanOrEqual(3);
		}
	});

	it('behaves as before with Items in Parallel 1: one upload after another', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({
				options: { itemsInParallel: 1 },
				waitForCompletion: false,
			}),
			inputItems: documents(6, { size: 200_000 }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.files)).toEqual(
			Array.from({ length: 6 }, (_, n) => `doc-${n}.pdf`),
		);
		expect(mostAtOnce(sent(seq, 'POST', RUN_CREATE))).toBe(1);
	});

	it('refuses Items in Parallel outside 1 to 20 before sending anything', async () => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ options: { itemsInParallel: 0 } }),
			inputItems: documents(2),
		});
		expect(result.error?.message).toBe('Items in Parallel "0" is not a whole number from 1 to 20');
		expect(ctx.emulator.requestsSince(seq)).toEqual([]);
	});

	describe('one bad item among many', () => {
		it('with Continue On Fail: an error item for exactly the bad item, in its place; every other item gets its Run', async () => {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters(),
				inputItems: documents(10, { withoutFileAt: 3 }),
				continueOnFail: true,
			});
			expect(result.items).toHaveLength(10);
			expect(result.items.map((item) => item.pairedItem)).toEqual(
				Array.from({ length: 10 }, (_, item) => ({ item })),
			);
			expect(result.items[3].json.error).toBe('Item 4 has no files');
			const others = result.items.filter((_, index) => index !== 3);
			expect(others.map((item) => item.json.status)).toEqual(Array(9).fill('success'));
			expect(others.map((item) => item.json.files)).toEqual(
				[0, 1, 2, 4, 5, 6, 7, 8, 9].map((n) => `doc-${n}.pdf`),
			);
		});

		it('without Continue On Fail: fails on the bad item, creates nothing more, and names every Run the other items already created', async () => {
			const before = new Set(ctx.emulator.state.runs.keys());
			const seq = ctx.emulator.lastSeq;
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ options: { itemsInParallel: 5 } }),
				inputItems: documents(12, { withoutFileAt: 9 }),
			});
			const error = result.error as Error & { description?: string };
			expect(error.message).toBe('Item 10 has no files');
			const created = [...ctx.emulator.state.runs.keys()].filter((runId) => !before.has(runId));
			// Item 10 starts only once five earlier items have uploaded, so at least five Runs exist.
			expect(created.length).toBeGreaterThanOrEqual(5);
			expect(error.description).toContain(
				`Other items had already created ${created.length} Run(s), which go on in the service`,
			);
			for (const runId of created)
				expect(error.description).toContain(
					`Run ${runId} (${ctx.emulator.webUrl}/agents/${INVOICES}/runs/${runId})`,
				);
			// Items 11 and 12 come after the failure: nothing of theirs is sent.
			const uploaded = sent(seq, 'POST', RUN_CREATE).flatMap(
				(entry) => entry.upload?.files.map((file) => file.filename) ?? [],
			);
			expect(uploaded).not.toContain('doc-10.pdf');
			expect(uploaded).not.toContain('doc-11.pdf');
			expect(error.description).toContain(
				`Nothing was sent for ${12 - 1 - created.length} other item(s)`,
			);
		});

		it('without Continue On Fail: the lowest-index failing item is the one reported', async () => {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ options: { itemsInParallel: 5 } }),
				inputItems: documents(5, { withoutFileAt: 4 }).map((item, index) =>
					index === 1 ? { json: {} } : item,
				),
			});
			expect(result.error?.message).toBe('Item 2 has no files');
		});
	});

	it('a 429 holds back every request of the execution for the same Retry-After: nothing new is sent in that window, and each item still gets exactly one Run', async () => {
		const seq = ctx.emulator.lastSeq;
		const before = ctx.emulator.state.runs.size;
		// Answered once the upload has arrived whole: a 429 sent while the node is still writing
		// closes the connection under it (EPIPE), and the node then only knows the upload broke,
		// which is the cut-upload rule's case, not this one's (CI failed so on a busy machine).
		ctx.emulator.injectFaults([
			{
				match: { method: 'POST', path: RUN_CREATE },
				kind: '429',
				retryAfter: '2',
				afterBody: true,
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({
				waitForCompletion: false,
				options: { itemsInParallel: 5 },
			}),
			inputItems: documents(10, { size: 100_000 }),
		});
		expect(result.error).toBeUndefined();
		expect(ctx.emulator.state.runs.size).toBe(before + 10);
		const requests = ctx.emulator.requestsSince(seq);
		const refused = requests.find((entry) => entry.status === 429);
		expect(refused).toBeDefined();
		const windowStart = refused!.startedAt + refused!.durationMs;
		const sentInWindow = requests.filter(
			(entry) => entry.startedAt > windowStart && entry.startedAt < windowStart + 1900,
		);
		// At most the requests that were already on their way when the 429 came back.
		expect(sentInWindow.length).toBeLessThanOrEqual(5);
		const retried = sent(seq, 'POST', RUN_CREATE).filter(
			(entry) => entry.startedAt >= windowStart + 1900,
		);
		expect(retried.length).toBeGreaterThanOrEqual(1);
	});

	it('a 429 answered before the upload was read (a rate limit at the edge): each item still gets exactly one Run, none fails', async () => {
		const before = ctx.emulator.state.runs.size;
		const seq = ctx.emulator.lastSeq;
		// Answered as soon as the headers come: the node may see the 429, or only a connection
		// closed under its upload (EPIPE), which it takes for a cut upload and sends again.
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: RUN_CREATE }, kind: '429', retryAfter: '1' },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			typeVersion: 1.5,
			parameters: createRunParameters({
				waitForCompletion: false,
				options: { itemsInParallel: 5 },
			}),
			inputItems: documents(10, { size: 2_000_000 }),
		});
		expect(result.error).toBeUndefined();
		expect(ctx.emulator.state.runs.size).toBe(before + 10);
		const made = sent(seq, 'POST', RUN_CREATE)
			.filter((entry) => entry.status === 200)
			.flatMap((entry) => entry.upload?.files.map((file) => file.filename) ?? []);
		expect(made.sort()).toEqual(Array.from({ length: 10 }, (_, n) => `doc-${n}.pdf`).sort());
	});

	it('a Retry-After longer than the node waits fails the item at once with "rate limited until", without sending it again', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{ match: { method: 'POST', path: RUN_CREATE }, kind: '429', retryAfter: '600' },
		]);
		const before = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ waitForCompletion: false }),
			inputItems: documents(1),
			timezone: 'Asia/Tokyo',
		});
		const error = result.error as Error & { description?: string };
		// The time as the workflow's time zone tells it, named.
		const shown = error.message.match(
			/^The Extraction Agents service got too many requests from this API key and asked the node to wait until (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \(Asia\/Tokyo\) \(429\)$/,
		);
		expect(shown).not.toBeNull();
		const after = Date.now();
		// 600 s after the 429 came back, which was between `before` and `after` (the message
		// shows the next whole second): bracketed by the test's own readings of the clock, so
		// a busy machine cannot break it.
		const until = Date.parse(`${shown![1].replace(' ', 'T')}+09:00`);
		expect(until).toBeGreaterThanOrEqual(before + 600_000);
		expect(until).toBeLessThanOrEqual(Math.ceil((after + 600_000) / 1000) * 1000);
		expect(error.description).toContain('Items in Parallel');
		expect(sent(seq, 'POST', RUN_CREATE).map((entry) => entry.status)).toEqual([429]);
	});

	it('enforces the Wait timeout while the service rate limits the status reads', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.knobs.runOutcome = 'never';
		ctx.emulator.injectFaults([
			{ match: { method: 'GET', path: RUN_READ }, kind: '429', retryAfter: '30' },
		]);
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 0.05 }),
				inputItems: documents(1),
			});
			const error = result.error as Error & { description?: string };
			expect(error.message).toMatch(/^Run \d+ did not finish within 3 seconds$/);
			expect(error.description).toContain(
				'The last check of the Run failed: The Extraction Agents service got too many requests from this API key and asked the node to wait until',
			);
			// The one read refused with Retry-After 30 s was not sent again within the 3 s.
			expect(sent(seq, 'GET', RUN_READ).map((entry) => entry.status)).toEqual([429]);
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
		}
	});

	it('with Continue On Fail, a Wait timeout gives an error item carrying the Run as fields: run_id, agent_id, run_url, status', async () => {
		ctx.emulator.knobs.runOutcome = 'never';
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 0.05 }),
				inputItems: documents(2),
				continueOnFail: true,
			});
			expect(result.items).toHaveLength(2);
			for (const [index, item] of result.items.entries()) {
				expect(item.pairedItem).toEqual({ item: index });
				expect(item.json.error).toBe(`Run ${item.json.run_id} did not finish within 3 seconds`);
				expect(item.json).toMatchObject({ agent_id: INVOICES, status: 'running' });
				expect(item.json.run_url).toBe(
					`${ctx.emulator.webUrl}/agents/${INVOICES}/runs/${item.json.run_id}`,
				);
				expect(ctx.emulator.getRun(INVOICES, Number(item.json.run_id))).toBeDefined();
			}
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
		}
	});

	it('stops every upload and every wait of the batch when the execution is cancelled, and sends nothing after', async () => {
		ctx.emulator.knobs.runOutcome = 'never';
		// A 2 MB upload takes 10 minutes, the Runs never finish and the waits time out after 10
		// minutes, under an hour's Request Timeout: only the cancel can end this execution
		// within the harness's timeout (60 s). No wall clock judges how soon.
		ctx.emulator.knobs.uploadBytesPerSecond = 3_500;
		const seq = ctx.emulator.lastSeq;
		const runsBefore = ctx.emulator.state.runs.size;
		const largeUpload = (entry: RequestLogEntry) => (entry.upload?.contentLength ?? 0) > 1_000_000;
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 10, options: { requestTimeout: 3600 } }),
				// Small files are created and then waited for; large ones are still uploading at the cancel.
				inputItems: [...documents(3), ...documents(4, { size: 2_000_000 })],
				// Cancelled once the three small Runs are made and a large upload is under way.
				cancelWhen: () => {
					const posts = sent(seq, 'POST', RUN_CREATE);
					return (
						posts.filter((entry) => entry.status === 200).length === 3 &&
						posts.some((entry) => entry.status === 0 && largeUpload(entry))
					);
				},
			});
			const endSeq = ctx.emulator.lastSeq;
			expect(['canceled', 'error']).toContain(result.status);
			// Only the three small Runs were made: every large upload ended without an answer.
			expect(ctx.emulator.state.runs.size).toBe(runsBefore + 3);
			const uploads = sent(seq, 'POST', RUN_CREATE);
			expect(uploads.filter(largeUpload).length).toBeGreaterThanOrEqual(1);
			expect(uploads.filter(largeUpload).map((entry) => entry.status)).toEqual(
				uploads.filter(largeUpload).map(() => 0),
			);
			await sleep(1500); // anything the node would still send arrives by now
			expect(ctx.emulator.requestsSince(endSeq)).toEqual([]);
		} finally {
			ctx.emulator.knobs.runOutcome = 'success';
			ctx.emulator.knobs.uploadBytesPerSecond = null;
		}
	});
});

describe('One item per Prompt result never drops an item', () => {
	it('a Run without Prompt results still gives one row with the Run’s fields and prompt null', async () => {
		const runId = Number(
			(ctx.emulator.createRun(INVOICES, [{ name: 'empty.pdf' }]) as { run_id: number }).run_id,
		);
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: RUN_READ },
				kind: 'missing-fields',
				dropFields: ['data', 'order'],
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: agentById(INVOICES),
				run: runById(runId),
				output: 'promptResult',
			},
			inputItems: [{ json: {} }],
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(result.items[0].json).toMatchObject({
			run_id: runId,
			agent_id: INVOICES,
			prompt: null,
			value: null,
		});
	});
});

describe('Other per-item operations run several items at once', () => {
	it('Run → Get of many Runs reads up to Items in Parallel at once and keeps input order', async () => {
		const ids = Array.from({ length: 12 }, (_, n) =>
			Number(
				(ctx.emulator.createRun(INVOICES, [{ name: `get-${n}.pdf` }]) as { run_id: number }).run_id,
			),
		);
		ctx.emulator.knobs.latencyMs = 150;
		const seq = ctx.emulator.lastSeq;
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: {
					resource: 'run',
					operation: 'get',
					agent: agentById(INVOICES),
					run: '={{ { "__rl": true, "mode": "id", "value": String($json.id) } }}',
				},
				inputItems: ids.map((id) => ({ json: { id } })),
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.run_id)).toEqual(ids);
			const atOnce = mostAtOnce(sent(seq, 'GET', RUN_READ));
			expect(atOnce).toBeGreaterThan(1);
			expect(atOnce).toBeLessThanOrEqual(DEFAULT_ITEMS_IN_PARALLEL);
		} finally {
			ctx.emulator.knobs.latencyMs = 0;
		}
	});
});
