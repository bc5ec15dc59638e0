import { executeNode, testCredential, useHarness } from '../../dev/harness';
import { INVOICES, agentById, finishedRun, requestLines, runById, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });
/** Where the redirecting front sends every request: the https address of the same service. */
const HTTPS_ADDRESS = 'https://extraction.example.com';

afterEach(() => {
	ctx.emulator.knobs.redirect = null;
});

describe('a Base URL answered with a redirect', () => {
	it('Run → Delete answered 301 fails, naming the Location and the Base URL to enter; the Run is kept', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		ctx.emulator.knobs.redirect = { status: 301, location: HTTPS_ADDRESS };
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'delete',
				agent: agentById(INVOICES),
				run: runById(runId),
			},
		});
		const error = result.error as Error & { description?: string };
		expect(result.items).toEqual([]);
		expect(error?.message).toBe(
			`The service redirected the request to ${HTTPS_ADDRESS}/api/v1/client/agents/${INVOICES}/runs/${runId} (301)`,
		);
		expect(error.description).toContain(`enter ${HTTPS_ADDRESS} as the Base URL`);
		expect(ctx.emulator.getRun(INVOICES, runId)).toBeDefined();
	});

	it('Download Templated Output answered 302 fails instead of saving the redirect page as the file', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		ctx.emulator.knobs.redirect = {
			status: 302,
			location: HTTPS_ADDRESS,
			html: true,
			pathContains: '/templated-output',
		};
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'downloadTemplatedOutput',
				agent: agentById(INVOICES),
				run: runById(runId),
				outputTemplate: 11,
				format: 'docx',
			},
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The service redirected the request to ${HTTPS_ADDRESS}/api/v1/client/agents/${INVOICES}/runs/${runId}/templated-output (302)`,
		);
	});

	it('Run → Create answered 307 fails with the redirect, not as an unreadable answer, and no Run is made', async () => {
		const seq = ctx.emulator.lastSeq;
		const runsBefore = ctx.emulator.state.runsOfAgent(INVOICES).length;
		ctx.emulator.knobs.redirect = { status: 307, location: HTTPS_ADDRESS };
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'create',
				agent: agentById(INVOICES),
				waitForCompletion: false,
			},
			inputItems: [
				{
					json: {},
					binary: {
						data: {
							data: Buffer.from('%PDF-1.4 invoice'),
							mimeType: 'application/pdf',
							fileName: 'INV-9.pdf',
						},
					},
				},
			],
		});
		const error = result.error as Error & { description?: string };
		expect(error?.message).toBe(
			`The service redirected the request to ${HTTPS_ADDRESS}/api/v1/client/agents/${INVOICES}/runs (307)`,
		);
		expect(error.description).toContain(`enter ${HTTPS_ADDRESS} as the Base URL`);
		// Sent once, not repeated, and nothing created.
		expect(requestLines(ctx.emulator, seq)).toEqual([
			`POST /api/v1/client/agents/${INVOICES}/runs`,
		]);
		expect(ctx.emulator.state.runsOfAgent(INVOICES)).toHaveLength(runsBefore);
	});

	it('fails the credential test, saying which Base URL to enter', async () => {
		ctx.emulator.knobs.redirect = { status: 301, location: HTTPS_ADDRESS };
		const result = await testCredential(ctx.credentials);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('redirect');
		expect(result.message).toContain('https://');
	});
});
