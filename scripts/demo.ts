/**
 * `npm run demo`: the emulator of the service plus a real n8n with this package installed (from
 * `npm pack`, as users install it), a credential already pointing at the emulator and the example
 * workflows imported. The headline workflow (invoice PDFs → Create Run + wait → Download
 * Templated Output as XLSX) runs once headlessly and its results are printed; then the editor
 * stays up at http://127.0.0.1:5678 until Ctrl-C.
 *
 *   npm run demo                     editor left running
 *   npm run demo -- --headless       stop after the printed results (CI)
 *   npm run demo -- --n8n 1.123.81   another n8n version;  --port 5678  the editor's port
 *
 * The first run on a machine installs n8n into ~/.cache/n8n-nodes-extraction-agents (a few
 * minutes; see dev/n8n/host.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEMO_AGENT_IDS, startEmulator } from '../dev/emulator';
import { callWebhook, host, nodeItems, OWNER, startSession } from '../dev/n8n/session';
import {
	CREDENTIAL_NAME,
	headlineWorkflow,
	pollTimesEvery,
	samplePdf,
	triggerWorkflow,
	usageWorkflow,
	WEBHOOK_PATHS,
	WORKFLOW_IDS,
} from '../dev/n8n/workflows';

const SAMPLE_INVOICES = [
	{
		fileName: 'invoice-acme-2026-0042.pdf',
		text: 'ACME Supplies GmbH - Invoice 2026-0042 - Total 1,250.00 EUR',
	},
	{
		fileName: 'invoice-globex-INV-7781.pdf',
		text: 'Globex Parts Ltd - Invoice INV-7781 - Total 980.40 GBP',
	},
];

function formatValue(value: unknown): string {
	if (value === null || value === undefined) return '—';
	if (typeof value === 'object' && !Array.isArray(value)) {
		const v = value as Record<string, unknown>;
		if ('amount' in v && 'currency' in v) return `${String(v.amount)} ${String(v.currency)}`;
		return Object.entries(v)
			.map(([k, x]) => `${k}: ${typeof x === 'object' ? JSON.stringify(x) : String(x)}`)
			.join(', ');
	}
	return Array.isArray(value) ? value.map(formatValue).join('; ') : String(value);
}

function table(header: string[], rows: string[][]): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
	const line = (cells: string[]) =>
		`| ${cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
	return [
		line(header),
		`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
		...rows.map(line),
	].join('\n');
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			headless: { type: 'boolean', default: false },
			n8n: { type: 'string', default: process.env.N8N_E2E_VERSION || host.DEFAULT_VERSION },
			port: { type: 'string', default: '5678' },
			folder: { type: 'string', default: path.join(os.tmpdir(), 'n8n-extraction-agents-demo') },
		},
	});
	const headless = values.headless as boolean;
	const port = Number(values.port);
	const started = Date.now();
	const say = (message: string) => console.log(`[demo] ${message}`);

	if (await host.portInUse(port)) {
		console.error(
			`[demo] port ${port} is already in use (another demo or n8n still running?). Stop it, or pass --port N.`,
		);
		process.exit(1);
	}
	const emu = await startEmulator({ runDurationMs: 2500, logErrors: false });
	say(`emulator of the Extraction Agents service at ${emu.url} (demo key: alice, Enterprise plan)`);

	// A fresh n8n user folder each time; it is kept after the demo so the files stay inspectable.
	const userFolder = path.resolve(values.folder as string);
	fs.rmSync(userFolder, { recursive: true, force: true });
	const inputDir = path.join(userFolder, 'files', 'invoices');
	const outputDir = path.join(userFolder, 'files', 'output');
	say(
		`installing the packed package into a real n8n ${values.n8n as string} (user folder ${userFolder}) ...`,
	);
	const session = await startSession({
		version: values.n8n as string,
		serviceUrl: emu.url,
		apiKey: emu.keys.alice,
		port,
		userFolder,
		workflows: [
			headlineWorkflow({ inputDir, outputDir }),
			triggerWorkflow(pollTimesEvery('minute'), {
				id: 'eaExampleTrigger',
				name: 'Example: When an invoice Run finishes',
				agentId: DEMO_AGENT_IDS.invoices,
			}),
			usageWorkflow({ id: 'eaExampleUsage01', name: 'Example: Credit usage (all records)' }),
		],
	});
	let stopping = false;
	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say('stopping n8n and the emulator ...');
		await session.stop({ keepFolder: true });
		await emu.stop();
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));

	try {
		for (const invoice of SAMPLE_INVOICES)
			fs.writeFileSync(path.join(inputDir, invoice.fileName), samplePdf(invoice.text));
		say(
			`n8n ${session.n8n.version} is up at ${session.server.url} (${Math.round((Date.now() - started) / 1000)} s)`,
		);
		say(
			`running "Example: Extract invoices and render Invoice lines (XLSX)" on ${SAMPLE_INVOICES.length} PDFs in ${inputDir} ...`,
		);

		const res = await callWebhook(session.server.url, WEBHOOK_PATHS.headline);
		if (res.status !== 200)
			throw new Error(
				`the workflow answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 2000)}`,
			);
		const [execution] = await session.waitForExecutions(WORKFLOW_IDS.headline, 1, 60_000);
		const details = await session.execution(execution.id);
		if (execution.status !== 'success')
			throw new Error(
				`execution ${execution.id} ended ${execution.status}: ${JSON.stringify(details.error)}`,
			);
		const runs = nodeItems(details, 'Extract with the Invoices Agent').map((item) => item.json);
		const order = runs.length
			? Object.keys(runs[0]).filter(
					(k) =>
						![
							'run_id',
							'agent_id',
							'status',
							'run_url',
							'files',
							'user_defined_id',
							'created',
							'completed',
							'failed_prompts',
							'credits_used',
						].includes(k),
				)
			: [];

		console.log('');
		console.log(
			`Execution ${execution.id}: ${runs.length} Runs of Agent ${DEMO_AGENT_IDS.invoices} "Invoices"`,
		);
		console.log('');
		const columns = runs.map(
			(run) => `${(run.files as string[]).join(', ')} (Run ${String(run.run_id)})`,
		);
		console.log(
			table(
				['Prompt', ...columns],
				order.map((prompt) => [prompt, ...runs.map((run) => formatValue(run[prompt]))]),
			),
		);
		console.log('');
		const files = fs
			.readdirSync(outputDir)
			.filter((f) => f.endsWith('.xlsx'))
			.sort();
		if (files.length === 0) throw new Error(`no .xlsx was written to ${outputDir}`);
		console.log(
			'Rendered "Invoice lines.xlsx" (Download Templated Output, XLSX), written by the workflow:',
		);
		for (const file of files) {
			const full = path.join(outputDir, file);
			console.log(`  ${full}  (${fs.statSync(full).size} bytes)`);
		}
		console.log('');

		if (headless) {
			say(
				`done in ${Math.round((Date.now() - started) / 1000)} s (--headless: not leaving the editor running)`,
			);
			await shutdown(0);
			return;
		}
		console.log(`n8n editor: ${session.server.url}`);
		console.log(`  email:    ${OWNER.email}`);
		console.log(`  password: ${OWNER.password}`);
		console.log(
			`  Credential "${CREDENTIAL_NAME}" points at ${emu.url} (the emulator); the example workflows are under Overview.`,
		);
		console.log(
			'  The published "When an invoice Run finishes" workflow polls the Invoices Agent every minute.',
		);
		console.log('');
		console.log('Ctrl-C to stop.');
		await new Promise(() => undefined);
	} catch (err) {
		console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`);
		console.error(`[demo] n8n log: ${session.server.logFile}`);
		await shutdown(1);
	}
}

main().catch((err) => {
	console.error(
		`[demo] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
	);
	process.exit(1);
});
