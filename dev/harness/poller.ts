/**
 * Drives a polling trigger the way n8n 2.x does: each poll builds the workflow from the
 * stored (JSON) static data, runs the node's `poll()` through n8n-core's real PollContext
 * and TriggersAndPollers, and stores the static data again only when the poll succeeded
 * and changed it (`__dataChanged`, what WorkflowStaticDataService.saveStaticData checks).
 * A poll that throws leaves the stored static data as it was (n8n routes the error to
 * __emitError and commits no cursor), so the next poll retries the same window.
 * Manual polls ("Fetch Test Event") never store static data, as in n8n.
 */
import { rememberSecret, scanForSecrets } from './secret-scan';
import './env';

import { randomUUID } from 'node:crypto';

import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { UnexpectedError, Workflow } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { type BinaryMode, container, core, ensureCore, withBinaryMode } from './core';
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
	HarnessNodeTypes,
	defaultNodeName,
	latestVersion,
	loadExtractionAgentsTriggerNode,
	qualifiedTypeName,
} from './node-types';

export interface CreatePollerOptions {
	/** The trigger node type instance, or 'extractionAgentsTrigger' (default) for the package's trigger. */
	nodeType?: AnyNodeType | 'extractionAgentsTrigger';
	parameters: INodeParameters;
	credentials: ExtractionAgentsCredentials;
	credentialsByType?: Record<string, ICredentialDataDecryptedObject>;
	/**
	 * The workflow's stored static data (n8n's `workflow_entity.staticData`, keyed
	 * `node:<node name>`), e.g. `previousPoller.staticData` to simulate a restart.
	 */
	staticData?: IDataObject;
	/** Shortcut: the node's own static data (what getWorkflowStaticData('node') returns). */
	nodeStaticData?: IDataObject;
	nodeName?: string;
	typeVersion?: number;
	/** Workflow timezone (settings.timezone); n8n's default otherwise. */
	timezone?: string;
	/** Binary data mode for binaries the poll prepares (default 'filesystem'). */
	binaryMode?: BinaryMode;
	/** What the PollContext's getPollBudgetMs() answers (n8n-core's default otherwise: 5 minutes). */
	pollBudgetMs?: number;
	/**
	 * The activation mode of this poller's first scheduled poll: 'activate' (default) when the
	 * user activates the workflow, 'init' when n8n starts with it active. Later polls are
	 * 'update', as n8n 2.41's scheduler runs every tick after the activation poll.
	 */
	firstPollActivation?: WorkflowActivateMode;
	/**
	 * The workflow's and the node's ids (random by default). Two pollers with the same ids are
	 * the same trigger node to the node's in-process memory: a re-activation (a new poller whose
	 * first poll is the activation poll) while an older poll still runs, or, with a copy of the
	 * node loaded apart (jest.isolateModules), a second n8n main.
	 */
	workflowId?: string;
	nodeId?: string;
	/**
	 * 'durable': n8n 2.41's durable scheduler, where only a poll that emitted saves the static
	 * data (a poll that emitted nothing leaves the stored state as it was). Default
	 * 'in-memory': every poll that changed the static data saves it.
	 */
	scheduler?: 'in-memory' | 'durable';
	/**
	 * Where the static data is stored: pollers given the same storage share one stored state,
	 * as two n8n mains share one database (createPollerStorage). Each poll loads it when it
	 * starts and saves it when it ends, as n8n's scheduler does.
	 */
	storage?: PollerStorage;
}

/** One stored static data that several pollers load and save (n8n's `workflow_entity.staticData`). */
export interface PollerStorage {
	stored: IDataObject;
	/** What was stored before the last save (PollHazards.staticDataBeforeLastSave). */
	beforeLastSave: IDataObject;
}

export function createPollerStorage(staticData: IDataObject = {}): PollerStorage {
	return { stored: jsonCopy(staticData), beforeLastSave: jsonCopy(staticData) };
}

/**
 * Hazards of n8n 2.41's durable scheduler a scheduled poll can be put through
 * (docs/design/trigger-rules.md, "n8n's poll scheduling").
 */
export interface PollHazards {
	/**
	 * The poll is handed the static data as stored before the last save: the scheduler loads
	 * it when a poll task starts, and saves an emitting poll's without waiting for the save
	 * (n8n's trigger-execution-context.factory.js `__emit`), so a poll task that started
	 * while another was running, or before that one's save landed, reads the older state.
	 */
	staticDataBeforeLastSave?: boolean;
	/**
	 * n8n drops what the poll returned and saves nothing: the workflow was deactivated during
	 * the poll, or the poll ran past the scheduler's poll timeout (n8n's
	 * poll-trigger-task-handler.js). The poll still resolves to what it returned.
	 */
	dropResult?: boolean;
	/**
	 * Called once the poll has loaded the static data and before the node's poll() runs; the
	 * poll waits for it. Lets a test make something happen between the load and the poll
	 * (another main's poll saving first, a Run finishing).
	 */
	afterLoad?: () => Promise<void> | void;
	/**
	 * A poll that emitted: its save lands only when this promise resolves (n8n saves an
	 * emitting poll's static data without waiting for it). Another poll that loads before
	 * then reads the older state.
	 */
	saveDelayedUntil?: Promise<void>;
	/**
	 * n8n abandons the poll when it has run longer than this (the durable scheduler's poll
	 * timeout, on Date.now): its result is dropped and nothing is saved, as with dropResult.
	 * The poll still resolves to what it returned; PollRecord.abandoned says so.
	 */
	abandonAfterMs?: number;
	/**
	 * How long the poll took as the test accounts it, read when the poll ends: what
	 * abandonAfterMs and PollRecord.durationMs go by (default: Date.now's difference). A model
	 * in simulated time counts only the time it simulates and the waits the trigger chose, so
	 * that a busy machine's late timers neither abandon a poll nor make it overrun its budget.
	 */
	accountedMs?: () => number;
}

export interface PollRecord {
	mode: 'trigger' | 'manual';
	ok: boolean;
	items: number;
	staticDataSaved: boolean;
	/** What was put on the poll (PollHazards). */
	hazards?: PollHazards;
	/** It ran past PollHazards.abandonAfterMs: n8n dropped its result. */
	abandoned?: boolean;
	/** How long the node's poll() ran (Date.now, or PollHazards.accountedMs). */
	durationMs?: number;
	/** How long the node's poll() ran by Date.now (real time included). */
	wallMs?: number;
	error?: Error;
}

export interface Poller {
	/**
	 * One poll. 'trigger' (default) is a scheduled poll of an active workflow; 'manual' is the
	 * editor's "Fetch Test Event". Resolves to what poll() returned (null = nothing new);
	 * rejects with the node's error. `hazards` apply to a scheduled poll only.
	 */
	poll(mode?: 'trigger' | 'manual', hazards?: PollHazards): Promise<INodeExecutionData[][] | null>;
	/** The workflow's static data as n8n has it stored (JSON), replaced after each saving poll. */
	readonly staticData: IDataObject;
	/** `staticData['node:<name>']`: the node's part of it. */
	readonly nodeStaticData: IDataObject | undefined;
	readonly nodeName: string;
	/** Every poll so far. */
	readonly history: PollRecord[];
	/** Every request the credential's authenticate produced. */
	readonly authenticatedRequests: HarnessCredentialsHelper['authenticated'];
}

const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

/** n8n's DirectoryLoader adds the "Poll Times" parameter to every polling node on load. */
function applyPollingParameters(type: AnyNodeType): void {
	const versions: INodeType[] = 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
	const { commonPollingParameters } = require('n8n-core/dist/nodes-loader/constants') as {
		commonPollingParameters: INodeType['description']['properties'];
	};
	for (const version of versions) {
		const { description } = version;
		if (description.polling && !description.properties.some((p) => p.name === 'pollTimes')) {
			description.properties.unshift(...structuredClone(commonPollingParameters));
		}
	}
}

export function createPoller(options: CreatePollerOptions): Poller {
	const nodeTypeOption = options.nodeType ?? 'extractionAgentsTrigger';
	const type: AnyNodeType =
		nodeTypeOption === 'extractionAgentsTrigger'
			? loadExtractionAgentsTriggerNode()
			: nodeTypeOption;
	const typeName =
		nodeTypeOption === 'extractionAgentsTrigger'
			? EXTRACTION_AGENTS_TRIGGER_TYPE
			: qualifiedTypeName(type);
	const version = options.typeVersion ?? latestVersion(type);
	const described =
		'nodeVersions' in type ? type.nodeVersions[version].description : type.description;
	if (!described.polling)
		throw new UnexpectedError(`${typeName} is not a polling node (description.polling)`);
	applyPollingParameters(type);

	const nodeName = options.nodeName ?? defaultNodeName(type, version);
	const store = createCredentialStore(options.credentials, options.credentialsByType);
	const credentialsHelper = new HarnessCredentialsHelper(store);
	const nodeCredentials = Object.fromEntries(
		declaredCredentialTypes(type)
			.filter((t) => store.has(t))
			.map((t) => [t, credentialReference(t)]),
	);
	const workflowId = options.workflowId ?? `harness-poll-wf-${randomUUID().slice(0, 8)}`;
	const nodeId = options.nodeId ?? randomUUID();
	const nodeTypes = new HarnessNodeTypes({ [typeName]: type });

	const storage = options.storage ?? createPollerStorage(options.staticData);
	if (options.nodeStaticData) {
		storage.stored[`node:${nodeName}`] = jsonCopy(options.nodeStaticData);
		storage.beforeLastSave = jsonCopy(storage.stored);
	}
	const history: PollRecord[] = [];

	async function poll(
		mode: 'trigger' | 'manual' = 'trigger',
		hazards: PollHazards = {},
	): Promise<INodeExecutionData[][] | null> {
		await ensureCore();
		rememberSecret(options.credentials?.apiKey);
		try {
			const result = await withBinaryMode(
				options.binaryMode ?? 'filesystem',
				async () => await pollOnce(mode, mode === 'trigger' ? hazards : {}),
			);
			scanForSecrets(`poll(${nodeName}, ${mode})`, result, storage.stored);
			return result;
		} catch (error) {
			scanForSecrets(`poll(${nodeName}, ${mode}) error`, error, storage.stored);
			throw error;
		}
	}

	async function pollOnce(
		mode: 'trigger' | 'manual',
		hazards: PollHazards,
	): Promise<INodeExecutionData[][] | null> {
		const hazardsRecord = Object.keys(hazards).length > 0 ? { hazards } : {};
		const { PollContext, TriggersAndPollers } = core();
		const node: INode = {
			id: nodeId,
			name: nodeName,
			type: typeName,
			typeVersion: version,
			position: [0, 0],
			parameters: structuredClone(options.parameters),
			...(Object.keys(nodeCredentials).length ? { credentials: nodeCredentials } : {}),
		};
		// As the scheduler does: the workflow is loaded afresh (static data read from storage).
		const workflow = new Workflow({
			id: workflowId,
			name: 'createPoller',
			nodes: [node],
			connections: {},
			active: mode === 'trigger',
			nodeTypes,
			staticData: jsonCopy(
				hazards.staticDataBeforeLastSave ? storage.beforeLastSave : storage.stored,
			),
			settings: {
				executionOrder: 'v1',
				...(options.timezone ? { timezone: options.timezone } : {}),
			},
		});
		const workflowNode = workflow.getNode(nodeName)!;
		const additionalData = buildAdditionalData({ credentialsHelper, workflowId });
		const executeMode: WorkflowExecuteMode = mode === 'manual' ? 'manual' : 'trigger';
		const scheduledBefore = history.some((record) => record.mode === 'trigger');
		const activation: WorkflowActivateMode =
			mode === 'manual'
				? 'manual'
				: scheduledBefore
					? 'update'
					: (options.firstPollActivation ?? 'activate');
		// __emit would start the workflow run and __emitError an error execution; the poller
		// hands the result back to the test instead.
		const pollFunctions = new PollContext(
			workflow,
			workflowNode,
			additionalData,
			executeMode,
			activation,
			() => {},
			() => {},
			undefined,
			undefined,
			undefined,
			options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs as number,
		);

		await hazards.afterLoad?.();
		const triggersAndPollers = container().get(TriggersAndPollers);
		const startedAt = Date.now();
		await workflow.expression.acquireIsolate();
		let result: INodeExecutionData[][] | null;
		try {
			result = await triggersAndPollers.runPollFunction(workflow, workflowNode, pollFunctions);
		} catch (error) {
			// n8n: __emitError(error) → an error execution; static data is not saved.
			history.push({
				mode,
				ok: false,
				items: 0,
				staticDataSaved: false,
				...hazardsRecord,
				error: error as Error,
			});
			throw error;
		} finally {
			await workflow.expression.releaseIsolate();
		}

		const wallMs = Date.now() - startedAt;
		const durationMs = hazards.accountedMs?.() ?? wallMs;
		const abandoned = hazards.abandonAfterMs !== undefined && durationMs > hazards.abandonAfterMs;
		const emitted = (result?.[0]?.length ?? 0) > 0;
		let staticDataSaved = false;
		if (
			mode === 'trigger' &&
			!hazards.dropResult &&
			!abandoned &&
			workflow.staticData.__dataChanged === true &&
			(options.scheduler !== 'durable' || emitted)
		) {
			// WorkflowStaticDataService.saveStaticData: the JSON column takes the whole object.
			const saved = jsonCopy(workflow.staticData);
			const save = () => {
				storage.beforeLastSave = storage.stored;
				storage.stored = saved;
			};
			if (hazards.saveDelayedUntil) void hazards.saveDelayedUntil.then(save);
			else save();
			staticDataSaved = true;
		}
		history.push({
			mode,
			ok: true,
			items: result?.[0]?.length ?? 0,
			staticDataSaved,
			...hazardsRecord,
			...(abandoned ? { abandoned } : {}),
			durationMs,
			wallMs,
		});
		return result;
	}

	return {
		poll,
		get staticData() {
			return storage.stored;
		},
		get nodeStaticData() {
			return storage.stored[`node:${nodeName}`] as IDataObject | undefined;
		},
		nodeName,
		history,
		authenticatedRequests: credentialsHelper.authenticated,
	};
}
