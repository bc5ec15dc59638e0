/**
 * The two workflows of `npm run test:queue`:
 *  - Webhook (a file in a multipart POST) → Create Run (all binary fields, wait for the results):
 *    the main receives the file, stores it in the shared binary-data store and enqueues the
 *    execution; a worker uploads it and waits for the Run; the webhook answers with the results.
 *  - Extraction Agents Trigger on the same Agent → No Operation: polled by the main.
 */
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	chain,
	CREDENTIAL_NAME,
	INVOICES_AGENT_ID,
	pollTimesEvery,
	triggerWorkflow,
	webhook,
	workflow,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

export const QUEUE_WORKFLOW_IDS = {
	createRun: 'eaQueueCreateRun',
	trigger: 'eaQueueTrigger01',
} as const;
export const QUEUE_WEBHOOK_PATH = 'queue-create-run';
export const QUEUE_AGENT_ID = INVOICES_AGENT_ID;

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };

export function createRunWebhookWorkflow(): WorkflowJson {
	return workflow(
		QUEUE_WORKFLOW_IDS.createRun,
		'Queue: file by webhook → Create Run and wait',
		[
			webhook('Webhook', QUEUE_WEBHOOK_PATH, '7a3f0c1e-9d2b-4e55-8c61-0e2e00009001', 'allEntries'),
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
					agent: { __rl: true, mode: 'id', value: String(QUEUE_AGENT_ID) },
					binarySource: 'all',
					waitForCompletion: true,
					timeoutMinutes: 5,
					simplify: true,
					// The multipart form's `id` field: the Webhook node puts form fields under body.
					additionalFields: { userDefinedId: '={{ $json.body.id }}' },
				},
			},
		],
		chain('Webhook', 'Create Run'),
	);
}

export function queueTriggerWorkflow(pollSeconds: number): WorkflowJson {
	return triggerWorkflow(pollTimesEvery(pollSeconds), {
		id: QUEUE_WORKFLOW_IDS.trigger,
		name: 'Queue: trigger on finished Runs',
		agentId: QUEUE_AGENT_ID,
		includeFullRun: false,
	});
}
