/**
 * End-to-end: the trigger in a real n8n, under each of n8n's ways of running polls (issue 21
 * cases 1, 2 and 8). One lean n8n per way (only this file's workflows), started side by side,
 * each with its own emulator; every scenario of a way runs at once, and the tests then assert
 * what was recorded (executions, their items, the requests in the emulator's log, n8n's log).
 *
 * The ways (n8n 2.41.1's own settings, see docs/design/trigger-rules.md "n8n's poll scheduling"):
 * - n8n's default in-memory poller: one workflow object for the whole activation;
 * - the durable scheduler (N8N_SCHEDULER_ENABLED + N8N_SCHEDULER_POLL_TRIGGERS_ENABLED): each
 *   poll is a scheduled task that loads the workflow's static data from the database;
 * - with durable poll cursors as well (N8N_POLLER_DURABLE_CURSORS_ENABLED): the node's static
 *   data is a staged copy, committed only after some poll results.
 * n8n 1.x has only the first; the others are skipped there.
 *
 * Set N8N_E2E=skip to leave this suite out.
 */
import { startEmulator, type Emulator } from '../../dev/emulator';
import type { RequestLogEntry } from '../../dev/emulator/types';
import { startSession, type ExecutionSummary, type Session } from '../../dev/n8n/session';
import {
	credentialJson,
	pollTimesEvery,
	triggerWorkflow,
	type WorkflowJson,
} from '../../dev/n8n/workflows';

const VERSION = process.env.N8N_E2E_VERSION || '2.41.1';
const MAJOR = Number(VERSION.split('.')[0]);
const SKIP = /^(skip|0|false|no)$/i.test(process.env.N8N_E2E ?? '');
/** As the main E2E suite: four once-a-minute poll times, a poll every 15 s. */
const POLL_SECONDS = 15;
/** More than one page of 1000: the first look at such an Agent reads two pages. */
const HISTORY_RUNS = 1100;
const SCAN_PAGE_SIZE = '1000';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Mode {
	key: string;
	title: string;
	env: Record<string, string>;
	/** Why this way cannot apply to the n8n under test. */
	skipReason?: string;
}

const SCHEDULER_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
};
const MODES: Mode[] = [
	{ key: 'in-memory', title: "n8n's default in-memory poller", env: {} },
	{
		key: 'scheduler',
		title: 'the durable scheduler (N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED)',
		env: SCHEDULER_ENV,
		skipReason: MAJOR < 2 ? `n8n ${VERSION} has no durable scheduler (2.41 brought it)` : undefined,
	},
	{
		key: 'durable-cursors',
		title: 'the durable scheduler with durable poll cursors (N8N_POLLER_DURABLE_CURSORS_ENABLED)',
		env: { ...SCHEDULER_ENV, N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' },
		skipReason:
			MAJOR < 2 ? `n8n ${VERSION} has no durable poll cursors (2.41 brought them)` : undefined,
	},
];

const BOB_CREDENTIAL = { id: 'eaCredentialBob1', name: 'Extraction Agents (emulator, bob)' };

const IDS = {
	/** Case 1: one Agent, Include Full Run on. */
	unreadable: 'eaE2eUnreadable1',
	/** Case 2: All Agents of bob's key, one of whose Run lists answers 403. */
	failingList: 'eaE2eFailingList',
	/** Case 8: When Reactivated → Catch Up (the default). */
	catchUp: 'eaE2eCatchUp0001',
	/** Case 8: When Reactivated → Skip Them. */
	skip: 'eaE2eSkipThem001',
} as const;

interface Agents {
	unreadable: number;
	listed: number;
	failing: number;
	catchUp: number;
	skip: number;
}

interface Emitted {
	execution: ExecutionSummary;
	runs: Array<{ runId: number; agentId: number; readError?: unknown }>;
}

async function copyAgent(emu: Emulator, key: string, source: number, name: string) {
	const res = await fetch(`${emu.apiUrl}/agents/${source}/copy`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: JSON.stringify({ name }),
	});
	if (res.status !== 200) throw new Error(`copy of Agent ${source}: ${res.status}`);
	return ((await res.json()) as { id: number }).id;
}

function workflowsFor(agents: Agents): WorkflowJson[] {
	const pollTimes = pollTimesEvery(POLL_SECONDS);
	const common = { typeVersion: 1.1 as const, simplify: false };
	return [
		triggerWorkflow(pollTimes, {
			...common,
			id: IDS.unreadable,
			name: 'E2E: one Run whose full read answers 500',
			agentId: agents.unreadable,
			includeFullRun: true,
		}),
		triggerWorkflow(pollTimes, {
			...common,
			id: IDS.failingList,
			name: 'E2E: All Agents, one Run list refused',
			agentScope: 'all',
			includeFullRun: false,
			credential: BOB_CREDENTIAL,
		}),
		triggerWorkflow(pollTimes, {
			...common,
			id: IDS.catchUp,
			name: 'E2E: When Reactivated → Catch Up',
			agentId: agents.catchUp,
		}),
		triggerWorkflow(pollTimes, {
			...common,
			id: IDS.skip,
			name: 'E2E: When Reactivated → Skip Them',
			agentId: agents.skip,
			onReactivation: 'skip',
		}),
	];
}

/** One n8n and its emulator, and what its scenarios recorded. */
class Way {
	emu!: Emulator;
	session!: Session;
	agents!: Agents;
	notes: string[] = [];

	constructor(readonly mode: Mode) {}

	async start() {
		this.emu = await startEmulator({ runDurationMs: 1500, logErrors: false });
		const { emu } = this;
		this.agents = {
			unreadable: await copyAgent(emu, emu.keys.alice, 1, 'E2E one unreadable Run'),
			listed: await copyAgent(emu, emu.keys.bob, 3, 'E2E listed'),
			failing: await copyAgent(emu, emu.keys.bob, 3, 'E2E Run list refused'),
			catchUp: await copyAgent(emu, emu.keys.alice, 1, 'E2E catch up'),
			skip: await copyAgent(emu, emu.keys.alice, 1, 'E2E skip them'),
		};
		emu.addHistoricalRuns(this.agents.catchUp, HISTORY_RUNS);
		emu.addHistoricalRuns(this.agents.skip, HISTORY_RUNS);
		this.session = await startSession({
			version: VERSION,
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			workflows: workflowsFor(this.agents),
			moreCredentials: [
				credentialJson(emu.url, emu.keys.bob, BOB_CREDENTIAL.name, BOB_CREDENTIAL.id),
			],
			examples: false,
			env: this.mode.env,
			quiet: true,
		});
	}

	async stop() {
		await this.session?.stop({ keepFolder: Boolean(process.env.N8N_E2E_KEEP) });
		await this.emu?.stop();
	}

	/** A poll's reads of an Agent's Run list (not the single-Run reads by run_id). */
	listReads(agentId: number, since = 0): RequestLogEntry[] {
		return this.emu.requestLog.filter(
			(e) =>
				e.method === 'GET' &&
				e.path === `/api/v1/client/agents/${agentId}/runs` &&
				e.query.run_id === undefined &&
				e.startedAt >= since &&
				e.status !== 0,
		);
	}

	/** One entry per poll that read the Agent's list: its read of page 0. */
	polls(agentId: number, since = 0): RequestLogEntry[] {
		return this.listReads(agentId, since).filter((e) => e.query.page_number === '0');
	}

	async waitUntil(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 150_000) {
		const deadline = Date.now() + timeoutMs;
		while (!(await done())) {
			if (Date.now() > deadline) {
				this.notes.push(`timed out waiting until ${what}`);
				return false;
			}
			await sleep(1000);
		}
		return true;
	}

	/** Finished executions of a workflow, oldest first, with the Runs each emitted. */
	async emitted(workflowId: string): Promise<Emitted[]> {
		const done = (await this.session.executions(workflowId)).filter(
			(e) => e.stoppedAt !== null && !['new', 'running', 'waiting'].includes(e.status),
		);
		const result: Emitted[] = [];
		for (const execution of done.reverse()) {
			const details = await this.session.execution(execution.id);
			const items = details.runData['Run finished']?.[0]?.data?.main?.[0] ?? [];
			result.push({
				execution,
				runs: items.map((item) => ({
					runId: Number(item.json.run_id),
					agentId: Number(item.json.agent_id),
					readError: item.json.read_error,
				})),
			});
		}
		return result;
	}

	async emittedRunIds(workflowId: string): Promise<number[]> {
		return (await this.emitted(workflowId)).flatMap((e) => e.runs.map((run) => run.runId));
	}

	/** Waits until the Agent's list has not been read for longer than a poll interval. */
	async quiet(agentIds: number[]) {
		return await this.waitUntil('the deactivated triggers stop polling', () => {
			const last = Math.max(
				0,
				...agentIds.flatMap((id) => this.listReads(id).map((e) => e.startedAt)),
			);
			return Date.now() - last > (POLL_SECONDS + 3) * 1000;
		});
	}
}

interface Case1 {
	good: number[];
	broken: number;
	finishedAt: number;
	emitted: Emitted[];
	pollsAfterFinish: RequestLogEntry[];
	brokenReads: RequestLogEntry[];
}

/** Case 1: four Runs finish between two polls; the full read of one answers 500 every time. */
async function unreadableRun(way: Way): Promise<Case1> {
	const { emu, agents } = way;
	const agentId = agents.unreadable;
	await way.waitUntil(
		'the activation poll has read the list',
		() => way.polls(agentId).length >= 1,
	);
	await sleep(500);
	const runs = ['broken.pdf', 'a.pdf', 'b.pdf', 'c.pdf'].map((name) =>
		Number(emu.createRun(agentId, [{ name }], { durationMs: 1000 }).run_id),
	);
	const [broken, ...good] = runs;
	emu.injectFaults([
		{
			match: { method: 'GET', path: `/api/v1/client/agents/${agentId}/runs/${broken}` },
			kind: '500',
			times: 100_000,
		},
	]);
	await way.waitUntil('the four Runs finished', () =>
		runs.every((id) => emu.getRun(agentId, id)?.status !== 'running'),
	);
	const finishedAt = Math.max(
		...runs.map((id) => Date.parse(String(emu.getRun(agentId, id)?.completed))),
	);
	await way.waitUntil(
		'the Run whose read fails is emitted',
		async () => (await way.emittedRunIds(IDS.unreadable)).includes(broken),
		5 * POLL_SECONDS * 1000 + 60_000,
	);
	const afterLast = Date.now();
	await way.waitUntil('one more poll', () => way.polls(agentId, afterLast).length >= 1);
	await sleep(3000); // time for an execution that poll would have started
	return {
		good,
		broken,
		finishedAt,
		emitted: await way.emitted(IDS.unreadable),
		pollsAfterFinish: way.polls(agentId, finishedAt),
		brokenReads: emu.requestLog.filter(
			(e) => e.path === `/api/v1/client/agents/${agentId}/runs/${broken}`,
		),
	};
}

interface Case2 {
	listedRun: number;
	failingRun: number;
	emittedWhileFailing: Emitted[];
	refusedReads: number;
	log: string;
	emitted: Emitted[];
}

/** Case 2: All Agents; one Agent's Run list answers 403. */
async function failingRunList(way: Way): Promise<Case2> {
	const { emu, agents } = way;
	await way.waitUntil(
		'the All Agents trigger has polled',
		() => way.polls(agents.listed).length >= 1,
	);
	await sleep(500);
	emu.knobs.failingRunLists = { [agents.failing]: 403 };
	const refusedSince = Date.now();
	const listedRun = Number(
		emu.createRun(agents.listed, [{ name: 'listed.pdf' }], { durationMs: 500 }).run_id,
	);
	const failingRun = Number(
		emu.createRun(agents.failing, [{ name: 'refused.pdf' }], { durationMs: 500 }).run_id,
	);
	await way.waitUntil('the listed Agent’s Run is emitted', async () =>
		(await way.emittedRunIds(IDS.failingList)).includes(listedRun),
	);
	const emittedWhileFailing = await way.emitted(IDS.failingList);
	const refusedReads = way
		.listReads(agents.failing, refusedSince)
		.filter((e) => e.status === 403).length;
	emu.knobs.failingRunLists = {};
	await way.waitUntil('the refused Agent’s Run is emitted once its list can be read', async () =>
		(await way.emittedRunIds(IDS.failingList)).includes(failingRun),
	);
	const after = Date.now();
	await way.waitUntil('one more poll', () => way.polls(agents.listed, after).length >= 1);
	await sleep(3000);
	return {
		listedRun,
		failingRun,
		emittedWhileFailing,
		refusedReads,
		log: way.session.server.logs(),
		emitted: await way.emitted(IDS.failingList),
	};
}

interface Case8 {
	/** The activation's first look at each Agent. */
	activationScans: Record<'catchUp' | 'skip', RequestLogEntry[]>;
	/** List reads after the activation, until the workflows were unpublished. */
	readsAfterActivation: Record<'catchUp' | 'skip', RequestLogEntry[]>;
	/** List reads after the re-activation. */
	readsAfterReactivation: Record<'catchUp' | 'skip', RequestLogEntry[]>;
	finishedAfterActivation: Record<'catchUp' | 'skip', number>;
	finishedWhileInactive: Record<'catchUp' | 'skip', number>;
	finishedAfterReactivation: number;
	emitted: Record<'catchUp' | 'skip', Emitted[]>;
}

/** Case 8: the state built at activation survives; re-activation catches up or skips. */
async function reactivation(way: Way): Promise<Case8> {
	const { emu, agents, session } = way;
	const which = ['catchUp', 'skip'] as const;
	const workflowOf = { catchUp: IDS.catchUp, skip: IDS.skip };
	const scanned = (agentId: number, since = 0) =>
		way
			.listReads(agentId, since)
			.filter((e) => e.query.page_size === SCAN_PAGE_SIZE && e.status === 200).length >= 2;
	await way.waitUntil('the activation has read both Agents’ history', () =>
		which.every((w) => scanned(agents[w])),
	);
	await sleep(500);
	// The activation's scan ends with its read of page 1; a poll can follow within the wait above
	// (its page-0 read of 1,000 belongs to the reads after activation, not to the scan).
	const scanOf = (agentId: number) => {
		const reads = way.listReads(agentId);
		const last = reads.findIndex(
			(e) => e.query.page_size === SCAN_PAGE_SIZE && e.query.page_number === '1',
		);
		return reads.slice(0, last + 1);
	};
	const activationScans = { catchUp: scanOf(agents.catchUp), skip: scanOf(agents.skip) };
	const afterScan = (w: 'catchUp' | 'skip') => {
		const lastSeq = activationScans[w].at(-1)?.seq ?? 0;
		return way.listReads(agents[w]).filter((e) => e.seq > lastSeq);
	};
	const finishedAfterActivation = {
		catchUp: Number(
			emu.createRun(agents.catchUp, [{ name: 'r1.pdf' }], { durationMs: 500 }).run_id,
		),
		skip: Number(emu.createRun(agents.skip, [{ name: 'r1.pdf' }], { durationMs: 500 }).run_id),
	};
	for (const w of which)
		await way.waitUntil(`the Run that finished after activation is emitted (${w})`, async () =>
			(await way.emittedRunIds(workflowOf[w])).includes(finishedAfterActivation[w]),
		);
	// One more poll each, to count its reads.
	const settled = Date.now();
	for (const w of which)
		await way.waitUntil(`one more poll (${w})`, () => way.polls(agents[w], settled).length >= 1);
	for (const w of which) await session.unpublish(workflowOf[w]);
	const readsAfterActivation = { catchUp: afterScan('catchUp'), skip: afterScan('skip') };
	await way.quiet([agents.catchUp, agents.skip]);
	const finishedWhileInactive = {
		catchUp: Number(
			emu.createRun(agents.catchUp, [{ name: 'r2.pdf' }], { durationMs: 500 }).run_id,
		),
		skip: Number(emu.createRun(agents.skip, [{ name: 'r2.pdf' }], { durationMs: 500 }).run_id),
	};
	await way.waitUntil('the Runs finished while inactive', () =>
		which.every((w) => emu.getRun(agents[w], finishedWhileInactive[w])?.status !== 'running'),
	);
	const reactivatedAt = Date.now();
	for (const w of which) await session.publish(workflowOf[w]);
	// Skip Them starts afresh: its re-activation reads the history again; a Run finishing after
	// that is news.
	await way.waitUntil('the Skip Them re-activation has read the history', () =>
		scanned(agents.skip, reactivatedAt),
	);
	await sleep(500);
	const finishedAfterReactivation = Number(
		emu.createRun(agents.skip, [{ name: 'r3.pdf' }], { durationMs: 500 }).run_id,
	);
	await way.waitUntil('the Run finished while inactive is caught up', async () =>
		(await way.emittedRunIds(IDS.catchUp)).includes(finishedWhileInactive.catchUp),
	);
	await way.waitUntil('the Run finished after the Skip Them re-activation is emitted', async () =>
		(await way.emittedRunIds(IDS.skip)).includes(finishedAfterReactivation),
	);
	const after = Date.now();
	for (const w of which)
		await way.waitUntil(`one more poll (${w})`, () => way.polls(agents[w], after).length >= 1);
	await sleep(3000);
	return {
		activationScans,
		readsAfterActivation,
		readsAfterReactivation: {
			catchUp: way.listReads(agents.catchUp, reactivatedAt),
			skip: way.listReads(agents.skip, reactivatedAt),
		},
		finishedAfterActivation,
		finishedWhileInactive,
		finishedAfterReactivation,
		emitted: {
			catchUp: await way.emitted(IDS.catchUp),
			skip: await way.emitted(IDS.skip),
		},
	};
}

const ways = new Map<string, Way>();
const scenarios = new Map<string, Promise<{ case1: Case1; case2: Case2; case8: Case8 }>>();
const applicable = SKIP ? [] : MODES.filter((mode) => !mode.skipReason);

beforeAll(async () => {
	// Side by side: the ways' n8n servers start together, and their scenarios run together.
	await Promise.all(
		applicable.map(async (mode) => {
			const way = new Way(mode);
			ways.set(mode.key, way);
			await way.start();
			const running = Promise.all([
				unreadableRun(way),
				failingRunList(way),
				reactivation(way),
			]).then(([case1, case2, case8]) => ({ case1, case2, case8 }));
			running.catch(() => undefined); // reported by the tests that await it
			scenarios.set(mode.key, running);
		}),
	);
}, 30 * 60_000);

afterAll(async () => {
	const failed = (expect.getState() as { suppressedErrors?: unknown[] }).suppressedErrors?.length;
	await Promise.all(
		[...ways.values()].map(async (way) => {
			if (failed)
				process.stderr.write(`[e2e trigger] ${way.mode.key} notes: ${way.notes.join('; ')}\n`);
			await way.stop();
		}),
	);
}, 120_000);

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const SCENARIO_TIMEOUT = 10 * 60_000;

for (const mode of MODES) {
	const describeMode = SKIP || mode.skipReason ? describe.skip : describe;
	const title = mode.skipReason
		? `real n8n ${VERSION}, ${mode.title} — skipped: ${mode.skipReason}`
		: `real n8n ${VERSION}, ${mode.title}`;
	describeMode(title, () => {
		const recorded = async () => {
			const scenario = scenarios.get(mode.key);
			if (!scenario) throw new Error(`the ${mode.key} n8n did not start`);
			return { ...(await scenario), way: ways.get(mode.key)! };
		};
		const report = (line: string) =>
			process.stderr.write(`[e2e trigger] n8n ${VERSION}, ${mode.key}: ${line}\n`);

		test(
			'(21.1) a Run whose full read answers 500 every time fails no poll: the other Runs are emitted by the first poll after they finish, it is emitted with read_error after 3 polls',
			async () => {
				const { case1, way } = await recorded();
				expect(way.notes.filter((note) => /Run whose read fails|four Runs/.test(note))).toEqual([]);
				// No failed execution at any point.
				expect(case1.emitted.map((e) => e.execution.status)).toEqual(
					case1.emitted.map(() => 'success'),
				);
				const [first, ...later] = case1.emitted;
				expect(sorted(first.runs.map((run) => run.runId))).toEqual(sorted(case1.good));
				// Emitted by the first poll after they finished: before the second one started.
				const secondPoll = case1.pollsAfterFinish[1];
				expect(Date.parse(first.execution.startedAt)).toBeLessThan(secondPoll.startedAt);
				// The bad one, once, with the error of its read.
				const laterRuns = later.flatMap((e) => e.runs);
				expect(laterRuns.map((run) => run.runId)).toEqual([case1.broken]);
				expect(String(laterRuns[0].readError)).toMatch(/500/);
				const failedReads = case1.brokenReads.filter((e) => e.status === 500);
				expect(failedReads.length).toBeGreaterThanOrEqual(3);
				report(
					`(21.1) ${first.runs.length} good Runs emitted by the first poll after they finished; the unreadable one after ${failedReads.length} reads answering 500, with read_error "${String(laterRuns[0].readError).slice(0, 80)}"; ${case1.emitted.length} executions, none failed`,
				);
			},
			SCENARIO_TIMEOUT,
		);

		test(
			'(21.2) All Agents: an Agent whose Run list answers 403 fails no poll, the other Agents’ Runs are emitted, n8n’s log names it; listed again, its Run is emitted',
			async () => {
				const { case2, way } = await recorded();
				report(
					`(21.2) executions: ${case2.emitted.map((e) => `${e.execution.id} ${e.execution.startedAt} [${e.runs.map((run) => run.runId).join(',')}]`).join('; ')}; polls of the listed Agent at ${way
						.polls(way.agents.listed)
						.map((e) => new Date(e.startedAt).toISOString().slice(11, 23))
						.join(', ')}`,
				);
				expect(case2.refusedReads).toBeGreaterThanOrEqual(1);
				expect(case2.emitted.map((e) => e.execution.status)).toEqual(
					case2.emitted.map(() => 'success'),
				);
				expect(case2.emittedWhileFailing.flatMap((e) => e.runs.map((run) => run.runId))).toEqual([
					case2.listedRun,
				]);
				const warning = new RegExp(
					`Extraction Agents Trigger: the Runs of Agent ${way.agents.failing} could not be read`,
				);
				const warnings = case2.log.split('\n').filter((line) => warning.test(line));
				expect(warnings.length).toBe(1); // at most once an hour
				expect(sorted(case2.emitted.flatMap((e) => e.runs.map((run) => run.runId)))).toEqual(
					sorted([case2.listedRun, case2.failingRun]),
				);
				report(
					`(21.2) Agent ${way.agents.failing}'s list refused ${case2.refusedReads} times: Run ${case2.listedRun} of the other Agent emitted meanwhile, no failed execution; n8n's log: "${warnings[0]?.trim().slice(0, 140)}"`,
				);
			},
			SCENARIO_TIMEOUT,
		);

		test(
			'(21.8) the state built at activation survives: each poll after it reads the first page only, not the history, and a Run that finished in between is emitted once',
			async () => {
				const { case8 } = await recorded();
				for (const w of ['catchUp', 'skip'] as const) {
					const scan = case8.activationScans[w].filter((e) => e.query.page_size === SCAN_PAGE_SIZE);
					expect({ w, scanPages: scan.length }).toEqual({ w, scanPages: 2 });
					const reads = case8.readsAfterActivation[w];
					expect(reads.length).toBeGreaterThanOrEqual(2);
					// The history (2 pages of 1,000) is not read again. The first read is of 1,000 when
					// the history's last hour is busy (a busy Agent's lookback is read in the largest pages).
					expect({ w, pages: [...new Set(reads.map((e) => e.query.page_number))] }).toEqual({
						w,
						pages: ['0'],
					});
					const emitted = case8.emitted[w].flatMap((e) => e.runs.map((run) => run.runId));
					expect(emitted.filter((id) => id === case8.finishedAfterActivation[w])).toHaveLength(1);
				}
				report(
					`(21.8) activation read 2 pages of ${SCAN_PAGE_SIZE}; the ${case8.readsAfterActivation.catchUp.length} list reads after it were of page 0 (sizes ${[...new Set(case8.readsAfterActivation.catchUp.map((e) => e.query.page_size))].join(', ')}); the Run that finished after activation was emitted once`,
				);
			},
			SCENARIO_TIMEOUT,
		);

		test(
			'(21.8) When Reactivated → Catch Up: the Run that finished while the workflow was inactive is emitted once, without reading the history again',
			async () => {
				const { case8 } = await recorded();
				const emitted = case8.emitted.catchUp.flatMap((e) => e.runs.map((run) => run.runId));
				expect(emitted).toEqual([
					case8.finishedAfterActivation.catchUp,
					case8.finishedWhileInactive.catchUp,
				]);
				expect(
					case8.readsAfterReactivation.catchUp.filter((e) => e.query.page_size === SCAN_PAGE_SIZE),
				).toEqual([]);
				expect(case8.emitted.catchUp.map((e) => e.execution.status)).toEqual(
					case8.emitted.catchUp.map(() => 'success'),
				);
				report(
					`(21.8) Catch Up: emitted ${emitted.join(', ')} (the last finished while inactive), no history read after re-activation`,
				);
			},
			SCENARIO_TIMEOUT,
		);

		test(
			'(21.8) When Reactivated → Skip Them: the Run that finished while the workflow was inactive is not emitted; one finishing after re-activation is',
			async () => {
				const { case8 } = await recorded();
				const emitted = case8.emitted.skip.flatMap((e) => e.runs.map((run) => run.runId));
				expect(emitted).toEqual([
					case8.finishedAfterActivation.skip,
					case8.finishedAfterReactivation,
				]);
				expect(emitted).not.toContain(case8.finishedWhileInactive.skip);
				report(
					`(21.8) Skip Them: emitted ${emitted.join(', ')}; Run ${case8.finishedWhileInactive.skip}, finished while inactive, skipped`,
				);
			},
			SCENARIO_TIMEOUT,
		);
	});
}
