/**
 * On Error → "Continue (using error output)" in real n8n: Webhook → Code (three PDFs as three
 * items) → Create Run (waits, 3 s timeout, error output wired) → "Extracted" on success and
 * "Needs review" on error. The test gives the Runs their fate in the emulator by file name
 * (test/node/fixtures.ts shapeRunsByFileName): ok.pdf finishes, gone.pdf is deleted while it
 * is waited for, slow.pdf never finishes.
 *
 * The same workflow has a second chain for node version 1.4's error item: Webhook → Code
 * (one unreadable PDF) → Create Run 1.4 (Agent picked From List) → "Needs review (1.4)": a
 * failed Run's item must reach the error branch with its reviewer's fields as n8n keeps them.
 */
import {
	ACTION_TYPE,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	INVOICES_AGENT_ID,
	samplePdf,
	webhook,
	workflow,
	type NodeJson,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

export const ERROR_OUTPUT_WORKFLOW_ID = 'eaE2eErrorOut001';
export const ERROR_OUTPUT_WEBHOOK_PATH = 'e2e-error-output';
export const ERROR_OUTPUT_FILES = { ok: 'ok.pdf', deleted: 'gone.pdf', held: 'slow.pdf' } as const;
export const REVIEWER_ITEM_WEBHOOK_PATH = 'e2e-reviewer-error-item';
export const REVIEWER_ITEM_FILE = 'invoice-39.pdf';

function noOp(name: string, position: [number, number]): NodeJson {
	return {
		id: `${name.replace(/\W+/g, '-').toLowerCase()}-node`,
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position,
		parameters: {},
	};
}

export function errorOutputWorkflow(): WorkflowJson {
	const files = Object.values(ERROR_OUTPUT_FILES).map((fileName) => ({
		fileName,
		base64: samplePdf(`E2E error output ${fileName}`).toString('base64'),
	}));
	const jsCode = [
		`const files = ${JSON.stringify(files)};`,
		"return files.map((f) => ({ json: { document: f.fileName }, binary: { data: { data: f.base64, mimeType: 'application/pdf', fileName: f.fileName, fileExtension: 'pdf' } } }));",
	].join('\n');
	const webhookNode = webhook(
		'Webhook',
		ERROR_OUTPUT_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000007',
		'allEntries',
	);
	webhookNode.parameters.responseMode = 'onReceived';
	const createRun = {
		id: 'create-run-error-output-node',
		name: 'Create Run',
		type: ACTION_TYPE,
		typeVersion: 1.1,
		position: [440, 0] as [number, number],
		credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		onError: 'continueErrorOutput',
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: { __rl: true, mode: 'id', value: String(INVOICES_AGENT_ID) },
			timeoutMinutes: 0.05,
		},
	};
	const reviewer = reviewerItemChain();
	const built = workflow(
		ERROR_OUTPUT_WORKFLOW_ID,
		'E2E: Create Run with the error output wired',
		[
			webhookNode,
			{
				id: 'code-three-documents',
				name: 'Three documents',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode },
			},
			createRun,
			noOp('Extracted', [660, -100]),
			noOp('Needs review', [660, 100]),
			...reviewer.nodes,
		],
		{
			Webhook: { main: [[{ node: 'Three documents', type: 'main', index: 0 }]] },
			'Three documents': { main: [[{ node: 'Create Run', type: 'main', index: 0 }]] },
			'Create Run': {
				main: [
					[{ node: 'Extracted', type: 'main', index: 0 }],
					[{ node: 'Needs review', type: 'main', index: 0 }],
				],
			},
			...reviewer.connections,
		},
	);
	return built;
}

/** Webhook → one unreadable PDF → Create Run at version 1.4 → success / "Needs review (1.4)". */
function reviewerItemChain(): { nodes: NodeJson[]; connections: WorkflowJson['connections'] } {
	const trigger = webhook(
		'Webhook (1.4)',
		REVIEWER_ITEM_WEBHOOK_PATH,
		'5b0c8a43-5a8e-4c55-9f39-0e2e00000014',
		'allEntries',
	);
	trigger.parameters.responseMode = 'onReceived';
	trigger.position = [0, 300];
	const base64 = samplePdf(`E2E reviewer ${REVIEWER_ITEM_FILE}`).toString('base64');
	const jsCode = `return [{ json: { document: ${JSON.stringify(REVIEWER_ITEM_FILE)} }, binary: { data: { data: ${JSON.stringify(base64)}, mimeType: 'application/pdf', fileName: ${JSON.stringify(REVIEWER_ITEM_FILE)}, fileExtension: 'pdf' } } }];`;
	const createRun = {
		id: 'create-run-reviewer-item-node',
		name: 'Create Run (1.4)',
		type: ACTION_TYPE,
		typeVersion: 1.4,
		position: [440, 300] as [number, number],
		credentials: { extractionAgentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		onError: 'continueErrorOutput',
		parameters: {
			resource: 'run',
			operation: 'create',
			agent: {
				__rl: true,
				mode: 'list',
				value: String(INVOICES_AGENT_ID),
				cachedResultName: 'Invoices',
			},
			timeoutMinutes: 1,
		},
	};
	return {
		nodes: [
			trigger,
			{
				id: 'code-unreadable-document',
				name: 'Unreadable document',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 300],
				parameters: { jsCode },
			},
			createRun,
			noOp('Extracted (1.4)', [660, 200]),
			noOp('Needs review (1.4)', [660, 400]),
		],
		connections: {
			'Webhook (1.4)': { main: [[{ node: 'Unreadable document', type: 'main', index: 0 }]] },
			'Unreadable document': { main: [[{ node: 'Create Run (1.4)', type: 'main', index: 0 }]] },
			'Create Run (1.4)': {
				main: [
					[{ node: 'Extracted (1.4)', type: 'main', index: 0 }],
					[{ node: 'Needs review (1.4)', type: 'main', index: 0 }],
				],
			},
		},
	};
}
