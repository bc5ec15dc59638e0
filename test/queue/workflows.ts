/**
 * The two workflows of `npm run test:queue`:
 *  - Webhook (a file in a multipart POST) → Create Run (all binary fields, wait for the results):
 *    the main receives the file, stores it in the shared binary-data store and enqueues the
 *    execution; a worker uploads it and waits for the Run; the webhook answers with the results.
 *  - Extraction Agents Trigger on the same Agent → No Operation: polled by the main.
 */
import { ACTION_TYPE, CREDENTIAL_ID, CREDENTIAL_NAME, INVOICES_AGENT_ID, pollTimesEvery, TRIGGER_TYPE, type WorkflowJson } from '../e2e/workflows';

export const QUEUE_WORKFLOW_IDS = { createRun: 'eaQueueCreateRun', trigger: 'eaQueueTrigger01' } as const;
export const QUEUE_WEBHOOK_PATH = 'queue-create-run';
export const QUEUE_AGENT_ID = INVOICES_AGENT_ID;

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
const agent = { __rl: true, mode: 'id', value: String(QUEUE_AGENT_ID) };
const settings = { executionOrder: 'v1', saveManualExecutions: true, saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' };

export function createRunWebhookWorkflow(): WorkflowJson {
	return {
		id: QUEUE_WORKFLOW_IDS.createRun,
		name: 'Queue: file by webhook → Create Run and wait',
		active: false,
		settings,
		pinData: {},
		nodes: [
			{
				id: 'queue-webhook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '7a3f0c1e-9d2b-4e55-8c61-0e2e00009001',
				parameters: { httpMethod: 'POST', path: QUEUE_WEBHOOK_PATH, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
			},
			{
				id: 'queue-create-run',
				name: 'Create Run',
				type: ACTION_TYPE,
				typeVersion: 1,
				position: [240, 0],
				credentials,
				parameters: {
					resource: 'run',
					operation: 'create',
					agent,
					binarySource: 'all',
					waitForCompletion: true,
					timeoutMinutes: 5,
					simplify: true,
					// The multipart form's `id` field: the Webhook node puts form fields under body.
					additionalFields: { userDefinedId: '={{ $json.body.id }}' },
				},
			},
		],
		connections: { Webhook: { main: [[{ node: 'Create Run', type: 'main', index: 0 }]] } },
	};
}

export function queueTriggerWorkflow(pollSeconds: number): WorkflowJson {
	return {
		id: QUEUE_WORKFLOW_IDS.trigger,
		name: 'Queue: trigger on finished Runs',
		active: false,
		settings,
		pinData: {},
		nodes: [
			{
				id: 'queue-trigger',
				name: 'Run finished',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				credentials,
				parameters: {
					pollTimes: pollTimesEvery(pollSeconds),
					agentScope: 'one',
					agent,
					statuses: ['success', 'failed'],
					simplify: true,
					includeFullRun: false,
				},
			},
			{ id: 'queue-noop', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { 'Run finished': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
	};
}
