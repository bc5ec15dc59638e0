/**
 * Runs nodes the way n8n runs them: a real `Workflow`, n8n-core's `WorkflowExecute`,
 * lifecycle hooks, the binary data service and a credentials helper that applies the
 * credential's own `authenticate`.
 */
import './env';

import { randomUUID } from 'node:crypto';

import type {
	ICredentialDataDecryptedObject,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IPinData,
	IRun,
	IRunData,
	IWorkflowBase,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { UnexpectedError, Workflow } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { type BinaryMode, binaryDataService, core, ensureCore, withBinaryMode } from './core';
import {
	type ExtractionAgentsCredentials,
	HarnessCredentialsHelper,
	createCredentialStore,
	credentialReference,
	declaredCredentialTypes,
} from './credentials';
import {
	type AnyNodeType,
	EXTRACTION_AGENTS_TRIGGER_TYPE,
	EXTRACTION_AGENTS_TYPE,
	HarnessNodeTypes,
	defaultNodeName,
	latestVersion,
	loadExtractionAgentsNode,
	loadExtractionAgentsTriggerNode,
	qualifiedTypeName,
} from './node-types';
import { AggregateBinaries, AGGREGATE_BINARIES_TYPE } from './nodes/AggregateBinaries.node';
import { rememberSecret, scanForSecrets } from './secret-scan';
import {
	HARNESS_INPUT_TYPE,
	type HarnessInputItem,
	createHarnessInput,
} from './nodes/HarnessInput.node';
import { ManualTrigger, MANUAL_TRIGGER_TYPE } from './nodes/ManualTrigger.node';
import { SetBinaryFromFile, SET_BINARY_FROM_FILE_TYPE } from './nodes/SetBinaryFromFile.node';
import { LookUp, LOOK_UP_TYPE } from './nodes/LookUp.node';

export type { HarnessInputItem } from './nodes/HarnessInput.node';

const DEFAULT_TIMEOUT_MS = 60_000;
/** After a cancel (or timeout) the run is given this long to let the running node return. */
const CANCEL_GRACE_MS = 5_000;

export interface BinaryReader {
	/** The bytes of `item.binary[field]`, read back through n8n's binary data service. */
	readBinary(item: INodeExecutionData, field?: string): Promise<Buffer>;
	/** Where a filesystem-mode binary lives on disk (undefined in memory mode). */
	binaryPath(item: INodeExecutionData, field?: string): string | undefined;
}

export interface RunResultBase extends BinaryReader {
	/** 'success' | 'error' | 'canceled' | … as n8n records the execution. */
	status: IRun['status'];
	run: IRun | undefined;
	runData: IRunData;
	durationMs: number;
	/** Every request the credential's authenticate produced (type + final options). */
	authenticatedRequests: HarnessCredentialsHelper['authenticated'];
}

export interface ExecuteNodeOptions {
	/** The node type instance, or 'extractionAgents' for the package's action node. */
	nodeType: AnyNodeType | 'extractionAgents' | 'extractionAgentsTrigger';
	parameters: INodeParameters;
	credentials?: ExtractionAgentsCredentials;
	/** Further credentials by type name, for other credential types a node uses. */
	credentialsByType?: Record<string, ICredentialDataDecryptedObject>;
	inputItems?: HarnessInputItem[];
	/** n8n's N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' (default, files on disk) or 'default' (in memory). */
	binaryMode?: BinaryMode;
	/** Sets the node's "On Error" to "Continue" (continueRegularOutput). */
	continueOnFail?: boolean;
	/** The node's "On Error" setting, when continueOnFail is not enough. */
	onError?: INode['onError'];
	/** Node settings such as retryOnFail / maxTries / alwaysOutputData. */
	nodeSettings?: Partial<
		Pick<
			INode,
			'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'alwaysOutputData' | 'executeOnce'
		>
	>;
	typeVersion?: number;
	/** The workflow's time zone (settings.timezone); n8n's default otherwise. */
	timezone?: string;
	nodeName?: string;
	/** 'manual' (default: the editor's "Execute workflow") or e.g. 'internal' / 'trigger'. */
	executionMode?: WorkflowExecuteMode;
	/** Hard limit: the execution is cancelled and the call rejects after this long. Default 60 s. */
	timeoutMs?: number;
	/** Cancels the execution after this long, like the user pressing "Stop". */
	cancelAfterMs?: number;
	/** Cancels the execution once this says so (asked every 50 ms), e.g. once a request is under way. */
	cancelWhen?: () => boolean;
}

export interface ExecuteNodeResult extends RunResultBase {
	/** Main output 0 of the node under test. */
	items: INodeExecutionData[];
	/** Every output of the node under test (e.g. [success, error] with continueErrorOutput). */
	outputs: INodeExecutionData[][];
	/** The node's error when the execution failed (NodeApiError / NodeOperationError instance). */
	error?: Error;
	/**
	 * The error n8n recorded on the node's run even when the execution went on
	 * (a node that threw with "On Error: Continue"); undefined when the node returned.
	 */
	nodeError?: Error;
	nodeName: string;
	/** The node as it ran (with defaults applied to its parameters). */
	node: INode;
}

export interface RunWorkflowOptions {
	credentials?: ExtractionAgentsCredentials;
	credentialsByType?: Record<string, ICredentialDataDecryptedObject>;
	binaryMode?: BinaryMode;
	/** Extra node types by type name; the package's nodes and the harness nodes are always there. */
	nodeTypes?: Record<string, AnyNodeType>;
	/** The node to start from (default: the workflow's trigger / start node). */
	startNode?: string;
	executionMode?: WorkflowExecuteMode;
	timeoutMs?: number;
	cancelAfterMs?: number;
	/**
	 * A partial execution from the editor ("Execute step" on `destinationNode`), as n8n's
	 * ManualExecutionService starts it: a new execution that reuses the run data of an
	 * earlier one for the nodes before (runPartialWorkflow2).
	 */
	partial?: { runData: IRunData; destinationNode: string; dirtyNodeNames?: string[] };
	/**
	 * Retries a failed execution as n8n's ExecutionService.retry does: a new execution (mode
	 * 'retry') that resumes the failed one's data, the failed node's errored run removed.
	 */
	retryOf?: IRun;
}

export interface WorkflowJson {
	id?: string;
	name?: string;
	nodes: Array<Omit<INode, 'id' | 'position'> & Partial<Pick<INode, 'id' | 'position'>>>;
	connections: IConnections;
	settings?: IWorkflowSettings;
	staticData?: IDataObject;
	pinData?: IPinData;
}

export interface RunWorkflowResult extends RunResultBase {
	/** The error of the execution (the failing node's error instance when there is one). */
	error?: Error;
	/** The node whose error ended the execution. */
	errorNode?: string;
	/** Output `outputIndex` of the last run of `nodeName` ([] if it did not run). */
	outputOf(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** Main output 0 of the last node that ran. */
	lastNodeItems: INodeExecutionData[];
	lastNodeExecuted?: string;
	/** The workflow's static data after the run (n8n saves it for non-manual executions). */
	staticData: IDataObject;
}

// ---------------------------------------------------------------------------------------

function resolveNodeType(nodeType: ExecuteNodeOptions['nodeType']): {
	type: AnyNodeType;
	typeName: string;
} {
	if (nodeType === 'extractionAgents')
		return { type: loadExtractionAgentsNode(), typeName: EXTRACTION_AGENTS_TYPE };
	if (nodeType === 'extractionAgentsTrigger') {
		return { type: loadExtractionAgentsTriggerNode(), typeName: EXTRACTION_AGENTS_TRIGGER_TYPE };
	}
	return { type: nodeType, typeName: qualifiedTypeName(nodeType) };
}

export const binaryReader: BinaryReader = {
	async readBinary(item, field = 'data') {
		const binary = item.binary?.[field];
		if (!binary) {
			throw new UnexpectedError(
				`The item has no binary field "${field}" (has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`,
			);
		}
		return await binaryDataService().getAsBuffer(binary);
	},
	binaryPath(item, field = 'data') {
		const binary = item.binary?.[field];
		if (!binary?.id) return undefined;
		return binaryDataService().getPath(binary.id);
	},
};

function toError(value: unknown): Error | undefined {
	if (value === undefined || value === null) return undefined;
	if (value instanceof Error) return value;
	const obj = value as { message?: string; name?: string };
	const error = new Error(obj.message ?? String(value));
	Object.assign(error, obj);
	return error;
}

interface EngineRunOptions {
	workflowData: IWorkflowBase;
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: HarnessCredentialsHelper;
	startNodeName?: string;
	executionMode: WorkflowExecuteMode;
	timeoutMs: number;
	cancelAfterMs?: number;
	cancelWhen?: () => boolean;
	partial?: RunWorkflowOptions['partial'];
	retryOf?: IRun;
}

interface EngineRunResult {
	run: IRun | undefined;
	workflow: Workflow;
	/** An error thrown before the execution started (e.g. WorkflowHasIssuesError). */
	startError?: Error;
	durationMs: number;
}

/** A failed execution's data as n8n's ExecutionService.retry hands it to the new execution. */
function retryData(failed: IRun): IRun['data'] {
	const data = structuredClone(failed.data);
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const nodeRuns = data.resultData.runData[lastNodeExecuted];
		if (nodeRuns?.length && nodeRuns[nodeRuns.length - 1].error !== undefined) nodeRuns.pop();
	}
	return data;
}

/** One execution through n8n-core's WorkflowExecute (the path of n8n's WorkflowRunner). */
async function runEngine(options: EngineRunOptions): Promise<EngineRunResult> {
	const { WorkflowExecute, ExecutionLifecycleHooks } = core();
	const { workflowData, executionMode } = options;
	const executionId = `harness-${randomUUID()}`;
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		active: false,
		nodeTypes: options.nodeTypes,
		staticData: workflowData.staticData,
		settings: workflowData.settings,
		pinData: workflowData.pinData,
	});

	const hooks = new ExecutionLifecycleHooks(executionMode, executionId, workflowData);
	let afterHookRun: IRun | undefined;
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => {
		afterHookRun = fullRunData;
	});
	const additionalData = buildAdditionalData({
		credentialsHelper: options.credentialsHelper,
		hooks,
		executionId,
		workflowId: workflowData.id,
	});

	const startNode = options.startNodeName
		? workflow.getNode(options.startNodeName)
		: workflow.getStartNode();
	if (!startNode)
		throw new UnexpectedError(`Start node "${options.startNodeName ?? '(auto)'}" not found`);

	const started = performance.now();
	const { partial, retryOf } = options;
	const workflowExecute = retryOf
		? new WorkflowExecute(additionalData, 'retry', retryData(retryOf))
		: new WorkflowExecute(additionalData, executionMode);
	let execution: ReturnType<typeof workflowExecute.run>;
	try {
		execution = retryOf
			? workflowExecute.processRunExecutionData(workflow)
			: partial
				? workflowExecute.runPartialWorkflow2(
						workflow,
						structuredClone(partial.runData),
						workflowData.pinData,
						partial.dirtyNodeNames ?? [partial.destinationNode],
						{ nodeName: partial.destinationNode, mode: 'inclusive' },
					)
				: workflowExecute.run({ workflow, startNode, pinData: workflowData.pinData });
	} catch (error) {
		// n8n refuses to start a workflow with issues (e.g. a required parameter left empty).
		return {
			run: undefined,
			workflow,
			startError: toError(error),
			durationMs: performance.now() - started,
		};
	}

	const timers: NodeJS.Timeout[] = [];
	if (options.cancelAfterMs !== undefined) {
		timers.push(setTimeout(() => execution.cancel(), options.cancelAfterMs));
	}
	const { cancelWhen } = options;
	if (cancelWhen) {
		const check = setInterval(() => {
			if (!cancelWhen()) return;
			clearInterval(check);
			execution.cancel();
		}, 50);
		timers.push(check);
	}
	const timeout = new Promise<'timeout'>((resolve) => {
		timers.push(
			setTimeout(() => {
				execution.cancel();
				resolve('timeout');
			}, options.timeoutMs),
		);
	});
	try {
		const first = await Promise.race([execution.then((run) => run), timeout]);
		if (first !== 'timeout') {
			return { run: first, workflow, durationMs: performance.now() - started };
		}
		// Timed out: give the running node a moment to honour the abort signal.
		const grace = new Promise<'stuck'>((resolve) =>
			timers.push(setTimeout(() => resolve('stuck'), CANCEL_GRACE_MS)),
		);
		const late = await Promise.race([execution.then((run) => run), grace]);
		const stuck =
			late === 'stuck'
				? ` and the running node did not return within ${CANCEL_GRACE_MS} ms of the cancel`
				: '';
		const error = new Error(
			`The execution did not finish within ${options.timeoutMs} ms (timeoutMs)${stuck}`,
		);
		Object.assign(error, { run: late === 'stuck' ? afterHookRun : late });
		throw error;
	} finally {
		for (const t of timers) clearTimeout(t);
	}
}

/** The error of a node's last run: the instance it threw if known, else n8n's stored copy. */
function nodeError(
	runData: IRunData,
	nodeName: string,
	thrown?: Map<string, Error>,
): Error | undefined {
	const runs = runData[nodeName];
	const last = runs?.[runs.length - 1];
	if (!last?.error) return undefined;
	return thrown?.get(nodeName) ?? toError(last.error);
}

function outputsOf(runData: IRunData, nodeName: string): INodeExecutionData[][] {
	const runs = runData[nodeName];
	const last = runs?.[runs.length - 1];
	return ((last?.data?.main ?? []) as Array<INodeExecutionData[] | null>).map((o) => o ?? []);
}

// ---------------------------------------------------------------------------------------

/**
 * Runs one node the way n8n does when the user executes a workflow `Start → node`: the
 * start node emits `inputItems` (binaries stored through n8n's binary data service), the
 * node under test runs in n8n-core's WorkflowExecute with the given parameters and
 * credentials.
 */
export async function executeNode(options: ExecuteNodeOptions): Promise<ExecuteNodeResult> {
	await ensureCore();
	rememberSecret(options.credentials?.apiKey);
	const { type, typeName } = resolveNodeType(options.nodeType);
	const nodeName = options.nodeName ?? defaultNodeName(type, options.typeVersion);
	const inputName = 'Harness Input';
	if (nodeName === inputName)
		throw new UnexpectedError(`Pick another nodeName than "${inputName}"`);

	const credentialTypes = declaredCredentialTypes(type);
	const store = createCredentialStore(options.credentials, options.credentialsByType);
	const nodeCredentials = Object.fromEntries(
		credentialTypes.filter((t) => store.has(t)).map((t) => [t, credentialReference(t)]),
	);
	const node: INode = {
		id: randomUUID(),
		name: nodeName,
		type: typeName,
		typeVersion: options.typeVersion ?? latestVersion(type),
		position: [220, 0],
		parameters: structuredClone(options.parameters),
		...(Object.keys(nodeCredentials).length ? { credentials: nodeCredentials } : {}),
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.onError ? { onError: options.onError } : {}),
		...(options.nodeSettings ?? {}),
	};
	const workflowData: IWorkflowBase = {
		id: `harness-wf-${randomUUID().slice(0, 8)}`,
		name: `executeNode ${nodeName}`,
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: [
			{
				id: randomUUID(),
				name: inputName,
				type: HARNESS_INPUT_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			node,
		],
		connections: { [inputName]: { main: [[{ node: nodeName, type: 'main', index: 0 }]] } },
		settings: {
			executionOrder: 'v1',
			...(options.timezone ? { timezone: options.timezone } : {}),
		},
		staticData: {},
	} as unknown as IWorkflowBase;
	const nodeTypes = new HarnessNodeTypes({
		[HARNESS_INPUT_TYPE]: createHarnessInput(options.inputItems ?? [{ json: {} }]),
		[typeName]: type,
	});
	const credentialsHelper = new HarnessCredentialsHelper(store);

	return await withBinaryMode(options.binaryMode ?? 'filesystem', async () => {
		const { run, workflow, startError, durationMs } = await runEngine({
			workflowData,
			nodeTypes,
			credentialsHelper,
			startNodeName: inputName,
			executionMode: options.executionMode ?? 'manual',
			timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			cancelAfterMs: options.cancelAfterMs,
			cancelWhen: options.cancelWhen,
		});
		const runData = run?.data.resultData.runData ?? {};
		const outputs = outputsOf(runData, nodeName);
		const status = startError ? 'error' : (run?.status ?? 'error');
		const ownError = nodeError(runData, nodeName, nodeTypes.thrown);
		const error =
			status === 'success'
				? undefined
				: (startError ??
					ownError ??
					nodeError(runData, inputName, nodeTypes.thrown) ??
					toError(run?.data.resultData.error));
		scanForSecrets(`executeNode(${nodeName})`, outputs, error, ownError, runData);
		return {
			...binaryReader,
			items: outputs[0] ?? [],
			outputs,
			error,
			nodeError: ownError,
			status,
			run,
			runData,
			durationMs,
			nodeName,
			node: workflow.getNode(nodeName) ?? node,
			authenticatedRequests: credentialsHelper.authenticated,
		};
	});
}

/** The node types every `runWorkflow` has: harness helpers, a manual trigger, the package's nodes. */
function defaultWorkflowNodeTypes(): Record<string, AnyNodeType> {
	return {
		[MANUAL_TRIGGER_TYPE]: new ManualTrigger(),
		[SET_BINARY_FROM_FILE_TYPE]: new SetBinaryFromFile(),
		[AGGREGATE_BINARIES_TYPE]: new AggregateBinaries(),
		[LOOK_UP_TYPE]: new LookUp(),
	};
}

/**
 * Runs a multi-node workflow (n8n's workflow JSON: nodes + connections) with n8n-core's
 * WorkflowExecute, from its trigger. The package's nodes are known as
 * `n8n-nodes-extraction-agents.extractionAgents` / `…extractionAgentsTrigger`.
 */
export async function runWorkflow(
	workflowJson: WorkflowJson,
	options: RunWorkflowOptions = {},
): Promise<RunWorkflowResult> {
	await ensureCore();
	const types: Record<string, AnyNodeType> = {
		...defaultWorkflowNodeTypes(),
		...(options.nodeTypes ?? {}),
	};
	const usedTypes = new Set(workflowJson.nodes.map((n) => n.type));
	// Load the package's nodes only when used, so that a load error surfaces as itself.
	if (usedTypes.has(EXTRACTION_AGENTS_TYPE) && !types[EXTRACTION_AGENTS_TYPE]) {
		types[EXTRACTION_AGENTS_TYPE] = loadExtractionAgentsNode();
	}
	if (usedTypes.has(EXTRACTION_AGENTS_TRIGGER_TYPE) && !types[EXTRACTION_AGENTS_TRIGGER_TYPE]) {
		types[EXTRACTION_AGENTS_TRIGGER_TYPE] = loadExtractionAgentsTriggerNode();
	}
	for (const t of usedTypes) {
		if (!types[t])
			throw new UnexpectedError(`runWorkflow: no node type "${t}" (pass it in options.nodeTypes)`);
	}
	const nodeTypes = new HarnessNodeTypes(types);
	const store = createCredentialStore(options.credentials, options.credentialsByType);

	const nodes: INode[] = workflowJson.nodes.map((n, index) => {
		const node = structuredClone(n) as INode;
		node.id ??= randomUUID();
		node.position ??= [index * 220, 0];
		// Reference the harness's credential for each declared type the node has none for.
		const declared = declaredCredentialTypes(types[node.type]).filter((t) => store.has(t));
		for (const t of declared) {
			node.credentials ??= {};
			node.credentials[t] ??= credentialReference(t);
		}
		return node;
	});
	const workflowData = {
		id: workflowJson.id ?? `harness-wf-${randomUUID().slice(0, 8)}`,
		name: workflowJson.name ?? 'runWorkflow',
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes,
		connections: workflowJson.connections,
		settings: { executionOrder: 'v1', ...(workflowJson.settings ?? {}) },
		staticData: structuredClone(workflowJson.staticData ?? {}),
		pinData: workflowJson.pinData,
	} as IWorkflowBase;
	const credentialsHelper = new HarnessCredentialsHelper(store);

	return await withBinaryMode(options.binaryMode ?? 'filesystem', async () => {
		const { run, workflow, startError, durationMs } = await runEngine({
			workflowData,
			nodeTypes,
			credentialsHelper,
			startNodeName: options.startNode,
			executionMode: options.executionMode ?? 'manual',
			timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			cancelAfterMs: options.cancelAfterMs,
			partial: options.partial,
			retryOf: options.retryOf,
		});
		const runData = run?.data.resultData.runData ?? {};
		const lastNodeExecuted = run?.data.resultData.lastNodeExecuted;
		const status = startError ? 'error' : (run?.status ?? 'error');
		const errorNode = status !== 'success' && !startError ? lastNodeExecuted : undefined;
		const error =
			status === 'success'
				? undefined
				: (startError ??
					(errorNode ? nodeError(runData, errorNode, nodeTypes.thrown) : undefined) ??
					toError(run?.data.resultData.error));
		return {
			...binaryReader,
			status,
			run,
			runData,
			durationMs,
			error,
			errorNode,
			outputOf: (nodeName: string, outputIndex = 0) =>
				outputsOf(runData, nodeName)[outputIndex] ?? [],
			lastNodeItems: lastNodeExecuted ? (outputsOf(runData, lastNodeExecuted)[0] ?? []) : [],
			lastNodeExecuted,
			staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
			authenticatedRequests: credentialsHelper.authenticated,
		};
	});
}
