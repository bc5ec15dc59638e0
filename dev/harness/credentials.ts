/**
 * A credentials helper that behaves like n8n's server-side CredentialsHelper
 * (packages/cli/src/credentials-helper.ts) for what a community node can observe:
 *
 * - `authenticate` applies the credential type's own `authenticate`: a function is called
 *   with (credentials, requestOptions); a generic definition (`type: 'generic'`) has every
 *   key and value resolved as an expression with `$credentials` and merged into
 *   headers / qs / body / auth of the request;
 * - `getDecrypted` returns the stored data with the type's defaults applied and expressions
 *   in it resolved (what `applyDefaultsAndOverwrites` does), for the credential the node
 *   references;
 * - `preAuthentication` runs the type's `preAuthentication` when it has an expirable
 *   hidden property, as n8n does.
 */
import './env';

import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	isExpression,
} from 'n8n-workflow';

import { core } from './core';

export const EXTRACTION_AGENTS_CREDENTIAL = 'extractionAgentsApi';

/** The shape of the package's credential, as the nodes and the tests use it. */
export interface ExtractionAgentsCredentials {
	apiKey: string;
	baseUrl: string;
}

// ---------------------------------------------------------------------------------------
// Credential types

const extraCredentialTypes = new Map<string, ICredentialType>();

/** Registers another credential type (e.g. a test-only one with a generic `authenticate`). */
export function registerCredentialType(type: ICredentialType): void {
	extraCredentialTypes.set(type.name, type);
}

let packageCredentialType: ICredentialType | undefined;

function loadPackageCredentialType(): ICredentialType {
	if (!packageCredentialType) {
		const mod = require('../../credentials/ExtractionAgentsApi.credentials') as {
			ExtractionAgentsApi: new () => ICredentialType;
		};
		packageCredentialType = new mod.ExtractionAgentsApi();
	}
	return packageCredentialType;
}

export function getCredentialType(name: string): ICredentialType {
	const extra = extraCredentialTypes.get(name);
	if (extra) return extra;
	if (name === EXTRACTION_AGENTS_CREDENTIAL) return loadPackageCredentialType();
	throw new UnexpectedError(
		`Unknown credential type "${name}" (register it with registerCredentialType)`,
	);
}

function tryGetCredentialType(name: string): ICredentialType | undefined {
	try {
		return getCredentialType(name);
	} catch {
		return undefined;
	}
}

// A node-types stand-in for the throw-away workflows used to resolve expressions, like
// n8n's createMockNodeTypes().
const mockNodeType = {
	description: { properties: [] as INodeProperties[] },
} as unknown as INodeType;
const mockNodeTypes: INodeTypes = {
	getByName: () => mockNodeType,
	getByNameAndVersion: () => mockNodeType,
	getKnownTypes: () => ({}),
};
const mockNode: INode = {
	id: 'mock',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};

function mockWorkflow(): Workflow {
	return new Workflow({
		nodes: [{ ...mockNode }],
		connections: {},
		active: false,
		nodeTypes: mockNodeTypes,
	});
}

// ---------------------------------------------------------------------------------------
// The helper

export type CredentialStore = Map<string, ICredentialDataDecryptedObject>;

export const HARNESS_CREDENTIAL_ID = 'harness-credential-1';

/** The node-side reference to a stored credential, as saved in a workflow's node. */
export function credentialReference(type: string): INodeCredentialsDetails {
	return { id: `${HARNESS_CREDENTIAL_ID}-${type}`, name: `${type} (harness)` };
}

export class HarnessCredentialsHelper extends ICredentialsHelper {
	/** Every `authenticate` call, in order (type and the request as returned), for assertions. */
	readonly authenticated: Array<{ type: string; request: IHttpRequestOptions }> = [];

	constructor(private readonly store: CredentialStore) {
		super();
	}

	getParentTypes(name: string): string[] {
		const type = tryGetCredentialType(name);
		if (!type?.extends) return [];
		const parents: string[] = [];
		for (const parent of type.extends) {
			parents.push(parent, ...this.getParentTypes(parent));
		}
		return parents;
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const credentialType = getCredentialType(typeName);
		let result = requestOptions;
		if (typeof credentialType.authenticate === 'function') {
			result = await credentialType.authenticate(credentials, requestOptions);
		} else if (typeof credentialType.authenticate === 'object') {
			const { authenticate } = credentialType;
			const wf = workflow ?? mockWorkflow();
			const n = node ?? mockNode;
			requestOptions.headers ??= {};
			if (authenticate.type === 'generic') {
				for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
					for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
						const keyResolved = this.resolveValue(key, credentials, wf, n);
						const valueResolved = this.resolveValue(value as string, credentials, wf, n);
						const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
						target[outerKey] ??= {};
						target[outerKey][keyResolved] = valueResolved;
					}
				}
			}
			result = requestOptions;
		}
		this.authenticated.push({ type: typeName, request: result });
		return result;
	}

	/** CredentialsHelper.resolveValue: expressions see `$credentials`; falsy results become ''. */
	private resolveValue(
		parameterValue: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) return parameterValue;
		const value = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		if (!value) return '';
		return String(value);
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = getCredentialType(typeName);
		const expirable = credentialType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined) return undefined;
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] === '' || credentialsExpired || isTestingCredentials) {
			const output = await credentialType.preAuthentication.call(helpers, credentials);
			if (output[expirable.name] === undefined) return undefined;
			const stored = this.store.get(typeName) ?? {};
			this.store.set(typeName, { ...stored, ...output } as ICredentialDataDecryptedObject);
			return Object.assign(credentials, output) as ICredentialDataDecryptedObject;
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = getCredentialType(typeName);
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		const output = await credentialType.preAuthentication.call(helpers, credentials);
		return (output as ICredentialDataDecryptedObject | undefined) ?? undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		const data = this.store.get(type);
		if (!data) throw new UnexpectedError(`No "${type}" credential in the harness store`);
		const { Credentials } = core();
		const credentials = new Credentials(
			{ id: nodeCredentials.id, name: nodeCredentials.name },
			type,
		);
		await credentials.setData(data);
		return credentials as unknown as ICredentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.store.get(type);
		if (!stored) {
			// n8n: CredentialNotFoundError
			throw new UnexpectedError(
				`Credential with ID "${_nodeCredentials.id}" does not exist for type "${type}".`,
			);
		}
		const data = structuredClone(stored);
		if (raw === true) return data;
		return this.applyDefaultsAndOverwrites(
			additionalData,
			data,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** CredentialsHelper.applyDefaultsAndOverwrites, without the server's overwrites. */
	applyDefaultsAndOverwrites(
		additionalData: IWorkflowExecuteAdditionalData,
		decryptedDataOriginal: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		let decryptedData = NodeHelpers.getNodeParameters(
			properties,
			decryptedDataOriginal as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (decryptedDataOriginal.oauthTokenData !== undefined) {
			decryptedData.oauthTokenData = decryptedDataOriginal.oauthTokenData;
		}
		const { getAdditionalKeys } = core();
		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				decryptedData = expressionResolveValues.workflow.expression.getParameterValue(
					decryptedData as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decryptedData,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			decryptedData = mockWorkflow().expression.getComplexParameterValue(
				mockNode,
				decryptedData as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decryptedData,
			) as ICredentialDataDecryptedObject;
		}
		return decryptedData;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store.set(type, structuredClone(data));
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.store.get(type) ?? {};
		this.store.set(type, { ...stored, oauthTokenData: data.oauthTokenData });
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = getCredentialType(type);
		if (credentialType.extends === undefined) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}
}

/** Builds the store for one execution: the package credential plus any extra types. */
export function createCredentialStore(
	credentials?: ExtractionAgentsCredentials | ICredentialDataDecryptedObject,
	extra?: Record<string, ICredentialDataDecryptedObject>,
): CredentialStore {
	const store: CredentialStore = new Map();
	if (credentials)
		store.set(EXTRACTION_AGENTS_CREDENTIAL, { ...credentials } as ICredentialDataDecryptedObject);
	for (const [type, data] of Object.entries(extra ?? {})) store.set(type, { ...data });
	return store;
}

/** The credential types a node type declares (all versions of a versioned node). */
export function declaredCredentialTypes(nodeType: INodeType | IVersionedNodeType): string[] {
	const descriptions =
		'nodeVersions' in nodeType
			? Object.values(nodeType.nodeVersions).map((v) => v.description)
			: [nodeType.description];
	return [...new Set(descriptions.flatMap((d) => (d.credentials ?? []).map((c) => c.name)))];
}
