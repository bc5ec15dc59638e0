/**
 * Bad-input catalogue: what the user sees for each bad input, and whether a
 * request was sent. One row per bad input; bad-inputs.test.ts runs every row through
 * n8n-core's engine against the emulator and asserts the exact message and the exact
 * requests (from the emulator's request log). test/reliability/bad-inputs.md
 * holds the same table, rendered by `renderCatalogue` (the test checks they match;
 * `npx tsx test/reliability/catalogue.ts --write` rewrites it).
 *
 * The rule: no request for what can be caught locally. A request is sent only when the
 * answer is the service's to give (a key it rejects, an Agent another user owns, a plan
 * without access logs) or when the node needs the service's data to judge the input
 * (an output template's kind comes from the Agent).
 */
import type { INodeParameters } from 'n8n-workflow';

/** Named input items the test builds (binary files, from none to 301). */
export type ItemsFixture =
	| 'noBinary'
	| 'onePdf'
	| 'attachmentOnly'
	| 'emptyFile'
	| 'files301'
	| 'oversizedFile'
	| 'fileObjectInJson';

/** Named credentials: the emulator's demo users, a wrong or broken key; `baseUrl` replaces the emulator's address. */
export interface CredentialChoice {
	key?: 'alice' | 'bob' | 'carol' | 'wrong' | 'empty' | 'withSpace';
	baseUrl?: string;
}

export interface BadInput {
	/** Where the input is: "Credential", "Run → Create", "Trigger", … */
	where: string;
	/** The bad input, as the user would describe it. */
	input: string;
	/** The exact error message the user sees. */
	message: string;
	/** Requests sent, "METHOD /path" under /api/v1/client, in order; [] = none. */
	requests: string[];
	node: 'action' | 'trigger';
	parameters: INodeParameters;
	items?: ItemsFixture;
	credentials?: CredentialChoice;
}

const agent = (value: string, mode: 'id' | 'url' = 'id') => ({ __rl: true, mode, value });
const run = (value: string) => ({ __rl: true, mode: 'id', value });
const INVOICES = agent('1');
const agentGetMany = { resource: 'agent', operation: 'getAll', limit: 1 };
const createRun = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'run',
	operation: 'create',
	agent: INVOICES,
	waitForCompletion: false,
	...extra,
});
const download = (outputTemplate: unknown, format: string, agentId = '1'): INodeParameters => ({
	resource: 'run',
	operation: 'downloadTemplatedOutput',
	agent: agent(agentId),
	run: run('1001'),
	outputTemplate: outputTemplate as string,
	format,
});
const trigger = (extra: INodeParameters = {}): INodeParameters => ({
	agentScope: 'one',
	agent: INVOICES,
	statuses: ['success', 'failed'],
	...extra,
});
const TWO_HUNDRED_FIFTY_SIX = 'x'.repeat(256);
const THREE_HUNDRED = 'k'.repeat(300);

export const BAD_INPUTS: BadInput[] = [
	// ---- the credential (shown with Agent → Get Many; every operation and the trigger behave the same)
	{
		where: 'Credential',
		input: 'Base URL `extraction.example.com` (no scheme)',
		message:
			'The Base URL "extraction.example.com" in the Extraction Agents credential must start with http:// or https:// (e.g. https://extraction.example.com)',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { baseUrl: 'extraction.example.com' },
	},
	{
		where: 'Credential',
		input: 'Base URL `https://extraction.example.com/app/agents/12` (a web-app link)',
		message:
			'The Base URL "https://extraction.example.com/app/agents/12" in the Extraction Agents credential looks like a link into the web app, not the service address: enter the address without /app/agents/12, e.g. https://extraction.example.com',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { baseUrl: 'https://extraction.example.com/app/agents/12' },
	},
	{
		where: 'Credential',
		input:
			'Base URL `https://extraction.example.com/api/v1/client/agents` (an API address, not the base)',
		message:
			'The Base URL "https://extraction.example.com/api/v1/client/agents" in the Extraction Agents credential goes on after /api/v1/client: enter https://extraction.example.com',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { baseUrl: 'https://extraction.example.com/api/v1/client/agents' },
	},
	{
		where: 'Credential',
		input: 'Base URL `https://extraction.example.com/?tenant=4` (a query)',
		message:
			'The Base URL "https://extraction.example.com/?tenant=4" in the Extraction Agents credential must not contain a query (?…) or a fragment (#…): enter https://extraction.example.com',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { baseUrl: 'https://extraction.example.com/?tenant=4' },
	},
	{
		where: 'Credential',
		input: 'Base URL `https://ana:s3cret@extraction.example.com` (a user name and password in it)',
		message:
			'The Base URL "https://***@extraction.example.com" in the Extraction Agents credential must not contain a user name or password: enter https://extraction.example.com',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { baseUrl: 'https://ana:s3cret@extraction.example.com' },
	},
	{
		where: 'Credential',
		input: 'API Key empty (only spaces)',
		message:
			'The API key in the Extraction Agents credential is empty: paste the key from the web app',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { key: 'empty' },
	},
	{
		where: 'Credential',
		input: 'API Key with a line break inside (pasted in two pieces)',
		message:
			'The API key in the Extraction Agents credential contains spaces or line breaks: paste the key again, as one piece',
		requests: [],
		node: 'action',
		parameters: agentGetMany,
		credentials: { key: 'withSpace' },
	},
	{
		where: 'Credential',
		input: 'A wrong API key',
		message: 'The API key was rejected (401)',
		requests: ['GET /agents'],
		node: 'action',
		parameters: agentGetMany,
		credentials: { key: 'wrong' },
	},
	{
		where: 'Credential',
		input: 'An expired API key',
		message: 'The API key was rejected (401)',
		requests: ['GET /agents'],
		node: 'action',
		parameters: agentGetMany,
		credentials: { key: 'carol' },
	},
	// ---- Options
	{
		where: 'Any operation',
		input: 'Options → Request Timeout (Seconds) `0` (by expression)',
		message: 'Request Timeout "0" is not a number of seconds from 1 to 3600',
		requests: [],
		node: 'action',
		parameters: { ...agentGetMany, options: { requestTimeout: 0 } },
	},
	{
		where: 'Extract Data From Files, Run → Get, Delete, Download Templated Output; Agent → Get',
		input: 'Options → Items in Parallel `0` (by expression)',
		message: 'Items in Parallel "0" is not a whole number from 1 to 20',
		requests: [],
		node: 'action',
		parameters: createRun({ options: { itemsInParallel: 0 } }),
	},
	// ---- Agent
	{
		where: 'Agent → Get',
		input: 'Agent left empty',
		message: 'The \'Extraction Agents\' node has issues:\n- Parameter "Agent" is required.',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'get', agent: agent('') },
	},
	{
		where: 'Agent → Get',
		input: 'Agent ID `abc`',
		message: '"abc" is not a valid Agent ID',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'get', agent: agent('abc') },
	},
	{
		where: 'Agent → Get',
		input: 'Agent ID `0`',
		message: '"0" is not a valid Agent ID',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'get', agent: agent('0') },
	},
	{
		where: 'Agent → Get',
		input: 'Agent by URL `https://extraction.example.com/app/runs/5` (a Run’s link)',
		message: '"https://extraction.example.com/app/runs/5" is a link to a Run, not to an Agent',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'get',
			agent: agent('https://extraction.example.com/app/runs/5', 'url'),
		},
	},
	{
		where: 'Agent → Get',
		input: 'Agent by URL `https://extraction.example.com/app/settings` (no /agents/ in it)',
		message: '"https://extraction.example.com/app/settings" is not a link to an Agent',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'get',
			agent: agent('https://extraction.example.com/app/settings', 'url'),
		},
	},
	{
		where: 'Agent → Get',
		input: "Agent 3, which is another user's",
		message: 'Agent 3 not found',
		requests: ['GET /agents/3'],
		node: 'action',
		parameters: { resource: 'agent', operation: 'get', agent: agent('3') },
	},
	{
		where: 'Agent → Update Metadata',
		input: 'JSON `{"address": {"city": "Lyon"}}` (a nested object)',
		message: 'Metadata key "address" holds a nested object',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'json',
			metadataJson: '{"address": {"city": "Lyon"}}',
		},
	},
	{
		where: 'Agent → Update Metadata',
		input: 'JSON `{"lines": [{"sku": 1}]}` (a list of objects)',
		message: 'Metadata key "lines" holds a nested list',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'json',
			metadataJson: '{"lines": [{"sku": 1}]}',
		},
	},
	{
		where: 'Agent → Update Metadata',
		input: 'JSON `{"team": ` (cut off)',
		message: 'Metadata (JSON) is not valid JSON',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'json',
			metadataJson: '{"team": ',
		},
	},
	{
		where: 'Agent → Update Metadata',
		input: 'JSON `["finance"]` (a list, not an object)',
		message: 'Metadata must be a JSON object',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'json',
			metadataJson: '["finance"]',
		},
	},
	{
		where: 'Agent → Update Metadata',
		input: 'A key/value pair with an empty key',
		message: 'A metadata pair has an empty key',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'keyValue',
			metadataPairs: { pair: [{ key: ' ', value: 'finance' }] },
		},
	},
	{
		where: 'Agent → Update Metadata',
		input: 'Set Key/Value Pairs (the default) without any pair',
		message: 'No metadata pair to set',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'updateMetadata', agent: INVOICES },
	},
	{
		where: 'Agent → Update Metadata',
		input: 'Set From JSON with the field left empty',
		message: 'Metadata (JSON) is empty',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'updateMetadata',
			agent: INVOICES,
			metadataMode: 'json',
		},
	},
	{
		where: 'Agent → Copy',
		input: 'New Name of only spaces',
		message: 'New Name is empty',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'copy', agent: INVOICES, newName: '   ' },
	},
	{
		where: 'Agent → Copy',
		input: 'New Name of 256 characters',
		message: 'New Name is 256 characters long',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'agent',
			operation: 'copy',
			agent: INVOICES,
			newName: TWO_HUNDRED_FIFTY_SIX,
		},
	},
	{
		where: 'Agent → Get Many',
		input: 'Limit `0` (by expression)',
		message: 'Limit must be a whole number of 1 or more, not "0"',
		requests: [],
		node: 'action',
		parameters: { resource: 'agent', operation: 'getAll', limit: 0 },
	},
	// ---- Run → Create
	{
		where: 'Extract Data From Files',
		input: 'An item without files',
		message: 'Item 1 has no files',
		requests: [],
		node: 'action',
		parameters: createRun(),
		items: 'noBinary',
	},
	{
		where: 'Extract Data From Files',
		input: 'File Fields `invoice`, the item has only `attachment_0`',
		message: 'Item 1 has no file field "invoice"',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'fields', binaryPropertyName: 'invoice' }),
		items: 'attachmentOnly',
	},
	{
		where: 'Extract Data From Files',
		input: 'File Fields `{{ 42 }}` (an expression giving neither names nor a file)',
		message: 'File Fields holds a number, not file field names or files',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'fields', binaryPropertyName: '={{ 42 }}' }),
		items: 'attachmentOnly',
	},
	{
		where: 'Extract Data From Files',
		input:
			'File Fields `{{ $json.body.file }}`, a file object typed into a webhook’s JSON (an id naming a stored file)',
		message: 'The file "payroll.pdf" given in File Fields is not a file of this execution',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'fields', binaryPropertyName: '={{ $json.body.file }}' }),
		items: 'fileObjectInJson',
	},
	{
		where: 'Extract Data From Files',
		input: 'File Fields `, ,`',
		message: 'File Fields is empty',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'fields', binaryPropertyName: ', ,' }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'A file field holding no data (0 bytes)',
		message: 'File field "data" (empty.pdf) of item 1 holds no data',
		requests: [],
		node: 'action',
		parameters: createRun(),
		items: 'emptyFile',
	},
	{
		where: 'Extract Data From Files',
		input: 'An item with 301 files (All Files of the Item)',
		message: 'Item 1 has 301 files; a Run takes at most 300',
		requests: [],
		node: 'action',
		// One Run for all the item's files (with One Run per File, each file is its own Run).
		parameters: createRun({ binarySource: 'all', filesPerRun: 'item' }),
		items: 'files301',
	},
	{
		where: 'Extract Data From Files',
		input: 'A file of 250,000,001 bytes',
		message:
			'File "huge.pdf" in file field "data" is 250,000,001 bytes; the limit is 250,000,000 bytes',
		requests: [],
		node: 'action',
		parameters: createRun(),
		items: 'oversizedFile',
	},
	{
		where: 'Extract Data From Files',
		input: 'Files: Links, File Links `invoice.pdf` (not a web address)',
		message: '"invoice.pdf" is not a web address',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'links', fileLinks: 'invoice.pdf' }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'Files: Links, File Links `{{ $json.missing }}` (an expression giving nothing)',
		message: 'File Links of item 1 is empty',
		requests: [],
		node: 'action',
		parameters: createRun({ binarySource: 'links', fileLinks: '={{ $json.missing }}' }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'Due Date `2020-01-01T00:00:00Z` (in the past)',
		message: 'Due Date 2020-01-01T00:00:00.000Z is in the past',
		requests: [],
		node: 'action',
		parameters: createRun({ additionalFields: { dueDate: '2020-01-01T00:00:00Z' } }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'Due Date `next friday`',
		message: 'Due Date "next friday" is not a date',
		requests: [],
		node: 'action',
		parameters: createRun({ additionalFields: { dueDate: 'next friday' } }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'User-Defined ID `{{ { id: "INV-1" } }}` (an object from an expression)',
		message: 'User-Defined ID is an object, not text',
		requests: [],
		node: 'action',
		parameters: createRun({ additionalFields: { userDefinedId: '={{ { id: "INV-1" } }}' } }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: 'Wait for Completion on, Timeout (Minutes) `0`',
		message: 'Timeout (Minutes) must be more than 0, not "0"',
		requests: [],
		node: 'action',
		parameters: createRun({ waitForCompletion: true, timeoutMinutes: 0 }),
		items: 'onePdf',
	},
	{
		where: 'Extract Data From Files',
		input: "Agent 3, which is another user's",
		message: 'Agent 3 not found',
		requests: ['POST /agents/3/runs'],
		node: 'action',
		parameters: createRun({ agent: agent('3') }),
		items: 'onePdf',
	},
	// ---- other Run operations
	{
		where: 'Run → Get',
		input: 'Run ID `12a`',
		message: '"12a" is not a valid Run ID',
		requests: [],
		node: 'action',
		parameters: { resource: 'run', operation: 'get', agent: INVOICES, run: run('12a') },
	},
	{
		where: 'Run → Get',
		input: 'Run 987654, which does not exist',
		message: 'Run 987654 of Agent 1 not found',
		requests: ['GET /agents/1/runs/987654'],
		node: 'action',
		parameters: { resource: 'run', operation: 'get', agent: INVOICES, run: run('987654') },
	},
	{
		where: 'Run → Get Many',
		input: 'Filter Run ID `latest`',
		message: '"latest" is not a valid Run ID',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'run',
			operation: 'getAll',
			agent: INVOICES,
			limit: 5,
			filters: { runId: 'latest' },
		},
	},
	{
		where: 'Run → Get Many',
		input: 'Limit `-5` (by expression)',
		message: 'Limit must be a whole number of 1 or more, not "-5"',
		requests: [],
		node: 'action',
		parameters: { resource: 'run', operation: 'getAll', agent: INVOICES, limit: -5 },
	},
	{
		where: 'Run → Delete',
		input: 'Run by URL `https://extraction.example.com/app/agents/1` (an Agent’s link)',
		message: '"https://extraction.example.com/app/agents/1" is a link to an Agent, not to a Run',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'run',
			operation: 'delete',
			agent: INVOICES,
			run: { __rl: true, mode: 'url', value: 'https://extraction.example.com/app/agents/1' },
		},
	},
	{
		where: 'Run → Download Templated Output',
		input: 'Word template *Invoice summary.docx* with Format XLSX',
		message: 'Template "Invoice summary.docx" cannot be rendered as XLSX',
		// the template's kind is known only from the Agent; the render request is not sent
		requests: ['GET /agents/1'],
		node: 'action',
		parameters: download(11, 'xlsx'),
	},
	{
		where: 'Run → Download Templated Output',
		input: 'Excel template *Invoice lines.xlsx* with Format PDF',
		message: 'Template "Invoice lines.xlsx" cannot be rendered as PDF',
		requests: ['GET /agents/1'],
		node: 'action',
		parameters: download(12, 'pdf'),
	},
	{
		where: 'Run → Download Templated Output',
		input: 'Output Template 99, which the Agent does not have',
		message: 'Agent 1 has no output template 99',
		requests: ['GET /agents/1'],
		node: 'action',
		parameters: download(99, 'pdf'),
	},
	{
		where: 'Run → Download Templated Output',
		input: 'Output Template ID `abc` (by expression)',
		message: '"abc" is not a valid Output Template ID',
		requests: [],
		node: 'action',
		parameters: download('abc', 'pdf'),
	},
	{
		where: 'Run → Download Templated Output',
		input: "Template *Legacy layout.odt* (neither Word nor Excel) with Format Template's Default",
		message: 'Choose a Format for template "Legacy layout.odt"',
		requests: ['GET /agents/2'],
		node: 'action',
		parameters: download(24, 'default', '2'),
	},
	// ---- API Key
	{
		where: 'API Key → Get',
		input: 'API Key ID `ak/1`',
		message: '"ak/1" is not a valid API key ID',
		requests: [],
		node: 'action',
		parameters: { resource: 'apiKey', operation: 'get', keyId: 'ak/1' },
	},
	{
		where: 'API Key → Get',
		input: "API Key ID `ak_demo_bob`, another user's key",
		message: 'API key "ak_demo_bob" not found',
		requests: ['GET /api-keys/ak_demo_bob'],
		node: 'action',
		parameters: { resource: 'apiKey', operation: 'get', keyId: 'ak_demo_bob' },
	},
	{
		where: 'API Key → Delete',
		input: 'API Key ID of only spaces',
		message: 'API Key ID is empty',
		requests: [],
		node: 'action',
		parameters: { resource: 'apiKey', operation: 'delete', keyId: '   ' },
	},
	{
		where: 'API Key → Create',
		input: 'Name of 300 characters',
		message: 'Name is 300 characters long',
		requests: [],
		node: 'action',
		parameters: { resource: 'apiKey', operation: 'create', name: THREE_HUNDRED },
	},
	{
		where: 'API Key → Create',
		input: 'Expires At `2020-01-01T00:00:00Z` (in the past)',
		message: 'Expires At 2020-01-01T00:00:00.000Z is in the past',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'apiKey',
			operation: 'create',
			name: 'n8n',
			expiresAt: '2020-01-01T00:00:00Z',
		},
	},
	{
		where: 'API Key → Create',
		input: 'Expires At `in a month`',
		message: 'Expires At "in a month" is not a date',
		requests: [],
		node: 'action',
		parameters: { resource: 'apiKey', operation: 'create', name: 'n8n', expiresAt: 'in a month' },
	},
	// ---- Usage
	{
		where: 'Usage → Get Many',
		input: 'Created After later than Created Before',
		message: 'Created After is later than Created Before',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'usage',
			operation: 'getAll',
			limit: 5,
			filters: { createdAfter: '2026-02-01T00:00:00Z', createdBefore: '2026-01-01T00:00:00Z' },
		},
	},
	{
		where: 'Usage → Get Many',
		input: 'Created After `yesterday`',
		message: 'Created After "yesterday" is not a date',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'usage',
			operation: 'getAll',
			limit: 5,
			filters: { createdAfter: 'yesterday' },
		},
	},
	{
		where: 'Usage → Get Many',
		input: 'Agent ID `abc` (by ID)',
		message: '"abc" is not a valid Agent ID',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'usage',
			operation: 'getAll',
			limit: 5,
			filters: { agentId: agent('abc') },
		},
	},
	{
		where: 'Usage → Get Many',
		input: 'Workspace ID `-1`',
		message: 'Workspace ID "-1" is not a valid ID',
		requests: [],
		node: 'action',
		parameters: { resource: 'usage', operation: 'getAll', limit: 5, filters: { workspaceId: -1 } },
	},
	{
		where: 'Usage → Get Many',
		input: 'Limit `2.5` (by expression)',
		message: 'Limit must be a whole number of 1 or more, not "2.5"',
		requests: [],
		node: 'action',
		parameters: { resource: 'usage', operation: 'getAll', limit: 2.5 },
	},
	// ---- Access Log
	{
		where: 'Access Log → Query',
		input: 'A key of a Pro-plan account (not Enterprise)',
		message: 'Access logs need the Enterprise plan',
		requests: ['PUT /access-logs/query'],
		node: 'action',
		parameters: {
			resource: 'accessLog',
			operation: 'query',
			startTime: '2026-01-01T00:00:00Z',
			limit: 5,
		},
		credentials: { key: 'bob' },
	},
	{
		where: 'Access Log → Query',
		input: 'Start Time later than End Time',
		message: 'Start Time is later than End Time',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'accessLog',
			operation: 'query',
			startTime: '2026-02-01T00:00:00Z',
			endTime: '2026-01-01T00:00:00Z',
			limit: 5,
		},
	},
	{
		where: 'Access Log → Query',
		input: 'Start Time `last week`',
		message: 'Start Time "last week" is not a date',
		requests: [],
		node: 'action',
		parameters: { resource: 'accessLog', operation: 'query', startTime: 'last week', limit: 5 },
	},
	{
		where: 'Access Log → Query',
		input: 'Limit `0` (by expression)',
		message: 'Limit must be a whole number of 1 or more, not "0"',
		requests: [],
		node: 'action',
		parameters: {
			resource: 'accessLog',
			operation: 'query',
			startTime: '2026-01-01T00:00:00Z',
			limit: 0,
		},
	},
	// ---- Trigger
	{
		where: 'Trigger',
		input: 'No status selected',
		message: 'No status selected',
		requests: [],
		node: 'trigger',
		parameters: trigger({ statuses: [] }),
	},
	{
		where: 'Trigger',
		input: 'Agent ID `abc`',
		message: '"abc" is not a valid Agent ID',
		requests: [],
		node: 'trigger',
		parameters: trigger({ agent: agent('abc') }),
	},
	{
		where: 'Trigger',
		input: "Agent 3, which is another user's",
		message: 'Agent 3 not found',
		requests: ['GET /agents/3/runs'],
		node: 'trigger',
		parameters: trigger({ agent: agent('3') }),
	},
	{
		where: 'Trigger',
		input: 'Options → Request Timeout (Seconds) `5000`',
		message: 'Request Timeout "5000" is not a number of seconds from 1 to 3600',
		requests: [],
		node: 'trigger',
		parameters: trigger({ options: { requestTimeout: 5000 } }),
	},
];

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, '<br>');

function requestsCell(requests: string[]): string {
	if (requests.length === 0) return 'No';
	const counted: Array<[string, number]> = [];
	for (const request of requests) {
		const last = counted.at(-1);
		if (last && last[0] === request) last[1]++;
		else counted.push([request, 1]);
	}
	return `Yes: ${counted.map(([request, n]) => `\`${request}\`${n > 1 ? ` ×${n}` : ''}`).join(', ')}`;
}

export const CATALOGUE_START =
	'<!-- bad-inputs:start (generated from test/reliability/bad-inputs.ts) -->';
export const CATALOGUE_END = '<!-- bad-inputs:end -->';

/** The catalogue as test/reliability/bad-inputs.md's Markdown table (between the markers). */
export function renderCatalogue(rows: BadInput[] = BAD_INPUTS): string {
	const lines = [
		'| Where | Bad input | What you see | Request sent |',
		'|---|---|---|---|',
		...rows.map(
			(row) =>
				`| ${cell(row.where)} | ${cell(row.input)} | *${cell(row.message)}* | ${requestsCell(row.requests)} |`,
		),
	];
	return `${CATALOGUE_START}\n${lines.join('\n')}\n${CATALOGUE_END}`;
}
