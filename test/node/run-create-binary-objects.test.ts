/**
 * Since n8n 1.114 a binary field parameter may receive a binary object from an expression
 * (`{{ $binary.data }}`, or a file of an earlier node) rather than a field name. Create Run takes
 * both forms, a list of either, and refuses anything else with a message that says what to enter.
 */
import { binaryDataService, executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, sha256, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 200 });

const invoice = pdf('invoice INV-7001');
const receipt = pdf('receipt R-7002');
const gmailItem = () => ({
	json: { subject: 'Invoice' },
	binary: {
		attachment_0: { data: invoice, fileName: 'INV-7001.pdf', mimeType: 'application/pdf' },
		attachment_1: { data: receipt, fileName: 'R-7002.pdf', mimeType: 'application/pdf' },
	},
});

async function uploadWith(binaryPropertyName: string, binaryMode?: 'filesystem' | 'default') {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		credentials: ctx.credentials,
		// The files chosen go as one Run, so that one upload shows them all.
		parameters: createRunParameters({
			binarySource: 'fields',
			binaryPropertyName,
			filesPerRun: 'item',
		}),
		inputItems: [gmailItem()],
		binaryMode,
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	return { result, uploads };
}

describe('Run → Create: files given as binary objects', () => {
	it.each(['filesystem', 'default'] as const)(
		'uploads the file an expression gives ({{ $binary.attachment_1 }}), binary data mode %s',
		async (binaryMode) => {
			const { result, uploads } = await uploadWith('={{ $binary.attachment_1 }}', binaryMode);
			expect(result.error).toBeUndefined();
			expect(uploads).toHaveLength(1);
			expect(uploads[0].upload?.files.map((file) => [file.filename, file.sha256])).toEqual([
				['R-7002.pdf', sha256(receipt)],
			]);
		},
	);

	it('uploads a list of files and names from an expression as one Run', async () => {
		const { result, uploads } = await uploadWith('={{ [$binary.attachment_0, "attachment_1"] }}');
		expect(result.error).toBeUndefined();
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual([
			'INV-7001.pdf',
			'R-7002.pdf',
		]);
	});

	it('refuses a value that is neither a field name nor a file, saying what to enter', async () => {
		const { result, uploads } = await uploadWith('={{ 42 }}');
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe('File Fields holds a number, not file field names or files');
		expect((result.error as Error & { description?: string }).description).toContain(
			'attachment_0, attachment_1',
		);
	});

	it('refuses a file object from the item’s JSON that names another workflow’s stored file, uploading nothing', async () => {
		const secret = pdf('payroll of another workflow');
		const stored = await binaryDataService().store(
			{ type: 'execution', workflowId: 'another-workflow', executionId: '4242' },
			secret,
			{ data: '', mimeType: 'application/pdf', fileName: 'payroll.pdf' },
		);
		const seq = ctx.emulator.lastSeq;
		const result = await executeNode({
			nodeType: 'extractionAgents',
			credentials: ctx.credentials,
			parameters: createRunParameters({
				binarySource: 'fields',
				binaryPropertyName: '={{ $json.file }}',
			}),
			// As a webhook's JSON could carry it: a binary object with a stored file's id.
			inputItems: [{ json: { file: { mimeType: 'application/pdf', id: stored.id } } }],
		});
		const uploads = ctx.emulator
			.requestsSince(seq)
			.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
		expect(
			uploads.flatMap((entry) => entry.upload?.files.map((file) => file.sha256) ?? []),
		).not.toContain(sha256(secret));
		expect(uploads).toEqual([]);
		expect(result.error?.message).toMatch(/is not a file of this execution/);
	});
});
