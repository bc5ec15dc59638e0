/**
 * Waiting for many Runs of one Agent: one page of the Agent's Run list shows the status of
 * every Run of the batch at once, and a Run is read singly only once the list shows it
 * finished (for its full results) or when the list does not show it. The list's order is not
 * promised (docs/design/service-notes.md #13): where it does not show the batch's Runs, they are read
 * one by one as before.
 */
import { executeNode, useHarness, type HarnessInputItem } from '../../dev/harness';
import type { RequestLogEntry } from '../../dev/emulator';
import { WAIT_SCHEDULE } from '../../nodes/ExtractionAgents/helpers/runWaiter';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 2500 });
const RUN_LIST = /\/agents\/1\/runs$/;
const RUN_READ = /\/agents\/1\/runs\/\d+$/;

function documents(count: number): HarnessInputItem[] {
	return Array.from({ length: count }, (_, index) => ({
		json: { n: index },
		binary: {
			data: {
				data: pdf(`invoice ${index}`),
				fileName: `doc-${index}.pdf`,
				mimeType: 'application/pdf',
			},
		},
	}));
}

async function createAndWait(count: number) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		parameters: createRunParameters({ simplify: false }),
		inputItems: documents(count),
	});
	const requests = ctx.emulator.requestsSince(seq);
	const created = requests.filter((entry) => entry.method === 'POST' && RUN_LIST.test(entry.path));
	const waiting = requests.filter((entry) => entry.method === 'GET');
	return {
		result,
		created,
		lists: waiting.filter((entry) => RUN_LIST.test(entry.path)),
		reads: waiting.filter((entry) => RUN_READ.test(entry.path)),
	};
}

const runIdOf = (entry: RequestLogEntry) => Number(/\/runs\/(\d+)$/.exec(entry.path)?.[1]);

afterEach(() => {
	Object.assign(ctx.emulator.knobs, {
		listOrder: 'newest-first',
		lateListing: null,
		faultRate: 0,
	});
});

describe('Run → Create + Wait over many items: statuses from the Run list', () => {
	it('reads each Run singly once, when the list shows it finished, and returns its full results', async () => {
		const { result, created, lists, reads } = await createAndWait(20);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(Array(20).fill('success'));
		// The single read gives the full results: per-Prompt usage is only on it (spec).
		const firstPrompt = Object.values(result.items[0].json.data as object)[0] as {
			usage?: unknown;
		};
		expect(firstPrompt.usage).toBeDefined();
		expect(created).toHaveLength(20);
		expect(lists.length).toBeGreaterThan(0);
		expect(lists[0].query).toMatchObject({ page_number: '0' });
		expect(reads.map(runIdOf).sort()).toEqual(
			result.items.map((item) => Number(item.json.run_id)).sort(),
		);
		// The list covers the batch: far fewer list reads than Runs.
		expect(lists.length).toBeLessThan(20 / 2);
	});

	it('reads singly a Run the list does not show yet, and still returns every Run finished', async () => {
		ctx.emulator.knobs.lateListing = { rate: 0.5, delayMs: 60_000 };
		const { result, reads } = await createAndWait(8);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(Array(8).fill('success'));
		// Runs listed late were read singly before they finished (running), the others once.
		const readsPerRun = new Map<number, number>();
		for (const id of reads.map(runIdOf)) readsPerRun.set(id, (readsPerRun.get(id) ?? 0) + 1);
		expect(Math.max(...readsPerRun.values())).toBeGreaterThan(1);
		expect(Math.min(...readsPerRun.values())).toBe(1);
	});

	it('an Agent whose list shows none of the Runs (oldest first, a long history) is read Run by Run', async () => {
		for (let n = 0; n < 120; n++)
			ctx.emulator.createRun(1, [{ name: 'old.pdf' }], { durationMs: 0 });
		ctx.emulator.knobs.listOrder = 'oldest-first';
		const { result, lists, reads } = await createAndWait(4);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(Array(4).fill('success'));
		expect(lists).toHaveLength(WAIT_SCHEDULE.runListMissesAllowed);
		expect(reads.length).toBeGreaterThan(4);
	});

	it('a list answering 403 leaves the Runs to single reads, and the wait still ends with every Run', async () => {
		ctx.emulator.injectFaults([{ kind: '403', match: { method: 'GET', path: RUN_LIST } }]);
		const { result, lists, reads } = await createAndWait(3);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(Array(3).fill('success'));
		expect(lists).toHaveLength(1);
		expect(lists[0].status).toBe(403);
		expect(reads.length).toBeGreaterThanOrEqual(3);
	});

	it('one Run waited for is read singly, as before (a list would cost more than it shows)', async () => {
		const { result, lists, reads } = await createAndWait(1);
		expect(result.items[0].json.status).toBe('success');
		expect(lists).toEqual([]);
		expect(reads.length).toBeGreaterThan(1);
	});
});
