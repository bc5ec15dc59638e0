/**
 * Faults: what the action node does for each fault the service (or the
 * network in between) can produce, through n8n-core's engine against the emulator.
 * The emulator's request log says how many attempts were made; its state says how
 * many Runs exist (a POST that creates a Run is never repeated).
 *
 * Stalls (a response that never comes) are in timeouts.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';
import { executeNode, useHarness } from '../../dev/harness';
import type { FaultKind, InjectedFault, RetryAfterStyle } from '../../dev/emulator';
import { RETRY_LIMITS } from '../../nodes/ExtractionAgents/transport/retry';
import { toNodeApiError } from '../../nodes/ExtractionAgents/transport/errors';
import {
	agentById,
	apiPath,
	uploadOnlyParameters,
	finishedRun,
	INVOICES,
	itemWithFiles,
	runGetParameters,
	runsWithUserDefinedId,
	uniqueId,
	useEmulator,
	useShortBackoff,
	AGENT_RUNS,
	RUN_READ,
	type ErrorWithDescription,
} from './helpers';

useHarness();
useShortBackoff();
const ctx = useEmulator({ runDurationMs: 200 });

const RUN_CREATE = AGENT_RUNS;

/**
 * Version 1.4, which never repeats a POST that creates a Run, whatever the fault. From 1.5 a
 * Run with a User-Defined ID is looked for among the Agent's newest Runs first (below, "1.5").
 */
const VERSION_1_4 = { typeVersion: 1.4 };

afterEach(() => {
	ctx.emulator.clearFaults();
	ctx.emulator.knobs.retryAfterStyle = 'seconds';
	ctx.emulator.knobs.latencyMs = 0;
	ctx.emulator.knobs.uploadBytesPerSecond = null;
});

async function runGet(
	runId: number,
	faults: InjectedFault[],
	extra: { continueOnFail?: boolean } = {},
) {
	const seq = ctx.emulator.lastSeq;
	ctx.emulator.injectFaults(faults);
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: runGetParameters(runId),
		...extra,
	});
	expect(ctx.emulator.pendingFaults).toEqual([]); // every fault was really hit
	const sent = ctx.emulator.requestsSince(seq);
	return { result, sent, error: result.error as ErrorWithDescription | undefined };
}

/** Run → Create of one item with two files and a unique User-Defined ID, under the given faults. */
async function createRun(
	faults: InjectedFault[],
	extra: { continueOnFail?: boolean; parameters?: INodeParameters; typeVersion?: number } = {},
) {
	const userDefinedId = uniqueId('fault');
	const seq = ctx.emulator.lastSeq;
	ctx.emulator.injectFaults(faults);
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: uploadOnlyParameters({
			additionalFields: { userDefinedId },
			...(extra.parameters ?? {}),
		}),
		inputItems: [itemWithFiles(userDefinedId, 2)],
		continueOnFail: extra.continueOnFail,
		typeVersion: extra.typeVersion,
	});
	expect(ctx.emulator.pendingFaults).toEqual([]);
	const posts = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && RUN_CREATE.test(entry.path));
	return {
		result,
		posts,
		error: result.error as ErrorWithDescription | undefined,
		runs: runsWithUserDefinedId(ctx.emulator, userDefinedId),
	};
}

describe('429 Too Many Requests: waited out on every request, then one result', () => {
	const styles: Array<[RetryAfterStyle, number]> = [
		// Retry-After: 1 → at least a second; an HTTP date has whole seconds, so 0..1 s; absent → backoff.
		['seconds', 900],
		['http-date', 0],
		['absent', 0],
	];

	it.each(styles)('Run → Get after a 429 with Retry-After as %s', async (style, minimumWaitMs) => {
		ctx.emulator.knobs.retryAfterStyle = style;
		const runId = finishedRun(ctx.emulator).run_id;
		const started = Date.now();
		const { result, sent } = await runGet(runId, [
			{ match: { method: 'GET', path: RUN_READ }, kind: '429' },
		]);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.run_id)).toEqual([runId]);
		expect(sent.map((entry) => entry.status)).toEqual([429, 200]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(minimumWaitMs);
	});

	it.each(styles)(
		'Run → Create after a 429 with Retry-After as %s: the upload is sent again, one Run',
		async (style) => {
			ctx.emulator.knobs.retryAfterStyle = style;
			const { result, posts, runs } = await createRun([
				{ match: { method: 'POST', path: RUN_CREATE }, kind: '429' },
			]);
			expect(result.error).toBeUndefined();
			expect(posts.map((entry) => entry.status)).toEqual([429, 200]);
			// the second attempt carried the whole upload again
			expect(posts[1].upload?.files).toHaveLength(2);
			expect(runs).toHaveLength(1);
			expect(result.items[0].json.run_id).toBe(runs[0].runId);
		},
	);

	it('gives up after 5 retries with a clear error', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { error, sent } = await runGet(runId, [
			{
				match: { method: 'GET', path: RUN_READ },
				kind: '429',
				retryAfter: '0',
				times: RETRY_LIMITS.rateLimitedRetries + 1,
			},
		]);
		expect(error?.message).toBe(
			'The Extraction Agents service got too many requests from this API key and asked the node to slow down (429)',
		);
		expect(error?.description).toContain(`tried again ${RETRY_LIMITS.rateLimitedRetries} time(s)`);
		expect(sent).toHaveLength(RETRY_LIMITS.rateLimitedRetries + 1);
	});
});

describe('500, 502, 503, 504', () => {
	it.each(['502', '503', '504'] as const)(
		'a read is repeated after %s and succeeds',
		async (kind) => {
			const runId = finishedRun(ctx.emulator).run_id;
			const { result, sent } = await runGet(runId, [
				{ match: { method: 'GET', path: RUN_READ }, kind },
			]);
			expect(result.error).toBeUndefined();
			expect(sent.map((entry) => entry.status)).toEqual([Number(kind), 200]);
		},
	);

	it.each(['502', '503', '504'] as const)(
		'a read that keeps getting %s fails after 3 retries, saying so',
		async (kind) => {
			const runId = finishedRun(ctx.emulator).run_id;
			const { error, sent } = await runGet(runId, [
				{
					match: { method: 'GET', path: RUN_READ },
					kind,
					times: RETRY_LIMITS.transientRetries + 1,
				},
			]);
			expect(error?.message).toBe(`The Extraction Agents service failed (${kind})`);
			expect(error?.description).toContain(
				`The node tried ${RETRY_LIMITS.transientRetries} more time(s)`,
			);
			expect(sent).toHaveLength(RETRY_LIMITS.transientRetries + 1);
		},
	);

	it('a 500 on a read is not repeated (an error inside the service) and says so', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { error, sent } = await runGet(runId, [
			{ match: { method: 'GET', path: RUN_READ }, kind: '500' },
		]);
		expect(error?.message).toBe('The Extraction Agents service failed (500)');
		expect(error?.description).toContain(
			'The node did not try again: this error is inside the service',
		);
		expect(sent).toHaveLength(1);
	});

	const creates: Array<[FaultKind, 'before' | 'after']> = [];
	for (const kind of ['500', '502', '503', '504'] as const)
		for (const timing of ['before', 'after'] as const) creates.push([kind, timing]);

	it.each(creates)(
		'Run → Create 1.4 after %s (%s the service made the Run): never repeated, at most one Run, a clear error',
		async (kind, timing) => {
			const { error, posts, runs } = await createRun(
				[{ match: { method: 'POST', path: RUN_CREATE }, kind, timing }],
				VERSION_1_4,
			);
			expect(error?.message).toBe(`The Extraction Agents service failed (${kind})`);
			expect(error?.description).toContain(
				'so the node did not try again (that could make it twice)',
			);
			expect(error?.description).toContain(
				'Look in the web app (for a new Run: the Agent’s Runs) before you run this item again',
			);
			expect(posts).toHaveLength(1);
			expect(runs).toHaveLength(timing === 'after' ? 1 : 0);
		},
	);
});

describe('Run → Create 1.5 with a User-Defined ID: every fault on creation, never a Run twice', () => {
	// [fault, timing, what the user gets]: the Run found after 'after'; an upload cut before its
	// last byte (reset before) sent again, since no Run can have been made; a 5xx before the Run
	// was made stays an error: the list not showing a Run proves nothing (it may be listed late).
	const cases: Array<
		[
			InjectedFault['kind'],
			'before' | 'after',
			'found' | 'sent again' | 'sent again if cut' | 'error',
		]
	> = [
		['500', 'after', 'found'],
		['502', 'after', 'found'],
		['503', 'after', 'found'],
		['504', 'after', 'found'],
		['reset', 'after', 'found'],
		['reset-mid-response', 'after', 'found'],
		['truncated-json', 'after', 'found'],
		['non-json', 'after', 'found'],
		['500', 'before', 'error'],
		['502', 'before', 'error'],
		['503', 'before', 'error'],
		['504', 'before', 'error'],
		// Whether the small body's last bytes were handed over before the reset is the network's
		// timing (see 'connection reset' below): cut, it is sent again; sent whole, the error stands.
		['reset', 'before', 'sent again if cut'],
	];
	it.each(cases)(
		'%s (%s the Run is made): %s, exactly one Run at most',
		async (kind, timing, outcome) => {
			const { result, error, posts, runs } = await createRun(
				[{ match: { method: 'POST', path: RUN_CREATE }, kind, timing }],
				{ typeVersion: 1.5 },
			);
			expect(runs.length).toBeLessThanOrEqual(1);
			if (outcome === 'error') {
				expect(error?.message).toBe(`The Extraction Agents service failed (${kind})`);
				expect([posts.length, runs.length]).toEqual([1, 0]);
				return;
			}
			if (outcome === 'sent again if cut' && error) {
				expect(error.message).toBe(
					'The connection to the Extraction Agents service was interrupted',
				);
				expect([posts.length, runs.length]).toEqual([1, 0]);
				return;
			}
			expect(error).toBeUndefined();
			expect([posts.length, runs.length]).toEqual([outcome === 'found' ? 1 : 2, 1]);
			expect(result.items.map((item) => item.json.run_id)).toEqual([runs[0].runId]);
		},
	);
});

describe('connection reset', () => {
	it('a read whose answer is cut mid-way (reset mid-response) is repeated and succeeds', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { result, sent } = await runGet(runId, [
			{ match: { method: 'GET', path: RUN_READ }, kind: 'reset-mid-response' },
		]);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.run_id).toBe(runId);
		expect(sent).toHaveLength(2);
		expect(sent[0].fault).toBe('reset-mid-response');
	});

	it('a read reset beyond the retries fails with a clear error', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { error, sent } = await runGet(runId, [
			{
				match: { method: 'GET', path: RUN_READ },
				kind: 'reset-mid-response',
				times: RETRY_LIMITS.transientRetries + 1,
			},
		]);
		expect(error?.message).toBe('The connection to the Extraction Agents service was interrupted');
		expect(error?.description).toContain(
			`The node tried ${RETRY_LIMITS.transientRetries} more time(s)`,
		);
		expect(sent).toHaveLength(RETRY_LIMITS.transientRetries + 1);
	});

	it.each([
		['reset-mid-response', 'after', 1],
		['reset', 'after', 1],
	] as const)(
		'Run → Create 1.4 with %s (%s): not repeated, %i Run, a clear error',
		async (kind, timing, expectedRuns) => {
			const { error, posts, runs } = await createRun(
				[{ match: { method: 'POST', path: RUN_CREATE }, kind, timing }],
				VERSION_1_4,
			);
			expect(error?.message).toBe(
				'The connection to the Extraction Agents service was interrupted',
			);
			expect(error?.description).toContain(
				'so the node did not try again (that could make it twice)',
			);
			expect(posts).toHaveLength(1);
			expect(runs).toHaveLength(expectedRuns);
		},
	);

	it('Run → Create with reset (before): not repeated, no Run; the message says so when the body was not sent whole', async () => {
		const { error, posts, runs } = await createRun(
			[{ match: { method: 'POST', path: RUN_CREATE }, kind: 'reset', timing: 'before' }],
			VERSION_1_4,
		);
		// The service closes the connection on the request's headers: whether n8n's client had
		// handed over the last bytes of the small body by then is the network's timing. Cut
		// before the last byte, the node knows no Run was made; after it, the Run may exist.
		if (/broke during the upload/.test(error?.message ?? '')) {
			expect(error?.message).toMatch(
				/^The connection to the Extraction Agents service broke during the upload, after [\d,]+ bytes of [\d,]+ bytes$/,
			);
			expect(error?.description).toContain('No Run was made');
		} else {
			expect(error?.message).toBe(
				'The connection to the Extraction Agents service was interrupted',
			);
			expect(error?.description).toContain('so the node did not try again');
		}
		expect(posts).toHaveLength(1);
		expect(runs).toHaveLength(0);
	});
});

describe('truncated or non-JSON bodies', () => {
	const MESSAGE = 'The Extraction Agents service sent an answer the node cannot read';

	it.each(['truncated-json', 'non-json'] as const)(
		'a read whose answer is %s once is repeated and succeeds',
		async (kind) => {
			const runId = finishedRun(ctx.emulator).run_id;
			const { result, sent } = await runGet(runId, [
				{ match: { method: 'GET', path: RUN_READ }, kind },
			]);
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.run_id).toBe(runId);
			expect(sent).toHaveLength(2);
		},
	);

	it.each(['truncated-json', 'non-json'] as const)(
		'a read that keeps getting %s fails with "an answer the node cannot read", not a crash',
		async (kind) => {
			const runId = finishedRun(ctx.emulator).run_id;
			const { error, sent, result } = await runGet(runId, [
				{
					match: { method: 'GET', path: RUN_READ },
					kind,
					times: RETRY_LIMITS.transientRetries + 1,
				},
			]);
			expect(result.items).toEqual([]);
			expect(error?.message).toBe(MESSAGE);
			expect(error?.description).toContain(
				kind === 'non-json'
					? 'The answer is a web page: Scheduled maintenance'
					: 'The answer starts with: {"agent_id"',
			);
			expect(error?.description).toContain(
				`The node tried ${RETRY_LIMITS.transientRetries} more time(s)`,
			);
			expect(sent).toHaveLength(RETRY_LIMITS.transientRetries + 1);
		},
	);

	it('with Continue On Fail the item carries the error, never an empty item', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { result } = await runGet(
			runId,
			[
				{
					match: { method: 'GET', path: RUN_READ },
					kind: 'non-json',
					times: RETRY_LIMITS.transientRetries + 1,
				},
			],
			{ continueOnFail: true },
		);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toEqual({
			error: MESSAGE,
			description: expect.stringContaining('Base URL'),
		});
	});

	it.each(['truncated-json', 'non-json'] as const)(
		'Run → Create 1.4 answered with %s: not repeated, the Run exists, the error says to check',
		async (kind) => {
			const { error, posts, runs } = await createRun(
				[{ match: { method: 'POST', path: RUN_CREATE }, kind, timing: 'after' }],
				VERSION_1_4,
			);
			expect(error?.message).toBe(MESSAGE);
			expect(error?.description).toContain(
				'so the node did not try again (that could make it twice)',
			);
			expect(posts).toHaveLength(1);
			// truncated-json is always 'after'; non-json 'after' too here: the Run was made
			expect(runs).toHaveLength(1);
		},
	);

	it.each([
		[
			'Agent → Get',
			{ resource: 'agent', operation: 'get', agent: agentById(INVOICES) },
			/\/agents\/1$/,
		],
		['Agent → Get Many', { resource: 'agent', operation: 'getAll', returnAll: true }, /\/agents$/],
		['API Key → Get Many', { resource: 'apiKey', operation: 'getAll', limit: 5 }, /\/api-keys$/],
		['Usage → Get Many', { resource: 'usage', operation: 'getAll', limit: 5 }, /\/usage$/],
	] as const)(
		'%s: a body cut off on every attempt gives the same clear error',
		async (_name, parameters, path) => {
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([
				{
					match: { method: 'GET', path },
					kind: 'truncated-json',
					times: RETRY_LIMITS.transientRetries + 1,
				},
			]);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: { ...parameters },
			});
			expect(result.error?.message).toBe(MESSAGE);
			expect(ctx.emulator.requestsSince(seq)).toHaveLength(RETRY_LIMITS.transientRetries + 1);
		},
	);

	it('a cut-off answer shown in the error never shows a secret it held (a new API key)', () => {
		const secret = 'ea_0123456789abcdef0123456789abcdef01234567';
		const body = `{"id":"ak_1","name":"n8n","api_key_hint":"ea_01234...4567","api_key":"${secret}","status":"act`;
		const error = toNodeApiError(
			{ name: 'Extraction Agents' } as never,
			{ kind: 'malformed', status: 200, body, method: 'POST', retries: 0, idempotent: false },
			undefined,
			'http://127.0.0.1/api/v1/client',
		);
		expect(error.message).toBe(MESSAGE);
		expect(error.description).toContain('"api_key":"[hidden]"');
		expect(`${error.description} ${JSON.stringify(error)}`).not.toContain(secret);
	});

	it('Access Log → Query (a PUT that only reads) is repeated after a non-JSON answer', async () => {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([{ match: { method: 'PUT' }, kind: 'non-json' }]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'accessLog',
				operation: 'query',
				startTime: '2020-01-01T00:00:00Z',
				limit: 3,
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.status)).toEqual([200, 200]);
	});
});

describe('a 200 whose JSON lacks the expected fields', () => {
	async function run(
		parameters: INodeParameters,
		fault: InjectedFault,
		inputItems?: Parameters<typeof executeNode>[0]['inputItems'],
	) {
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([fault]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters,
			inputItems,
		});
		expect(ctx.emulator.pendingFaults).toEqual([]);
		return {
			result,
			error: result.error as ErrorWithDescription | undefined,
			sent: ctx.emulator.requestsSince(seq).map(apiPath),
		};
	}

	it('Run → Get: a Run without run_id and status is an error, not an item', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { result, error, sent } = await run(runGetParameters(runId), {
			match: { method: 'GET', path: RUN_READ },
			kind: 'missing-fields',
		});
		expect(result.items).toEqual([]);
		expect(error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the Run',
		);
		expect(sent).toHaveLength(1);
	});

	it('Run → Create: the answer without run_id says the Run may exist and was not sent again', async () => {
		const { error, posts, runs } = await createRun([
			{ match: { method: 'POST', path: RUN_CREATE }, kind: 'missing-fields' },
		]);
		// The same at 1.5: a 200 is an answer, so the Run's list is not read (createOnce.ts).
		expect(error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the Run',
		);
		expect(error?.description).toContain('may have been created');
		expect(posts).toHaveLength(1);
		expect(runs).toHaveLength(1);
	});

	it('Agent → Get: an Agent without id', async () => {
		const { error } = await run(
			{ resource: 'agent', operation: 'get', agent: agentById(INVOICES) },
			{
				match: { method: 'GET', path: /\/agents\/1$/ },
				kind: 'missing-fields',
				dropFields: ['id'],
			},
		);
		expect(error?.message).toBe(
			`The Extraction Agents service sent an incomplete answer for Agent ${INVOICES}`,
		);
		expect(error?.description).toContain('it had no id');
	});

	it('Agent → Copy: a copy without id says the copy may have been made', async () => {
		const { error } = await run(
			{
				resource: 'agent',
				operation: 'copy',
				agent: agentById(INVOICES),
				newName: 'copy without id',
			},
			{ match: { method: 'POST', path: /\/copy$/ }, kind: 'missing-fields', dropFields: ['id'] },
		);
		expect(error?.message).toBe(
			`The Extraction Agents service sent an incomplete answer for the copy of Agent ${INVOICES}`,
		);
		expect(error?.description).toContain('may have been made');
	});

	it('API Key → Create: an answer without the secret', async () => {
		const { error } = await run(
			{ resource: 'apiKey', operation: 'create', name: 'no secret' },
			{
				match: { method: 'POST', path: /\/api-keys$/ },
				kind: 'missing-fields',
				dropFields: ['api_key'],
			},
		);
		expect(error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the new API key',
		);
		expect(error?.description).toContain('it had no api_key');
		expect(error?.description).toContain('delete the new one');
	});

	it('Run → Download Templated Output: an Agent without output_templates is not "no such template"', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const { error, sent } = await run(
			{
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
				run: { __rl: true, mode: 'id', value: String(runId) },
				outputTemplate: 11,
				format: 'docx',
			},
			{
				match: { method: 'GET', path: /\/agents\/1$/ },
				kind: 'missing-fields',
				dropFields: ['output_templates'],
			},
		);
		expect(error?.message).toBe(
			`The Extraction Agents service sent an incomplete answer for Agent ${INVOICES}`,
		);
		expect(sent).toEqual([`GET /agents/${INVOICES}`]);
	});

	it.each([
		[
			'Usage → Get Many',
			{ resource: 'usage', operation: 'getAll', limit: 5 },
			/\/usage$/,
			'records',
			'usage records',
		],
		[
			'API Key → Get Many',
			{ resource: 'apiKey', operation: 'getAll', limit: 5 },
			/\/api-keys$/,
			'api_keys',
			'the API key list',
		],
		[
			'Run → Get Many',
			{ resource: 'run', operation: 'getAll', agent: agentById(INVOICES), limit: 5 },
			/\/runs$/,
			'runs',
			`the Runs of Agent ${INVOICES}`,
		],
	] as const)('%s: a page without its list', async (_name, parameters, path, field, what) => {
		const { error, result } = await run(
			{ ...parameters },
			{ match: { method: 'GET', path }, kind: 'missing-fields', dropFields: [field] },
		);
		expect(result.items).toEqual([]);
		expect(error?.message).toBe(
			`The Extraction Agents service sent an incomplete answer for ${what}`,
		);
	});

	it('Access Log → Query: an answer without events', async () => {
		const { error } = await run(
			{ resource: 'accessLog', operation: 'query', startTime: '2020-01-01T00:00:00Z', limit: 3 },
			{ match: { method: 'PUT' }, kind: 'missing-fields', dropFields: ['events'] },
		);
		expect(error?.message).toBe(
			'The Extraction Agents service sent an incomplete answer for the access-log query',
		);
	});

	it('Run → Get Many (Return All): a page without total_pages still gives every Run', async () => {
		const PURCHASE_ORDERS = 4;
		ctx.emulator.addHistoricalRuns(PURCHASE_ORDERS, 1500);
		const parameters = {
			resource: 'run',
			operation: 'getAll',
			agent: agentById(PURCHASE_ORDERS),
			returnAll: true,
			simplify: false,
		};
		const clean = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters,
		});
		expect(clean.items.length).toBeGreaterThanOrEqual(1500); // more than one page of 1000
		const { result, sent } = await run(parameters, {
			match: { method: 'GET', path: /\/runs$/ },
			kind: 'missing-fields',
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.run_id)).toEqual(
			clean.items.map((item) => item.json.run_id),
		);
		expect(sent).toHaveLength(2);
	});
});

describe('slow uploads still succeed', () => {
	it('a service that takes 1.5 s to start reading (latency) is waited for', async () => {
		ctx.emulator.knobs.latencyMs = 1500;
		const started = Date.now();
		const { result, runs } = await createRun([]);
		expect(result.error).toBeUndefined();
		expect(runs).toHaveLength(1);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
	});

	it('an upload over a slow link takes longer than the Request Timeout and still succeeds (1 s more per MB)', async () => {
		// 2.1 MB at 1 MB/s: about 2.1 s of sending against a Request Timeout of 1 s + 3 s allowance.
		ctx.emulator.knobs.uploadBytesPerSecond = 1_000_000;
		const userDefinedId = uniqueId('slow');
		const big = Buffer.alloc(2_100_000, 7);
		const seq = ctx.emulator.lastSeq;
		const started = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: uploadOnlyParameters({
				additionalFields: { userDefinedId },
				options: { requestTimeout: 1 },
			}),
			inputItems: [
				{ binary: { data: { data: big, fileName: 'scan.pdf', mimeType: 'application/pdf' } } },
			],
		});
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		expect(elapsed).toBeGreaterThanOrEqual(1800);
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(1);
		expect(ctx.emulator.requestsSince(seq).filter((entry) => entry.method === 'POST')).toHaveLength(
			1,
		);
	});
});
