/**
 * One real n8n with the packed package installed, used by the E2E suite and `npm run demo`:
 * pack → install into a fresh user folder → import the credential and workflows → publish →
 * start n8n on loopback → create the owner and log in.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
	credentialJson,
	exampleWorkflows,
	headlineWorkflow,
	pollTimesEvery,
	runAndRenderWorkflow,
	triggerWorkflow,
	usageWorkflow,
	WORKFLOW_IDS,
	type WorkflowJson,
} from './workflows';

import * as host from './host';
import type { N8nInstall, N8nServer, Owner, RestClient } from './host';

export { host };
export type { N8nInstall, N8nServer, Owner, RestClient, RestResponse } from './host';

export const OWNER: Owner = {
	email: 'demo@extraction-agents.example',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Extraction-Agents-Demo-1',
};

export interface SessionOptions {
	version?: string;
	/** Base URL and API key the credential points at (the emulator). */
	serviceUrl: string;
	apiKey: string;
	port?: number;
	/** Where the user folder goes; a fresh temporary folder by default. */
	userFolder?: string;
	/** Trigger poll interval in seconds (several fixed once-a-minute times), or 'minute'. */
	triggerPollSeconds?: number | 'minute';
	/** Workflows to import; all of them by default. */
	workflows?: WorkflowJson[];
	/** More workflows to import (and publish) beside `workflows`; a function gets the session's folders. */
	moreWorkflows?:
		| WorkflowJson[]
		| ((folders: { inputDir: string; outputDir: string }) => WorkflowJson[]);
	/** More credentials to import beside the Extraction Agents one (e.g. an OpenAI one). */
	moreCredentials?: unknown[];
	/** Also import the package's examples/*.json (never published); default true. */
	examples?: boolean;
	/** Ids of imported workflows to publish (through the REST API, once n8n is up); all of `workflows` by default. */
	publish?: string[];
	/** Ids of workflows left unpublished at the start, for a test to publish with `session.publish`. */
	publishLater?: string[];
	/** More environment for n8n (e.g. N8N_DEFAULT_BINARY_DATA_MODE). */
	env?: Record<string, string>;
	quiet?: boolean;
	/** How long n8n may take to become ready, at the start and at a restart (default 180 s). */
	readyTimeoutMs?: number;
}

export interface Session {
	n8n: N8nInstall;
	server: N8nServer;
	api: RestClient;
	userFolder: string;
	/** Folder readable and writable by the Read/Write Files node: invoices/ in, output/ out. */
	filesDir: string;
	inputDir: string;
	outputDir: string;
	workflows: WorkflowJson[];
	/** The imported examples/*.json. */
	examples: WorkflowJson[];
	timings: Record<string, number>;
	/** Publishes (activates) an imported workflow, as the editor's Publish does. */
	publish(workflowId: string): Promise<void>;
	/** Unpublishes (deactivates) a workflow, as the editor's Unpublish does. */
	unpublish(workflowId: string): Promise<void>;
	/**
	 * Stops the n8n process and starts it again on the same user folder and port, as a server
	 * restart does: `server` and `api` are the new ones once it resolves, the published
	 * workflows' webhooks registered again.
	 */
	restart(): Promise<void>;
	/** Execution data of one execution (the flatted string n8n stores, parsed). */
	execution(id: string): Promise<ExecutionDetails>;
	/** Executions of a workflow, newest first. */
	executions(workflowId: string): Promise<ExecutionSummary[]>;
	/** Waits until a workflow has at least `count` finished executions. */
	waitForExecutions(
		workflowId: string,
		count: number,
		timeoutMs: number,
	): Promise<ExecutionSummary[]>;
	stop(options?: { keepFolder?: boolean }): Promise<void>;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
	finished?: boolean;
	startedAt: string;
	stoppedAt?: string | null;
	workflowId: string;
}

export interface NodeRun {
	data?: {
		main?: Array<Array<{
			json: Record<string, unknown>;
			binary?: Record<string, BinaryMeta>;
		}> | null>;
	};
	error?: { message?: string; description?: string };
	executionStatus?: string;
}

export interface BinaryMeta {
	fileName?: string;
	mimeType?: string;
	fileExtension?: string;
	fileSize?: string;
	id?: string;
	data?: string;
}

export interface ExecutionDetails extends ExecutionSummary {
	runData: Record<string, NodeRun[]>;
	error?: unknown;
}

/** Items a node output on its first run. */
export function nodeItems(details: ExecutionDetails, nodeName: string) {
	const runs = details.runData[nodeName];
	if (!runs || runs.length === 0)
		throw new Error(
			`node "${nodeName}" did not run; ran: ${Object.keys(details.runData).join(', ')}`,
		);
	if (runs[0].error)
		throw new Error(
			`node "${nodeName}" failed: ${runs[0].error.message} ${runs[0].error.description ?? ''}`,
		);
	return runs[0].data?.main?.[0] ?? [];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startSession(options: SessionOptions): Promise<Session> {
	const timings: Record<string, number> = {};
	const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
		const started = Date.now();
		try {
			return await fn();
		} finally {
			timings[name] = Date.now() - started;
		}
	};
	const n8n = await timed('ensureN8n', () => host.ensureN8n(options.version));
	const userFolder =
		options.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), `ea-n8n-${n8n.version}-`));
	fs.mkdirSync(userFolder, { recursive: true });
	const filesDir = path.join(userFolder, 'files');
	const inputDir = path.join(filesDir, 'invoices');
	const outputDir = path.join(filesDir, 'output');
	fs.mkdirSync(inputDir, { recursive: true });
	fs.mkdirSync(outputDir, { recursive: true });

	const tgz = await timed('pack', () => host.packPackage(path.join(userFolder, 'pack')));
	await timed('installPackage', () => host.installPackageInto(userFolder, tgz));

	const port = options.port ?? (await host.freePort());
	const env: Record<string, string> = {
		// The Read/Write Files node may touch only this folder.
		N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
		...options.env,
	};
	const hostOptions: host.HostOptions = {
		userFolder,
		port,
		env,
		quiet: options.quiet,
		readyTimeoutMs: options.readyTimeoutMs,
	};
	const workflows = [
		...(options.workflows ?? [
			headlineWorkflow({ inputDir, outputDir }),
			runAndRenderWorkflow(),
			usageWorkflow(),
			triggerWorkflow(pollTimesEvery(options.triggerPollSeconds ?? 'minute')),
			triggerWorkflow(pollTimesEvery(options.triggerPollSeconds ?? 'minute'), {
				id: WORKFLOW_IDS.triggerAll,
				name: 'E2E: Trigger on finished Runs of all Agents',
				agentScope: 'all',
				includeFullRun: false,
			}),
		]),
		...(typeof options.moreWorkflows === 'function'
			? options.moreWorkflows({ inputDir, outputDir })
			: (options.moreWorkflows ?? [])),
	];
	const examples = options.examples === false ? [] : exampleWorkflows();
	await timed('import', async () => {
		await host.importCredentials(n8n, hostOptions, [
			credentialJson(options.serviceUrl, options.apiKey),
			...(options.moreCredentials ?? []),
		]);
		await host.importWorkflows(n8n, hostOptions, [...workflows, ...examples]);
	});
	let server = await timed('start', () => host.startN8n(n8n, hostOptions));
	let api: RestClient;
	const published = (options.publish ?? workflows.map((w) => w.id)).filter(
		(id) => !options.publishLater?.includes(id),
	);
	const webhooksRegistered = async () => {
		const paths = workflows
			.filter((w) => published.includes(w.id))
			.flatMap((w) =>
				w.nodes.filter(
					(n) => n.type === 'n8n-nodes-base.webhook' && n.parameters.httpMethod === 'POST',
				),
			)
			.map((n) => String(n.parameters.path)); // a GET probe would run a GET webhook
		for (const webhookPath of paths) await waitForWebhook(server.url, webhookPath);
	};
	try {
		api = await timed('owner', () => host.setupOwner(server.url, OWNER));
		await timed('publish', async () => {
			for (const id of published) await host.publishWorkflowRest(api, n8n.version, id);
		});
		await timed('webhooks', webhooksRegistered);
	} catch (err) {
		await server.stop();
		throw err;
	}
	const flatted = require(path.join(n8n.folder, 'node_modules', 'flatted')) as {
		parse(text: string): unknown;
	};

	const executions = async (workflowId: string): Promise<ExecutionSummary[]> => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await api.get<{ results: ExecutionSummary[] }>(
			`/rest/executions?filter=${filter}&limit=50`,
		);
		return [...data.results].sort(
			(a, b) =>
				Date.parse(b.startedAt ?? '') - Date.parse(a.startedAt ?? '') ||
				Number(b.id) - Number(a.id),
		);
	};
	const execution = async (id: string): Promise<ExecutionDetails> => {
		const data = await api.get<ExecutionSummary & { data: string | Record<string, unknown> }>(
			`/rest/executions/${id}`,
		);
		const parsed = (typeof data.data === 'string' ? flatted.parse(data.data) : data.data) as {
			resultData: { runData: Record<string, NodeRun[]>; error?: unknown };
		};
		return { ...data, runData: parsed.resultData.runData, error: parsed.resultData.error };
	};
	const isDone = (e: ExecutionSummary) =>
		!['new', 'running', 'waiting'].includes(e.status) && e.stoppedAt !== null;
	const waitForExecutions = async (workflowId: string, count: number, timeoutMs: number) => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const list = await executions(workflowId);
			if (list.filter(isDone).length >= count) return list;
			if (Date.now() > deadline) {
				throw new Error(
					`workflow ${workflowId}: ${list.length} execution(s) after ${timeoutMs / 1000} s, expected ${count}`,
				);
			}
			await sleep(500);
		}
	};

	return {
		n8n,
		get server() {
			return server;
		},
		get api() {
			return api;
		},
		userFolder,
		filesDir,
		inputDir,
		outputDir,
		workflows,
		examples,
		timings,
		execution,
		executions,
		waitForExecutions,
		async publish(workflowId: string) {
			await host.publishWorkflowRest(api, n8n.version, workflowId);
		},
		async unpublish(workflowId: string) {
			await host.unpublishWorkflowRest(api, n8n.version, workflowId);
		},
		async restart() {
			await server.stop();
			server = await host.startN8n(n8n, { ...hostOptions, port: server.port });
			api = await host.setupOwner(server.url, OWNER);
			await webhooksRegistered();
		},
		async stop({ keepFolder = false } = {}) {
			await server.stop();
			if (!keepFolder && !options.userFolder)
				fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}

/**
 * n8n registers a published workflow's webhooks a moment AFTER activation has answered (a
 * call right away got 404 "not registered"). A GET to a POST-only webhook answers 404 as well,
 * but once registered its message names the method it expects ("…POST request?").
 */
export async function waitForWebhook(
	baseUrl: string,
	webhookPath: string,
	timeoutMs = 30_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const res = await fetch(`${baseUrl}/webhook/${webhookPath}`);
		const text = await res.text();
		if (res.status !== 404 || /POST request|Did you mean/i.test(text)) return;
		if (Date.now() > deadline)
			throw new Error(
				`webhook "${webhookPath}" still not registered after ${timeoutMs / 1000} s: ${text.slice(0, 200)}`,
			);
		await sleep(250);
	}
}

/** Calls a production webhook (POST) of a published workflow; the body comes back as a Buffer. */
export async function callWebhook(baseUrl: string, webhookPath: string, body: unknown = {}) {
	const res = await fetch(`${baseUrl}/webhook/${webhookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const bytes = Buffer.from(await res.arrayBuffer());
	return {
		status: res.status,
		headers: res.headers,
		bytes,
		json: () => JSON.parse(bytes.toString('utf8')) as unknown,
	};
}
