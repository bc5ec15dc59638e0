/**
 * The editor's calls to a node's `methods.loadOptions` / `methods.listSearch`, as n8n's
 * DynamicNodeParametersService makes them: a temporary workflow holding the node with the
 * current parameters, n8n-core's LoadOptionsContext, additionalData.currentNodeParameters
 * set to the parameters being edited.
 */
import './env';

import { randomUUID } from 'node:crypto';

import type {
	ICredentialDataDecryptedObject,
	INode,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
} from 'n8n-workflow';
import { NodeHelpers, UnexpectedError, Workflow } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { core, ensureCore } from './core';
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

export interface NodeMethodOptions {
	nodeType: AnyNodeType | 'extractionAgents' | 'extractionAgentsTrigger';
	/** The parameters of the node being edited. */
	parameters?: INodeParameters;
	credentials?: ExtractionAgentsCredentials;
	credentialsByType?: Record<string, ICredentialDataDecryptedObject>;
	/** The path of the parameter being edited (n8n passes e.g. 'parameters.agent'). */
	path?: string;
	typeVersion?: number;
}

function setup(options: NodeMethodOptions) {
	let type: AnyNodeType;
	let typeName: string;
	if (options.nodeType === 'extractionAgents') {
		type = loadExtractionAgentsNode();
		typeName = EXTRACTION_AGENTS_TYPE;
	} else if (options.nodeType === 'extractionAgentsTrigger') {
		type = loadExtractionAgentsTriggerNode();
		typeName = EXTRACTION_AGENTS_TRIGGER_TYPE;
	} else {
		type = options.nodeType;
		typeName = qualifiedTypeName(type);
	}
	const typeVersion = options.typeVersion ?? latestVersion(type);
	const versioned = NodeHelpers.getVersionedNodeType(type, typeVersion);
	const store = createCredentialStore(options.credentials, options.credentialsByType);
	const credentials = Object.fromEntries(
		declaredCredentialTypes(type)
			.filter((t) => store.has(t))
			.map((t) => [t, credentialReference(t)]),
	);
	const parameters = structuredClone(options.parameters ?? {});
	const node: INode = {
		id: randomUUID(),
		name: defaultNodeName(type, typeVersion),
		type: typeName,
		typeVersion,
		position: [0, 0],
		parameters,
		...(Object.keys(credentials).length ? { credentials } : {}),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ [typeName]: type }),
	});
	const additionalData = buildAdditionalData({
		credentialsHelper: new HarnessCredentialsHelper(store),
	});
	additionalData.currentNodeParameters = parameters;
	const { LoadOptionsContext } = core();
	const context = new LoadOptionsContext(
		workflow,
		workflow.getNode(node.name)!,
		additionalData,
		options.path ?? '',
	);
	return { versioned, context };
}

/** Calls `methods.loadOptions[method]` like the editor filling a dropdown. */
export async function loadOptions(
	options: NodeMethodOptions & { method: string },
): Promise<INodePropertyOptions[]> {
	await ensureCore();
	const { versioned, context } = setup(options);
	const fn = versioned.methods?.loadOptions?.[options.method];
	if (typeof fn !== 'function')
		throw new UnexpectedError(`The node has no loadOptions method "${options.method}"`);
	return await fn.call(context);
}

/** Calls `methods.listSearch[method]` like the editor's resource locator "From list". */
export async function listSearch(
	options: NodeMethodOptions & { method: string; filter?: string; paginationToken?: unknown },
): Promise<INodeListSearchResult> {
	await ensureCore();
	const { versioned, context } = setup(options);
	const fn = versioned.methods?.listSearch?.[options.method];
	if (typeof fn !== 'function')
		throw new UnexpectedError(`The node has no listSearch method "${options.method}"`);
	return await fn.call(context, options.filter, options.paginationToken as string | undefined);
}
