/**
 * (k) Stopping an execution in real n8n while a request is on its way: a slow upload (the
 * emulator reads the body at 100 kB/s) and a stalled read (the emulator never answers). The test
 * stops each execution through n8n's REST API (POST /rest/executions/:id/stop, as the editor's
 * Stop button does) and checks that it ends within seconds and that the service sees no request
 * after the stop.
 */
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	webhook,
	workflow,
} from '../../dev/n8n/workflows';
import type { NodeJson, WorkflowJson } from '../../dev/n8n/workflows';

export const CANCEL_IN_FLIGHT = {
	upload: { workflowId: 'eaE2eCancelUpload1', webhookPath: 'e2e-cancel-upload' },
	read: { workflowId: 'eaE2eCancelRead1', webhookPath: 'e2e-cancel-read' },
	uploadBytes: 2_000_000,
};

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
const to = (name: string) => [{ node: name, type: 'main' as const, index: 0 }];

function onReceived(node: NodeJson): NodeJson {
	node.parameters.responseMode = 'onReceived';
	return node;
}

/** Webhook → Code (one 2 MB file) → Extract Data From Files (defaults, waits). */
export function cancelUploadWorkflow(): WorkflowJson {
	const jsCode = [
		`const data = btoa('%PDF-1.4\\n' + 'A'.repeat(${CANCEL_IN_FLIGHT.uploadBytes}));`,
		"return [{ json: {}, binary: { data: { data, mimeType: 'application/pdf', fileName: 'slow-scan.pdf', fileExtension: 'pdf' } } }];",
	].join('\n');
	return workflow(
		CANCEL_IN_FLIGHT.upload.workflowId,
		'E2E: stop during a slow upload',
		[
			onReceived(
				webhook(
					'Webhook',
					CANCEL_IN_FLIGHT.upload.webhookPath,
					'5b0c8a43-5a8e-4c55-9f39-0e2e0000000d',
					'allEntries',
				),
			),
			{
				id: 'cancel-upload-code',
				name: 'A large scan',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode },
			},
			{
				id: 'cancel-upload-extract',
				name: 'Extract Data From Files',
				type: ACTION_TYPE,
				typeVersion: 1.2,
				position: [440, 0],
				parameters: {
					resource: 'run',
					operation: 'create',
					agent: { __rl: true, mode: 'id', value: '1' },
				},
				credentials,
			},
		],
		{
			Webhook: { main: [to('A large scan')] },
			'A large scan': { main: [to('Extract Data From Files')] },
		},
	);
}

/** Webhook (body `{ runId }`) → Run → Get of that Run of the Invoices Agent. */
export function cancelReadWorkflow(): WorkflowJson {
	return workflow(
		CANCEL_IN_FLIGHT.read.workflowId,
		'E2E: stop during a stalled read',
		[
			onReceived(
				webhook(
					'Webhook',
					CANCEL_IN_FLIGHT.read.webhookPath,
					'5b0c8a43-5a8e-4c55-9f39-0e2e0000000e',
					'allEntries',
				),
			),
			{
				id: 'cancel-read-get',
				name: 'Get Run',
				type: ACTION_TYPE,
				typeVersion: 1.2,
				position: [220, 0],
				parameters: {
					resource: 'run',
					operation: 'get',
					agent: { __rl: true, mode: 'id', value: '1' },
					run: { __rl: true, mode: 'id', value: '={{ $json.body.runId }}' },
				},
				credentials,
			},
		],
		{ Webhook: { main: [to('Get Run')] } },
	);
}
