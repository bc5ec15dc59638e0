/**
 * Deterministic Prompt results. A result depends only on (seed, run id, Prompt id, file names), so
 * the same Run always reads the same, and values look natural: an invoice number comes from the
 * digits in the file name, a date from a date in the file name, and so on.
 */
import { rngFor, pick, intBetween, round2 } from './random';
import { tsOffset } from './time';

export interface ResultInput {
	seed: number;
	runId: number;
	prompt: {
		id: number;
		name: string;
		generator: string;
		webSearch: boolean;
		fields?: string[];
		value?: unknown;
	};
	files: string[];
	failed: boolean;
	startMs: number;
	endMs: number;
}

export interface Citation {
	file: string;
	pages: number[];
	regions?: Array<{ page: number; point: [number, number]; text: string }>;
}

/** A Prompt result as the single-Run read shows it (the fullest form). */
export interface FullPromptResult {
	status: 'success' | 'failed';
	value: unknown;
	metadata: {
		reasoning: string;
		/** Deprecated (service note 22): always 1.0 on success, never a real score. */
		confidence?: number;
		citations: Citation[];
		url_citations: Array<{ cited_text: string; title: string; url: string }>;
	};
	start_time: string;
	end_time: string;
	usage: { credits_used: number };
}

/** The form shown by run creation and the list of Runs: no timing, usage, regions or url_citations. */
export function summariseResult(full: FullPromptResult): unknown {
	const metadata: Record<string, unknown> = {
		reasoning: full.metadata.reasoning,
		citations: full.metadata.citations.map(({ file, pages }) => ({ file, pages })),
	};
	if (full.metadata.confidence !== undefined) metadata.confidence = full.metadata.confidence;
	return { status: full.status, value: full.value, metadata };
}

const VENDORS = [
	'Acme GmbH',
	'Globex Corporation',
	'Initech Ltd',
	'Umbrella Supplies',
	'Stark Industries',
	'Wayne Enterprises',
];
const MERCHANTS = [
	'Café Lumière',
	'City Taxi',
	'Office Depot',
	'Hotel Adlon',
	'Deutsche Bahn',
	'Pret A Manger',
];
const CATEGORIES = ['Meals', 'Travel', 'Office supplies', 'Lodging', 'Software'];
const LAWS = ['Laws of England and Wales', 'German law (BGB)', 'State of New York', 'Swiss law'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF'];

function baseName(file: string): string {
	return file.replace(/\.[^.]+$/, '');
}

function digitsOf(file: string): string | null {
	const runs = baseName(file).match(/\d{3,}/g);
	if (!runs) return null;
	// Prefer a run of digits that is not a date component such as 2026.
	const nonYear = runs.filter((d) => !/^(19|20)\d{2}$/.test(d) && !/^(19|20)\d{6}$/.test(d));
	return (nonYear.length ? nonYear : runs)[nonYear.length ? nonYear.length - 1 : runs.length - 1];
}

function dateOf(file: string): string | null {
	const m = /((?:19|20)\d{2})[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])/.exec(file);
	return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

function randomDate(rng: () => number): string {
	const month = intBetween(rng, 1, 9);
	const day = intBetween(rng, 1, 28);
	return `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function amount(rng: () => number): number {
	return round2(intBetween(rng, 1500, 950000) / 100);
}

function nameMatch(file: string, names: string[]): string | null {
	const lower = file.toLowerCase();
	return names.find((n) => lower.includes(n.toLowerCase().split(' ')[0])) ?? null;
}

/** Produces value and an explanation for a generator key. */
function generate(
	input: ResultInput,
	file: string,
	rng: () => number,
): { value: unknown; why: string } {
	const { prompt } = input;
	switch (prompt.generator) {
		case 'fixed':
			return { value: prompt.value ?? null, why: `The fixed value of "${prompt.name}".` };
		case 'invoice_number': {
			const digits = digitsOf(file);
			const value = `INV-${digits ?? String(intBetween(rng, 10000, 99999))}`;
			return {
				value,
				why: digits
					? `The header of ${file} reads "Invoice no. ${value}".`
					: `The invoice number ${value} is printed next to the date.`,
			};
		}
		case 'po_number': {
			const digits = digitsOf(file);
			const value = `PO-${digits ?? String(intBetween(rng, 1000, 9999))}`;
			return { value, why: `The order reference ${value} appears in the top right corner.` };
		}
		case 'date': {
			const fromName = dateOf(file);
			const value = fromName ?? randomDate(rng);
			return { value, why: `The document is dated ${value}.` };
		}
		case 'vendor': {
			const value = nameMatch(file, VENDORS) ?? pick(rng, VENDORS);
			return { value, why: `${value} is named as the issuer in the letterhead.` };
		}
		case 'merchant': {
			const value = nameMatch(file, MERCHANTS) ?? pick(rng, MERCHANTS);
			return { value, why: `The receipt was issued by ${value}.` };
		}
		case 'category': {
			const value = pick(rng, CATEGORIES);
			return { value, why: `The purchased items are typical of the category ${value}.` };
		}
		case 'money': {
			const value = amount(rng);
			return { value, why: `The total due is ${value.toFixed(2)}.` };
		}
		case 'money_form': {
			const value: Record<string, unknown> = {};
			for (const field of prompt.fields ?? ['amount', 'currency']) {
				if (/currency/i.test(field)) value[field] = pick(rng, CURRENCIES);
				else if (/amount|total|net|tax|vat|gross/i.test(field)) value[field] = amount(rng);
				else value[field] = `${field} of ${file}`;
			}
			return {
				value,
				why: `The totals box at the bottom of ${file} lists ${Object.entries(value)
					.map(([k, v]) => `${k} ${v}`)
					.join(', ')}.`,
			};
		}
		case 'parties': {
			const first = pick(rng, VENDORS);
			const second = pick(
				rng,
				VENDORS.filter((v) => v !== first),
			);
			return {
				value: [first, second],
				why: `The agreement is made between ${first} and ${second}.`,
			};
		}
		case 'term_months': {
			const value = pick(rng, [12, 24, 36, 48]);
			return { value, why: `Clause 2 sets a term of ${value} months.` };
		}
		case 'governing_law': {
			const value = pick(rng, LAWS);
			return { value, why: `The governing-law clause names ${value}.` };
		}
		case 'boolean': {
			const value = rng() < 0.5;
			return { value, why: value ? 'The clause is present.' : 'No such clause was found.' };
		}
		case 'line_items': {
			const n = intBetween(rng, 1, 4);
			const items = Array.from(
				{ length: n },
				(_, i) =>
					`Item ${i + 1}: ${pick(rng, ['Widgets', 'Consulting', 'Licences', 'Shipping', 'Support'])} x ${intBetween(rng, 1, 20)}`,
			);
			return { value: items, why: `${n} line item(s) are listed in the table on page 1.` };
		}
		case 'iban': {
			const value = `DE${intBetween(rng, 10, 99)} 3704 0044 ${intBetween(rng, 1000, 9999)} ${intBetween(rng, 1000, 9999)} ${intBetween(rng, 10, 99)}`;
			return { value, why: 'The account IBAN is printed under the bank logo.' };
		}
		case 'summary': {
			const value = `${baseName(file)}: a ${pick(rng, ['supply', 'services', 'licence', 'framework'])} agreement with standard termination and liability clauses.`;
			return { value, why: 'Summarised from the recitals and the operative clauses.' };
		}
		default: {
			const value = `${prompt.name} of ${file}`;
			return { value, why: `Extracted "${prompt.name}" from ${file}.` };
		}
	}
}

/** Credits charged for one Prompt (0 when it failed). */
export function promptCredits(
	seed: number,
	runId: number,
	promptId: number,
	fileCount: number,
	failed: boolean,
): number {
	if (failed) return 0;
	return round2(0.4 + 0.1 * fileCount + rngFor(seed, 'credits', runId, promptId)() * 0.3);
}

export function buildResult(input: ResultInput): FullPromptResult {
	const rng = rngFor(input.seed, 'result', input.runId, input.prompt.id);
	const files = input.files.length ? input.files : ['(no file)'];
	const file = files[Math.floor(rng() * files.length)];
	const timing = { start_time: tsOffset(input.startMs), end_time: tsOffset(input.endMs) };
	const credits = promptCredits(
		input.seed,
		input.runId,
		input.prompt.id,
		input.files.length,
		input.failed,
	);
	if (input.failed) {
		return {
			status: 'failed',
			value: null,
			metadata: {
				reasoning: `The Prompt "${input.prompt.name}" could not be evaluated: the model returned no usable answer.`,
				citations: [],
				url_citations: [],
			},
			...timing,
			usage: { credits_used: credits },
		};
	}
	const { value, why } = generate(input, file, rng);
	const page = 1;
	const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
	return {
		status: 'success',
		value,
		metadata: {
			reasoning: why,
			confidence: 1.0,
			citations: [
				{
					file,
					pages: [page],
					regions: [
						{
							page,
							point: [round2(0.1 + rng() * 0.6), round2(0.1 + rng() * 0.8)],
							text: text.slice(0, 80),
						},
					],
				},
			],
			url_citations: input.prompt.webSearch
				? [
						{
							cited_text: `Standard ${input.prompt.name.toLowerCase()} provisions`,
							title: `${input.prompt.name} - reference`,
							url: `https://example.org/reference/${encodeURIComponent(input.prompt.name.toLowerCase().replace(/\s+/g, '-'))}`,
						},
					]
				: [],
		},
		...timing,
		usage: { credits_used: credits },
	};
}
