/**
 * Stopping an execution aborts a request already on its way, not only the waits between
 * requests: n8n's HTTP helper gives each request the execution's cancel signal. A slow upload
 * and a stalled read both end within a few seconds of the stop, no Run is created by the
 * aborted upload, and nothing is sent after the stop (no retry, no further read).
 */
import { executeNode, useHarness } from '../harness';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 60_000 });
const CANCEL_AFTER_MS = 1500;
/** What a loaded CI machine may add between the stop and the node returning. */
const MARGIN_MS = 2500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
	ctx.emulator.knobs.uploadBytesPerSecond = null;
});

describe('Stopping an execution during a request', () => {
	it('aborts a slow upload: the execution ends at once, no Run is created, nothing is sent after the stop', async () => {
		ctx.emulator.knobs.uploadBytesPerSecond = 100_000; // 2 MB would take 20 s
		const runsBefore = ctx.emulator.state.runs.size;
		const seq = ctx.emulator.lastSeq;
		const started = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters(),
			inputItems: [
				{
					binary: {
						data: {
							data: Buffer.concat([pdf('slow upload'), Buffer.alloc(2_000_000, 7)]),
							fileName: 'scan.pdf',
							mimeType: 'application/pdf',
						},
					},
				},
			],
			cancelAfterMs: CANCEL_AFTER_MS,
		});
		const stoppedAt = started + CANCEL_AFTER_MS;
		expect(['canceled', 'error']).toContain(result.status);
		expect(result.durationMs).toBeLessThan(CANCEL_AFTER_MS + MARGIN_MS);
		await sleep(1500); // anything the node would still send arrives by now
		const requests = ctx.emulator.requestsSince(seq);
		expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
			'POST /api/v1/client/agents/1/runs',
		]);
		expect(requests.filter((entry) => entry.startedAt > stoppedAt)).toEqual([]);
		expect(ctx.emulator.state.runs.size).toBe(runsBefore);
	});

	it('aborts a stalled read: the execution ends at once and the read is not tried again', async () => {
		const run = ctx.emulator.createRun(1, [{ name: 'a.pdf' }], { durationMs: 0 });
		ctx.emulator.injectFaults([
			{ match: { method: 'GET', path: new RegExp(`/runs/${run.run_id}$`) }, kind: 'stall' },
		]);
		const seq = ctx.emulator.lastSeq;
		const started = Date.now();
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: '1' },
				run: { __rl: true, mode: 'id', value: String(run.run_id) },
			},
			inputItems: [{ json: {} }],
			cancelAfterMs: CANCEL_AFTER_MS,
		});
		const stoppedAt = started + CANCEL_AFTER_MS;
		expect(['canceled', 'error']).toContain(result.status);
		expect(result.durationMs).toBeLessThan(CANCEL_AFTER_MS + MARGIN_MS);
		await sleep(1500);
		const requests = ctx.emulator.requestsSince(seq);
		expect(requests).toHaveLength(1);
		expect(requests[0].fault).toBe('stall');
		expect(requests.filter((entry) => entry.startedAt > stoppedAt)).toEqual([]);
	});
});
