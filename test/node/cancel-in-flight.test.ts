/**
 * Stopping an execution aborts a request already on its way, not only the waits between
 * requests: n8n's HTTP helper gives each request the execution's cancel signal. A slow upload
 * and a stalled read both end within a few seconds of the stop, no Run is created by the
 * aborted upload, and nothing is sent after the stop (no retry, no further read).
 */
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 60_000 });
/** The 2 MB upload at the emulator's 100 kB/s takes 20 s: a stop must end it long before. */
const UPLOAD_TAKES_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
	ctx.emulator.knobs.uploadBytesPerSecond = null;
});

/** Stops the execution once the service has a request of `seq`'s successors under way. */
function stopOnceRequestStarted(seq: number, stop: { at?: number }): () => boolean {
	return () => {
		if (ctx.emulator.requestsSince(seq).length === 0) return false;
		stop.at = Date.now();
		return true;
	};
}

describe('Stopping an execution during a request', () => {
	it('aborts a slow upload: the execution ends at once, no Run is created, nothing is sent after the stop', async () => {
		ctx.emulator.knobs.uploadBytesPerSecond = 100_000; // 2 MB would take 20 s
		const runsBefore = ctx.emulator.state.runs.size;
		const seq = ctx.emulator.lastSeq;
		const stop: { at?: number } = {};
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
			cancelWhen: stopOnceRequestStarted(seq, stop),
		});
		expect(['canceled', 'error']).toContain(result.status);
		expect(result.durationMs).toBeLessThan(UPLOAD_TAKES_MS / 2);
		// Wait until the service has seen the upload's connection end, however it ended (the
		// emulator reads what the socket buffered first): an upload that went on would end with
		// the whole body read, an answer sent and a Run created.
		const [upload] = ctx.emulator.requestsSince(seq);
		expect(`${upload.method} ${upload.path}`).toBe('POST /api/v1/client/agents/1/runs');
		for (let waited = 0; upload.durationMs === 0 && waited < UPLOAD_TAKES_MS + 5_000; )
			waited += await sleep(250).then(() => 250);
		expect(upload.status).toBe(0); // the connection closed before the body ended: no answer
		expect(ctx.emulator.state.runs.size).toBe(runsBefore);
		await sleep(1500); // anything the node would still send arrives by now
		expect(ctx.emulator.requestsSince(seq)).toEqual([upload]);
	});

	it('aborts a stalled read: the execution ends at once and the read is not tried again', async () => {
		const run = ctx.emulator.createRun(1, [{ name: 'a.pdf' }], { durationMs: 0 });
		ctx.emulator.injectFaults([
			{ match: { method: 'GET', path: new RegExp(`/runs/${run.run_id}$`) }, kind: 'stall' },
		]);
		const seq = ctx.emulator.lastSeq;
		const stop: { at?: number } = {};
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
			cancelWhen: stopOnceRequestStarted(seq, stop),
		});
		expect(['canceled', 'error']).toContain(result.status);
		// A stalled read otherwise ends with the Request Timeout (60 s).
		expect(result.durationMs).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
		await sleep(1500); // a retry would be sent by now
		const requests = ctx.emulator.requestsSince(seq);
		expect(requests).toHaveLength(1);
		expect(requests[0].fault).toBe('stall');
		expect(requests.filter((entry) => entry.startedAt > (stop.at ?? 0))).toEqual([]);
	});
});
