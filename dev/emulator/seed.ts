/**
 * Demo users, keys, workspaces and data. Users and their keys always exist; Agents, Runs, usage and
 * access-log history are seeded when `seedDemoData` is on (the default).
 *
 * Users (plans drive what they may do):
 * | user  | email                  | plan       | workspaces   | key                                   |
 * |-------|------------------------|------------|--------------|---------------------------------------|
 * | alice | alice@acme.example     | Enterprise | 1, 2         | DEMO_KEYS.alice (never expires)       |
 * | bob   | bob@globex.example     | Pro        | 3            | DEMO_KEYS.bob                         |
 * | carol | carol@initech.example  | Free       | 4            | DEMO_KEYS.carol: EXPIRED (401)        |
 * | dave  | dave@umbrella.example  | Team, page-based billing (Run.usage null) | 5 | DEMO_KEYS.dave |
 */
import { intBetween, pick, rngFor, round2 } from './random';
import { MARCH_2026_MS } from './time';
import type { EmulatorState } from './store';
import type {
	AgentRecord,
	PromptRecord,
	TemplateRecord,
	UserRecord,
	WorkspaceRecord,
} from './types';

export const DEMO_KEYS = {
	/** Enterprise plan, workspaces 1 (Finance) and 2 (Legal). */
	alice: 'ea_demo_alice_enterprise_7c1e4b9a2f',
	/** Pro plan, workspace 3. */
	bob: 'ea_demo_bob_pro_3d8a6f0c51',
	/** Expired key: every request answers 401 "API key expired". */
	carol: 'ea_demo_carol_expired_9b2e7d4a16',
	/** Team plan with page-based billing (Run usage is null), workspace 5. */
	dave: 'ea_demo_dave_team_5f0a3c8e27',
} as const;

export type DemoUser = keyof typeof DEMO_KEYS;

export const DEMO_USERS: Record<DemoUser, UserRecord> = {
	alice: {
		id: 'alice',
		email: 'alice@acme.example',
		plan: 'enterprise',
		workspaces: [1, 2],
		billing: 'credits',
	},
	bob: { id: 'bob', email: 'bob@globex.example', plan: 'pro', workspaces: [3], billing: 'credits' },
	carol: {
		id: 'carol',
		email: 'carol@initech.example',
		plan: 'free',
		workspaces: [4],
		billing: 'credits',
	},
	dave: {
		id: 'dave',
		email: 'dave@umbrella.example',
		plan: 'team',
		workspaces: [5],
		billing: 'pages',
	},
};

export const DEMO_WORKSPACES: WorkspaceRecord[] = [
	{ id: 1, name: 'Finance' },
	{ id: 2, name: 'Legal' },
	{ id: 3, name: 'Globex Operations' },
	{ id: 4, name: 'Initech' },
	{ id: 5, name: 'Umbrella Treasury' },
];

/** Ids of the seeded demo Agents. */
export const DEMO_AGENT_IDS = {
	invoices: 1,
	contracts: 2,
	receipts: 3,
	purchaseOrders: 4,
	bankStatements: 5,
} as const;

/** Colleagues without API keys who still show up in usage and access-log history. */
const COLLEAGUES: Record<number, string[]> = {
	1: ['alice@acme.example', 'frank@acme.example'],
	2: ['alice@acme.example', 'grace@acme.example'],
	3: ['bob@globex.example'],
	4: ['carol@initech.example'],
	5: ['dave@umbrella.example'],
};

const DAY = 86_400_000;
const HOUR = 3_600_000;

export function seedUsersAndKeys(state: EmulatorState, now: number): void {
	for (const ws of DEMO_WORKSPACES) state.workspaces.set(ws.id, { ...ws });
	for (const user of Object.values(DEMO_USERS))
		state.addUser({ ...user, workspaces: [...user.workspaces] });
	const created = Date.UTC(2026, 0, 5, 9, 0, 0, 0);
	state.addApiKey({
		id: 'ak_demo_alice',
		name: 'Demo key (alice)',
		secret: DEMO_KEYS.alice,
		userId: 'alice',
		createdMs: created,
		expiresMs: null,
	});
	state.addApiKey({
		id: 'ak_alice_ci',
		name: 'CI pipeline',
		secret: 'ea_alice_ci_0f9e8d7c6b5a49382716',
		userId: 'alice',
		createdMs: created + DAY,
		expiresMs: now + 90 * DAY,
	});
	state.addApiKey({
		id: 'ak_demo_bob',
		name: 'Demo key (bob)',
		secret: DEMO_KEYS.bob,
		userId: 'bob',
		createdMs: created + 2 * DAY,
		expiresMs: null,
	});
	state.addApiKey({
		id: 'ak_demo_carol',
		name: 'Demo key (carol, expired)',
		secret: DEMO_KEYS.carol,
		userId: 'carol',
		createdMs: created + 3 * DAY,
		expiresMs: now - 7 * DAY,
	});
	state.addApiKey({
		id: 'ak_demo_dave',
		name: 'Demo key (dave)',
		secret: DEMO_KEYS.dave,
		userId: 'dave',
		createdMs: created + 4 * DAY,
		expiresMs: null,
	});
}

// ---------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------

export interface PromptDef {
	id: number;
	name: string;
	generator: string;
	text: string;
	type?: string;
	fields?: string[];
	webSearch?: boolean;
	inputs?: number[];
	model?: string;
}

export interface AgentDef {
	id: number;
	workspaceId: number;
	name: string;
	objective: string;
	createdBy: string;
	createdMs: number;
	guidelines?: string;
	prompts: PromptDef[];
	templates: Array<{ id: number; filename: string }>;
	metadata: AgentRecord['metadata'];
}

/** How a Prompt may reference another one (spec: a <service>-prompt tag with an id attribute). */
const ref = (id: number): string =>
	`<extraction-agents-prompt id="${id}"></extraction-agents-prompt>`;

export const DEMO_AGENTS: AgentDef[] = [
	{
		id: DEMO_AGENT_IDS.invoices,
		workspaceId: 1,
		name: 'Invoices',
		objective: 'Extract the key fields of supplier invoices for accounts payable.',
		createdBy: 'alice@acme.example',
		createdMs: Date.UTC(2025, 10, 3, 9, 14, 7, 412),
		guidelines: 'Dates are ISO 8601 (YYYY-MM-DD). Amounts use a dot as decimal separator.',
		prompts: [
			{
				id: 101,
				name: 'Invoice number',
				generator: 'invoice_number',
				text: 'The invoice number as printed on the invoice.',
			},
			{ id: 102, name: 'Invoice date', generator: 'date', text: 'The invoice (issue) date.' },
			{
				id: 103,
				name: 'Vendor',
				generator: 'vendor',
				text: 'The legal name of the company that issued the invoice.',
			},
			{
				id: 104,
				name: 'Total amount',
				generator: 'money_form',
				type: 'form',
				fields: ['amount', 'currency'],
				text: 'The total amount due, including tax, and its ISO 4217 currency.',
			},
		],
		templates: [
			{ id: 11, filename: 'Invoice summary.docx' },
			{ id: 12, filename: 'Invoice lines.xlsx' },
		],
		metadata: { team: 'accounts-payable', cost_center: 4711, tags: ['finance', 'ap'] },
	},
	{
		id: DEMO_AGENT_IDS.contracts,
		workspaceId: 2,
		name: 'Contracts',
		objective: 'Review commercial contracts and summarise their key terms.',
		createdBy: 'alice@acme.example',
		createdMs: Date.UTC(2025, 11, 1, 14, 2, 55, 90),
		guidelines: 'Quote clause numbers in the reasoning.',
		prompts: [
			{
				id: 201,
				name: 'Parties',
				generator: 'parties',
				type: 'list',
				text: 'The contracting parties.',
			},
			{
				id: 202,
				name: 'Effective date',
				generator: 'date',
				text: 'The date the contract takes effect.',
			},
			{
				id: 203,
				name: 'Term (months)',
				generator: 'term_months',
				type: 'number',
				text: 'The initial term in months.',
			},
			{
				id: 204,
				name: 'Governing law',
				generator: 'governing_law',
				webSearch: true,
				text: 'The governing law of the contract.',
			},
			{
				id: 205,
				name: 'Summary',
				generator: 'summary',
				inputs: [201, 203],
				model: 'default',
				text: `Summarise the contract between ${ref(201)} for a term of ${ref(203)} months in one sentence.`,
			},
		],
		templates: [
			{ id: 21, filename: 'Contract brief.docx' },
			{ id: 22, filename: 'Clause register.xlsm' },
			// Non-ASCII name: exercises Content-Disposition filename* (RFC 6266/5987).
			{ id: 23, filename: 'Vertragsübersicht – Deutsch.docx' },
			// Neither Word nor Excel (service note 24): the service answers 422 for every format.
			{ id: 24, filename: 'Legacy layout.odt' },
		],
		metadata: {},
	},
	{
		id: DEMO_AGENT_IDS.receipts,
		workspaceId: 3,
		name: 'Receipts',
		objective: 'Turn expense receipts into expense-report lines.',
		createdBy: 'bob@globex.example',
		createdMs: Date.UTC(2026, 0, 20, 8, 0, 0, 5),
		prompts: [
			{ id: 301, name: 'Merchant', generator: 'merchant', text: 'Who issued the receipt.' },
			{ id: 302, name: 'Date', generator: 'date', text: 'Date of purchase.' },
			{ id: 303, name: 'Total', generator: 'money', type: 'number', text: 'Total paid.' },
			{ id: 304, name: 'Category', generator: 'category', text: 'Expense category.' },
		],
		templates: [
			{ id: 31, filename: 'Expense report.xlsx' },
			{ id: 32, filename: 'Receipt summary.dotx' },
		],
		metadata: { owner: 'bob' },
	},
	{
		id: DEMO_AGENT_IDS.purchaseOrders,
		workspaceId: 1,
		name: 'Purchase orders',
		objective: 'Read purchase orders.',
		createdBy: 'frank@acme.example',
		createdMs: Date.UTC(2026, 1, 2, 11, 30, 0, 0),
		prompts: [
			{
				id: 401,
				name: 'PO number',
				generator: 'po_number',
				model: 'efficient',
				text: 'The purchase order number.',
			},
			{
				id: 402,
				name: 'Line items',
				generator: 'line_items',
				type: 'list',
				text: 'Every ordered line.',
			},
			{ id: 403, name: 'Supplier', generator: 'vendor', text: 'The supplier.' },
		],
		templates: [],
		metadata: { pilot: true },
	},
	{
		id: DEMO_AGENT_IDS.bankStatements,
		workspaceId: 5,
		name: 'Bank statements',
		objective: 'Reconcile monthly bank statements.',
		createdBy: 'dave@umbrella.example',
		createdMs: Date.UTC(2026, 2, 3, 7, 45, 12, 300),
		prompts: [
			{ id: 501, name: 'Account IBAN', generator: 'iban', text: 'The IBAN of the account.' },
			{
				id: 502,
				name: 'Closing balance',
				generator: 'money',
				type: 'number',
				text: 'The closing balance.',
			},
			{ id: 503, name: 'Statement date', generator: 'date', text: 'The statement date.' },
		],
		templates: [{ id: 51, filename: 'Statement.xlsx' }],
		metadata: {},
	},
];

function buildAgent(def: AgentDef): AgentRecord {
	const prompts: PromptRecord[] = def.prompts.map((p, i) => ({
		id: p.id,
		name: p.name,
		createdMs: def.createdMs + (i + 1) * 60_000,
		updatedMs: def.createdMs + (i + 1) * 60_000 + 7 * DAY,
		lastUpdatedBy: def.createdBy,
		documents: [],
		inputPromptIds: p.inputs ?? [],
		model: { type: p.model ?? 'default', version: p.model === 'efficient' ? '2025-10' : '2026-01' },
		options: {
			prompt: p.text,
			type: p.type ?? (p.fields ? 'form' : 'string'),
			...(p.fields ? { fields: [...p.fields] } : {}),
			code_generation: false,
			document_filter: false,
			enhanced_vision: p.generator === 'line_items',
			web_search: p.webSearch ?? false,
		},
		generator: p.generator,
	}));
	const templates: TemplateRecord[] = def.templates.map((t, i) => ({
		id: t.id,
		filename: t.filename,
		createdMs: def.createdMs + (i + 1) * HOUR,
		updatedMs: def.createdMs + (i + 1) * HOUR,
	}));
	return {
		id: def.id,
		workspaceId: def.workspaceId,
		name: def.name,
		objective: def.objective,
		createdMs: def.createdMs,
		updatedMs: def.createdMs + 14 * DAY,
		createdBy: def.createdBy,
		guidelines: def.guidelines
			? { prompt: def.guidelines, createdMs: def.createdMs, updatedMs: def.createdMs + 2 * DAY }
			: null,
		nRuns: 0,
		prompts,
		templates,
		metadata: structuredClone(def.metadata),
	};
}

interface SeedRunDef {
	agentId: number;
	files: string[];
	/** Absolute creation time, or age relative to now. */
	at: { abs: number } | { ago: number };
	status: 'success' | 'failed';
	userDefinedId?: string;
}

const DEMO_RUNS: SeedRunDef[] = [
	// Before March 2026: completed stays null (service note 19).
	{
		agentId: 1,
		files: ['invoice-2026-02-10_10342.pdf'],
		at: { abs: Date.UTC(2026, 1, 12, 8, 30, 0, 250) },
		status: 'success',
	},
	{ agentId: 1, files: ['INV-20417 Acme GmbH.pdf'], at: { ago: 3 * DAY }, status: 'success' },
	{
		agentId: 1,
		files: ['invoice_88123.pdf', 'invoice_88124.pdf'],
		at: { ago: 26 * HOUR },
		status: 'success',
		userDefinedId: 'erp-88123',
	},
	{ agentId: 1, files: ['scan-0042.pdf'], at: { ago: 2 * HOUR }, status: 'failed' },
	{ agentId: 2, files: ['MSA Globex 2026-01-15.pdf'], at: { ago: 5 * DAY }, status: 'success' },
	{
		agentId: 2,
		files: ['NDA_Initech.docx'],
		at: { ago: 1 * DAY },
		status: 'success',
		userDefinedId: 'legal-7',
	},
	{ agentId: 3, files: ['receipt-cafe-2026-10-02.jpg'], at: { ago: 4 * DAY }, status: 'success' },
	{ agentId: 3, files: ['taxi_2026-11-02.png'], at: { ago: 10 * HOUR }, status: 'success' },
	{ agentId: 4, files: ['PO-7781.pdf'], at: { ago: 6 * HOUR }, status: 'success' },
	{ agentId: 5, files: ['statement-2026-10-31.pdf'], at: { ago: 2 * DAY }, status: 'success' },
];

/** Seeds Agents, their demo Runs, usage history and access-log history. */
export function seedDemoData(state: EmulatorState, now: number, seed: number): void {
	for (const def of DEMO_AGENTS) state.addAgent(buildAgent(def));
	const rng = rngFor(seed, 'seed-runs');
	for (const def of DEMO_RUNS) {
		const agent = state.agents.get(def.agentId)!;
		const createdMs = 'abs' in def.at ? def.at.abs : now - def.at.ago;
		state.insertHistoricalRun({
			agent,
			createdBy: DEMO_USERS[ownerOfWorkspace(agent.workspaceId)].email,
			files: def.files.map((name) => ({
				name,
				size: intBetween(rng, 20_000, 900_000),
				contentType: contentTypeOf(name),
			})),
			createdMs,
			status: def.status,
			durationMs: intBetween(rng, 8_000, 60_000),
			completedNull: createdMs < MARCH_2026_MS,
			seed,
			userDefinedId: def.userDefinedId ?? null,
			withUsage: true,
		});
	}
	addUsageHistory(state, 250, now, seed, 'seed');
	addAccessLogHistory(state, 400, now, seed);
}

function ownerOfWorkspace(workspaceId: number): DemoUser {
	const found = (Object.keys(DEMO_USERS) as DemoUser[]).find((u) =>
		DEMO_USERS[u].workspaces.includes(workspaceId),
	);
	return found ?? 'alice';
}

export function contentTypeOf(filename: string): string {
	const ext = filename.toLowerCase().split('.').pop() ?? '';
	const types: Record<string, string> = {
		pdf: 'application/pdf',
		png: 'image/png',
		jpg: 'image/jpeg',
		jpeg: 'image/jpeg',
		tif: 'image/tiff',
		tiff: 'image/tiff',
		txt: 'text/plain',
		docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	};
	return types[ext] ?? 'application/octet-stream';
}

// ---------------------------------------------------------------------------------------------
// Usage and access-log history
// ---------------------------------------------------------------------------------------------

/**
 * Adds `count` usage records spread over the 90 days before `now`: mostly agent_run, some
 * validation, and a few of a type clients do not know yet (service note 23: new values may be added).
 * `tag` keeps successive calls deterministic but different.
 */
export function addUsageHistory(
	state: EmulatorState,
	count: number,
	now: number,
	seed: number,
	tag: string,
): void {
	const rng = rngFor(seed, 'usage', tag);
	const workspaceIds = [1, 2, 3, 5]; // carol's Free workspace has no usage
	const agentsByWs = new Map<number, number[]>();
	for (const agent of state.agents.values()) {
		agentsByWs.set(agent.workspaceId, [...(agentsByWs.get(agent.workspaceId) ?? []), agent.id]);
	}
	const span = 90 * DAY;
	for (let i = 0; i < count; i++) {
		const ws = pick(rng, workspaceIds);
		const user = pick(rng, COLLEAGUES[ws]);
		const agents = agentsByWs.get(ws) ?? [];
		const roll = rng();
		const createdMs = now - Math.floor(rng() * span);
		const createdUs = createdMs * 1000 + Math.floor(rng() * 1000);
		if (roll < 0.82 || agents.length === 0) {
			state.addUsage({
				type: 'agent_run',
				workspaceId: ws,
				agentId: agents.length ? pick(rng, agents) : null,
				runId: intBetween(rng, 100_000, 999_999),
				validationId: null,
				user,
				createdUs,
				creditsUsed: round2(0.5 + rng() * 6),
			});
		} else if (roll < 0.97) {
			state.addUsage({
				type: 'validation',
				workspaceId: ws,
				agentId: pick(rng, agents),
				runId: null,
				validationId: state.nextId.validation++,
				user,
				createdUs,
				creditsUsed: round2(0.1 + rng()),
			});
		} else {
			state.addUsage({
				type: 'document_classification',
				workspaceId: ws,
				agentId: null,
				runId: null,
				validationId: null,
				user,
				createdUs,
				creditsUsed: round2(rng() * 0.5),
			});
		}
	}
}

const OPERATIONS: Array<[string, string, (agentId: number) => string]> = [
	['agents.list', 'GET', () => '/api/v1/client/agents'],
	['agents.get', 'GET', (a) => `/api/v1/client/agents/${a}`],
	['runs.create', 'POST', (a) => `/api/v1/client/agents/${a}/runs`],
	['runs.list', 'GET', (a) => `/api/v1/client/agents/${a}/runs`],
	['runs.get', 'GET', (a) => `/api/v1/client/agents/${a}/runs/${1000 + (a % 7)}`],
	['usage.list', 'GET', () => '/api/v1/client/usage'],
];

/** Access-log history over the 7 days before `now`, in time order. */
function addAccessLogHistory(state: EmulatorState, count: number, now: number, seed: number): void {
	const rng = rngFor(seed, 'access-logs');
	const times = Array.from(
		{ length: count },
		() => now - 60_000 - Math.floor(rng() * 7 * DAY),
	).sort((a, b) => a - b);
	for (const t of times) {
		const ws = pick(rng, [1, 1, 2, 3]);
		const agentId = ws === 1 ? pick(rng, [1, 4]) : ws === 2 ? 2 : 3;
		const [operation, method, path] = pick(rng, OPERATIONS);
		state.addAccessLog({
			timestamp_millis: t,
			workspace_id: ws,
			user: pick(rng, COLLEAGUES[ws]),
			operation,
			client_ip: pick(rng, ['203.0.113.10', '203.0.113.24', '198.51.100.7', '192.0.2.200']),
			http_path: path(agentId),
			http_method: method,
			http_status: rng() < 0.93 ? 200 : pick(rng, [401, 404, 422, 429]),
			metadata: {},
		});
	}
}
