/**
 * Files as n8n 2.x hands them to Extract Data From Files, in real n8n:
 *
 * (n) A Webhook receives a PDF as a multipart upload (n8n keeps it under `executions/temp`
 *     until the execution ends); a Code node looks the customer up and replaces the item, so
 *     the file is no longer on it; Extract Data From Files names the file by an expression,
 *     `{{ $('Webhook').item.binary.invoice }}`, as n8n's hint for binary fields suggests.
 * (o) A workflow set to binary mode "combined" (n8n 2.x keeps each item's files in its JSON
 *     under `_files`): a Webhook receives two PDFs; Extract Data From Files has only the Agent
 *     set (All Files of the Item).
 */
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	webhook,
	workflow,
} from '../../dev/n8n/workflows';
import type { NodeJson, WorkflowJson } from '../../dev/n8n/workflows';

export const FILE_BY_EXPRESSION = {
	workflowId: 'eaE2eFileByExpression1',
	webhookPath: 'e2e-file-by-expression',
	field: 'invoice',
	fileName: 'INV-39.pdf',
};

export const COMBINED_MODE = {
	workflowId: 'eaE2eCombinedBinaryMode1',
	webhookPath: 'e2e-combined-binary-mode',
	fileNames: ['INV-4101.pdf', 'INV-4102.pdf'],
};

const credentials = { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
const to = (name: string) => [{ node: name, type: 'main' as const, index: 0 }];

function extractNode(id: string, parameters: Record<string, unknown>): NodeJson {
	return {
		id,
		name: 'Extract Data From Files',
		type: ACTION_TYPE,
		typeVersion: 1.3,
		position: [440, 0],
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: '1' },
			...parameters,
		},
		credentials,
	};
}

function uploadWebhook(path: string, webhookId: string): NodeJson {
	const node = webhook('Webhook', path, webhookId, 'allEntries');
	node.parameters.responseMode = 'onReceived';
	return node;
}

/** (n): Webhook (multipart) → Code (replaces the item) → Extract Data From Files, File Fields by expression. */
export function fileByExpressionWorkflow(): WorkflowJson {
	return workflow(
		FILE_BY_EXPRESSION.workflowId,
		'E2E: a webhook’s file named by an expression after a node that dropped it',
		[
			uploadWebhook(FILE_BY_EXPRESSION.webhookPath, '5b0c8a43-5a8e-4c55-9f39-0e2e0000000d'),
			{
				id: 'file-by-expression-look-up',
				name: 'Look up customer',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: "return [{ json: { customer: 'ACME' }, pairedItem: 0 }];" },
			},
			extractNode('file-by-expression-extract', {
				binarySource: 'fields',
				binaryPropertyName: `={{ $('Webhook').item.binary.${FILE_BY_EXPRESSION.field} }}`,
			}),
		],
		{
			Webhook: { main: [to('Look up customer')] },
			'Look up customer': { main: [to('Extract Data From Files')] },
		},
	);
}

/** (o): binary mode "combined": Webhook (multipart, two files) → Extract Data From Files, defaults. */
export function combinedModeWorkflow(): WorkflowJson {
	const json = workflow(
		COMBINED_MODE.workflowId,
		'E2E: binary mode combined, Extract Data From Files with only the Agent set',
		[
			uploadWebhook(COMBINED_MODE.webhookPath, '5b0c8a43-5a8e-4c55-9f39-0e2e0000000e'),
			extractNode('combined-mode-extract', {}),
		],
		{ Webhook: { main: [to('Extract Data From Files')] } },
	);
	json.settings.binaryMode = 'combined';
	return json;
}

/** POSTs files to a webhook as a browser's form would (multipart/form-data). */
export async function uploadToWebhook(
	baseUrl: string,
	webhookPath: string,
	files: Array<{ field: string; fileName: string; data: Buffer }>,
): Promise<number> {
	const form = new FormData();
	for (const file of files) {
		form.append(file.field, new Blob([file.data], { type: 'application/pdf' }), file.fileName);
	}
	const res = await fetch(`${baseUrl}/webhook/${webhookPath}`, { method: 'POST', body: form });
	await res.arrayBuffer();
	return res.status;
}
