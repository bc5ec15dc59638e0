import { executeNode, createPoller, useHarness } from '../../dev/harness';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { agentById, runById, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 100 });

/**
 * The API key must never leak: not in output items, not in error messages or
 * descriptions, not in what n8n stores of an error, not in anything logged. Each case
 * below drives a different path (success, 4xx, 5xx, network failure, trigger error)
 * and everything it produced is searched for the key.
 */
describe('secret hygiene', () => {
	const captured: string[] = [];
	const originals = {
		log: console.log,
		warn: console.warn,
		error: console.error,
		info: console.info,
		debug: console.debug,
	};
	beforeAll(() => {
		for (const level of Object.keys(originals) as Array<keyof typeof originals>) {
			console[level] = (...args: unknown[]) => {
				captured.push(args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' '));
			};
		}
	});
	afterAll(() => Object.assign(console, originals));

	function safeJson(value: unknown): string {
		const seen = new WeakSet();
		return JSON.stringify(value, (_key, inner) => {
			if (inner && typeof inner === 'object') {
				if (seen.has(inner)) return '[circular]';
				seen.add(inner);
			}
			if (inner instanceof Error) return { ...inner, message: inner.message, stack: inner.stack };
			return inner;
		});
	}

	function errorText(error: unknown): string {
		if (!error) return '';
		const e = error as Error & Record<string, unknown>;
		return [
			e.message,
			e.description,
			e.stack,
			safeJson(e),
			safeJson(e.cause),
			safeJson((e as { toJSON?: () => unknown }).toJSON?.()),
		].join('\n');
	}

	const cases: Array<[string, () => Promise<string>]> = [
		[
			'a successful Run with results',
			async () => {
				const result = await executeNode({
					nodeType: 'extractionAgents',
					credentials: ctx.credentials,
					parameters: {
						resource: 'run',
						operation: 'create',
						agent: agentById(DEMO_AGENT_IDS.invoices),
						output: 'promptResult',
						simplify: false,
					},
					inputItems: [
						{ binary: { data: { data: Buffer.from('%PDF-1.4 x'), fileName: 'a.pdf' } } },
					],
				});
				return safeJson(result.items) + safeJson(result.runData) + errorText(result.error);
			},
		],
		[
			'a 404',
			async () => {
				const result = await executeNode({
					nodeType: 'extractionAgents',
					credentials: ctx.credentials,
					parameters: {
						resource: 'run',
						operation: 'get',
						agent: agentById(1),
						run: runById(424242),
					},
				});
				expect(result.error).toBeDefined();
				return errorText(result.error) + safeJson(result.runData);
			},
		],
		[
			'a 503 on an upload',
			async () => {
				ctx.emulator.injectFaults([{ match: { method: 'POST' }, kind: '503' }]);
				const result = await executeNode({
					nodeType: 'extractionAgents',
					credentials: ctx.credentials,
					parameters: {
						resource: 'run',
						operation: 'create',
						agent: agentById(1),
						waitForCompletion: false,
					},
					inputItems: [{ binary: { data: { data: Buffer.from('x'), fileName: 'a.pdf' } } }],
				});
				expect(result.error).toBeDefined();
				return errorText(result.error) + safeJson(result.runData);
			},
		],
		[
			'a dropped connection',
			async () => {
				ctx.emulator.injectFaults([{ match: { method: 'POST' }, kind: 'reset' }]);
				const result = await executeNode({
					nodeType: 'extractionAgents',
					credentials: ctx.credentials,
					parameters: { resource: 'agent', operation: 'copy', agent: agentById(1), newName: 'x' },
				});
				expect(result.error?.message).toBe(
					'The connection to the Extraction Agents service was interrupted',
				);
				return errorText(result.error) + safeJson(result.runData);
			},
		],
		[
			'an unreachable service',
			async () => {
				const result = await executeNode({
					nodeType: 'extractionAgents',
					credentials: { ...ctx.credentials, baseUrl: 'http://127.0.0.1:9' },
					parameters: { resource: 'agent', operation: 'getAll', limit: 1 },
				});
				expect(result.error?.message).toBe(
					'Could not reach the Extraction Agents service at http://127.0.0.1:9',
				);
				return errorText(result.error) + safeJson(result.runData);
			},
		],
		[
			'a trigger poll that fails',
			async () => {
				const poller = createPoller({
					parameters: { agentScope: 'one', agent: agentById(1) },
					credentials: ctx.credentials,
				});
				await poller.poll();
				ctx.emulator.injectFaults([{ match: { method: 'GET' }, kind: '500' }]);
				let failure: unknown;
				await poller.poll().catch((error) => (failure = error));
				expect(failure).toBeDefined();
				return errorText(failure) + safeJson(poller.staticData);
			},
		],
	];

	it.each(cases)('the API key appears nowhere after %s', async (_name, run) => {
		const produced = await run();
		expect(produced.length).toBeGreaterThan(0);
		expect(produced).not.toContain(ctx.credentials.apiKey);
		expect(captured.join('\n')).not.toContain(ctx.credentials.apiKey);
	});
});

describe('a Base URL holding a user name and password', () => {
	it.each([
		['the service address', (host: string) => `http://ana:s3cret-pw@${host}`],
		['a web-app link', (host: string) => `http://ana:s3cret-pw@${host}/app/agents/1`],
	])(
		'%s is refused before any request, without repeating the password',
		async (_what, baseUrlFor) => {
			const host = ctx.emulator.url.replace(/^https?:\/\//, '');
			const seq = ctx.emulator.lastSeq;
			const result = await executeNode({
				nodeType: 'extractionAgents',
				credentials: { ...ctx.credentials, baseUrl: baseUrlFor(host) },
				parameters: { resource: 'agent', operation: 'getAll', limit: 1 },
			});
			const error = result.error as Error & { description?: string };
			expect(error?.message).toContain('must not contain a user name or password');
			expect(
				`${error.message} ${error.description} ${JSON.stringify(result.runData)}`,
			).not.toContain('s3cret-pw');
			expect(ctx.emulator.requestsSince(seq)).toEqual([]);
		},
	);
});
