/**
 * Stopping an execution aborts a request already on its way, not only the waits between
 * requests: n8n's HTTP helper gives each request the execution's cancel signal. A slow upload
 * and a stalled read both end at the stop, no Run is created by the aborted upload, and
 * nothing is sent after the stop (no retry, no further read).
 *
 * No wall clock judges how soon: the upload would take 10 minutes and the read never gets an
 * answer, under a Request Timeout of an hour, so an execution that ends at all within the
 * harness's timeout (60 s) was ended by the stop.
 */
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 60_000 });
/** The longest Request Timeout the node allows (1 hour): only the stop can end the requests. */
const AN_HOUR = { requestTimeout: 3600 };

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
	it('aborts a slow upload: the execution ends at the stop, not when the upload would, no Run is created, nothing is sent after the stop', async () => {
		ctx.emulator.knobs.uploadBytesPerSecond = 3_500; // 2 MB would take 10 minutes
		const runsBefore = ctx.emulator.state.runs.size;
		const seq = ctx.emulator.lastSeq;
		const stop: { at?: number } = {};
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ options: AN_HOUR }),
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
		// The execution ended at all (an upload that went on would hold it for 10 minutes, past
		// the harness's timeout), and it ended as stopped.
		expect(['canceled', 'error']).toContain(result.status);
		// The service never answered the upload (at 3.5 kB/s it drains what the socket buffered
		// for minutes before it sees the close; an upload that went on would end only after 10
		// minutes, past jest's timeout, with an answer and a Run).
		const [upload] = ctx.emulator.requestsSince(seq);
		expect(`${upload.method} ${upload.path}`).toBe('POST /api/v1/client/agents/1/runs');
		expect(upload.status).toBe(0);
		expect(ctx.emulator.state.runs.size).toBe(runsBefore);
		await sleep(1500); // anything the node would still send arrives by now
		expect(ctx.emulator.requestsSince(seq)).toEqual([upload]);
	});

	it('aborts a stalled read: the execution ends at the stop, not at the Request Timeout, and the read is not tried again', async () => {
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
				options: AN_HOUR,
			},
			inputItems: [{ json: {} }],
			cancelWhen: stopOnceRequestStarted(seq, stop),
		});
		// The stalled read never gets an answer and its Request Timeout is an hour: the execution
		// ended at all, within the harness's timeout, because the stop aborted the read.
		expect(['canceled', 'error']).toContain(result.status);
		await sleep(1500); // a retry would be sent by now
		const requests = ctx.emulator.requestsSince(seq);
		expect(requests).toHaveLength(1);
		expect(requests[0].fault).toBe('stall');
		// The emulator saw the client close the stalled connection (it never answers one).
		while (requests[0].durationMs === 0) await sleep(250);
		expect(requests[0].status).toBe(0);
		expect(requests.filter((entry) => entry.startedAt > (stop.at ?? 0))).toEqual([]);
	});
});
