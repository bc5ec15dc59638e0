/**
 * The week's oracle: where each document ended up, judged by what the user holds at the end —
 * the rows of the result sheet and of the review sheet — whatever columns they have. A row
 * names a document when any of its cells holds one of the document's file names (every file
 * name of the week is unique, see generate.ts).
 *
 * The ground truth, by the grouping the example states (workflow.ts groupingOf):
 * - an invoice belongs in a result row of its own; with one Run per email its delivery note is
 *   part of it (one document, one row), with one Run per file the delivery note is a document
 *   with a result row of its own;
 * - an unreadable scan belongs in a review row;
 * - a partly readable document belongs in a review row; a result row with its blank cells is
 *   as good when a review row announces it too (then the review row is not a second place);
 * - a logo is no document: it belongs nowhere, and an email holding only a logo makes no row.
 *
 * Each document gets one verdict, the first that applies:
 * - lost: no row names it;
 * - doubled: it has two places or more (two rows for an email delivered twice, say);
 * - merged: its one row is another document's (a second invoice, or a scan, in the row of the
 *   invoice sent beside it; the row's owner is its first document that belongs in that sheet);
 * - blank unannounced: its one row is a result row with a blank Prompt cell, and no review row
 *   names it;
 * - wrong place: its one row is in the other sheet (an invoice in review after an outage);
 * - ok.
 */
import { INVOICE_PROMPTS, type FileKind, type Week, type WeekEmail } from './generate';
import type { Grouping } from './workflow';

export interface WeekDocument {
	/** Its first file's name. */
	key: string;
	files: string[];
	kind: FileKind;
	email: WeekEmail;
	expected: 'result' | 'review';
}

export type Verdict = 'ok' | 'lost' | 'doubled' | 'merged' | 'blank unannounced' | 'wrong place';

export interface SheetRow {
	review: boolean;
	json: Record<string, unknown>;
}

export interface WeekReport {
	seed: number;
	grouping: Grouping;
	emails: number;
	documents: WeekDocument[];
	verdicts: Map<WeekDocument, Verdict>;
	resultRows: number;
	reviewRows: number;
	/** Review rows (or result rows) that name no document: an email with only a logo, say. */
	rowsWithoutDocument: SheetRow[];
	/** Result rows with a blank Prompt cell that no review row announces. */
	blankRows: SheetRow[];
	counts: Record<Verdict, number>;
	/** Runs the service made per document, for the ones with more than one. */
	runsTwice: string[];
	summary: string;
}

/** The documents of the week under a grouping (each email once, however often delivered). */
export function documentsOf(week: Week, grouping: Grouping): WeekDocument[] {
	const documents: WeekDocument[] = [];
	for (const email of week.emails) {
		for (const file of email.files) {
			if (file.kind === 'logo') continue;
			if (file.kind === 'deliveryNote' && grouping === 'item') {
				const invoice = documents.find((d) => d.files.includes(file.invoice ?? ''));
				if (invoice) {
					invoice.files.push(file.name);
					continue;
				}
			}
			documents.push({
				key: file.name,
				files: [file.name],
				kind: file.kind,
				email,
				expected: file.kind === 'invoice' || file.kind === 'deliveryNote' ? 'result' : 'review',
			});
		}
	}
	return documents;
}

const isBlank = (value: unknown) =>
	value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/** Whether a result row leaves a Prompt's cell (or each of its fields' cells) empty. */
export function hasBlankPromptCell(row: Record<string, unknown>): boolean {
	return INVOICE_PROMPTS.some((prompt) => {
		const cells = Object.keys(row).filter(
			(column) => column === prompt || column.startsWith(`${prompt} `),
		);
		return cells.length === 0 || cells.every((column) => isBlank(row[column]));
	});
}

export function checkWeek(options: {
	week: Week;
	grouping: Grouping;
	rows: SheetRow[];
	/** The files of each Run the service made. */
	runs: string[][];
}): WeekReport {
	const { week, grouping, rows, runs } = options;
	const documents = documentsOf(week, grouping);
	const text = new Map(rows.map((row) => [row, JSON.stringify(row.json)]));
	const named = (row: SheetRow, document: WeekDocument) =>
		document.files.some((name) => text.get(row)!.includes(name));
	const documentsIn = new Map(rows.map((row) => [row, documents.filter((d) => named(row, d))]));
	const ownerOf = (row: SheetRow) => {
		const inRow = documentsIn.get(row)!;
		const sheet = row.review ? 'review' : 'result';
		return inRow.find((d) => d.expected === sheet) ?? inRow[0];
	};
	const verdicts = new Map<WeekDocument, Verdict>();
	for (const document of documents) {
		const results = rows.filter((row) => !row.review && named(row, document));
		const reviews = rows.filter((row) => row.review && named(row, document));
		const blank = results.some((row) => hasBlankPromptCell(row.json));
		const announced = blank && reviews.length > 0;
		const places = results.length + reviews.length - (announced ? 1 : 0);
		let verdict: Verdict;
		if (places === 0) verdict = 'lost';
		else if (places > 1) verdict = 'doubled';
		else {
			const [row] = results.length > 0 ? results : reviews;
			if (ownerOf(row) !== document) verdict = 'merged';
			else if (blank && !announced) verdict = 'blank unannounced';
			else if ((row.review ? 'review' : 'result') !== document.expected && !announced)
				verdict = 'wrong place';
			else verdict = 'ok';
		}
		verdicts.set(document, verdict);
	}
	const counts: Record<Verdict, number> = {
		ok: 0,
		lost: 0,
		doubled: 0,
		merged: 0,
		'blank unannounced': 0,
		'wrong place': 0,
	};
	for (const verdict of verdicts.values()) counts[verdict]++;
	const rowsWithoutDocument = rows.filter((row) => documentsIn.get(row)!.length === 0);
	const blankRows = rows.filter(
		(row) =>
			!row.review &&
			hasBlankPromptCell(row.json) &&
			!documentsIn.get(row)!.some((d) => rows.some((other) => other.review && named(other, d))),
	);
	const runsTwice = documents
		.filter((d) => runs.filter((files) => d.files.some((name) => files.includes(name))).length > 1)
		.map((d) => d.key);
	const resultRows = rows.filter((row) => !row.review).length;
	const reviewRows = rows.length - resultRows;
	const summary =
		`week seed ${week.seed}: ${week.emails.length} emails, ${documents.length} documents ` +
		`(one Run per ${grouping === 'item' ? 'email' : 'file'}): ${resultRows} rows, ${reviewRows} review, ` +
		`${counts.merged} merged, ${counts['blank unannounced']} blank unannounced, ${counts.doubled} doubled, ` +
		`${counts.lost} lost, ${counts['wrong place']} in the wrong sheet, ` +
		`${rowsWithoutDocument.length} rows naming no document; ${runsTwice.length} documents in two Runs`;
	return {
		seed: week.seed,
		grouping,
		emails: week.emails.length,
		documents,
		verdicts,
		resultRows,
		reviewRows,
		rowsWithoutDocument,
		blankRows,
		counts,
		runsTwice,
		summary,
	};
}

/** Every document that is not ok, one line each, to replay by hand. */
export function details(report: WeekReport): string[] {
	return [...report.verdicts]
		.filter(([, verdict]) => verdict !== 'ok')
		.map(
			([document, verdict]) =>
				`  ${verdict}: ${document.files.join(' + ')} (email ${document.email.id}, ${document.email.shape})`,
		)
		.concat(
			report.rowsWithoutDocument.map(
				(row) =>
					`  row naming no document in ${row.review ? 'review' : 'results'}: ${JSON.stringify(row.json).slice(0, 200)}`,
			),
		);
}
