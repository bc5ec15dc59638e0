/**
 * The hazards a watermark design meets (docs/design/service-notes.md, "Trigger"): an Agent missing from one
 * listing, one Run whose read keeps failing, a Run deleted while a poll pages through the
 * list, a Run listed minutes after its `created` time, a poll that outlives n8n's poll
 * budget, a status the trigger does not know, and a re-activation after a pause.
 * Each must leave "every finished Run once" intact.
 */
import type { IDataObject } from 'n8n-workflow';
import { DEMO_AGENT_IDS } from '../../dev/emulator';
import { container } from '../../dev/harness/core';
import {
	classify,
	createPoller,
	expectNothing,
	finishedRun,
	heldRun,
	itemsOf,
	listPath,
	newAgent,
	pendingRunIds,
	runIdsOf,
	runPath,
	triggerParameters,
	useEmulator,
} from './helpers';

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const MINUTE = 60_000;

/** n8n's Logger (what `this.logger` of a node is), to read the warnings the trigger logs. */
function spyOnWarnings(): { lines: () => string[]; restore: () => void } {
	const { Logger } = require('@n8n/backend-common') as {
		Logger: new () => { warn: (message: string) => void };
	};
	const logger = container().get(Logger);
	const spy = jest.spyOn(logger, 'warn');
	return {
		lines: () => spy.mock.calls.map((call) => String(call[0])),
		restore: () => spy.mockRestore(),
	};
}

describe('Extraction Agents Trigger: Agents that come and go (All Agents)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('an Agent missing from one listing keeps its state: when it is listed again, only the Runs that finished meanwhile are emitted', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'hidden for one poll');
		finishedRun(emulator, agentId); // history
		const runningThen = heldRun(emulator, agentId);
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		const first = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([first]);

		// A permission change (or a page boundary shifting) leaves it out of one GET /agents.
		emulator.knobs.hiddenAgentIds = [agentId];
		try {
			await expectNothing(poller);
		} finally {
			emulator.knobs.hiddenAgentIds = [];
		}
		const whileHidden = finishedRun(emulator, agentId).run_id;
		emulator.finishRun(agentId, runningThen);
		expect(sorted(runIdsOf(await poller.poll()))).toEqual(sorted([whileHidden, runningThen]));
		await expectNothing(poller);
	});

	it("switching Watch from One Agent to All Agents treats the other Agents' past as history", async () => {
		const { emulator, credentials } = ctx;
		const watched = await newAgent(emulator, 'watched alone');
		const other = await newAgent(emulator, 'watched later');
		const one = createPoller({
			parameters: triggerParameters(watched, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(one);
		// Runs of the other Agent finish while only `watched` is watched: not news to this trigger.
		finishedRun(emulator, other);
		finishedRun(emulator, DEMO_AGENT_IDS.contracts);
		const onWatched = finishedRun(emulator, watched).run_id;
		expect(runIdsOf(await one.poll())).toEqual([onWatched]);

		const all = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
			staticData: one.staticData,
			firstPollActivation: 'update',
		});
		await expectNothing(all);
		const next = [finishedRun(emulator, other).run_id, finishedRun(emulator, watched).run_id];
		expect(sorted(runIdsOf(await all.poll()))).toEqual(sorted(next));
		await expectNothing(all);
	});

	it('an Agent first seen long after activation emits only Runs created since the poll that first saw it, minus the lookback', async () => {
		const { emulator, credentials } = ctx;
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		// The trigger has been active for two hours (its stored activation time says so).
		const stored = poller.staticData[`node:${poller.nodeName}`] as IDataObject;
		stored.activatedAt = Number(stored.activatedAt) - 120 * MINUTE;
		const restarted = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
			staticData: poller.staticData,
			firstPollActivation: 'update',
		});

		// An Agent appears now (moved into the workspace) with a Run that finished 90 minutes
		// ago (before the lookback of 60) and one made a minute ago.
		const moved = await newAgent(emulator, 'moved in');
		const hourOld = Number(
			emulator.createRun(moved, [{ name: 'old.pdf' }], {
				createdAt: emulator.now() - 90 * MINUTE,
				durationMs: 1,
			}).run_id,
		);
		const recent = Number(
			emulator.createRun(moved, [{ name: 'new.pdf' }], {
				createdAt: emulator.now() - MINUTE,
				durationMs: 1,
			}).run_id,
		);
		const ids = runIdsOf(await restarted.poll());
		expect(ids).not.toContain(hourOld);
		expect(ids).toEqual([recent]);
		await expectNothing(restarted);
	});
});

describe('Extraction Agents Trigger: one unreadable Run', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it("a Run whose read is refused (403) in every poll does not block the others: it is emitted from its list data with the read's error", async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'one unreadable Run');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const unreadable = heldRun(emulator, agentId, 'unreadable.pdf');
		const readable = heldRun(emulator, agentId, 'readable.pdf');
		await expectNothing(poller);
		emulator.finishRun(agentId, unreadable);
		emulator.finishRun(agentId, readable);
		emulator.injectFaults([
			{ match: { method: 'GET', path: runPath(agentId, unreadable) }, kind: '403', times: 1000 },
		]);
		try {
			const items = itemsOf(await poller.poll());
			expect(sorted(items.map((item) => Number(item.run_id)))).toEqual(
				sorted([unreadable, readable]),
			);
			const fromList = items.find((item) => Number(item.run_id) === unreadable)!;
			expect(fromList).toMatchObject({
				status: 'success',
				read_error: expect.stringMatching(/Not allowed to access Run/),
			});
			expect(items.find((item) => Number(item.run_id) === readable)).not.toHaveProperty(
				'read_error',
			);
			await expectNothing(poller);
			const another = finishedRun(emulator, agentId).run_id;
			expect(runIdsOf(await poller.poll())).toEqual([another]);
		} finally {
			emulator.clearFaults();
		}
	});

	it('a Run whose full read answers 500 every time holds nothing back: the other Runs are emitted by the first poll, no poll fails, and it is emitted with its error after three polls', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'one Run answering 500');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		const held = ['broken.pdf', 'a.pdf', 'b.pdf', 'c.pdf'].map((name) =>
			heldRun(emulator, agentId, name),
		);
		await expectNothing(poller);
		for (const runId of held) emulator.finishRun(agentId, runId);
		const [broken, ...good] = held;
		emulator.injectFaults([
			{ match: { method: 'GET', path: runPath(agentId, broken) }, kind: '500', times: 1000 },
		]);
		try {
			// The list was just read, so the service is up: the 500 concerns this Run.
			expect(sorted(runIdsOf(await poller.poll()))).toEqual(sorted(good));
			expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([broken]);
			await expectNothing(poller);
			const items = itemsOf(await poller.poll());
			expect(items.map((item) => Number(item.run_id))).toEqual([broken]);
			expect(items[0]).toMatchObject({
				status: 'success',
				read_error: expect.stringMatching(/500/),
			});
			await expectNothing(poller);
		} finally {
			emulator.clearFaults();
		}
	});
});

describe('Extraction Agents Trigger: a single read that lags the list', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run first listed finished whose full read still says running stays pending, and is emitted finished by the next poll', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'lagging read');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		emulator.knobs.singleReadLagMs = 60 * MINUTE;
		let runId: number;
		try {
			runId = Number(
				emulator.createRun(agentId, [{ name: 'lagging.pdf' }], {
					createdAt: emulator.now() - 5000,
					durationMs: 1000,
				}).run_id,
			);
			await expectNothing(poller);
			expect(pendingRunIds(poller.nodeStaticData, agentId)).toEqual([runId]);
		} finally {
			emulator.knobs.singleReadLagMs = 0;
		}
		const items = itemsOf(await poller.poll());
		expect(items.map((item) => [Number(item.run_id), item.status])).toEqual([[runId, 'success']]);
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: an Agent whose Runs cannot be listed (All Agents)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it.each([403, 404, 500])(
		'an Agent whose Run list answers %i is skipped with one warning; the other Agents are polled and committed; once it can be read, its Runs are emitted',
		async (status) => {
			const { emulator, credentials } = ctx;
			const blocked = await newAgent(emulator, `list answers ${status}`);
			const healthy = await newAgent(emulator, `healthy beside ${status}`);
			const poller = createPoller({
				parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
				credentials,
			});
			await expectNothing(poller);
			const warnings = spyOnWarnings();
			emulator.knobs.failingRunLists = { [blocked]: status };
			try {
				const waiting = finishedRun(emulator, blocked).run_id;
				const fresh = finishedRun(emulator, healthy).run_id;
				expect(runIdsOf(await poller.poll())).toEqual([fresh]);
				await expectNothing(poller);
				const skips = warnings
					.lines()
					.filter((line) => line.includes(`Agent ${blocked} could not be read`));
				expect(skips).toHaveLength(1); // at most once an hour
				emulator.knobs.failingRunLists = {};
				expect(runIdsOf(await poller.poll())).toEqual([waiting]);
			} finally {
				emulator.knobs.failingRunLists = {};
				warnings.restore();
			}
		},
		120_000,
	);

	it('an Agent whose Run list fails from activation on: once it can be read, the Runs made after activation are emitted, the older ones are history', async () => {
		const { emulator, credentials } = ctx;
		const blocked = await newAgent(emulator, 'list failing at activation');
		await newAgent(emulator, 'healthy at activation');
		// Before activation (more than the clock margin of 5 minutes before it): history.
		emulator.createRun(blocked, [{ name: 'history.pdf' }], {
			createdAt: emulator.now() - 10 * MINUTE,
			durationMs: 1,
		});
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		emulator.knobs.failingRunLists = { [blocked]: 403 };
		const warnings = spyOnWarnings();
		try {
			await expectNothing(poller); // the activation: the blocked Agent is skipped
			const madeAfter = finishedRun(emulator, blocked).run_id;
			await expectNothing(poller);
			emulator.knobs.failingRunLists = {};
			expect(runIdsOf(await poller.poll())).toEqual([madeAfter]);
			await expectNothing(poller);
		} finally {
			emulator.knobs.failingRunLists = {};
			warnings.restore();
		}
	});

	it('when no watched Agent can be read, the poll fails', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'the only one, failing');
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		await expectNothing(poller);
		emulator.knobs.failingRunLists = { [agentId]: 500 };
		try {
			await expect(poller.poll()).rejects.toThrow(/500/);
		} finally {
			emulator.knobs.failingRunLists = {};
		}
	});
});

describe('Extraction Agents Trigger: the list changing while a poll reads it', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run deleted between two page reads does not hide the Run that slides onto the page already read', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'deleted while paging');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		// A backlog of 150 Runs (two pages of 100, newest first), processed and deleted one by
		// one by another workflow while this poll reads the list.
		const backlog = Array.from({ length: 150 }, () => finishedRun(emulator, agentId).run_id);
		emulator.afterRequest(
			{ method: 'GET', path: listPath(agentId), query: { page_number: '0' } },
			() => {
				emulator.deleteRun(agentId, backlog[149]);
			},
		);
		const ids = runIdsOf(await poller.poll());
		// Every Run of the backlog once (the deleted one too: it had finished when it was listed).
		expect(sorted(ids)).toEqual(sorted(backlog));
		await expectNothing(poller);
	});

	it.each([5, 15, 55])(
		'a Run listed %i minutes after its created time (a slow upload), behind newer Runs made meanwhile, is emitted once',
		async (lateMinutes) => {
			const { emulator, credentials } = ctx;
			const agentId = await newAgent(emulator, `listed ${lateMinutes} min late`);
			const poller = createPoller({
				parameters: triggerParameters(agentId, { includeFullRun: false }),
				credentials,
			});
			await expectNothing(poller);
			// The upload starts (created is stamped now) and the Run is listed when it ends,
			// `lateMinutes` later in the emulator's clock; a poll every 5 minutes meanwhile
			// sees a newer quick Run each time, which moves the watermark.
			const uploadStart = emulator.now();
			const slowUpload = Number(
				emulator.createRun(agentId, [{ name: 'huge.pdf' }], {
					createdAt: uploadStart,
					durationMs: 1,
					listedAt: uploadStart + lateMinutes * MINUTE,
				}).run_id,
			);
			const emitted: number[] = [];
			const quick: number[] = [];
			for (let minute = 5; minute <= lateMinutes + 5; minute += 5) {
				emulator.advanceTime(5 * MINUTE);
				quick.push(finishedRun(emulator, agentId).run_id);
				emitted.push(...runIdsOf(await poller.poll()));
			}
			await expectNothing(poller);
			expect(sorted(emitted)).toEqual(sorted([slowUpload, ...quick]));
		},
	);

	it('with the emulator listing a third of new Runs 2 s late, every Run is emitted once', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'late listing knob');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		emulator.knobs.lateListing = { rate: 0.34, delayMs: 2_000 };
		const made: number[] = [];
		const emitted: number[] = [];
		try {
			for (let round = 0; round < 6; round++) {
				for (let i = 0; i < 4; i++)
					made.push(Number((await createRunOverHttp(emulator, agentId)).run_id));
				emitted.push(...runIdsOf(await poller.poll()));
			}
		} finally {
			emulator.knobs.lateListing = null;
		}
		expect(made.some((id) => emulator.state.runs.get(id)!.listedMs !== undefined)).toBe(true);
		for (let i = 0; i < 10 && emitted.length < made.length; i++) {
			emulator.advanceTime(1_000);
			emitted.push(...runIdsOf(await poller.poll()));
		}
		expect(sorted(emitted)).toEqual(sorted(made));
	});
});

/** POST /agents/{id}/runs with one small file that finishes at once (runDurationMs 0 for it). */
async function createRunOverHttp(
	emulator: ReturnType<typeof useEmulator>['emulator'],
	agentId: number,
): Promise<IDataObject> {
	const saved = emulator.knobs.runDurationMs;
	emulator.knobs.runDurationMs = 0;
	try {
		const form = new FormData();
		form.append(
			'files',
			new Blob([Buffer.from('%PDF-1.4 late')], { type: 'application/pdf' }),
			'late.pdf',
		);
		const response = await fetch(`${emulator.apiUrl}/agents/${agentId}/runs`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${emulator.keys.alice}` },
			body: form,
		});
		if (response.status !== 200) throw new Error(`create failed: ${response.status}`);
		return (await response.json()) as IDataObject;
	} finally {
		emulator.knobs.runDurationMs = saved;
	}
}

describe('Extraction Agents Trigger: the poll budget', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a poll that would outlive its budget stops in time, emits what it finished and leaves the rest to the next poll', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'over budget');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
			pollBudgetMs: 1_500,
		});
		await expectNothing(poller);
		const runs = Array.from({ length: 40 }, (_, n) => heldRun(emulator, agentId, `r${n}.pdf`));
		await expectNothing(poller);
		for (const id of runs) emulator.finishRun(agentId, id);

		emulator.knobs.latencyMs = 100; // 40 pending reads: about 4 s, more than the 1.5 s budget
		const emitted: number[] = [];
		const perPoll: number[] = [];
		try {
			for (let poll = 0; poll < 20 && emitted.length < runs.length; poll++) {
				const ids = runIdsOf(await poller.poll());
				perPoll.push(ids.length);
				emitted.push(...ids);
			}
		} finally {
			emulator.knobs.latencyMs = 0;
		}
		// The first poll stopped before the budget with part of the work done and committed.
		expect(perPoll[0]).toBeGreaterThan(0);
		expect(perPoll[0]).toBeLessThan(runs.length);
		expect(emitted).toHaveLength(runs.length);
		expect(sorted(emitted)).toEqual(sorted(runs));
		await expectNothing(poller);
	});
});

describe('Extraction Agents Trigger: one Agent’s backlog under the poll budget (All Agents)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('an Agent with more pending Runs than a poll can read never keeps the others waiting: a quiet Agent’s finished Run is emitted by the first or second poll', async () => {
		const { emulator, credentials } = ctx;
		const busy = await newAgent(emulator, 'backlog');
		const quiet = await newAgent(emulator, 'quiet, listed after the backlog');
		const pollBudgetMs = 3_000;
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
			pollBudgetMs,
		});
		await expectNothing(poller);
		const backlog = Array.from({ length: 80 }, (_, n) => heldRun(emulator, busy, `r${n}.pdf`));
		const waiting = heldRun(emulator, quiet, 'quiet.pdf');
		await expectNothing(poller);
		for (const id of backlog) emulator.finishRun(busy, id);
		emulator.finishRun(quiet, waiting);

		emulator.knobs.latencyMs = 100; // 80 pending reads: about 8 s, several polls' budgets
		const emitted: number[] = [];
		let quietEmittedAtPoll: number | undefined;
		try {
			for (let poll = 1; poll <= 30 && emitted.length < backlog.length + 1; poll++) {
				const ids = runIdsOf(await poller.poll());
				if (ids.includes(waiting)) quietEmittedAtPoll ??= poll;
				emitted.push(...ids);
			}
		} finally {
			emulator.knobs.latencyMs = 0;
		}
		// The bound: each poll starts after the Agent the previous one stopped at, so every
		// Agent is visited in every poll whose budget covers one list read per Agent.
		expect(quietEmittedAtPoll).toBeLessThanOrEqual(2);
		expect(sorted(emitted)).toEqual(sorted([...backlog, waiting]));
		await expectNothing(poller);
	}, 120_000);
});

describe('Extraction Agents Trigger: a 429 asking for a wait past the poll budget (All Agents)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('ends the poll within its budget, emitting and committing the Agents done; the rate-limited Agent goes on next poll', async () => {
		const { emulator, credentials } = ctx;
		const first = await newAgent(emulator, 'polled before the 429');
		const limited = await newAgent(emulator, 'answered 429 for 30 s');
		const pollBudgetMs = 3_000;
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
			pollBudgetMs,
		});
		await expectNothing(poller);
		const done = finishedRun(emulator, first).run_id;
		const later = finishedRun(emulator, limited).run_id;
		emulator.injectFaults([
			{ match: { method: 'GET', path: listPath(limited) }, kind: '429', retryAfter: '30' },
		]);
		const seq = emulator.lastSeq;
		const ids = runIdsOf(await poller.poll());
		expect(emulator.pendingFaults).toEqual([]);
		// The budget is the contract here, not a speed (no wall-clock bound: a busy machine
		// would fail it): n8n abandons a poll past its budget, committing nothing, and 0.2.0
		// waited out the 30 s Retry-After, then read the list again and emitted its Run. The
		// poll asked the rate-limited Agent's list once and left it to the next poll.
		expect(ids).toEqual([done]);
		const limitedReads = emulator
			.requestsSince(seq)
			.filter((request) => listPath(limited).test(request.path));
		expect(limitedReads.map((request) => request.status)).toEqual([429]);
		expect(poller.history.at(-1)).toMatchObject({ ok: true, staticDataSaved: true });
		emulator.clearFaults();
		expect(runIdsOf(await poller.poll())).toEqual([later]);
		await expectNothing(poller);
	}, 60_000);
});

describe('Extraction Agents Trigger: a service that ignores page_number', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('listing oldest first with more than one page, the poll fails saying why (instead of reading page 1 as the last page and emitting nothing)', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'pages ignored');
		// Ten minutes apart: few Runs within the lookback, so the poll reads pages of 100.
		emulator.addHistoricalRuns(agentId, 150, {
			createdBefore: emulator.now() - 60 * MINUTE,
			spacingMs: 10 * MINUTE,
		});
		Object.assign(emulator.knobs, { ignorePageNumber: true, listOrder: 'oldest-first' });
		try {
			const poller = createPoller({
				parameters: triggerParameters(agentId, { includeFullRun: false }),
				credentials,
			});
			await expectNothing(poller);
			finishedRun(emulator, agentId);
			await expect(poller.poll()).rejects.toThrow(
				`The Extraction Agents service sent an incomplete answer for the Runs of Agent ${agentId}`,
			);
		} finally {
			Object.assign(emulator.knobs, { ignorePageNumber: false, listOrder: 'newest-first' });
		}
	});
});

describe('Extraction Agents Trigger: telling n8n why a poll failed', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a rate limit carries cause rate-limited with the wait the service asked for; a rejected key, credential-invalid', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'why it failed');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
			pollBudgetMs: 3_000,
		});
		await expectNothing(poller);
		emulator.injectFaults([
			{ match: { method: 'GET', path: listPath(agentId) }, kind: '429', retryAfter: '120' },
		]);
		const limited = (await poller.poll().catch((error: unknown) => error)) as {
			httpCode?: string;
			failure?: { cause: string; retryAfterMs?: number; resetsAtEpochMs?: number };
		};
		expect(limited.httpCode).toBe('429');
		expect(limited.failure).toMatchObject({ cause: 'rate-limited' });
		expect(limited.failure?.retryAfterMs).toBeGreaterThan(110_000);
		expect(limited.failure?.retryAfterMs).toBeLessThanOrEqual(120_000);

		const rejected = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials: { ...credentials, apiKey: 'ea_revoked_key' },
			staticData: poller.staticData,
		});
		const failure = (await rejected.poll().catch((error: unknown) => error)) as {
			failure?: { cause: string };
		};
		expect(failure.failure).toEqual({ cause: 'credential-invalid' });
	});
});

describe('Extraction Agents Trigger: a first look at many Agents under the poll budget', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('activating on 20 Agents with 2,000 Runs each, with a budget for about a page a poll, goes on poll by poll to the end; then each new Run once', async () => {
		const { emulator, credentials } = ctx;
		const agents: number[] = [];
		const runningAtActivation: number[] = [];
		for (let n = 0; n < 20; n++) {
			const agentId = await newAgent(emulator, `big ${n}`);
			emulator.addHistoricalRuns(agentId, 2_000, { createdBefore: emulator.now() - 60 * MINUTE });
			runningAtActivation.push(
				heldRun(emulator, agentId, 'running.pdf', emulator.now() - 30 * MINUTE),
			);
			agents.push(agentId);
		}
		const parameters = triggerParameters(undefined, { agentScope: 'all', includeFullRun: false });
		// No request outlives the budget (issue 28): it must hold one page of 1,000 at least.
		const poller = createPoller({ parameters, credentials, pollBudgetMs: 1_000 });
		const scanned = () => {
			const state = poller.nodeStaticData as
				| { agents?: Record<string, { scanPage?: number }> }
				| undefined;
			return agents.filter(
				(id) => state?.agents?.[id] !== undefined && state.agents[id].scanPage === undefined,
			).length;
		};
		const progress: number[] = [];
		for (let poll = 0; poll < 80 && scanned() < agents.length; poll++) {
			await expectNothing(poller);
			expect(poller.history.at(-1)).toMatchObject({ ok: true, staticDataSaved: true });
			progress.push(scanned());
		}
		console.log(
			`first look at 20 Agents × 2,000 Runs: ${progress.length} polls; Agents done after each: ${progress.join(' ')}`,
		);
		// Not all in one poll, and never stuck: every poll committed a page or more.
		expect(progress[0]).toBeLessThan(agents.length);
		expect(scanned()).toBe(agents.length);

		// The Runs running at activation finish, and every Agent gets a new Run.
		for (const [index, agentId] of agents.entries())
			emulator.finishRun(agentId, runningAtActivation[index]);
		const fresh = agents.map((agentId) => finishedRun(emulator, agentId).run_id);
		const emitted: number[] = [];
		for (let poll = 0; poll < 80 && emitted.length < 40; poll++)
			emitted.push(...runIdsOf(await poller.poll()));
		expect(sorted(emitted)).toEqual(sorted([...runningAtActivation, ...fresh]));
		await expectNothing(poller);
	}, 240_000);
});

describe('Extraction Agents Trigger: statuses it does not know', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('a Run in an unknown status with a completed time counts as finished: read once more, never again, emitted under Other', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'cancelled');
		const poller = createPoller({
			parameters: triggerParameters(agentId, {
				includeFullRun: false,
				statuses: ['success', 'failed', 'other'],
			}),
			credentials,
		});
		await expectNothing(poller);
		const cancelled = heldRun(emulator, agentId, 'cancelled.pdf');
		await expectNothing(poller);
		emulator.finishRun(agentId, cancelled);
		emulator.state.runs.get(cancelled)!.reportedStatus = 'cancelled'; // docs/design/service-notes.md #23: a new enum value
		expect(itemsOf(await poller.poll()).map((item) => [item.run_id, item.status])).toEqual([
			[cancelled, 'cancelled'],
		]);
		const seq = emulator.lastSeq;
		await expectNothing(poller);
		await expectNothing(poller);
		expect(classify(emulator.requestsSince(seq)).runReads).toEqual([]);
	});

	it("a Run still running days after it was created is dropped with a line in n8n's log and read no more", async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'stuck');
		const stuck = heldRun(emulator, agentId, 'stuck.pdf', emulator.now() - 4 * 24 * 60 * MINUTE);
		const poller = createPoller({ parameters: triggerParameters(agentId), credentials });
		const warnings = spyOnWarnings();
		try {
			await expectNothing(poller);
			await expectNothing(poller);
			const seq = emulator.lastSeq;
			await expectNothing(poller);
			expect(
				emulator.requestsSince(seq).some((entry) => runPath(agentId, stuck).test(entry.path)),
			).toBe(false);
			expect(
				warnings.lines().some((line) => line.includes(String(stuck)) && /still running/.test(line)),
			).toBe(true);
		} finally {
			warnings.restore();
		}
	});
});

describe('Extraction Agents Trigger: static data size', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('watching 200 Agents that each emitted 60 Runs over an hour, the static data stays under 128 KB', async () => {
		const { emulator, credentials } = ctx;
		const agents: number[] = [];
		for (let n = 0; n < 200; n++) agents.push(await newAgent(emulator, `size ${n}`));
		const poller = createPoller({
			parameters: triggerParameters(undefined, { agentScope: 'all', includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		let emitted = 0;
		for (let round = 0; round < 5; round++) {
			for (const agentId of agents) for (let i = 0; i < 12; i++) finishedRun(emulator, agentId);
			emitted += runIdsOf(await poller.poll()).length;
			emulator.advanceTime(12 * MINUTE);
		}
		expect(emitted).toBe(200 * 60);
		const bytes = Buffer.byteLength(JSON.stringify(poller.nodeStaticData));
		console.log(
			`static data watching ${agents.length} Agents after ${emitted} emitted Runs: ${bytes} bytes`,
		);
		// 58 KB before the reconciliation pass; its `done` (the Runs found finished within two of
		// each Agent's sweeps) adds about 3 bytes a Run: 36 KB for this hour's 12,000.
		expect(bytes).toBeLessThan(128 * 1024);
	}, 120_000);
});

describe('Extraction Agents Trigger: a state stored by 0.2.x (version 2)', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	it('Runs older than the 10 minutes version 2 remembered stay history on upgrade: nothing is emitted twice', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'upgraded from version 2');
		const poller = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
		});
		await expectNothing(poller);
		// Made before activation, finished since (a Run that finished before it is history).
		const made = [30, 20, 1].map((minutesAgo) =>
			Number(
				emulator.createRun(agentId, [{ name: `${minutesAgo}.pdf` }], {
					createdAt: emulator.now() - minutesAgo * MINUTE,
					durationMs: minutesAgo * MINUTE - 1,
				}).run_id,
			),
		);
		expect(sorted(runIdsOf(await poller.poll()))).toEqual(sorted(made));
		// What 0.2.x stored: `seen` as a list of the Runs within 10 minutes of the watermark.
		const stored = poller.staticData[`node:${poller.nodeName}`] as IDataObject;
		const agent = (stored.agents as Record<string, IDataObject>)[agentId];
		stored.version = 2;
		stored.recentlyEmitted = []; // as if 200 other Runs had been emitted since
		(stored.agents as Record<string, IDataObject>)[agentId] = {
			watermark: agent.watermark,
			seen: [made[2]],
			pending: [],
		};
		const upgraded = createPoller({
			parameters: triggerParameters(agentId, { includeFullRun: false }),
			credentials,
			staticData: poller.staticData,
			firstPollActivation: 'init',
		});
		await expectNothing(upgraded);
		const fresh = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await upgraded.poll())).toEqual([fresh]);
	});
});

describe('Extraction Agents Trigger: re-activation', () => {
	const ctx = useEmulator({ runDurationMs: 60_000 });

	async function pausedTrigger(
		onReactivation: 'emit' | 'skip' | undefined,
	): Promise<{ restarted: ReturnType<typeof createPoller>; meanwhile: number[]; agentId: number }> {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, `paused ${onReactivation ?? 'default'}`);
		const parameters = {
			...triggerParameters(agentId, { includeFullRun: false, onReactivation }),
		};
		const poller = createPoller({ parameters, credentials });
		await expectNothing(poller);
		const before = finishedRun(emulator, agentId).run_id;
		expect(runIdsOf(await poller.poll())).toEqual([before]);
		// The user deactivates the workflow; Runs finish meanwhile; the user activates it again.
		const meanwhile = [
			finishedRun(emulator, agentId).run_id,
			finishedRun(emulator, agentId, { outcome: 'failed' }).run_id,
		];
		const restarted = createPoller({
			parameters,
			credentials,
			staticData: poller.staticData,
			firstPollActivation: 'activate',
		});
		return { restarted, meanwhile, agentId };
	}

	it('On Re-activation: Skip Them emits nothing that finished while the workflow was inactive, then every new Run', async () => {
		const { restarted, agentId } = await pausedTrigger('skip');
		await expectNothing(restarted);
		const after = finishedRun(ctx.emulator, agentId).run_id;
		expect(runIdsOf(await restarted.poll())).toEqual([after]);
		await expectNothing(restarted);
	});

	it('by default (Emit Runs Finished While Inactive) the Runs that finished meanwhile are emitted once', async () => {
		const { restarted, meanwhile } = await pausedTrigger(undefined);
		expect(sorted(runIdsOf(await restarted.poll()))).toEqual(sorted(meanwhile));
		await expectNothing(restarted);
	});

	it('an n8n restart (activation mode init) is not a re-activation: Skip Them still emits what finished meanwhile', async () => {
		const { emulator, credentials } = ctx;
		const agentId = await newAgent(emulator, 'restart with skip');
		const parameters = {
			...triggerParameters(agentId, { includeFullRun: false, onReactivation: 'skip' }),
		};
		const poller = createPoller({ parameters, credentials });
		await expectNothing(poller);
		const meanwhile = finishedRun(emulator, agentId).run_id;
		const restarted = createPoller({
			parameters,
			credentials,
			staticData: poller.staticData,
			firstPollActivation: 'init',
		});
		expect(runIdsOf(await restarted.poll())).toEqual([meanwhile]);
	});
});
