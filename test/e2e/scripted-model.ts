/**
 * A scripted OpenAI-compatible chat model on loopback, for n8n's OpenAI Chat Model node in the
 * E2E suite. It answers:
 *   GET  /v1/models            — one model, so the node's model picker and checks find it;
 *   POST /v1/chat/completions  — from a script keyed by the conversation's first user message:
 *        step N is used when the conversation holds N tool results, and either calls a tool
 *        (by the name the model was given) with arguments, or gives the final answer, which a
 *        step may build from the tool results it was sent.
 * Streaming requests (`stream: true`) get the same answer as server-sent events.
 * Every request is logged with its parsed body, so that tests can assert what the model saw.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SCRIPTED_MODEL_ID = 'gpt-4o-mini';

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	name?: string;
}

export interface ChatTool {
	type: 'function';
	function: {
		name: string;
		description?: string;
		parameters?: Record<string, unknown>;
		strict?: boolean;
	};
}

export interface ChatRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

export interface ModelLogEntry {
	method: string;
	path: string;
	body?: ChatRequest;
	/** The scripted answer to a chat completion request. */
	reply?: ChatMessage;
}

/** What one turn of the conversation gives: a tool call, or the final answer. */
export type ScriptStep =
	| {
			tool: string | ((tools: ChatTool[]) => string);
			args: Record<string, unknown> | ((results: string[]) => Record<string, unknown>);
	  }
	| { answer: string | ((results: string[]) => string) };

export interface ScriptedModel {
	url: string;
	/** The base URL for an OpenAI credential: url + '/v1'. */
	baseUrl: string;
	log: ModelLogEntry[];
	/** Chat completion requests whose first user message is `question`, in order. */
	chatRequests(question: string): ChatRequest[];
	/** The tool calls the model answered with in that conversation: tool name and arguments. */
	toolCalls(question: string): Array<{ name: string; args: unknown }>;
	/** Sets the steps for a conversation that starts with `question`. */
	script(question: string, steps: ScriptStep[]): void;
	stop(): Promise<void>;
}

/** Text of a message's content (a string or a list of text parts). */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content))
		return message.content.map((part) => part.text ?? '').join('');
	return '';
}

/** The first user message: what the conversation is about (n8n's agent sends it as the human turn). */
export function questionOf(request: ChatRequest): string {
	const user = request.messages.find((message) => message.role === 'user');
	return user ? messageText(user) : '';
}

/** The results of the tools called so far, in order. */
export function toolResults(request: ChatRequest): string[] {
	return request.messages.filter((message) => message.role === 'tool').map(messageText);
}

export async function startScriptedModel(): Promise<ScriptedModel> {
	const scripts = new Map<string, ScriptStep[]>();
	const log: ModelLogEntry[] = [];
	let calls = 0;

	const reply = (
		req: http.IncomingMessage,
		res: http.ServerResponse,
		status: number,
		body: unknown,
	) => {
		res.writeHead(status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(body));
	};

	const completion = (request: ChatRequest): { message: ChatMessage; finish: string } => {
		const question = questionOf(request);
		const steps = scripts.get(question.trim());
		if (!steps)
			return {
				message: { role: 'assistant', content: `No script for: ${question.slice(0, 200)}` },
				finish: 'stop',
			};
		const results = toolResults(request);
		const step = steps[Math.min(results.length, steps.length - 1)];
		if ('answer' in step) {
			const content = typeof step.answer === 'function' ? step.answer(results) : step.answer;
			return { message: { role: 'assistant', content }, finish: 'stop' };
		}
		const tools = request.tools ?? [];
		const name = typeof step.tool === 'function' ? step.tool(tools) : step.tool;
		const args = typeof step.args === 'function' ? step.args(results) : step.args;
		calls += 1;
		return {
			message: {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: `call_scripted_${calls}`,
						type: 'function',
						function: { name, arguments: JSON.stringify(args) },
					},
				],
			},
			finish: 'tool_calls',
		};
	};

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
			const text = Buffer.concat(chunks).toString('utf8');
			let body: ChatRequest | undefined;
			try {
				body = text ? (JSON.parse(text) as ChatRequest) : undefined;
			} catch {
				body = undefined;
			}
			log.push({ method: req.method ?? 'GET', path, body });
			if (req.method === 'GET' && path === '/v1/models') {
				return reply(req, res, 200, {
					object: 'list',
					data: [
						{
							id: SCRIPTED_MODEL_ID,
							object: 'model',
							created: 1_700_000_000,
							owned_by: 'scripted',
						},
					],
				});
			}
			if (req.method === 'GET' && path === `/v1/models/${SCRIPTED_MODEL_ID}`) {
				return reply(req, res, 200, {
					id: SCRIPTED_MODEL_ID,
					object: 'model',
					created: 1_700_000_000,
					owned_by: 'scripted',
				});
			}
			if (req.method === 'POST' && path === '/v1/chat/completions' && body) {
				const { message, finish } = completion(body);
				log[log.length - 1].reply = message;
				const id = `chatcmpl-scripted-${log.length}`;
				const created = Math.floor(Date.now() / 1000);
				const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
				if (body.stream) {
					res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
					const chunk = (
						delta: Record<string, unknown>,
						finishReason: string | null,
						extra: Record<string, unknown> = {},
					) =>
						`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: SCRIPTED_MODEL_ID, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
					const delta: Record<string, unknown> = { role: 'assistant' };
					if (message.tool_calls)
						delta.tool_calls = message.tool_calls.map((call, index) => ({ index, ...call }));
					else delta.content = message.content;
					res.write(chunk(delta, null));
					res.write(chunk({}, finish));
					res.write(
						`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: SCRIPTED_MODEL_ID, choices: [], usage })}\n\n`,
					);
					res.end('data: [DONE]\n\n');
					return;
				}
				return reply(req, res, 200, {
					id,
					object: 'chat.completion',
					created,
					model: SCRIPTED_MODEL_ID,
					choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
					usage,
				});
			}
			return reply(req, res, 404, {
				error: {
					message: `scripted model: no route for ${req.method} ${path}`,
					type: 'invalid_request_error',
				},
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		baseUrl: `${url}/v1`,
		log,
		chatRequests(question: string) {
			return log
				.filter(
					(entry) =>
						entry.path === '/v1/chat/completions' &&
						entry.body &&
						questionOf(entry.body).trim() === question.trim(),
				)
				.map((entry) => entry.body!);
		},
		toolCalls(question: string) {
			return log
				.filter(
					(entry) =>
						entry.path === '/v1/chat/completions' &&
						entry.body &&
						questionOf(entry.body).trim() === question.trim(),
				)
				.flatMap((entry) => entry.reply?.tool_calls ?? [])
				.map((call) => ({
					name: call.function.name,
					args: JSON.parse(call.function.arguments) as unknown,
				}));
		},
		script(question: string, steps: ScriptStep[]) {
			scripts.set(question.trim(), steps);
		},
		stop() {
			return new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			});
		},
	};
}
