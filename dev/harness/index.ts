/**
 * Engine-level test harness: runs the package's nodes in-process with n8n-core's real
 * execution engine (WorkflowExecute, PollContext, RoutingNode, BinaryDataService).
 *
 *   import { executeNode, createPoller, testCredential, runWorkflow, useHarness } from '.';
 *   useHarness(); // afterAll: stop n8n-core's timers, remove the temp folder
 */
import './env';

import { shutdownHarness } from './core';
import { captureConsole, secretViolations } from './secret-scan';

export {
	rememberSecret,
	scanForSecrets,
	secretViolations,
	secretsSeen,
	setSecretScanning,
} from './secret-scan';

export { HARNESS_ROOT, SCRATCH_FOLDER, BINARY_DATA_STORAGE_PATH } from './env';
export { shutdownHarness, binaryDataService, type BinaryMode } from './core';
export {
	executeNode,
	runWorkflow,
	binaryReader,
	type ExecuteNodeOptions,
	type ExecuteNodeResult,
	type RunWorkflowOptions,
	type RunWorkflowResult,
	type WorkflowJson,
	type HarnessInputItem,
} from './execute';
export { simulatedClock, realElapsedMs, type SimulatedClock } from './simulated-clock';
export {
	createPoller,
	createPollerStorage,
	type CreatePollerOptions,
	type PollerStorage,
	type Poller,
	type PollHazards,
	type PollRecord,
} from './poller';
export { testCredential, type CredentialTestResult } from './credential-test';
export { loadOptions, listSearch, type NodeMethodOptions } from './node-methods';
export {
	EXTRACTION_AGENTS_CREDENTIAL,
	HarnessCredentialsHelper,
	registerCredentialType,
	getCredentialType,
	type ExtractionAgentsCredentials,
} from './credentials';
export {
	PACKAGE_NAME,
	EXTRACTION_AGENTS_TYPE,
	EXTRACTION_AGENTS_TRIGGER_TYPE,
	HarnessNodeTypes,
	loadExtractionAgentsNode,
	loadExtractionAgentsTriggerNode,
} from './node-types';
export { MANUAL_TRIGGER_TYPE } from './nodes/ManualTrigger.node';
export { SET_BINARY_FROM_FILE_TYPE } from './nodes/SetBinaryFromFile.node';
export { AGGREGATE_BINARIES_TYPE } from './nodes/AggregateBinaries.node';
export { LOOK_UP_TYPE } from './nodes/LookUp.node';
export {
	WEBHOOK_UPLOAD_TYPE,
	WEBHOOK_TYPE,
	createWebhookUpload,
	type WebhookRequest,
} from './nodes/WebhookUpload.node';
export {
	FORM_TRIGGER_TYPE,
	FORM_TYPE,
	WAIT_TYPE,
	CHAT_TRIGGER_TYPE,
	ITEM_FROM_FIELD_TYPE,
	ItemFromField,
	createFormUpload,
	createFormPage,
	createChatTrigger,
	type ChatMessage,
	type FormElement,
	type FormSubmission,
} from './nodes/PublicForms.node';
export { createHarnessInput, HARNESS_INPUT_TYPE } from './nodes/HarnessInput.node';
export { databaseStore } from './core';
export type { HarnessBinaryInput } from './nodes/HarnessInput.node';

/**
 * Call once at the top of a test file (outside `describe`): registers an `afterAll` that
 * shuts the harness down so jest can exit.
 */
export function useHarness(): void {
	let restoreConsole: (() => void) | undefined;
	beforeAll(() => {
		restoreConsole = captureConsole();
	});
	afterAll(async () => {
		restoreConsole?.();
		await shutdownHarness();
		// Secret hygiene across the suite: no API key given to the harness may show up in
		// anything the nodes produced or the test file logged (see secret-scan.ts).
		expect(secretViolations()).toEqual([]);
	});
}
