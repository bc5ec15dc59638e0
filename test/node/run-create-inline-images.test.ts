/**
 * Node version 1.2 uploads All Files of the Item by default. An email item from Gmail, Outlook
 * or the Email Trigger carries the images its text shows (a logo, a signature) as files too;
 * they are left out, with a hint naming them, so that a Run holds the documents only. An
 * attached photo is still sent; version 1.1 sends every file as before.
 */
import { executeNode, useHarness } from '../../dev/harness';
import { createRunParameters, pdf, useEmulator } from './fixtures';

useHarness();
const ctx = useEmulator({ runDurationMs: 100 });

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** As n8n's Gmail node (Simplify off) gives an email with two PDFs and a logo in its text. */
function gmailItem(options: { photoAttached?: boolean; pdfs?: boolean } = {}) {
	const binary: Record<string, { data: Buffer; fileName: string; mimeType: string }> = {};
	let index = 0;
	if (options.pdfs !== false) {
		binary[`attachment_${index++}`] = {
			data: pdf('INV-1'),
			fileName: 'INV-1.pdf',
			mimeType: 'application/pdf',
		};
		binary[`attachment_${index++}`] = {
			data: pdf('INV-2'),
			fileName: 'INV-2.pdf',
			mimeType: 'application/pdf',
		};
	}
	binary[`attachment_${index++}`] = { data: png, fileName: 'image001.png', mimeType: 'image/png' };
	if (options.photoAttached) {
		binary[`attachment_${index++}`] = {
			data: png,
			fileName: 'receipt.jpg',
			mimeType: 'image/jpeg',
		};
	}
	return {
		json: {
			subject: 'Invoices for November',
			html: '<p>Please find the invoices attached.</p><p><img src="cid:ii_m3x1" alt="image001.png" width="120"></p>',
		},
		binary,
	};
}

async function createFrom(item: ReturnType<typeof gmailItem>, typeVersion?: number) {
	const seq = ctx.emulator.lastSeq;
	const result = await executeNode({
		nodeType: 'extractionAgents',
		typeVersion,
		credentials: ctx.credentials,
		// The email's files as one Run (version 1.5's One Run per Item), so one upload shows them.
		parameters: createRunParameters(
			typeVersion === 1.1 ? { binarySource: 'all' } : typeVersion ? {} : { filesPerRun: 'item' },
		),
		inputItems: [item],
	});
	const uploads = ctx.emulator
		.requestsSince(seq)
		.filter((entry) => entry.method === 'POST' && /\/runs$/.test(entry.path));
	const hints = (result.runData[result.nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
	return { result, uploads, hints };
}

describe('Run → Create (version 1.2), All Files of the Item: images shown in an email’s text', () => {
	it('uploads the attached PDFs and leaves out the logo the email shows, saying so in a hint', async () => {
		const { result, uploads, hints } = await createFrom(gmailItem());
		expect(result.error).toBeUndefined();
		expect(uploads).toHaveLength(1);
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual([
			'INV-1.pdf',
			'INV-2.pdf',
		]);
		expect(hints).toEqual([
			expect.stringMatching(
				/^Images shown inside an email's text \(image001\.png\) were not uploaded.*Specific File Fields/,
			),
			// Version 1.3's count of the Runs (test/node/failed-runs.test.ts).
			'1 Run: 1 succeeded',
		]);
	});

	it('still uploads a photo that is attached rather than shown in the text', async () => {
		const { uploads } = await createFrom(gmailItem({ photoAttached: true }));
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual([
			'INV-1.pdf',
			'INV-2.pdf',
			'receipt.jpg',
		]);
	});

	it('versions 1.2 to 1.4: an email with only a logo fails that item before any Run is created, saying how to send it anyway', async () => {
		// Version 1.5 gives no item for it (test/node/versions.test.ts).
		const { result, uploads } = await createFrom(gmailItem({ pdfs: false }), 1.4);
		expect(uploads).toEqual([]);
		expect(result.error?.message).toBe(
			'Item 1 has only images shown inside the email text, no attached document',
		);
		expect((result.error as Error & { description?: string }).description).toContain(
			'Specific File Fields',
		);
	});

	it('version 1.1 (All Binary Fields) uploads the logo too, as before', async () => {
		const { uploads, hints } = await createFrom(gmailItem(), 1.1);
		expect(uploads[0].upload?.files.map((file) => file.filename)).toEqual([
			'INV-1.pdf',
			'INV-2.pdf',
			'image001.png',
		]);
		expect(hints).toEqual([]);
	});
});
