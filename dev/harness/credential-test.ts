/**
 * The editor's "Test" button for a credential, as n8n's CredentialsTester
 * (packages/cli/src/services/credentials-tester.service.ts) runs it for a credential type
 * with a `test.request`: defaults are applied to the data, the request becomes the routing
 * of a temporary "Temp" property on a copy of the No-Op node, and n8n-core's real
 * RoutingNode sends it (expressions such as the baseURL resolved against `$credentials`,
 * the credential's `authenticate` applied by the credentials helper, n8n's HTTP client).
 * Failures map to the same { status: 'Error', message } shapes n8n returns.
 */
import './env';

import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestRequest,
	IDataObject,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
} from 'n8n-workflow';
import { NodeHelpers, Workflow, createRunExecutionData } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { core, ensureCore } from './core';
import {
	EXTRACTION_AGENTS_CREDENTIAL,
	type ExtractionAgentsCredentials,
	HarnessCredentialsHelper,
	createCredentialStore,
	getCredentialType,
} from './credentials';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** The description of n8n-nodes-base.noOp, the node n8n borrows to run a credential's test request. */
const noOpDescription: INodeTypeDescription = {
	displayName: 'No Operation, do nothing',
	name: 'n8n-nodes-base.noOp',
	icon: 'fa:arrow-right',
	group: ['organization'],
	version: 1,
	description: 'No Operation',
	defaults: { name: 'No Operation, do nothing', color: '#b0b0b0' },
	inputs: ['main'],
	outputs: ['main'],
	properties: [],
};

function get(obj: unknown, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((acc, key) => (acc as IDataObject | undefined)?.[key], obj);
}

export async function testCredential(
	credentials: ExtractionAgentsCredentials | ICredentialDataDecryptedObject,
	options: { credentialType?: string } = {},
): Promise<CredentialTestResult> {
	await ensureCore();
	const { ExecuteContext, RoutingNode } = core();
	const credentialTypeName = options.credentialType ?? EXTRACTION_AGENTS_CREDENTIAL;
	const credentialType = getCredentialType(credentialTypeName);
	const testRequest: ICredentialTestRequest | undefined = credentialType.test;
	if (!testRequest)
		return { status: 'Error', message: 'No testing function found for this credential.' };

	const store = createCredentialStore(undefined, { [credentialTypeName]: { ...credentials } });
	const credentialsHelper = new HarnessCredentialsHelper(store);
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: 'harness-credential-under-test',
		name: `${credentialType.displayName} (test)`,
		type: credentialTypeName,
		data: { ...credentials } as ICredentialDataDecryptedObject,
	};

	const baseAdditionalData = buildAdditionalData({ credentialsHelper });
	try {
		credentialsDecrypted.data = credentialsHelper.applyDefaultsAndOverwrites(
			baseAdditionalData,
			credentialsDecrypted.data!,
			credentialTypeName,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	const nodeTypeCopy: INodeType = {
		description: {
			...noOpDescription,
			credentials: [{ name: credentialTypeName, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const mockNodeTypes: INodeTypes = {
		getKnownTypes: () => ({}),
		getByName: () => nodeTypeCopy,
		getByNameAndVersion: (_type: string, version?: number) =>
			NodeHelpers.getVersionedNodeType(nodeTypeCopy, version),
	};
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: nodeTypeCopy.description.name,
		typeVersion: 1,
		position: [0, 0],
		credentials: {
			[credentialTypeName]: { id: credentialsDecrypted.id, name: credentialsDecrypted.name },
		},
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: mockNodeTypes,
	});

	const additionalData = buildAdditionalData({ credentialsHelper });
	const executeFunctions = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({ resultData: { runData: {} } }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(executeFunctions, nodeTypeCopy, credentialsDecrypted);

	let response: INodeExecutionData[][] | null | undefined;
	await workflow.expression.acquireIsolate();
	try {
		response = await routingNode.runNode();
	} catch (error) {
		const cause = (
			error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }
		).cause;
		if (cause?.response) {
			const statusCode = cause.response.status;
			const statusMessage = cause.response.statusText;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: statusMessage || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: String((error as Error).message) };
	} finally {
		await workflow.expression.releaseIsolate();
	}

	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const responseData = response?.[0]?.[0]?.json;
			if (get(responseData, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' } satisfies INodeCredentialTestResult;
}
