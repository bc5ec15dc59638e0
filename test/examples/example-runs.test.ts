/**
 * Each example that reads files runs here as one execution (test/examples/run-example.ts): its
 * trigger gives a few documents, one of which the emulator's Agent cannot read (its Run ends
 * `failed`, by file name: test/node/fixtures.ts shapeRunsByFileName), and the test checks what
 * reaches each step a user would look at: the rows a sheet gets, the folder each file moves to,
 * the text of an alert or of the form's last page. What the person checking a document needs
 * from a failure (the file, the Prompts that failed, why, the Run's link) is checked word for
 * word; n8n setup hints (the error's `description`) must not reach them.
 */
import type { IDataObject } from 'n8n-workflow';
import { DEMO_AGENT_IDS, startEmulator, type Emulator } from '../../dev/emulator';
import { createPoller, useHarness } from '../../dev/harness';
import type { HarnessInputItem } from '../../dev/harness/nodes/HarnessInput.node';
import { shapeRunsByFileName } from '../node/fixtures';
import { INVOICES, loadExample, nodeNamed, withDemoAgent } from './helpers';
import { InMemoryWorkbook } from './excel-365';
import { canRunExamples, runExample, type ExcelWorkbook, type StandInCall } from './run-example';

useHarness();

const UNREADABLE = 'blurred-scan.pdf';
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n${text}\n%%EOF\n`);
const file = (fileName: string) => ({
	data: pdf(`document ${fileName}`),
	fileName,
	mimeType: 'application/pdf',
});
const RUN_LINK = /^http:\/\/127\.0\.0\.1:\d+\/app\/agents\/\d+\/runs\/\d+$/;

/** What an email is in Gmail Trigger's output (Simplify off, attachments downloaded). */
function gmailEmail(id: string, subject: string, attachments: string[]): HarnessInputItem {
	return {
		json: {
			id,
			threadId: id,
			date: '2026-03-02T09:14:00.000Z',
			subject,
			from: { text: 'billing@vendor.example', value: [{ address: 'billing@vendor.example' }] },
		},
		binary: Object.fromEntries(attachments.map((name, i) => [`attachment_${i}`, file(name)])),
	};
}

/** A Gmail email whose only file is the logo its HTML shows by Content-ID (no document). */
function logoOnlyEmail(id: string, subject: string): HarnessInputItem {
	const email = gmailEmail(id, subject, []);
	return {
		json: {
			...email.json,
			html: '<p>Thank you.</p><p><img src="cid:ii_logo1" alt="image001.png" width="120"></p>',
		},
		binary: {
			attachment_0: {
				data: Buffer.from('89504e470d0a1a0a', 'hex'),
				fileName: 'image001.png',
				mimeType: 'image/png',
			},
		},
	};
}

/** The text a failed Run's Prompts give as their reasons, one line per Prompt. */
function failureReasonsOf(emulator: Emulator, runUrl: string): string {
	const [, agentId, runId] = /\/agents\/(\d+)\/runs\/(\d+)$/.exec(runUrl)!;
	const run = emulator.getRun(Number(agentId), Number(runId)) as unknown as {
		status: string;
		data: Record<string, { status: string; metadata?: { reasoning?: string } }>;
	};
	expect(run.status).toBe('failed');
	return Object.entries(run.data)
		.filter(([, result]) => result.status === 'failed')
		.map(
			([name, result]) => `${name}: ${String(result.metadata?.reasoning).replace(/[.\s]+$/, '')}`,
		)
		.join('\n');
}

/** What an email is in Outlook Trigger's output (Output: Simple, attachments downloaded). */
function outlookEmail(id: string, subject: string, attachments: string[]): HarnessInputItem {
	return {
		json: {
			id,
			conversationId: `conv-${id}`,
			subject,
			bodyPreview: 'Please find attached.',
			from: 'billing@vendor.example',
			to: ['ap@example.com'],
			categories: [],
			hasAttachments: true,
		},
		binary: Object.fromEntries(attachments.map((name, i) => [`attachment_${i}`, file(name)])),
	};
}

/** An empty workbook for the Excel 365 nodes, each node on the worksheet `worksheetOf` names. */
function excelWorkbook(worksheets: string[], worksheetOf: (node: string) => string): ExcelWorkbook {
	return { workbook: new InMemoryWorkbook(worksheets), worksheetOf };
}

/** A row's cells as Excel holds them: the item's value under each column, as text. */
const cellsOf = (header: string[], json: IDataObject) =>
	header.map((column) =>
		json[column] === undefined || json[column] === null ? '' : String(json[column]),
	);

const parametersOf = (calls: StandInCall[], name: string) =>
	calls.map((call) => call.parameters[name]);

(canRunExamples ? describe : describe.skip)(
	'examples/ run as one execution (stand-ins for Google, Microsoft and Slack)',
	() => {
		let emulator: Emulator;
		let credentials: { apiKey: string; baseUrl: string };
		beforeAll(async () => {
			emulator = await startEmulator({ logErrors: false, runDurationMs: 300 });
			credentials = { apiKey: emulator.keys.alice, baseUrl: emulator.url };
		});
		afterAll(async () => {
			await emulator.stop();
		});

		it('Google Drive folder, file by file: one Run per new file, a row for each read file, then each file to Done; the unreadable one to Needs review', async () => {
			const workflow = loadExample('google-drive-new-files-to-google-sheets.json');
			const names = ['INV-7001.pdf', UNREADABLE, 'INV-7002.pdf'];
			// Google Drive Trigger's file, with the file its Download file step adds.
			const driveFiles = names.map((name, i) => ({
				json: { id: `drive-file-${i}`, name, mimeType: 'application/pdf' },
				binary: { data: file(name) },
			}));
			shapeRunsByFileName(emulator, { failed: UNREADABLE }, names.length);
			const seq = emulator.lastSeq;
			const run = await runExample(workflow, driveFiles, credentials);
			expect(run.result.error).toBeUndefined();
			const uploads = emulator
				.requestsSince(seq)
				.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
			// Files are sent several at a time (Items in Parallel): in any order.
			expect(uploads.map((upload) => upload.upload?.files.map((f) => f.filename)).sort()).toEqual(
				names.map((name) => [name]).sort(),
			);
			const rows = run.calls['Add row to Results'].map((call) => call.json);
			expect(rows.map((row) => [row.files, row.status, row.user_defined_id])).toEqual([
				// The file's name for people, its Drive ID to tell two Scan.pdf apart.
				['INV-7001.pdf', 'success', 'INV-7001.pdf (drive-file-0)'],
				['INV-7002.pdf', 'success', 'INV-7002.pdf (drive-file-2)'],
			]);
			expect(parametersOf(run.calls['Move file to Done'], 'fileId')).toEqual([
				'drive-file-0',
				'drive-file-2',
			]);
			expect(parametersOf(run.calls['Move file to Needs review'], 'fileId')).toEqual([
				'drive-file-1',
			]);
		});

		it('the Drive folder as one Run: every file of the folder, no limit of 50', () => {
			const workflow = loadExample('google-drive-folder-as-one-run.json');
			const find = nodeNamed(workflow, 'Find files in folder');
			expect(find.parameters.returnAll).toBe(true);
			expect(find.parameters).not.toHaveProperty('limit');
			expect(String(nodeNamed(workflow, 'Setup').parameters.content)).toContain('300 files');
		});

		it('Outlook → Excel 365, no column name typed by hand: the workflow writes row 1, one row per attachment under it, a Prompt added later gets its column; the unreadable file a Needs review row', async () => {
			const workflow = loadExample('outlook-invoices-to-excel-365.json');
			const excel = excelWorkbook(['Invoices', 'Needs review'], (name) =>
				name.endsWith('Needs review') ? 'Needs review' : 'Invoices',
			);
			shapeRunsByFileName(emulator, { failed: UNREADABLE }, 3);
			const first = await runExample(
				workflow,
				[
					outlookEmail('AAMk-1', 'Invoices 8001 and 8002', ['INV-8001.pdf', 'INV-8002.pdf']),
					outlookEmail('AAMk-2', 'Scan', [UNREADABLE]),
				],
				credentials,
				undefined,
				excel,
			);
			expect(first.result.error).toBeUndefined();
			// Both worksheets started empty.
			const runs = first.outputOf('Extract invoice data').map((item) => item.json);
			const [sheetHeader, ...rows] = excel.workbook.rows('Invoices');
			// A copy: the workbook's row 1 grows in place when a Prompt is added (below).
			const header = [...sheetHeader];
			expect(header).toEqual(Object.keys(runs[0]));
			expect(header.slice(0, 3)).toEqual(['Invoice number', 'Invoice date', 'Vendor']);
			expect(rows).toEqual(runs.map((run) => cellsOf(header, run)));
			expect(
				rows.map((row) => [row[header.indexOf('files')], row[header.indexOf('user_defined_id')]]),
			).toEqual([
				// One Run per file: each file's User-Defined ID is the email's, numbered.
				['INV-8001.pdf', 'AAMk-1#1'],
				['INV-8002.pdf', 'AAMk-1#2'],
			]);
			const [reviewHeader, ...reviewRows] = excel.workbook.rows('Needs review');
			expect(reviewHeader).toEqual([
				'From',
				'Subject',
				'Files',
				'Run',
				'Prompts that failed',
				'Why',
			]);
			expect(reviewRows).toHaveLength(1);
			const review = Object.fromEntries(
				reviewHeader.map((column, i) => [column, reviewRows[0][i]]),
			);
			expect(review).toMatchObject({
				From: 'billing@vendor.example',
				Subject: 'Scan',
				Files: UNREADABLE,
				'Prompts that failed': 'Invoice number, Invoice date, Vendor, Total amount',
				Run: expect.stringMatching(RUN_LINK),
			});
			expect(review.Why).toBe(failureReasonsOf(emulator, review.Run));

			// A week later the Agent has a Prompt more: it gets its column, the rows before keep theirs.
			const agent = emulator.state.agents.get(INVOICES)!;
			const prompts = agent.prompts;
			agent.prompts = [...prompts, { ...prompts[0], id: 106, name: 'Due date' }];
			try {
				const later = await runExample(
					workflow,
					[outlookEmail('AAMk-3', 'Invoice 8003', ['INV-8003.pdf'])],
					credentials,
					undefined,
					excel,
				);
				expect(later.result.error).toBeUndefined();
				const [newHeader, ...allRows] = excel.workbook.rows('Invoices');
				expect(newHeader).toEqual([...header, 'Due date']);
				expect(allRows.slice(0, 2)).toEqual(rows);
				const [run] = later.outputOf('Extract invoice data').map((item) => item.json);
				expect(run['Due date']).toEqual(expect.any(String));
				expect(allRows[2]).toEqual(cellsOf(newHeader, run));
			} finally {
				agent.prompts = prompts;
			}
		});

		it('Google Drive → Excel 365 → Done folder: a row for each read file under the row 1 the workflow writes, then the file to Done; the unreadable one to Needs review and a Slack message from the error item alone', async () => {
			const workflow = loadExample('google-drive-new-files-to-excel-365.json');
			// Its alert reads nothing of the trigger: it would work after any trigger.
			const alertNode = JSON.stringify(nodeNamed(workflow, 'Write the alert').parameters);
			expect(alertNode).not.toMatch(/\$\(|\$json\.(subject|from|name)/);
			const excel = excelWorkbook(['Results'], () => 'Results');
			const names = ['INV-7101.pdf', UNREADABLE, 'INV-7102.pdf'];
			const driveFiles = names.map((name, i) => ({
				json: { id: `drive-file-${i}`, name, mimeType: 'application/pdf' },
				binary: { data: file(name) },
			}));
			shapeRunsByFileName(emulator, { failed: UNREADABLE }, names.length);
			const run = await runExample(workflow, driveFiles, credentials, undefined, excel);
			expect(run.result.error).toBeUndefined();
			const runs = run.outputOf('Extract data').map((item) => item.json);
			const [header, ...rows] = excel.workbook.rows('Results');
			expect(header).toEqual(Object.keys(runs[0]));
			expect(rows).toEqual(runs.map((json) => cellsOf(header, json)));
			expect(rows.map((row) => row[header.indexOf('files')]).sort()).toEqual([
				'INV-7101.pdf',
				'INV-7102.pdf',
			]);
			expect(parametersOf(run.calls['Move file to Done'], 'fileId').sort()).toEqual([
				'drive-file-0',
				'drive-file-2',
			]);
			expect(parametersOf(run.calls['Move file to Needs review'], 'fileId')).toEqual([
				'drive-file-1',
			]);
			const [message] = parametersOf(run.calls['Tell the team in Slack'], 'text');
			const runUrl = /Run: (\S+)$/.exec(message)![1];
			expect(runUrl).toMatch(RUN_LINK);
			expect(message).toBe(
				[
					`Please check this document: "${UNREADABLE}": none of the 4 Prompts could be answered`,
					`File: ${UNREADABLE}`,
					'Prompts that failed: Invoice number, Invoice date, Vendor, Total amount',
					`Why: ${failureReasonsOf(emulator, runUrl)}`,
					`Run: ${runUrl}`,
				].join('\n'),
			);
		});

		it('Form upload: the last page shows the values read, with the Run’s link; an unreadable file’s page says which file, why and where to see it', async () => {
			const workflow = loadExample('form-upload-shows-extracted-values.json');
			// Form Trigger's output for one file field (Multiple Files off).
			const upload = (fileName: string): HarnessInputItem => ({
				json: {
					Invoice: { filename: fileName, mimetype: 'application/pdf', size: 40 },
					submittedAt: '2026-03-02T09:14:00.000+00:00',
					formMode: 'production',
				},
				binary: { Invoice: file(fileName) },
			});
			const good = await runExample(workflow, [upload('INV-9001.pdf')], credentials);
			expect(good.result.error).toBeUndefined();
			const [row] = good.outputOf('Extract invoice data').map((item) => item.json);
			const [page] = good.calls['Show what was read'].map((call) => call.parameters);
			expect(page.completionTitle).toBe('Thank you: here is what we read');
			expect(page.completionMessage).toBe(
				[
					`Invoice number: ${String(row['Invoice number'])}`,
					`Invoice date: ${String(row['Invoice date'])}`,
					`Vendor: ${String(row.Vendor)}`,
					`Total: ${String(row['Total amount › amount'])} ${String(row['Total amount › currency'])}`,
					'',
					`See it in Extraction Agents: ${String(row.run_url)}`,
				].join('\n'),
			);
			expect(row['Invoice number']).toEqual(expect.any(String));

			shapeRunsByFileName(emulator, { failed: UNREADABLE }, 1);
			const bad = await runExample(workflow, [upload(UNREADABLE)], credentials);
			expect(bad.result.error).toBeUndefined();
			expect(bad.calls['Show what was read']).toEqual([]);
			const [problem] = bad.calls['Show the problem'].map((call) => call.parameters);
			const runUrl = /See it in Extraction Agents: (\S+)/.exec(problem.completionMessage)![1];
			expect(problem.completionMessage).toBe(
				[
					`File: ${UNREADABLE}`,
					`Why: ${failureReasonsOf(emulator, runUrl)}`,
					`See it in Extraction Agents: ${runUrl}`,
					'',
					'Please check that it is a readable invoice and upload it again.',
				].join('\n'),
			);
		});

		it('invoice line items: each entry of the Line items Prompt becomes its own row, beside its invoice number and vendor', async () => {
			const workflow = loadExample('invoice-line-items-to-google-sheets.json');
			// The demo Agent "Invoices" with a Prompt that gives a list, as the note asks for.
			// (the list Prompt of the demo Agent "Purchase orders", copied).
			const agent = emulator.state.agents.get(INVOICES)!;
			const lineItems = emulator.state.agents
				.get(DEMO_AGENT_IDS.purchaseOrders)!
				.prompts.find((prompt) => prompt.name === 'Line items')!;
			const prompts = agent.prompts;
			agent.prompts = [...prompts, { ...lineItems, id: 105 }];
			try {
				const run = await runExample(
					workflow,
					[
						gmailEmail('18f2c0ffee00d001', 'Invoice 1', ['INV-1.pdf']),
						gmailEmail('18f2c0ffee00d002', 'Invoice 2', ['INV-2.pdf']),
					],
					credentials,
				);
				expect(run.result.error).toBeUndefined();
				const runs = run.outputOf('Extract invoice data').map((item) => item.json);
				const expected = runs.flatMap((json) => {
					const data = json.data as Record<string, { value: unknown }>;
					const lines = data['Line items'].value as string[];
					expect(lines.length).toBeGreaterThan(0);
					return lines.map((line) => ({
						'Invoice number': data['Invoice number'].value,
						Vendor: data.Vendor.value,
						Line: line,
						Run: json.run_url,
					}));
				});
				const rows = run.calls['Add row to Invoice lines'].map((call) => call.json);
				expect(rows).toEqual(expected);
				for (const row of rows)
					for (const cell of Object.values(row)) expect(typeof cell).toBe('string');
			} finally {
				agent.prompts = prompts;
			}
		});

		it('a document that cannot be read → Slack: the message, built from the error item alone, names the file, the Prompts that failed, why and the Run; the other email is a row', async () => {
			const workflow = loadExample('failed-documents-alert-in-slack.json');
			// Nothing of Gmail in the alert: it works after any trigger.
			const alertNode = JSON.stringify(nodeNamed(workflow, 'Write the alert').parameters);
			expect(alertNode).not.toMatch(/\$\(|\$json\.(subject|from|name)/);
			shapeRunsByFileName(emulator, { failed: UNREADABLE }, 2);
			const run = await runExample(
				workflow,
				[
					gmailEmail('18f2c0ffee00e001', 'Invoices March', ['INV-3001.pdf']),
					gmailEmail('18f2c0ffee00e002', 'Scan from the printer', [UNREADABLE]),
				],
				credentials,
			);
			expect(run.result.error).toBeUndefined();
			expect(run.calls['Add row to Invoices'].map((call) => call.json.files)).toEqual([
				'INV-3001.pdf',
			]);
			const [message] = parametersOf(run.calls['Tell the team in Slack'], 'text');
			const runUrl = /Run: (\S+)$/.exec(message)![1];
			expect(runUrl).toMatch(RUN_LINK);
			expect(message).toBe(
				[
					`Please check this document: "${UNREADABLE}": none of the 4 Prompts could be answered`,
					`File: ${UNREADABLE}`,
					'Prompts that failed: Invoice number, Invoice date, Vendor, Total amount',
					`Why: ${failureReasonsOf(emulator, runUrl)}`,
					`Run: ${runUrl}`,
				].join('\n'),
			);
			expect(message).not.toMatch(/Options →|Output as Results/);
		});

		it('Gmail → Google Sheets: one row per attachment (two invoices in one email are two rows); the Needs review row is for the person checking the document (email, file, Prompts that failed, why, Run), without n8n setup hints; an email without a document makes none', async () => {
			const workflow = loadExample('gmail-invoices-to-google-sheets.json');
			shapeRunsByFileName(emulator, { failed: UNREADABLE }, 3);
			const run = await runExample(
				workflow,
				[
					gmailEmail('18f2c0ffee00f001', 'Invoices March', ['INV-3001.pdf', 'INV-3002.pdf']),
					gmailEmail('18f2c0ffee00f002', 'Scan', [UNREADABLE]),
					// Gmail's has:attachment also finds an email whose only image is its logo.
					logoOnlyEmail('18f2c0ffee00f003', 'Logo only'),
				],
				credentials,
			);
			expect(run.result.error).toBeUndefined();
			expect(run.calls['Add row to Invoices'].map((call) => call.json.files)).toEqual([
				'INV-3001.pdf',
				'INV-3002.pdf',
			]);
			const review = run.calls['Add row to Needs review'].map((call) => call.json);
			expect(review.map((row) => Object.keys(row))).toEqual(
				review.map(() => [
					'Received',
					'From',
					'Subject',
					'Files',
					'Run',
					'Prompts that failed',
					'Why',
				]),
			);
			expect(review).toHaveLength(1);
			const [scan] = review;
			expect(scan).toMatchObject({
				From: 'billing@vendor.example',
				Subject: 'Scan',
				Files: UNREADABLE,
				'Prompts that failed': 'Invoice number, Invoice date, Vendor, Total amount',
				Run: expect.stringMatching(RUN_LINK),
			});
			expect(scan.Why).toBe(failureReasonsOf(emulator, String(scan.Run)));
			for (const row of review)
				expect(Object.values(row).join(' ')).not.toMatch(/Options →|Output as Results/);
		});

		it('finished Run → Excel by email: a succeeded Run is emailed as an Excel file; a failed Run is no longer dropped, it gets its own email with the file, the Prompts that failed and the link', async () => {
			const workflow = loadExample('finished-run-to-excel-by-email.json');
			const trigger = nodeNamed(workflow, 'Extraction Agents Trigger');
			const { pollTimes: _pollTimes, ...triggerParameters } = trigger.parameters;
			const poller = createPoller({
				parameters: withDemoAgent(triggerParameters),
				credentials,
				nodeName: trigger.name,
			});
			expect(await poller.poll()).toBeNull(); // activation: the Agent's history is the past
			const good = emulator.createRun(INVOICES, [{ name: 'INV-4001.pdf' }], { hold: true });
			emulator.finishRun(INVOICES, Number(good.run_id), 'success');
			const failed = emulator.createRun(INVOICES, [{ name: UNREADABLE }], { hold: true });
			emulator.finishRun(INVOICES, Number(failed.run_id), 'failed');
			const emitted = (await poller.poll())?.[0] ?? [];
			// Both reach the workflow: a failed Run is not left out by the trigger.
			expect(emitted.map((item) => item.json.status).sort()).toEqual(['failed', 'success']);

			// The Excel template is picked as the note says.
			const download = nodeNamed(workflow, 'Download Templated Output');
			download.parameters.outputTemplate = { __rl: true, mode: 'id', value: '12' };
			const run = await runExample(
				workflow,
				emitted.map((item) => ({ json: item.json as IDataObject })),
				credentials,
			);
			expect(run.result.error).toBeUndefined();
			const [sent] = run.calls['Send with Gmail'];
			expect(sent.json.run_id).toBe(Number(good.run_id));
			expect(sent.parameters.message).toContain('Prompts without a value: none');
			const [alert] = run.calls['Email: please check'].map((call) => call.parameters);
			expect(alert.subject).toBe(`Please check: ${UNREADABLE} could not be read`);
			expect(alert.message).toBe(
				[
					`The Agent could not read ${UNREADABLE} (Run ${String(failed.run_id)}, status failed).`,
					'',
					'Prompts that failed: Invoice number, Invoice date, Vendor, Total amount',
					`Open the Run to see why: ${String(emitted.find((item) => item.json.status === 'failed')!.json.run_url)}`,
					'',
					'Check the file (a readable scan, the right kind of document for this Agent) and upload it again.',
				].join('\n'),
			);
		});
	},
);
