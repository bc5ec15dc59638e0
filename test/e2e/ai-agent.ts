/**
 * The action node as a tool of n8n's AI Agent, in the real n8n of the E2E suite.
 *
 * Webhook (question) → AI Agent, with an OpenAI Chat Model (its credential's Base URL is the
 * scripted model server on loopback, test/e2e/scripted-model.ts) and the three Extraction
 * Agents tools of examples/ai-agent-questions-about-runs.json as they are (n8n's
 * `extractionAgentsTool` variant of the node, arguments from `$fromAI()`): List Agents
 * (Agent → Get Many), Get Run (Run → Get), List Runs (Run → Get Many). A second workflow gives
 * the AI Agent Run → Create as a tool.
 *
 * The tests are registered inside the suite's describe block (n8n.e2e.test.ts), so they share
 * its one n8n start.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO_AGENT_IDS, type Emulator } from '../../dev/emulator';
import { callWebhook, type Session } from '../../dev/n8n/session';
import {
	messageText,
	SCRIPTED_MODEL_ID,
	type ChatRequest,
	type ChatTool,
	type ScriptedModel,
} from './scripted-model';
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	TRIGGER_AGENT_ID,
	workflow,
	type NodeJson,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

export const TOOL_TYPE = `${ACTION_TYPE}Tool`;
export const AI_AGENT_WORKFLOW_ID = 'eaE2eAiAgentTool';
export const AI_AGENT_WEBHOOK_PATH = 'e2e-ai-agent';
export const AI_AGENT_CREATE_WORKFLOW_ID = 'eaE2eAiAgentCrea';
export const AI_AGENT_CREATE_WEBHOOK_PATH = 'e2e-ai-agent-create';
export const OPENAI_CREDENTIAL = {
	id: 'eaOpenAiScripted',
	name: 'OpenAI (scripted model on loopback)',
};
/** The Invoices Agent's Run the questions ask about: the first Run the suite creates. */
export const ASKED_RUN_ID = 1011;

export const TOOL_NAMES = {
	listAgents: 'List_Agents',
	getRun: 'Get_Run',
	listRuns: 'List_Runs',
} as const;

export function openAiCredentialJson(baseUrl: string) {
	return {
		...OPENAI_CREDENTIAL,
		type: 'openAiApi',
		data: { apiKey: 'sk-scripted-model-e2e', url: baseUrl, header: false },
	};
}

const eaCredentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };

/** A tool node as the README advises: On Error → Continue, so that a failed call goes to the model. */
function tool(
	name: string,
	position: [number, number],
	parameters: Record<string, unknown>,
): NodeJson & { onError: string } {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-tool`,
		name,
		type: TOOL_TYPE,
		typeVersion: 1,
		position,
		credentials: eaCredentials,
		parameters,
		onError: 'continueRegularOutput',
	};
}

const AGENT_ID_FROM_AI =
	"={{ $fromAI('agent_id', 'The ID of the Extraction Agent (a whole number); List Agents gives it for a name', 'number') }}";

/** Webhook (body.question) → AI Agent with the scripted chat model and the given tools. */
function aiAgentWorkflow(
	id: string,
	name: string,
	webhookPath: string,
	webhookId: string,
	tools: NodeJson[],
	systemMessage = 'You answer questions about documents processed by Extraction Agents. Use the tools; answer from their results only.',
): WorkflowJson {
	const nodes: NodeJson[] = [
		{
			id: `${id}-webhook`,
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId,
			parameters: {
				httpMethod: 'POST',
				path: webhookPath,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		},
		{
			id: `${id}-agent`,
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3,
			position: [260, 0],
			parameters: {
				promptType: 'define',
				text: '={{ $json.body.question }}',
				hasOutputParser: false,
				options: { systemMessage },
			},
		},
		{
			id: `${id}-model`,
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [100, 240],
			credentials: { openAiApi: OPENAI_CREDENTIAL },
			parameters: {
				model: { __rl: true, mode: 'list', value: SCRIPTED_MODEL_ID },
				// The scripted server speaks Chat Completions (the node's Responses API is its default).
				responsesApiEnabled: false,
				options: { maxRetries: 0 },
			},
		},
		...tools,
	];
	const ai = (type: 'ai_languageModel' | 'ai_tool') => ({
		[type]: [[{ node: 'AI Agent', type, index: 0 }]],
	});
	const connections = {
		Webhook: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'OpenAI Chat Model': ai('ai_languageModel'),
		...Object.fromEntries(tools.map((t) => [t.name, ai('ai_tool')])),
	} as unknown as WorkflowJson['connections'];
	return workflow(id, name, nodes, connections);
}

/** The AI Agent example as users import it (examples/). */
export const AI_AGENT_EXAMPLE = path.resolve(
	__dirname,
	'..',
	'..',
	'examples',
	'ai-agent-questions-about-runs.json',
);

/**
 * The example's AI Agent with the example's three tools (List Agents, Get Run, List Runs) as
 * they are, started by a webhook instead of the chat (what a test can call).
 */
export function aiAgentToolWorkflow(): WorkflowJson {
	const example = JSON.parse(fs.readFileSync(AI_AGENT_EXAMPLE, 'utf8')) as { nodes: NodeJson[] };
	const tools = example.nodes
		.filter((node) => node.type === TOOL_TYPE)
		.map((node) => ({ ...node, id: `${node.id}-e2e`, credentials: eaCredentials }));
	const systemMessage = String(
		(
			example.nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.agent')?.parameters
				.options as { systemMessage?: string }
		).systemMessage,
	);
	return aiAgentWorkflow(
		AI_AGENT_WORKFLOW_ID,
		'E2E: AI Agent with Extraction Agents tools',
		AI_AGENT_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000016',
		tools,
		systemMessage,
	);
}

/** An AI Agent given Run → Create as a tool: what a user gets who tries it. */
export function aiAgentCreateRunWorkflow(): WorkflowJson {
	return aiAgentWorkflow(
		AI_AGENT_CREATE_WORKFLOW_ID,
		'E2E: AI Agent with Run → Create as a tool',
		AI_AGENT_CREATE_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000017',
		[
			tool('Create Run', [260, 240], {
				resource: 'run',
				operation: 'create',
				agent: { __rl: true, mode: 'id', value: AGENT_ID_FROM_AI },
				binarySource: 'all',
				waitForCompletion: true,
				simplify: true,
				output: 'run',
				additionalFields: {},
			}),
		],
	);
}

/** Seeds what the questions ask about: Run 1011 of the Invoices Agent, finished. Call before any other Run is created. */
export function seedAskedRun(emu: Emulator) {
	const run = emu.createRun(DEMO_AGENT_IDS.invoices, [{ name: 'INV-1011 Acme GmbH.pdf' }], {
		createdAt: emu.now() - 3_600_000,
		userDefinedId: 'acme-1011',
	});
	if (Number(run.run_id) !== ASKED_RUN_ID)
		throw new Error(
			`the asked-about Run got id ${String(run.run_id)}, expected ${ASKED_RUN_ID}: seed it first`,
		);
	return run;
}

const parse = (text: string) => JSON.parse(text) as unknown;
const toolNamed = (name: string) => (tools: ChatTool[]) => {
	const found = tools.find((candidate) => candidate.function.name === name);
	if (!found)
		throw new Error(
			`the model was not given a tool "${name}": ${tools.map((t) => t.function.name).join(', ')}`,
		);
	return found.function.name;
};

interface Context {
	emu: Emulator;
	session: Session;
	model: ScriptedModel;
}

/** The tool calls the model made in a conversation, and the tool results it was sent back. */
function conversation(requests: ChatRequest[]) {
	const last = requests[requests.length - 1];
	const calls = last.messages.flatMap((message) => message.tool_calls ?? []);
	const results = last.messages.filter((message) => message.role === 'tool');
	return { calls, results, last };
}

async function ask(ctx: Context, question: string, webhookPath = AI_AGENT_WEBHOOK_PATH) {
	const since = ctx.emu.lastSeq;
	const res = await callWebhook(ctx.session.server.url, webhookPath, { question });
	const text = res.bytes.toString('utf8');
	if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${text.slice(0, 500)}`);
	const items = JSON.parse(text) as Array<{ output?: string }>;
	// The trigger of the suite polls its own Agent meanwhile: leave its requests out.
	const requests = ctx.emu
		.requestsSince(since)
		.filter(
			(entry) =>
				entry.path.startsWith('/api/v1/client/') &&
				!entry.path.startsWith(`/api/v1/client/agents/${TRIGGER_AGENT_ID}/`),
		);
	return {
		output: String(items[0]?.output ?? ''),
		items,
		requests,
		model: ctx.model.chatRequests(question),
	};
}

export function aiAgentToolTests(context: () => Context): void {
	const q1 = 'What is the Total amount of Run 1011 of the Invoices agent?';
	const q2 = 'List the 3 most recent Runs of the Invoices agent.';
	const q3 = 'What did Run "last-acme" of the Invoices agent extract?';
	const q4 = 'Extract the invoice I attached with the Invoices agent (ID 1).';

	test('AI Agent tool (1): "What is the Total amount of Run 1011?" → List Agents, then Run → Get with the model’s arguments → the answer holds the value', async () => {
		const ctx = context();
		ctx.model.script(q1, [
			{ tool: toolNamed(TOOL_NAMES.listAgents), args: { name_contains: 'Invoices' } },
			{
				tool: toolNamed(TOOL_NAMES.getRun),
				args: (results) => ({
					agent_id: (parse(results[0]) as Array<{ id: number }>)[0].id,
					run_id: String(ASKED_RUN_ID),
				}),
			},
			{
				answer: (results) => {
					// Node version 1.2 gives the sheet-ready row (`Total amount › amount`), 1.1 the object.
					const [run] = parse(results[1]) as Array<Record<string, unknown>>;
					const total = run['Total amount'] as { amount: number; currency: string } | undefined;
					const amount = total?.amount ?? run['Total amount › amount'];
					const currency = total?.currency ?? run['Total amount › currency'];
					return `The Total amount of Run ${ASKED_RUN_ID} is ${String(amount)} ${String(currency)}.`;
				},
			},
		]);
		const expected = (
			ctx.emu.getRun(DEMO_AGENT_IDS.invoices, ASKED_RUN_ID)?.data as Record<
				string,
				{ value: { amount: number; currency: string } }
			>
		)['Total amount'].value;
		const { output, requests, model } = await ask(ctx, q1);
		// The service saw exactly the requests the two tool calls stand for.
		expect(requests.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			'GET /api/v1/client/agents 200',
			`GET /api/v1/client/agents/${DEMO_AGENT_IDS.invoices}/runs/${ASKED_RUN_ID} 200`,
		]);
		// The model called the tools with its arguments, and got the Run back as the second tool result.
		expect(model).toHaveLength(3);
		expect(ctx.model.toolCalls(q1)).toEqual([
			{ name: TOOL_NAMES.listAgents, args: { name_contains: 'Invoices' } },
			{
				name: TOOL_NAMES.getRun,
				args: { agent_id: DEMO_AGENT_IDS.invoices, run_id: String(ASKED_RUN_ID) },
			},
		]);
		const { calls, results } = conversation(model);
		// n8n replays both calls to the model, each followed by its result.
		expect(calls.map((c) => c.function.name)).toEqual([TOOL_NAMES.listAgents, TOOL_NAMES.getRun]);
		expect(results).toHaveLength(2);
		const agents = parse(messageText(results[0])) as Array<{ id: number; name: string }>;
		expect(agents.map((a) => a.name)).toEqual(['Invoices']);
		const [run] = parse(messageText(results[1])) as Array<Record<string, unknown>>;
		expect(run).toMatchObject({
			run_id: ASKED_RUN_ID,
			agent_id: DEMO_AGENT_IDS.invoices,
			status: 'success',
			// The tools are at node version 1.2 or later: the sheet-ready row, one column per field.
			'Total amount › amount': expected.amount,
			'Total amount › currency': expected.currency,
		});
		expect(output).toBe(
			`The Total amount of Run ${ASKED_RUN_ID} is ${expected.amount} ${expected.currency}.`,
		);

		const [latest] = await ctx.session.waitForExecutions(AI_AGENT_WORKFLOW_ID, 1, 30_000);
		expect(latest.status).toBe('success');
	});

	test('AI Agent tool: n8n made the tool variant of the node (N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE=false)', async () => {
		const ctx = context();
		const types = await ctx.session.api.request('GET', '/types/nodes.json');
		const tool = (
			types.body as Array<{ name: string; outputs?: unknown; properties: Array<{ name: string }> }>
		).find((t) => t.name === TOOL_TYPE);
		expect(tool?.outputs).toEqual(['ai_tool']);
		expect(tool?.properties.map((p) => p.name)).toEqual(
			expect.arrayContaining(['descriptionType', 'toolDescription', 'resource', 'operation']),
		);
	});

	test('AI Agent tool: the model is given each tool’s name, description and argument schema, every $fromAI argument described', () => {
		const ctx = context();
		const [first] = ctx.model.chatRequests(q1);
		const tools = first.tools ?? [];
		process.stderr.write(
			`[e2e] AI Agent tools as the model saw them:\n${JSON.stringify(tools, null, 2)}\n`,
		);
		expect(tools.map((t) => t.function.name).sort()).toEqual(Object.values(TOOL_NAMES).sort());
		const byName = Object.fromEntries(tools.map((t) => [t.function.name, t.function]));
		// The example's own Tool Descriptions; without one n8n describes a tool by the operation's action.
		const example = JSON.parse(fs.readFileSync(AI_AGENT_EXAMPLE, 'utf8')) as { nodes: NodeJson[] };
		const manual = (name: string) =>
			String(example.nodes.find((node) => node.name === name)?.parameters.toolDescription);
		expect(byName[TOOL_NAMES.getRun].description).toBe(manual('Get Run'));
		expect(byName[TOOL_NAMES.listRuns].description).toBe(manual('List Runs'));
		expect(byName[TOOL_NAMES.getRun].description).toMatch(/Agent ID .*Run ID/);
		expect(byName[TOOL_NAMES.listAgents].description).toBe('Get many agents in Extraction Agents');
		const schema = (name: string) =>
			byName[name].parameters as {
				type: string;
				properties: Record<string, { type: string; description?: string }>;
				required?: string[];
			};
		expect(schema(TOOL_NAMES.getRun)).toMatchObject({
			type: 'object',
			properties: { agent_id: { type: 'number' }, run_id: { type: 'string' } },
			required: expect.arrayContaining(['agent_id', 'run_id']),
		});
		expect(Object.keys(schema(TOOL_NAMES.listRuns).properties).sort()).toEqual([
			'agent_id',
			'limit',
		]);
		expect(schema(TOOL_NAMES.listRuns).properties.limit.type).toBe('number');
		expect(Object.keys(schema(TOOL_NAMES.listAgents).properties)).toEqual(['name_contains']);
		// Every argument tells the model what to put there.
		const undescribed = tools.flatMap((t) =>
			Object.entries(schema(t.function.name).properties)
				.filter(([, property]) => (property.description ?? '').trim().length < 10)
				.map(([key]) => `${t.function.name}.${key}`),
		);
		expect(undescribed).toEqual([]);
	});

	test('AI Agent tool (2): "the 3 most recent Runs" → Run → Get Many with the Limit the model chose', async () => {
		const ctx = context();
		ctx.model.script(q2, [
			{
				tool: toolNamed(TOOL_NAMES.listRuns),
				args: { agent_id: DEMO_AGENT_IDS.invoices, limit: 3 },
			},
			{
				answer: (results) =>
					`The 3 most recent Runs: ${(parse(results[0]) as Array<{ run_id: number; status: string }>).map((r) => `${r.run_id} (${r.status})`).join(', ')}.`,
			},
		]);
		const { output, requests, model } = await ask(ctx, q2);
		expect(requests.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			`GET /api/v1/client/agents/${DEMO_AGENT_IDS.invoices}/runs 200`,
		]);
		expect(Number(requests[0].query.page_size)).toBe(3);
		expect(model).toHaveLength(2);
		expect(ctx.model.toolCalls(q2)).toEqual([
			{ name: TOOL_NAMES.listRuns, args: { agent_id: DEMO_AGENT_IDS.invoices, limit: 3 } },
		]);
		const { results } = conversation(model);
		const runs = parse(messageText(results[0])) as Array<{
			run_id: number;
			status: string;
			agent_id: number;
		}>;
		expect(runs).toHaveLength(3);
		expect(runs.every((r) => r.agent_id === DEMO_AGENT_IDS.invoices)).toBe(true);
		expect(output).toBe(
			`The 3 most recent Runs: ${runs.map((r) => `${r.run_id} (${r.status})`).join(', ')}.`,
		);
	});

	test('AI Agent tool (3): a Run ID that is not a number → the model gets the node’s error text as the tool result and answers from it', async () => {
		const ctx = context();
		ctx.model.script(q3, [
			{
				tool: toolNamed(TOOL_NAMES.getRun),
				args: { agent_id: DEMO_AGENT_IDS.invoices, run_id: 'last-acme' },
			},
			{ answer: (results) => `I could not get that Run: ${extractError(results[0])}` },
		]);
		const { output, requests, model } = await ask(ctx, q3);
		// Refused before any request to the service.
		expect(requests).toEqual([]);
		expect(ctx.model.toolCalls(q3)).toEqual([
			{ name: TOOL_NAMES.getRun, args: { agent_id: DEMO_AGENT_IDS.invoices, run_id: 'last-acme' } },
		]);
		expect(model).toHaveLength(2);
		const { results } = conversation(model);
		expect(extractError(messageText(results[0]))).toBe('"last-acme" is not a valid Run ID');
		// With On Error → Continue (the example's setting) the node's hint comes along.
		expect(parse(messageText(results[0]))).toEqual([
			{
				error: '"last-acme" is not a valid Run ID',
				description:
					'Choose the Run From List, or paste its link from the web app: it contains /runs/ and a number, e.g. /runs/42.',
			},
		]);
		expect(output).toBe('I could not get that Run: "last-acme" is not a valid Run ID');
		// The execution finished: a tool error is the model's to handle, not a failed workflow.
		const executions = await ctx.session.waitForExecutions(AI_AGENT_WORKFLOW_ID, 3, 30_000);
		expect(executions[0].status).toBe('success');
	});

	test('AI Agent tool: Run → Create as a tool uploads nothing and tells the model why (a tool receives no files)', async () => {
		const ctx = context();
		ctx.model.script(q4, [
			{ tool: toolNamed('Create_Run'), args: { agent_id: DEMO_AGENT_IDS.invoices } },
			{ answer: (results) => extractError(results[0]) },
		]);
		const { output, requests, model } = await ask(ctx, q4, AI_AGENT_CREATE_WEBHOOK_PATH);
		expect(requests).toEqual([]);
		expect(model).toHaveLength(2);
		expect(output).toBe(CREATE_AS_TOOL_ERROR);
		const [latest] = await ctx.session.waitForExecutions(AI_AGENT_CREATE_WORKFLOW_ID, 1, 30_000);
		expect(latest.status).toBe('success');
	});
}

/** The node's message for Run → Create run as a tool (nodes/ExtractionAgents/ExtractionAgents.node.ts). */
const CREATE_AS_TOOL_ERROR =
	'Extract Data From Files cannot be used as an AI Agent tool: a tool receives no files to upload. Create the Run in the workflow before the AI Agent, and let the agent read it with Run → Get or Run → Get Many.';

/** The error text of a tool result: n8n sends `[{"error": "..."}]` (or `{"error": "..."}`). */
export function extractError(result: string): string {
	const parsed = JSON.parse(result) as { error?: string } | Array<{ error?: string }>;
	return String((Array.isArray(parsed) ? parsed[0]?.error : parsed.error) ?? '');
}
