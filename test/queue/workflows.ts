/**
 * The two workflows of `npm run test:queue`:
 *  - Webhook (a file in a multipart POST) → a Code node that replaces the item (the file is no
 *    longer on it) → Create Run naming the file by an expression, `{{ $('Webhook').item.binary.file }}`
 *    (wait for the results): the main receives the file, stores it in the shared database store
 *    (an id `database:<uuid>`, which names no workflow or execution) and enqueues the execution;
 *    a worker uploads it and waits for the Run; the webhook answers with the results.
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
				id: 'queue-look-up',
				name: 'Look up customer',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [120, 0],
				parameters: {
					jsCode:
						'return $input.all().map((item, index) => ({ json: { id: item.json.body.id }, pairedItem: index }));',
				},
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
					agent: { __rl: true, mode: 'id', value: String(QUEUE_AGENT_ID) },
					binarySource: 'fields',
					binaryPropertyName: "={{ $('Webhook').item.binary.file }}",
					waitForCompletion: true,
					timeoutMinutes: 5,
					simplify: true,
					// The multipart form's `id` field, carried by the Code node.
					additionalFields: { userDefinedId: '={{ $json.id }}' },
				},
			},
		],
		chain('Webhook', 'Look up customer', 'Create Run'),
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
