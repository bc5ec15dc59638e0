/**
 * The week's parts that need no n8n: the generator replays a seed, the oracle judges each way a
 * document can go astray, the grouping is read from the example, and the stand-in workflow keeps
 * every node of the example it does not stand in for (so a Remove Duplicates or an If node
 * added to the example is measured as it is).
 */
import { checkWeek, documentsOf, type SheetRow } from './check';
import { fateOfRun } from './emulator';
import { generateWeek, scheduleOf, type Week } from './generate';
import { groupingOf, readExample, sheetStandIns, weekWorkflow } from './workflow';

const week = generateWeek(43);

/** The row the Gmail example's result sheet gets for a Run of these files. */
const resultRow = (files: string[], blank: string[] = []): SheetRow => ({
	review: false,
	json: {
		'Invoice number': blank.includes('Invoice number') ? null : 'INV-1',
		'Invoice date': blank.includes('Invoice date') ? null : '2026-11-23',
		Vendor: blank.includes('Vendor') ? null : 'Acme',
		'Total amount › amount': blank.includes('Total amount') ? null : 12.5,
		'Total amount › currency': blank.includes('Total amount') ? null : 'EUR',
		files: files.join(', '),
		status: 'success',
	},
});
const reviewRow = (files: string[]): SheetRow => ({
	review: true,
	json: { Files: files.join(', '), Why: 'none of the 4 Prompts could be answered' },
});

/** The rows of a perfect week under one Run per file. */
function idealRows(of: Week): SheetRow[] {
	return documentsOf(of, 'file').map((d) =>
		d.expected === 'result' ? resultRow(d.files) : reviewRow(d.files),
	);
}

describe('the generated week', () => {
	test('a seed always gives the same week; --first keeps its first emails and their files', () => {
		expect(generateWeek(43)).toEqual(week);
		expect(generateWeek(44).emails.map((e) => e.id)).not.toEqual(week.emails.map((e) => e.id));
		const cut = generateWeek(43, { keepFirst: 10 });
		expect(cut.emails).toEqual(week.emails.slice(0, 10));
		expect([...cut.files.keys()].sort()).toEqual(
			week.emails
				.slice(0, 10)
				.flatMap((e) => e.files.filter((f) => f.kind !== 'logo').map((f) => f.name))
				.sort(),
		);
	});

	test('about 100 emails of 0–4 attachments, every file name unique and none inside another', () => {
		expect(week.emails).toHaveLength(100);
		for (const email of week.emails) expect(email.files.length).toBeLessThanOrEqual(4);
		const names = [...week.files.keys()];
		expect(new Set(names).size).toBe(names.length);
		for (const a of names) for (const b of names) if (a !== b) expect(b.includes(a)).toBe(false);
	});

	test('emails with nothing attached are not delivered; some emails come twice, one across the restart', () => {
		const schedule = scheduleOf(week, {
			everyMinutes: 120,
			delivers: (email) => email.files.length > 0,
		});
		const delivered = schedule.polls.flatMap((poll) => poll.emails);
		expect(delivered.every((email) => email.files.length > 0)).toBe(true);
		const again = schedule.polls.flatMap((poll) => poll.redelivered);
		expect(again.length).toBeGreaterThan(1);
		expect(schedule.polls[schedule.restartAfterPoll + 1].redelivered).toHaveLength(1);
		expect(schedule.outageAtPoll).toBeLessThan(schedule.restartAfterPoll);
	});

	test('the emulator’s fate of a Run: a scan beside an invoice vanishes into its values; a scan alone fails', () => {
		const [invoice, scan, partly] = (['invoice', 'unreadableScan', 'partlyReadable'] as const).map(
			(kind) => [...week.files.values()].find((f) => f.kind === kind)!,
		);
		expect(fateOfRun(week, [invoice.name, scan.name])).toEqual({
			failed: false,
			failedPrompts: [],
		});
		expect(fateOfRun(week, [scan.name, 'image001.png'])).toMatchObject({ failed: true });
		expect(fateOfRun(week, [partly.name])).toEqual({
			failed: false,
			failedPrompts: partly.failedPrompts,
		});
	});
});

describe('the oracle', () => {
	test('a perfect week: every document ok, nothing else counted', () => {
		const report = checkWeek({ week, grouping: 'file', rows: idealRows(week), runs: [] });
		expect(report.counts.ok).toBe(report.documents.length);
		expect(report.summary).toMatch(
			/^week seed 43: 100 emails, \d+ documents \(one Run per file\): \d+ rows, \d+ review, 0 merged, 0 blank unannounced, 0 doubled, 0 lost, 0 in the wrong sheet, 0 rows naming no document; 0 documents in two Runs$/,
		);
	});

	test('one Run per email: an invoice and its delivery note are one document, two invoices are two', () => {
		const withNote = week.emails.find((e) => e.shape === 'invoice with delivery note')!;
		const two = week.emails.find((e) => e.shape === 'two invoices')!;
		const names = (e: typeof two) => e.files.filter((f) => f.kind !== 'logo').map((f) => f.name);
		const rows = [resultRow(names(withNote)), resultRow(names(two))];
		const report = checkWeek({ week, grouping: 'item', rows, runs: [] });
		const verdictOf = (name: string) =>
			[...report.verdicts].find(([d]) => d.files.includes(name))![1];
		expect(verdictOf(names(withNote)[0])).toBe('ok');
		expect(verdictOf(names(withNote)[1])).toBe('ok');
		expect(verdictOf(names(two)[0])).toBe('ok');
		expect(verdictOf(names(two)[1])).toBe('merged');
	});

	test('each way astray: lost, doubled, blank unannounced (and announced), wrong sheet, a row for a logo, a Run twice', () => {
		const docs = documentsOf(week, 'file');
		const invoices = docs.filter((d) => d.kind === 'invoice');
		const partly = docs.filter((d) => d.kind === 'partlyReadable');
		const rows = idealRows(week).filter(
			(row) =>
				![invoices[0], invoices[1], invoices[2], partly[0], partly[1]].some((d) =>
					JSON.stringify(row.json).includes(d.key),
				),
		);
		rows.push(
			// invoices[0]: no row at all (lost)
			resultRow(invoices[1].files),
			resultRow(invoices[1].files), // delivered twice
			reviewRow(invoices[2].files), // the outage sent it to review
			resultRow(partly[0].files, partly[0].email.files[0].failedPrompts ?? ['Vendor']), // blank, no review
			resultRow(partly[1].files, ['Vendor']),
			reviewRow(partly[1].files), // blank, announced
			reviewRow(['image001.png']),
		);
		const report = checkWeek({
			week,
			grouping: 'file',
			rows,
			runs: [invoices[1].files, invoices[1].files],
		});
		const verdictOf = (d: (typeof docs)[number]) =>
			[...report.verdicts].find(([doc]) => doc.key === d.key)![1];
		expect([invoices[0], invoices[1], invoices[2], partly[0], partly[1]].map(verdictOf)).toEqual([
			'lost',
			'doubled',
			'wrong place',
			'blank unannounced',
			'ok',
		]);
		expect(report.rowsWithoutDocument.map((row) => row.json.Files)).toEqual(['image001.png']);
		expect(report.runsTwice).toEqual([invoices[1].key]);
		expect(report.summary).toContain(
			'0 merged, 1 blank unannounced, 1 doubled, 1 lost, 1 in the wrong sheet, 1 rows naming no document; 1 documents in two Runs',
		);
	});
});

describe('the example as measured', () => {
	const example = readExample();

	test('the grouping is read from the example: filesPerRun where set, else the node version’s default', () => {
		// The example sets it; taken out, the node version's default decides.
		const withoutGrouping = (parameters: Record<string, unknown>) =>
			Object.fromEntries(Object.entries(parameters).filter(([name]) => name !== 'filesPerRun'));
		const withCreate = (typeVersion: number, parameters: Record<string, unknown> = {}) => ({
			...example,
			nodes: example.nodes.map((n) =>
				n.type.endsWith('.extractionAgents')
					? { ...n, typeVersion, parameters: { ...withoutGrouping(n.parameters), ...parameters } }
					: n,
			),
		});
		expect(groupingOf(withCreate(1.4))).toBe('item');
		expect(groupingOf(withCreate(1.5))).toBe('file');
		expect(groupingOf(withCreate(1.5, { filesPerRun: 'item' }))).toBe('item');
		expect(groupingOf(withCreate(1.4, { filesPerRun: 'file' }))).toBe('file');
	});

	test('the stand-in keeps every other node and connection of the example (its Remove Duplicates included)', () => {
		const trigger = example.nodes.find((n) => n.type === 'n8n-nodes-base.gmailTrigger')!;
		const create = example.nodes.find((n) => n.type.endsWith('.extractionAgents'))!;
		const dedupe = example.nodes.find((n) => n.type === 'n8n-nodes-base.removeDuplicates')!;
		expect(dedupe).toBeDefined();
		const built = weekWorkflow({ example, filesDir: '/tmp/week-files' });
		expect(built.nodes.find((n) => n.name === dedupe.name)).toEqual(dedupe);
		expect(built.connections[trigger.name]).toEqual(example.connections[trigger.name]);
		expect(built.connections[dedupe.name]).toEqual(example.connections[dedupe.name]);
		const sheets = sheetStandIns(example, '/tmp/week-files');
		expect(sheets.map((s) => [s.sheetName, s.review])).toEqual([
			['Invoices', false],
			['Needs review', true],
		]);
		for (const node of example.nodes) {
			if (node.type === 'n8n-nodes-base.googleSheets' || node === trigger || node === create)
				continue;
			expect(built.nodes.find((n) => n.name === node.name)).toEqual(node);
		}
	});
});
