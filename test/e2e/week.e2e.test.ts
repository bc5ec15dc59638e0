/**
 * A week, generated, in real n8n (issue 43, item 9): about 100 emails of one fixed seed through
 * the Gmail example as it is (examples/gmail-invoices-to-google-sheets.json), Gmail and Google
 * Sheets stood in for inside n8n, an outage of the service and an n8n restart mid-week; then
 * each document is looked for in the sheets (test/e2e/week/check.ts says how it is judged).
 * `npm run week -- --seed N` runs any other seed and prints every document that is not ok.
 *
 * Set N8N_E2E=skip to leave this suite out (as the other end-to-end suites).
 */
import { describeRun, runWeek, type WeekRun } from './week/run';
import type { Verdict } from './week/check';

const VERSION = process.env.N8N_E2E_VERSION || '2.41.1';
const SKIP = /^(skip|0|false|no)$/i.test(process.env.N8N_E2E ?? '');
/** The week `npm test` runs; `npm run week -- --seed 43` replays it. */
const SEED = 43;

type Check =
	| 'nothing lost'
	| 'nothing merged'
	| 'no blank cell unannounced'
	| 'nothing doubled'
	| 'nothing in the wrong sheet'
	| 'no row for a logo'
	| 'no Run twice'
	| 'every document in exactly one place';

/**
 * Checks that still fail, by name (run as `test.failing`, so a fix makes them fail until the
 * name is removed here). WEEK_KNOWN=off runs every check as a plain test.
 *
 * One invoice of seed 43 lands in review, not in its result row: its upload got a 503 before
 * the service made a Run. Node version 1.5 sends a document again only when it knows no Run
 * was made (an upload cut before its last byte); after a 503 the Agent's list not showing the
 * Run proves nothing, since the service may list a Run late (issue #43's review: a Run made
 * twice after a 504 and an 8 s listing lag). So the invoice goes to review named, with why,
 * rather than risk a second Run: nothing lost, nothing doubled, but one left to a person.
 */
const KNOWN_CHECKS: Check[] = ['nothing in the wrong sheet', 'every document in exactly one place'];
const KNOWN = new Set<Check>(
	/^(off|none|0|false|no)$/i.test(process.env.WEEK_KNOWN ?? '') ? [] : KNOWN_CHECKS,
);

const describeE2e = SKIP ? describe.skip : describe;

describeE2e(
	`a generated week (seed ${SEED}) through the Gmail example in real n8n ${VERSION}`,
	() => {
		let run: WeekRun;

		beforeAll(async () => {
			run = await runWeek({ seed: SEED, version: VERSION, log: () => undefined });
			process.stderr.write(`[week] ${describeRun(run).join('\n')}\n`);
		}, 30 * 60_000);

		/** The documents (their files) with a verdict. */
		const withVerdict = (verdict: Verdict) =>
			[...run.report.verdicts]
				.filter(([, v]) => v === verdict)
				.map(([document]) => `${document.files.join(' + ')} (${document.email.shape})`);

		const check = (name: Check, title: string, fn: () => void) =>
			(KNOWN.has(name) ? test.failing : test)(`${name}: ${title}`, fn);

		test('the week ran as drawn: every poll’s execution ended, the outage answered 503 to creation, n8n was restarted', () => {
			expect(run.failedPolls).toEqual([]);
			expect(run.outage503s).toBeGreaterThanOrEqual(3);
			expect(run.restarted).toBe(true);
			expect(run.report.documents.length).toBeGreaterThan(100);
			// Every shape of email came at least once.
			const shapes = new Set(run.week.emails.map((email) => email.shape));
			expect(shapes.size).toBe(12);
		});

		check('nothing lost', 'every document is named by a row of either sheet', () => {
			expect(withVerdict('lost')).toEqual([]);
		});

		check(
			'nothing merged',
			'no document ends up in a row that is another document’s (a second invoice, a scan sent beside an invoice)',
			() => {
				expect(withVerdict('merged')).toEqual([]);
			},
		);

		check(
			'no blank cell unannounced',
			'a row with a blank Prompt cell has its review row (a partly readable document)',
			() => {
				expect(withVerdict('blank unannounced')).toEqual([]);
			},
		);

		check(
			'nothing doubled',
			'an email delivered twice, before or across the restart, makes its rows once',
			() => {
				expect(withVerdict('doubled')).toEqual([]);
			},
		);

		check(
			'nothing in the wrong sheet',
			'an invoice the outage hit still gets its result row (nobody resends it by hand)',
			() => {
				expect(withVerdict('wrong place')).toEqual([]);
			},
		);

		check('no row for a logo', 'an email holding only a logo adds no row to either sheet', () => {
			expect(run.report.rowsWithoutDocument.map((row) => row.json)).toEqual([]);
		});

		check('no Run twice', 'no document is sent to the service twice', () => {
			expect(run.report.runsTwice).toEqual([]);
		});

		check(
			'every document in exactly one place',
			'each document where the example’s grouping puts it, once',
			() => {
				expect(run.report.counts.ok).toBe(run.report.documents.length);
			},
		);
	},
);
