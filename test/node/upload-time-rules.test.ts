/**
 * The upload's time rules, as a user can predict them: no clock runs while the upload's bytes
 * flow (a big scan over a slow office line is never cut for taking long); an upload the
 * service stops taking fails within Request Timeout, saying the service did not get the whole
 * upload (so no Run was made); a service that took the whole upload and gives no answer fails
 * saying it had all of it (so the Run may exist). The emulator reads the upload slowly
 * (`uploadBytesPerSecond`) or stops reading it (`uploadStallAfterBytes`).
 *
 * The slow upload uses Request Timeout 5 s: the emulator slows the upload by reading slowly,
 * so TCP reopens its window in steps (about 1.4 MB on loopback) and the client hands bytes
 * to the network in bursts up to about 3 s apart at 0.5 MB/s; over a slow line they flow
 * steadily.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { executeNode, useHarness } from '../../dev/harness';
import { BINARY_DATA_STORAGE_PATH } from '../../dev/harness/env';
import { runsWithUserDefinedId, uniqueId, uploadOnlyParameters } from '../reliability/helpers';
import { useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 50 });

afterEach(() => {
	ctx.emulator.knobs.uploadBytesPerSecond = null;
	ctx.emulator.knobs.uploadStallAfterBytes = null;
	ctx.emulator.knobs.uploadResetAfterBytes = null;
	ctx.emulator.clearFaults();
});

const description = (error: unknown) => (error as { description?: string }).description ?? '';

/** Files of n8n's binary store that this process holds open. */
function openStoredFiles(): string[] {
	const open: string[] = [];
	for (const fd of readdirSync('/proc/self/fd')) {
		try {
			const target = readlinkSync(`/proc/self/fd/${fd}`);
			if (target.startsWith(BINARY_DATA_STORAGE_PATH)) open.push(target);
		} catch {
			// Closed meanwhile.
		}
	}
	return open;
}

/** The open files once closing has had its turn (a stream closes its file a tick after it ends). */
async function openStoredFilesSettled(): Promise<string[]> {
	for (let attempt = 0; attempt < 20 && openStoredFiles().length > 0; attempt++) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return openStoredFiles();
}

async function upload(
	userDefinedId: string,
	bytes: number,
	requestTimeout = 1,
	typeVersion?: number,
) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		typeVersion,
		parameters: uploadOnlyParameters({
			additionalFields: { userDefinedId },
			options: { requestTimeout },
		}),
		inputItems: [
			{
				json: {},
				binary: {
					data: {
						data: Buffer.alloc(bytes, 7),
						fileName: 'scan.pdf',
						mimeType: 'application/pdf',
					},
				},
			},
		],
	});
	const posts = ctx.emulator.requestsSince(seq).filter((entry) => entry.method === 'POST');
	return { result, posts };
}

describe('the upload to the service: no clock while bytes flow', () => {
	it('an upload that keeps flowing slowly (0.5 MB/s, 10 MB, Request Timeout 5 s: 20 s of sending) is not cut, and makes its Run', async () => {
		ctx.emulator.knobs.uploadBytesPerSecond = 500_000;
		const userDefinedId = uniqueId('slow-line');
		const { result, posts } = await upload(userDefinedId, 10_000_000, 5);
		expect(result.error).toBeUndefined();
		expect(posts.map((entry) => entry.status)).toEqual([200]);
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(1);
	});

	it('an upload the service stops taking fails within Request Timeout, saying the service did not get all of it', async () => {
		ctx.emulator.knobs.uploadStallAfterBytes = 1_000_000;
		const userDefinedId = uniqueId('stalled-upload');
		const { result, posts } = await upload(userDefinedId, 14_000_000);
		expect(result.error?.message).toMatch(
			/^The upload to the Extraction Agents service stalled: it took nothing for 1 s after [\d.]+ MB of 14\.0 MB$/,
		);
		expect(description(result.error)).toContain('did not get the whole upload');
		expect(description(result.error)).toContain('No Run was made');
		expect(posts).toHaveLength(1);
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(0);
		// The file was being read from n8n's binary store when the upload stopped.
		expect(await openStoredFilesSettled()).toEqual([]);
	});

	it('an upload whose connection breaks before the whole body was sent says no Run was made, not that it may have been done', async () => {
		ctx.emulator.knobs.uploadResetAfterBytes = 1_000_000;
		const userDefinedId = uniqueId('cut-upload');
		const { result, posts } = await upload(userDefinedId, 14_000_000, 5);
		expect(result.error?.message).toMatch(
			/^The connection to the Extraction Agents service broke during the upload, after ([\d.]+ MB|[\d,]+ bytes) of 14\.0 MB$/,
		);
		expect(description(result.error)).toContain('No Run was made');
		expect(description(result.error)).not.toContain('may have been done');
		// Version 1.5 sends an upload cut before its last byte again (no Run can have been made),
		// at most 3 more times; every attempt is cut here.
		expect(posts).toHaveLength(4);
		expect(runsWithUserDefinedId(ctx.emulator, userDefinedId)).toHaveLength(0);
		expect(await openStoredFilesSettled()).toEqual([]);
	});

	it('a service that took the whole upload and never answers: the message says it had all of it (1.4)', async () => {
		ctx.emulator.injectFaults([{ match: { method: 'POST', path: /\/runs$/ }, kind: 'stall' }]);
		const userDefinedId = uniqueId('unanswered');
		// Version 1.5 looks for the Run by its User-Defined ID and sends it again (below).
		const { result, posts } = await upload(userDefinedId, 200_000, 1, 1.4);
		expect(result.error?.message).toBe('The Extraction Agents service did not answer within 2 s');
		expect(description(result.error)).toContain('It had the whole upload');
		expect(description(result.error)).toContain('Look in the web app');
		expect(posts).toHaveLength(1);
	});

	it('version 1.5: an upload never answered, whose User-Defined ID no newest Run carries, is not sent again (a Run may be listed late): the error stands', async () => {
		ctx.emulator.injectFaults([{ match: { method: 'POST', path: /\/runs$/ }, kind: 'stall' }]);
		const userDefinedId = uniqueId('unanswered-not-listed');
		const { result, posts } = await upload(userDefinedId, 200_000, 1, 1.5);
		expect(result.error?.message).toBe('The Extraction Agents service did not answer within 2 s');
		expect(description(result.error)).toContain('is listed yet');
		expect(posts).toHaveLength(1);
	});
});
