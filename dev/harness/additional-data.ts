/**
 * The `IWorkflowExecuteAdditionalData` n8n's server builds per execution
 * (WorkflowExecuteAdditionalData.getBase), reduced to what n8n-core 2.x actually reads
 * for an in-process run of community nodes.
 */
import './env';

import type { ExecutionLifecycleHooks } from 'n8n-core';
import type { IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { UnexpectedError } from 'n8n-workflow';

import { core } from './core';
import type { HarnessCredentialsHelper } from './credentials';

export const INSTANCE_BASE_URL = 'http://localhost:5678/';

export interface AdditionalDataOptions {
	credentialsHelper: HarnessCredentialsHelper;
	hooks?: ExecutionLifecycleHooks;
	executionId?: string;
	workflowId?: string;
	/** Absolute epoch ms after which WorkflowExecute stops before the next node (n8n's workflow timeout). */
	executionTimeoutTimestamp?: number;
}

export function buildAdditionalData(
	options: AdditionalDataOptions,
): IWorkflowExecuteAdditionalData {
	const { ExternalSecretsProxy } = core();
	const base = INSTANCE_BASE_URL.replace(/\/$/, '');
	const additionalData = {
		credentialsHelper: options.credentialsHelper,
		hooks: options.hooks,
		executionId: options.executionId,
		workflowId: options.workflowId,
		userId: 'harness-user',
		projectId: 'harness-project',
		executeWorkflow: async () => {
			throw new UnexpectedError('Sub-workflows are not supported by the test harness');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: async () => {
			throw new UnexpectedError('Task runners (Code node) are not supported by the test harness');
		},
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: INSTANCE_BASE_URL,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		executionTimeoutTimestamp: options.executionTimeoutTimestamp,
		currentNodeParameters: undefined,
	};
	return additionalData as unknown as IWorkflowExecuteAdditionalData;
}
