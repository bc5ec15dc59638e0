/**
 * Timeouts: every request has a timeout, and a service that stalls (takes
 * the request, never answers) gives a clear error instead of a hung execution, for the
 * action node, the trigger and the editor's pickers. Reads are tried again after a
 * timeout; creating a Run is not (the service may have made it).
 *
 * The stalls use Options → Request Timeout (Seconds) = 1, the shortest the node allows.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { createPoller, executeNode, listSearch, useHarness } from '../../dev/harness';
import { RETRY_LIMITS } from '../../nodes/ExtractionAgents/transport/retry';
import { requestTimeoutMs } from '../../nodes/ExtractionAgents/helpers/requestTimeoutOption';
import { newAgent, runIdsOf, triggerParameters } from '../trigger/helpers';
import {
	agentById,
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
const ctx = useEmulator({ runDurationMs: 300 });

const RUN_CREATE = AGENT_RUNS;
const RUN_LIST = AGENT_RUNS;
const ONE_SECOND = { requestTimeout: 1 };

afterEach(() => ctx.emulator.clearFaults());

describe('the Request Timeout option', () => {
	function executeContext(value: unknown): IExecuteFunctions {
		return {
			getInputData: () => [],
			getNode: () => ({ name: 'Extraction Agents' }) as INode,
			getNodeParameter: (_name: string, _itemIndex: number, fallback: unknown) =>
				value === undefined ? fallback : value,
		} as unknown as IExecuteFunctions;
	}

	it('defaults to 60 s per request, plus 1 s per started MB of an upload (unchanged behaviour)', () => {
		expect(requestTimeoutMs(executeContext(undefined), 0)).toBe(60_000);
		expect(requestTimeoutMs(executeContext(undefined), 0, 2_500_000)).toBe(63_000);
		expect(requestTimeoutMs(executeContext(undefined), 0, 250_000_000)).toBe(310_000);
		expect(requestTimeoutMs(executeContext(5), 0, 1)).toBe(6_000);
	});

	it.each([0, -1, 3601, 'soon'])('refuses %p before any request', async (value) => {
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runGetParameters(1001, { options: { requestTimeout: value } }),
		});
		expect(result.error?.message).toMatch(
			/^Request Timeout ".*" is not a number of seconds from 1 to 3600$/,
		);
		expect(ctx.emulator.requestsSince(seq)).toEqual([]);
	});

	it('every request of every kind of operation and of the trigger carries a timeout; the upload runs under its own rules', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const runs: Array<Awaited<ReturnType<typeof executeNode>>> = [];
		for (const parameters of [
			runGetParameters(runId),
			{ resource: 'run', operation: 'getAll', agent: agentById(INVOICES), limit: 2 },
			{
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
				run: { __rl: true, mode: 'id', value: String(runId) },
				outputTemplate: 11,
				format: 'pdf',
			},
			{ resource: 'agent', operation: 'getAll', limit: 1 },
			{ resource: 'apiKey', operation: 'getAll', limit: 1 },
			{ resource: 'usage', operation: 'getAll', limit: 1 },
			{ resource: 'accessLog', operation: 'query', startTime: '2020-01-01T00:00:00Z', limit: 1 },
			{ ...uploadOnlyParameters(), waitForCompletion: true, options: { requestTimeout: 7 } },
		]) {
			runs.push(
				await executeNode({
					nodeType: 'extractionAgents',
					credentials: ctx.credentials,
					parameters,
					inputItems: [itemWithFiles('t', 1)],
				}),
			);
		}
		const requests = runs.flatMap((run) => {
			expect(run.error).toBeUndefined();
			return run.authenticatedRequests.map((entry) => entry.request);
		});
		const poller = createPoller({
			parameters: triggerParameters(INVOICES),
			credentials: ctx.credentials,
		});
		await poller.poll();
		requests.push(...poller.authenticatedRequests.map((entry) => entry.request));
		expect(requests.length).toBeGreaterThanOrEqual(11);
		// Every request but the upload; the upload runs under its own time rules
		// (test/node/upload-time-rules.test.ts), without the client's wall clock.
		const isUpload = (request: { method?: string; url: string }) =>
			request.method === 'POST' && /\/runs$/.test(request.url);
		expect(requests.filter(isUpload).map((request) => request.timeout)).toEqual([0]);
		for (const request of requests.filter((other) => !isUpload(other)))
			expect(request.timeout).toBeGreaterThanOrEqual(1000);
		// The Create with Request Timeout 7: its polls 7 s.
		const create = runs
			.at(-1)!
			.authenticatedRequests.map((entry) => [entry.request.method, entry.request.timeout]);
		expect(create[0]).toEqual(['POST', 0]);
		expect(
			create.slice(1).every(([method, timeout]) => method === 'GET' && timeout === 7_000),
		).toBe(true);
	});
});

describe('a service that stalls: the action node', () => {
	it('a read that stalls once is tried again and succeeds', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([{ match: { method: 'GET', path: RUN_READ }, kind: 'stall' }]);
		const started = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runGetParameters(runId, { options: ONE_SECOND }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.run_id).toBe(runId);
		expect(ctx.emulator.requestsSince(seq).map((entry) => entry.fault)).toEqual([
			'stall',
			undefined,
		]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
	});

	it('a read that keeps stalling is tried 4 times, then fails with a clear timeout error', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		const seq = ctx.emulator.lastSeq;
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: RUN_READ },
				kind: 'stall',
				times: RETRY_LIMITS.transientRetries + 1,
			},
		]);
		const started = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runGetParameters(runId, { options: ONE_SECOND }),
		});
		const elapsed = Date.now() - started;
		const error = result.error as ErrorWithDescription;
		expect(error.message).toBe('The Extraction Agents service did not answer within 1 s');
		expect(error.description).toContain(
			`The node tried ${RETRY_LIMITS.transientRetries} more time(s)`,
		);
		expect(error.description).toContain('Request Timeout');
		// A stalled read is never answered: each attempt ended because the node closed it. No
		// upper bound on the time (a busy machine is slow); that the execution ended at all,
		// within the harness's timeout, is the proof.
		const attempts = ctx.emulator.requestsSince(seq);
		expect(attempts).toHaveLength(RETRY_LIMITS.transientRetries + 1);
		expect(attempts.map((entry) => [entry.fault, entry.status])).toEqual(
			attempts.map(() => ['stall', 0]),
		);
		expect(elapsed).toBeGreaterThanOrEqual(4000);
	});

	it.each(['before', 'after'] as const)(
		'Run → Create 1.4 that stalls (%s the Run is made) is not sent again: one POST, a clear error saying to check',
		async (timing) => {
			const userDefinedId = uniqueId('stall');
			const seq = ctx.emulator.lastSeq;
			ctx.emulator.injectFaults([
				{ match: { method: 'POST', path: RUN_CREATE }, kind: 'stall', timing },
			]);
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: uploadOnlyParameters({
					additionalFields: { userDefinedId },
					options: ONE_SECOND,
				}),
				inputItems: [itemWithFiles(userDefinedId, 2)],
				// 1.5 looks for the Run by its User-Defined ID (test/reliability/faults.test.ts).
				typeVersion: 1.4,
			});
			const error = result.error as ErrorWithDescription;
			// 1 s, plus 1 s for the (started) first MB of the upload
			expect(error.message).toBe('The Extraction Agents service did not answer within 2 s');
			expect(error.description).toContain(
				'so the node did not try again (that could make it twice)',
			);
			expect(error.description).toContain(
				'Look in the web app (for a new Run: the Agent’s Runs) before you run this item again',
			);
			expect(
				ctx.emulator.requestsSince(seq).filter((entry) => entry.method === 'POST'),
			).toHaveLength(1);
			expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(
				timing === 'after' ? 1 : 0,
			);
		},
	);

	it('waiting for a Run rides out checks that stall, and returns the finished Run', async () => {
		const userDefinedId = uniqueId('wait-stall');
		// The Run's first status checks stall beyond the transport's retries; waiting goes on.
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: RUN_READ },
				kind: 'stall',
				times: RETRY_LIMITS.transientRetries + 1,
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: uploadOnlyParameters({
				waitForCompletion: true,
				additionalFields: { userDefinedId },
				options: ONE_SECOND,
			}),
			inputItems: [itemWithFiles(userDefinedId, 1)],
		});
		expect(result.error).toBeUndefined();
		expect(ctx.emulator.pendingFaults).toEqual([]);
		expect(result.items[0].json).toMatchObject({
			status: 'success',
			user_defined_id: userDefinedId,
		});
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(1);
	});

	it('waiting stops at its Timeout with the Run and the last failed check named, when every check stalls', async () => {
		const userDefinedId = uniqueId('wait-stall-all');
		ctx.emulator.injectFaults([
			{ match: { method: 'GET', path: RUN_READ }, kind: 'stall', times: 1000 },
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: uploadOnlyParameters({
				waitForCompletion: true,
				timeoutMinutes: 0.1,
				additionalFields: { userDefinedId },
				options: ONE_SECOND,
			}),
			inputItems: [itemWithFiles(userDefinedId, 1)],
		});
		ctx.emulator.clearFaults();
		const error = result.error as ErrorWithDescription;
		expect(error.message).toMatch(/^Run \d+ did not finish within 6 seconds$/);
		expect(error.description).toContain(
			'The last check of the Run failed: The Extraction Agents service did not answer within 1 s',
		);
		// Every check stalls and is never answered, so only the Timeout could end the wait: the
		// message above names it, and the execution ended at all within the harness's timeout.
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(1);
	});

	it('with the default 60 s, a stalled request ends when the execution is cancelled, not at its Request Timeout', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		ctx.emulator.injectFaults([{ match: { method: 'GET', path: RUN_READ }, kind: 'stall' }]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: runGetParameters(runId),
			cancelAfterMs: 1000,
			// Half the Request Timeout: a read the cancel did not abort ends at 60 s at the
			// earliest (then tried again), so this harness timeout is the only clock.
			timeoutMs: 30_000,
		});
		ctx.emulator.clearFaults();
		expect(['canceled', 'error']).toContain(result.status);
		expect(result.error?.message).toBe('The execution was cancelled');
	});
});

describe('a service that stalls: the trigger and the pickers', () => {
	it('a poll whose requests stall fails with a clear timeout error; the next poll emits the Run once', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'stalling trigger');
		const parameters = { ...triggerParameters(agentId), options: ONE_SECOND };
		const poller = createPoller({ parameters, credentials });
		expect(await poller.poll()).toBeNull();
		const runId = finishedRun(emulator, agentId).run_id;

		emulator.injectFaults([
			{
				match: { method: 'GET', path: RUN_LIST },
				kind: 'stall',
				times: RETRY_LIMITS.transientRetries + 1,
			},
		]);
		const seq = emulator.lastSeq;
		// The stalls are never answered: the poll ends at all only by its Request Timeout, which
		// the message names (no bound on how long a busy machine takes).
		await expect(poller.poll()).rejects.toThrow(
			'The Extraction Agents service did not answer within 1 s',
		);
		const attempts = emulator.requestsSince(seq);
		expect(attempts).toHaveLength(RETRY_LIMITS.transientRetries + 1);
		expect(attempts.map((entry) => [entry.fault, entry.status])).toEqual(
			attempts.map(() => ['stall', 0]),
		);

		expect(runIdsOf(await poller.poll())).toEqual([runId]);
		expect(await poller.poll()).toBeNull();
	});

	it('the Agent picker gives up with the same clear error instead of spinning', async () => {
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: /\/agents$/ },
				kind: 'stall',
				times: RETRY_LIMITS.transientRetries + 1,
			},
		]);
		await expect(
			listSearch({
				nodeType: 'extractionAgents',
				method: 'searchAgents',
				credentials: ctx.credentials,
				parameters: { resource: 'agent', operation: 'get', options: ONE_SECOND },
			}),
		).rejects.toThrow('The Extraction Agents service did not answer within 1 s');
	});
});
