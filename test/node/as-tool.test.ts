/**
 * The action node as n8n runs it for the AI Agent: the `extractionAgentsTool` variant, one item
 * holding the model's `$fromAI()` arguments and no binary data. (The real AI Agent in real n8n
 * is in test/e2e/ai-agent.ts; this is the same at engine level, for every operation's edge.)
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import type { INode } from 'n8n-workflow';
import { executeNode, useHarness } from '../../dev/harness';
import { loadExtractionAgentsToolNode } from '../../dev/harness/tool-variant';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { requestLines, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 600 });
const INVOICES = DEMO_AGENT_IDS.invoices;

/** The tool nodes of the AI Agent example, as a user imports them. */
const example = JSON.parse(
	readFileSync(join(__dirname, '../../examples/ai-agent-questions-about-runs.json'), 'utf8'),
) as { nodes: INode[] };
const exampleTool = (name: string) => {
	const node = example.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`no node "${name}" in the AI Agent example`);
	return node;
};

async function runTool(
	parameters: INode['parameters'],
	args: Record<string, unknown>,
	binary?: Record<string, { data: Buffer; fileName: string; mimeType: string }>,
	continueOnFail = false,
) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: loadExtractionAgentsToolNode(),
		nodeName: 'Tool',
		credentials: ctx.credentials,
		continueOnFail,
		parameters,
		inputItems: [{ json: { chatInput: 'a question', ...args }, ...(binary ? { binary } : {}) }],
	});
	return {
		...result,
		requests: requestLines(ctx.emulator, seq),
		queries: ctx.emulator.requestsSince(seq).map((entry) => entry.query),
	};
}

describe('as an AI Agent tool ($fromAI arguments, no files)', () => {
	it('Get Run: the model’s agent_id and run_id fetch that Run, one flat item with every Prompt value', async () => {
		const run = ctx.emulator.createRun(INVOICES, [{ name: 'INV-77.pdf' }], {
			createdAt: ctx.emulator.now() - 60_000,
		});
		const { error, items, requests } = await runTool(exampleTool('Get Run').parameters, {
			agent_id: INVOICES,
			run_id: String(run.run_id),
		});
		expect(error).toBeUndefined();
		expect(requests).toEqual([`GET /api/v1/client/agents/${INVOICES}/runs/${String(run.run_id)}`]);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			run_id: run.run_id,
			status: 'success',
			// Node version 1.2's sheet-ready row: a Prompt's object value as one column per field.
			'Total amount › amount': expect.any(Number),
		});
	});

	it('List Runs: the model’s limit is the page size and the number of Runs returned', async () => {
		const { error, items, requests, queries } = await runTool(exampleTool('List Runs').parameters, {
			agent_id: INVOICES,
			limit: 2,
		});
		expect(error).toBeUndefined();
		expect(requests).toEqual([`GET /api/v1/client/agents/${INVOICES}/runs`]);
		expect(queries[0]).toMatchObject({ page_size: '2' });
		expect(items).toHaveLength(2);
	});

	it('List Agents: the model’s name_contains filters by name', async () => {
		const { error, items } = await runTool(exampleTool('List Agents').parameters, {
			name_contains: 'invoic',
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.name)).toEqual(['Invoices']);
	});

	it('a Run ID that is not a number: refused with a message the model can act on, no request', async () => {
		const { error, requests } = await runTool(exampleTool('Get Run').parameters, {
			agent_id: INVOICES,
			run_id: 'last-acme',
		});
		expect(error?.message).toBe('"last-acme" is not a valid Run ID');
		expect(requests).toEqual([]);
	});

	it('Run → Create without files (what a tool always gets): says why and what to do instead, no request', async () => {
		const parameters = {
			resource: 'run',
			operation: 'create',
			agent: {
				__rl: true,
				mode: 'id',
				value: "={{ $fromAI('agent_id', 'The Agent ID', 'number') }}",
			},
			binarySource: 'all',
		};
		const { error, requests } = await runTool(parameters, { agent_id: INVOICES });
		expect(error?.message).toBe(
			'Extract Data From Files cannot be used as an AI Agent tool: a tool receives no files to upload. Create the Run in the workflow before the AI Agent, and let the agent read it with Run → Get or Run → Get Many.',
		);
		expect(requests).toEqual([]);
	});

	it('with On Error → Continue (the example’s setting) a refused call is an item with the message and the hint, for the model', async () => {
		const { error, items } = await runTool(
			exampleTool('Get Run').parameters,
			{ agent_id: INVOICES, run_id: 'last-acme' },
			undefined,
			true,
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{
				error: '"last-acme" is not a valid Run ID',
				description:
					'Choose the Run From List, or paste its link from the web app: it contains /runs/ and a number, e.g. /runs/42.',
			},
		]);
		const create = {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: String(INVOICES) },
			binarySource: 'all',
		};
		const refused = await runTool(create, {}, undefined, true);
		expect(refused.error).toBeUndefined();
		expect(refused.items.map((item) => item.json.error)).toEqual([
			expect.stringMatching(
				/^Extract Data From Files cannot be used as an AI Agent tool: a tool receives no files/,
			),
		]);
		expect(refused.requests).toEqual([]);
	});

	it('Run → Create with files on the item (should n8n ever pass them to a tool): uploads them as usual', async () => {
		const parameters = {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: String(INVOICES) },
			binarySource: 'all',
			waitForCompletion: false,
		};
		const { error, items, requests } = await runTool(
			parameters,
			{},
			{
				data: {
					data: Buffer.from('%PDF-1.4\ninvoice\n%%EOF\n'),
					fileName: 'INV-9.pdf',
					mimeType: 'application/pdf',
				},
			},
		);
		expect(error).toBeUndefined();
		expect(requests).toEqual([`POST /api/v1/client/agents/${INVOICES}/runs`]);
		expect(items[0].json).toMatchObject({ agent_id: INVOICES, files: 'INV-9.pdf' });
	});
});
