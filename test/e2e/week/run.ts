/**
 * A generated week of invoice mail through the Gmail example in a real n8n (2.41.1 by default),
 * against the emulator: generate.ts draws the emails, workflow.ts stands in for Gmail and
 * Sheets, emulator.ts shapes each Run from its files' names, check.ts judges the rows.
 * Mid-week the service has an outage (three 503s on creation, one of them after the Run was
 * made) and n8n is stopped and started again on the same user folder.
 *
 *   npm run week -- --seed 7                 one week, its summary line and every document not ok
 *   npm run week -- --seed 7 --first 20      only the week's first 20 emails (to cut a failure down)
 *   options: --emails N (default 100), --poll-minutes M (default 120), --version 2.41.1, --keep
 *
 * The jest test (test/e2e/week.e2e.test.ts) runs one fixed seed of it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator, type Emulator } from '../../../dev/emulator';
import { callWebhook, startSession, type Session } from '../../../dev/n8n/session';
import { checkWeek, details, type SheetRow, type WeekReport } from './check';
import { OUTAGE, shapeWeekRuns } from './emulator';
import { generateWeek, scheduleOf, type Week, type WeekSchedule } from './generate';
import {
	WEEK_WORKFLOW,
	groupingOf,
	onlyWithAttachments,
	pollBody,
	readExample,
	rowsOf,
	sheetStandIns,
	weekWorkflow,
} from './workflow';

export interface WeekRunOptions {
	seed: number;
	emails?: number;
	first?: number;
	pollMinutes?: number;
	version?: string;
	/** Keep n8n's user folder (its log, database and the sheets' files). */
	keep?: boolean;
	/** Progress lines (default: to stderr). */
	log?: (line: string) => void;
}

export interface WeekRun {
	week: Week;
	schedule: WeekSchedule;
	report: WeekReport;
	/** Polls whose execution did not answer 200 (the webhook answers when the execution ends). */
	failedPolls: Array<{ poll: number; status: number; body: string }>;
	/** Creation requests the outage answered with a 503. */
	outage503s: number;
	restarted: boolean;
	userFolder: string;
	seconds: number;
}

export async function runWeek(options: WeekRunOptions): Promise<WeekRun> {
	const started = Date.now();
	const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
	const week = generateWeek(options.seed, { emails: options.emails, keepFirst: options.first });
	const example = readExample();
	const grouping = groupingOf(example);
	const attachedOnly = onlyWithAttachments(example);
	const schedule = scheduleOf(week, {
		everyMinutes: options.pollMinutes ?? 120,
		delivers: (email) => !attachedOnly || email.files.length > 0,
	});
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'ea-week-'));
	const filesDir = path.join(userFolder, 'files');
	const sheets = sheetStandIns(example, filesDir);
	for (const sheet of sheets) fs.mkdirSync(sheet.folder, { recursive: true });
	let emu: Emulator | undefined;
	let session: Session | undefined;
	try {
		// Runs take 300 ms: long enough that the node waits for them, short enough for a week.
		emu = await startEmulator({ runDurationMs: 300, logErrors: false, seed: options.seed });
		shapeWeekRuns(emu, week);
		session = await startSession({
			version: options.version,
			serviceUrl: emu.url,
			apiKey: emu.keys.alice,
			userFolder,
			workflows: [],
			examples: false,
			moreWorkflows: [weekWorkflow({ example, filesDir })],
			quiet: true,
			// n8n boots in about 30 s; on a machine shared with other test runs it took over 180 s.
			readyTimeoutMs: 600_000,
		});
		log(
			`[week] seed ${options.seed}: ${week.emails.length} emails in ${schedule.polls.length} polls, one Run per ${grouping === 'item' ? 'email' : 'file'}; n8n ${session.n8n.version} up after ${Math.round((Date.now() - started) / 1000)} s`,
		);
		const failedPolls: WeekRun['failedPolls'] = [];
		let restarted = false;
		for (const [index, poll] of schedule.polls.entries()) {
			if (index === schedule.outageAtPoll) emu.injectFaults(OUTAGE);
			const res = await callWebhook(
				session.server.url,
				WEEK_WORKFLOW.webhookPath,
				pollBody(poll.emails),
			);
			if (res.status !== 200)
				failedPolls.push({
					poll: index,
					status: res.status,
					body: res.bytes.toString('utf8').slice(0, 300),
				});
			if (index === schedule.restartAfterPoll && index + 1 < schedule.polls.length) {
				const stopped = Date.now();
				await session.restart();
				restarted = true;
				log(
					`[week] n8n restarted after poll ${index + 1} of ${schedule.polls.length} (${Math.round((Date.now() - stopped) / 1000)} s)`,
				);
			}
		}
		const rows: SheetRow[] = sheets.flatMap((sheet) =>
			rowsOf(sheet).map((json) => ({ review: sheet.review, json })),
		);
		const runs = [...emu.state.runs.values()]
			.filter((run) => !run.historical)
			.map((run) => run.files.map((file) => file.name));
		const report = checkWeek({ week, grouping, rows, runs });
		const outage503s = emu.requestLog.filter((entry) => entry.fault === '503').length;
		return {
			week,
			schedule,
			report,
			failedPolls,
			outage503s,
			restarted,
			userFolder,
			seconds: Math.round((Date.now() - started) / 1000),
		};
	} catch (error) {
		if (session) log(`[week] n8n log tail:\n${session.server.logs().slice(-4000)}`);
		throw error;
	} finally {
		await session?.stop();
		await emu?.stop();
		if (!options.keep) fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

/** What the command prints: the summary line, then how the week went and each document not ok. */
export function describeRun(run: WeekRun): string[] {
	return [
		run.report.summary,
		`  ${run.schedule.polls.length} polls (${run.schedule.polls.reduce((n, p) => n + p.redelivered.length, 0)} emails delivered again), ` +
			`${run.outage503s} creation requests answered 503, n8n ${run.restarted ? 'restarted' : 'NOT restarted'} mid-week, ` +
			`${run.failedPolls.length} executions failed, ${run.seconds} s`,
		...run.failedPolls.map((p) => `  poll ${p.poll + 1} answered ${p.status}: ${p.body}`),
		...details(run.report),
	];
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			seed: { type: 'string', default: '1' },
			emails: { type: 'string' },
			first: { type: 'string' },
			'poll-minutes': { type: 'string' },
			version: { type: 'string' },
			keep: { type: 'boolean', default: false },
		},
	});
	const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
	const run = await runWeek({
		seed: Number(values.seed),
		emails: number(values.emails),
		first: number(values.first),
		pollMinutes: number(values['poll-minutes']),
		version: values.version,
		keep: values.keep,
	});
	console.log(describeRun(run).join('\n'));
	if (values.keep) console.log(`  n8n's user folder kept: ${run.userFolder}`);
}

if (require.main === module) {
	main().catch((error: Error) => {
		console.error(error.stack ?? error.message);
		process.exit(1);
	});
}
