/**
 * A week of invoice mail, generated from a seed: about 100 emails from Monday to Sunday, each
 * with 0–4 attachments, in the shapes an accounts mailbox gets (one invoice; an invoice with its
 * delivery note; two invoices; an unreadable scan, alone or beside an invoice; a partly readable
 * document; a logo shown in the email's text; an email with nothing attached), some emails
 * delivered twice. The same seed always gives the same week (`npm run week -- --seed N`
 * replays it; `--emails N` keeps only its first N emails, to cut a failing week down by hand).
 *
 * Every file's name says what it is (the emulator shapes its Run from the name, see
 * emulator.ts) and is unique in the week (a number no other file has), so that a row naming a
 * file names one document.
 */
import { mulberry32, hashString } from '../../../dev/emulator/random';
import { samplePdf } from '../../../dev/n8n/workflows';

/** The Prompts of the emulator's Invoices Agent (its demo data), in their order. */
export const INVOICE_PROMPTS = ['Invoice number', 'Invoice date', 'Vendor', 'Total amount'];

export type FileKind = 'invoice' | 'deliveryNote' | 'unreadableScan' | 'partlyReadable' | 'logo';

export interface WeekFile {
	name: string;
	kind: FileKind;
	mimeType: string;
	/** partlyReadable: the Prompts its Run cannot answer (at least one, never all). */
	failedPrompts?: string[];
	/** deliveryNote: the invoice it goes with (same email). */
	invoice?: string;
}

/** What an email carries, as the generator draws it. */
export type EmailShape =
	| 'invoice'
	| 'invoice with delivery note'
	| 'two invoices'
	| 'two invoices with delivery notes'
	| 'unreadable scan'
	| 'invoice and unreadable scan'
	| 'two invoices and unreadable scan'
	| 'partly readable'
	| 'invoice and partly readable'
	| 'partly readable and unreadable scan'
	| 'logo only'
	| 'nothing attached';

export interface WeekEmail {
	/** Gmail's message id (16 hex digits). */
	id: string;
	shape: EmailShape;
	/** When it arrives (ms since the epoch). */
	receivedMs: number;
	subject: string;
	from: string;
	/** Attachments in the order Gmail lists them (a signature logo last). */
	files: WeekFile[];
	/** Its text as HTML: a logo is shown in it by Content-ID, as Outlook sends a signature. */
	html: string;
}

/** One poll of the mailbox: the emails it gives (an email delivered again appears twice in the week). */
export interface WeekPoll {
	atMs: number;
	emails: WeekEmail[];
	/** The email ids in this poll delivered for the second time. */
	redelivered: string[];
}

export interface Week {
	seed: number;
	emails: WeekEmail[];
	/** Every file of the week by name. */
	files: Map<string, WeekFile>;
	/** Monday 00:00 UTC of the week. */
	startMs: number;
}

export interface WeekOptions {
	/** How many emails the week holds (default 100). */
	emails?: number;
	/** Keep only the first N emails of the seed's week (the same N emails, whatever `emails` says). */
	keepFirst?: number;
}

/** How often each shape comes, out of 100. */
const SHAPES: Array<[EmailShape, number]> = [
	['invoice', 30],
	['invoice with delivery note', 12],
	['two invoices', 12],
	['two invoices with delivery notes', 3],
	['unreadable scan', 6],
	['invoice and unreadable scan', 6],
	['two invoices and unreadable scan', 3],
	['partly readable', 8],
	['invoice and partly readable', 4],
	['partly readable and unreadable scan', 3],
	['logo only', 7],
	['nothing attached', 6],
];

/** Share of emails with files that also carry a logo in their signature. */
const SIGNATURE_LOGO = 0.25;
/** Share of emails delivered a second time, a few polls later. */
const DELIVERED_TWICE = 0.04;

const VENDORS = [
	'billing@acme-supplies.example',
	'invoices@nordic-freight.example',
	'accounts@office-paper.example',
	'ar@cloud-hosting.example',
	'rechnung@metallbau-weber.example',
	'factures@imprimerie-leroux.example',
];

/** Monday 23 November 2026, 00:00 UTC. */
const WEEK_START = Date.UTC(2026, 10, 23);
const DAY = 86_400_000;

/** A time in the week, mostly in office hours on weekdays. */
function arrival(rng: () => number): number {
	const weekend = rng() < 0.06;
	const day = weekend ? 5 + Math.floor(rng() * 2) : Math.floor(rng() * 5);
	const officeHours = rng() < 0.85;
	const hour = officeHours ? 7 + rng() * 11 : rng() * 24;
	return WEEK_START + day * DAY + Math.floor(hour * 3_600_000);
}

function draw(rng: () => number): EmailShape {
	let at = rng() * SHAPES.reduce((sum, [, weight]) => sum + weight, 0);
	for (const [shape, weight] of SHAPES) {
		if (at < weight) return shape;
		at -= weight;
	}
	return SHAPES[0][0];
}

export function generateWeek(seed: number, options: WeekOptions = {}): Week {
	const rng = mulberry32(hashString(`week:${seed}`));
	const count = options.emails ?? 100;
	const files = new Map<string, WeekFile>();
	let number = 100 + Math.floor(rng() * 800);
	const next = () => String(++number).padStart(4, '0');
	const add = (file: WeekFile): WeekFile => {
		files.set(file.name, file);
		return file;
	};
	const invoice = () =>
		add({ name: `INV-2026-${next()}.pdf`, kind: 'invoice', mimeType: 'application/pdf' });
	const deliveryNote = (of: WeekFile) =>
		add({
			name: `DN-2026-${next()}.pdf`,
			kind: 'deliveryNote',
			mimeType: 'application/pdf',
			invoice: of.name,
		});
	const scan = () =>
		add({ name: `Scan-${next()}.pdf`, kind: 'unreadableScan', mimeType: 'application/pdf' });
	const partly = () => {
		const failed = INVOICE_PROMPTS.filter(() => rng() < 0.4);
		if (failed.length === 0) failed.push(INVOICE_PROMPTS[Math.floor(rng() * 4)]);
		if (failed.length === INVOICE_PROMPTS.length) failed.shift();
		return add({
			name: `faded-invoice-${next()}.pdf`,
			kind: 'partlyReadable',
			mimeType: 'application/pdf',
			failedPrompts: failed,
		});
	};
	const logo = (): WeekFile => ({ name: 'image001.png', kind: 'logo', mimeType: 'image/png' });

	const emails: WeekEmail[] = [];
	for (let i = 0; i < count; i++) {
		const shape = draw(rng);
		let attached: WeekFile[];
		switch (shape) {
			case 'invoice':
				attached = [invoice()];
				break;
			case 'invoice with delivery note': {
				const first = invoice();
				attached = [first, deliveryNote(first)];
				break;
			}
			case 'two invoices':
				attached = [invoice(), invoice()];
				break;
			case 'two invoices with delivery notes': {
				const [a, b] = [invoice(), invoice()];
				attached = [a, deliveryNote(a), b, deliveryNote(b)];
				break;
			}
			case 'unreadable scan':
				attached = [scan()];
				break;
			case 'invoice and unreadable scan':
				attached = [invoice(), scan()];
				break;
			case 'two invoices and unreadable scan':
				attached = [invoice(), invoice(), scan()];
				break;
			case 'partly readable':
				attached = [partly()];
				break;
			case 'invoice and partly readable':
				attached = [invoice(), partly()];
				break;
			case 'partly readable and unreadable scan':
				attached = [partly(), scan()];
				break;
			case 'logo only':
				attached = [logo()];
				break;
			case 'nothing attached':
				attached = [];
				break;
		}
		const signed =
			shape === 'logo only' ||
			(attached.length > 0 && attached.length < 4 && rng() < SIGNATURE_LOGO);
		if (signed && shape !== 'logo only') attached.push(logo());
		const from = VENDORS[Math.floor(rng() * VENDORS.length)];
		const hex = (digits: number) =>
			Math.floor(rng() * 16 ** digits)
				.toString(16)
				.padStart(digits, '0');
		const id = `18f2${hex(6)}${hex(6)}`;
		const documents = attached.filter((file) => file.kind !== 'logo').length;
		const subject =
			documents === 0
				? 'Our new address'
				: documents === 1
					? `Invoice ${attached[0].name.replace(/\.pdf$/, '')}`
					: `${documents} documents for your records`;
		const html = [
			'<div dir="ltr"><p>Hello,</p><p>please find attached our documents.</p><p>Kind regards</p>',
			signed
				? '<p><img width="120" height="40" src="cid:image001.png@01DB3C4A.5F6E7A80" alt="image001.png"></p>'
				: '',
			'</div>',
		].join('');
		emails.push({
			id,
			shape,
			receivedMs: arrival(rng),
			subject,
			from,
			files: attached,
			html,
		});
	}
	emails.sort((a, b) => a.receivedMs - b.receivedMs || a.id.localeCompare(b.id));
	// Which emails come twice is drawn after the week is laid out, from its own stream, so that
	// keeping the first N emails keeps their duplicates.
	const kept = options.keepFirst ? emails.slice(0, options.keepFirst) : emails;
	const keptFiles = new Map(
		[...files].filter(([name]) => kept.some((email) => email.files.some((f) => f.name === name))),
	);
	return { seed, emails: kept, files: keptFiles, startMs: WEEK_START };
}

export interface WeekSchedule {
	polls: WeekPoll[];
	/** The outage (three 503s on creation, emulator.ts OUTAGE) starts at this poll. */
	outageAtPoll: number;
	/** n8n is stopped and started again after this poll. */
	restartAfterPoll: number;
}

/**
 * The polls of the week: a poll every `everyMinutes` gives the emails that arrived since the
 * previous one and that the trigger's search lets through (`delivers`); an empty poll starts no
 * execution, as with the Gmail Trigger. An email drawn to come twice comes again two polls
 * later; the first poll after the restart also gives again the last email before it (the
 * trigger had not saved that it gave it). The outage comes about a third into the week, the
 * restart in its middle.
 */
export function scheduleOf(
	week: Week,
	options: { everyMinutes: number; delivers?: (email: WeekEmail) => boolean },
): WeekSchedule {
	const rng = mulberry32(hashString(`week:${week.seed}:twice`));
	const step = options.everyMinutes * 60_000;
	const delivered = week.emails.filter(options.delivers ?? (() => true));
	const byPoll = new Map<number, WeekEmail[]>();
	for (const email of delivered) {
		const at = Math.ceil((email.receivedMs + 1) / step) * step;
		byPoll.set(at, [...(byPoll.get(at) ?? []), email]);
	}
	const polls: WeekPoll[] = [...byPoll.entries()]
		.sort(([a], [b]) => a - b)
		.map(([atMs, emails]) => ({ atMs, emails: [...emails], redelivered: [] }));
	const twice = delivered.filter(() => rng() < DELIVERED_TWICE);
	for (const email of twice) {
		const index = polls.findIndex((poll) => poll.emails.includes(email));
		const again = polls[Math.min(index + 2, polls.length - 1)];
		if (again.emails.includes(email)) continue;
		again.emails.push(email);
		again.redelivered.push(email.id);
	}
	const restartAfterPoll = Math.max(0, Math.floor(polls.length / 2) - 1);
	if (restartAfterPoll + 1 < polls.length) {
		const last = polls[restartAfterPoll].emails.at(-1);
		const after = polls[restartAfterPoll + 1];
		if (last && !after.emails.includes(last)) {
			after.emails.unshift(last);
			after.redelivered.push(last.id);
		}
	}
	return { polls, outageAtPoll: Math.floor(polls.length / 3), restartAfterPoll };
}

/** The bytes of a file: a small PDF naming it, or a small PNG for a logo. */
export function bytesOf(file: WeekFile): Buffer {
	if (file.kind !== 'logo') return samplePdf(`${file.kind}: ${file.name}`);
	// A 1×1 PNG: the logo's content does not matter, only that it is an image.
	return Buffer.from(
		'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
		'base64',
	);
}
