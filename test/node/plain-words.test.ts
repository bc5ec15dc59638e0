/**
 * Messages an office user can act on: each says what happened and what to do, in words a
 * user knows; codes (429, ENOTFOUND) come last, as a reference for whoever helps; where a
 * message asks for a report it says where to send it. The panel shows whole minutes and a
 * Simplify tooltip that describes the row the node version gives.
 */
import * as cancellation from '../../nodes/ExtractionAgents/transport/cancellation';
import { executeNode, useHarness } from '../../dev/harness';
import { RETRY_LIMITS } from '../../nodes/ExtractionAgents/transport/retry';
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';
import type { INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { createRunParameters, finishedRun, INVOICES, pdf, runById, useEmulator } from './fixtures';
import { readFileSync } from 'fs';
import { join } from 'path';

useHarness();
const ctx = useEmulator({ runDurationMs: 5000 });

const packageJson = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'),
) as {
	homepage: string;
};
const ISSUES_URL = 'https://github.com/extraction-agents/n8n-nodes-extraction-agents/issues';

type Described = Error & { description?: string };

describe('plain words', () => {
	it('a rate limit says the service asked to slow down and what to do; the code comes last', async () => {
		const runId = finishedRun(ctx.emulator).run_id;
		ctx.emulator.injectFaults([
			{
				match: { method: 'GET', path: new RegExp(`/runs/${runId}$`) },
				kind: '429',
				retryAfter: '0',
				times: RETRY_LIMITS.rateLimitedRetries + 1,
			},
		]);
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: {
				resource: 'run',
				operation: 'get',
				agent: { __rl: true, mode: 'id', value: String(INVOICES) },
				run: runById(runId),
			},
		});
		const error = result.error as Described;
		expect(error.message).toBe(
			'The Extraction Agents service got too many requests from this API key and asked the node to slow down (429)',
		);
		expect(error.message).not.toMatch(/rate limiting/);
		expect(error.description).toMatch(/Options → Items in Parallel/);
	});

	it('a Base URL whose server name does not exist says so, with the code last', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl: 'http://no-such-host.invalid' },
			parameters: { resource: 'agent', operation: 'getAll', returnAll: false, limit: 1 },
		});
		const error = result.error as Described;
		expect(error.message).toBe(
			'Could not reach the Extraction Agents service at http://no-such-host.invalid',
		);
		expect(error.description).toMatch(
			/^No server named "no-such-host\.invalid" could be found\. Check the Base URL in the Extraction Agents credential for a typo\..*\((ENOTFOUND|EAI_AGAIN)\)$/,
		);
	});

	it('a Base URL where nothing answers says so, with the code last', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: { apiKey: 'ea_test_key', baseUrl: 'http://127.0.0.1:9' },
			parameters: { resource: 'agent', operation: 'getAll', returnAll: false, limit: 1 },
		});
		expect((result.error as Described).description).toMatch(
			/^Nothing answered at 127\.0\.0\.1:9\. .*\(ECONNREFUSED\)$/,
		);
	});

	it('a Due Date that is not a date shows how to write one, without "ISO 8601"', async () => {
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({ additionalFields: { dueDate: 'next Friday' } }),
			inputItems: [{ binary: { data: { data: pdf('due'), fileName: 'due.pdf' } } }],
		});
		const error = result.error as Described;
		expect(error.message).toBe('Due Date "next Friday" is not a date');
		expect(error.description).not.toContain('ISO 8601');
		expect(error.description).toContain('2026-12-31T17:00');
	});

	it('an error inside the node asks for a report and gives the place to send it', async () => {
		expect(String(packageJson.homepage)).toContain(ISSUES_URL.replace(/\/issues$/, ''));
		const sleep = jest
			.spyOn(cancellation, 'sleepUnlessCancelled')
			.mockRejectedValue(new Error('clock broke'));
		try {
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: ctx.credentials,
				parameters: createRunParameters({ timeoutMinutes: 5 }),
				inputItems: [{ binary: { data: { data: pdf('one'), fileName: 'one.pdf' } } }],
				timeoutMs: 30_000,
			});
			expect((result.error as Described).description).toContain(ISSUES_URL);
		} finally {
			sleep.mockRestore();
		}
	});
});

describe('the panel', () => {
	const { description } = new ExtractionAgents();
	const fieldAt = (name: string, version: number): INodeProperties | undefined =>
		description.properties.find(
			(property) =>
				property.name === name &&
				NodeHelpers.displayParameter(
					{ resource: 'run', operation: 'create', waitForCompletion: true },
					property,
					{ typeVersion: version },
					description,
				),
		);

	it('version 1.3 shows Timeout (Minutes) in whole minutes ("10", not "10.00")', () => {
		expect(fieldAt('timeoutMinutes', 1.3)?.typeOptions).toMatchObject({
			numberPrecision: 0,
			minValue: 1,
		});
	});

	it('versions 1 to 1.2 keep the field that takes parts of a minute', () => {
		expect(fieldAt('timeoutMinutes', 1.2)?.typeOptions).toMatchObject({ numberPrecision: 2 });
	});

	it('Simplify’s tooltip says the Prompt values come first from version 1.2, the Run first before', () => {
		expect(fieldAt('simplify', 1.2)?.description).toMatch(
			/^Whether to return one row per Run, ready for a sheet: a column per Prompt, then the Run’s ID/,
		);
		expect(fieldAt('simplify', 1.1)?.description).toMatch(
			/^Whether to return a flat version of the Run \(its ID, status, link, files and one field per Prompt/,
		);
	});
});
