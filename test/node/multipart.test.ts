import busboy from 'busboy';
import FormData from 'form-data';
import { createHash, randomBytes } from 'crypto';
import {
	encodeMultipartStream,
	type MultipartFile,
} from '../../nodes/ExtractionAgents/transport/multipart';
import { ensurePythonMultipart, parseWithPythonMultipart } from './python-multipart';

interface ParsedPart {
	name: string;
	filename?: string;
	mimeType?: string;
	sha256?: string;
	value?: string;
}

function parse(body: Buffer, contentType: string): Promise<ParsedPart[]> {
	return new Promise((resolve, reject) => {
		const parts: ParsedPart[] = [];
		const parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8' });
		parser.on('file', (name, stream, info) => {
			const hash = createHash('sha256');
			stream.on('data', (chunk: Buffer) => hash.update(chunk));
			stream.on('end', () =>
				parts.push({
					name,
					filename: info.filename,
					mimeType: info.mimeType,
					sha256: hash.digest('hex'),
				}),
			);
		});
		parser.on('field', (name, value) => parts.push({ name, value }));
		parser.on('close', () => resolve(parts));
		parser.on('error', reject);
		parser.end(body);
	});
}

async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of iterable) chunks.push(Buffer.from(chunk));
	return Buffer.concat(chunks);
}

const files = [
	{ name: 'invoice.pdf', type: 'application/pdf', data: randomBytes(70_000) },
	{
		name: 'Übersicht März.xlsx',
		type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		data: randomBytes(1234),
	},
	{ name: 'notes.txt', type: 'text/plain', data: Buffer.from('line 1\r\n--not-a-boundary\r\n') },
];

function asParts(chunkSize = 4096): MultipartFile[] {
	return files.map((file) => ({
		fieldName: 'files',
		fileName: file.name,
		contentType: file.type,
		size: file.data.length,
		source: `file field "${file.name}"`,
		// Streamed in small chunks, as n8n's binary store hands them out.
		open: async function* () {
			for (let offset = 0; offset < file.data.length; offset += chunkSize)
				yield file.data.subarray(offset, offset + chunkSize);
		},
	}));
}

describe('encodeMultipartStream', () => {
	it('parses to exactly the parts form-data produces for the same files and fields', async () => {
		const ours = encodeMultipartStream(asParts(), [
			{ fieldName: 'user_defined_id', value: 'mail-7' },
			{ fieldName: 'due_date', value: '2026-12-31T17:00:00.000Z' },
		]);
		const reference = new FormData();
		for (const file of files)
			reference.append('files', file.data, { filename: file.name, contentType: file.type });
		reference.append('user_defined_id', 'mail-7');
		reference.append('due_date', '2026-12-31T17:00:00.000Z');

		const ourParts = await parse(await collect(ours.stream()), ours.type);
		const referenceParts = await parse(
			reference.getBuffer(),
			reference.getHeaders()['content-type'],
		);
		expect(ourParts).toEqual(referenceParts);
		expect(ourParts.filter((part) => part.filename).map((part) => part.filename)).toEqual(
			files.map((file) => file.name),
		);
	});

	it('announces a size equal to the bytes it sends (the Content-Length)', async () => {
		const body = encodeMultipartStream(asParts(1000));
		expect((await collect(body.stream())).length).toBe(body.size);
	});

	it('can be streamed again for a retried request', async () => {
		const body = encodeMultipartStream(asParts());
		const first = await collect(body.stream());
		const second = await collect(body.stream());
		expect(second.equals(first)).toBe(true);
	});

	it('stops the upload when a file yields other than its announced size', async () => {
		const [file] = asParts();
		const body = encodeMultipartStream([{ ...file, size: (file.size ?? 0) + 1 }]);
		await expect(collect(body.stream())).rejects.toThrow(
			'File "invoice.pdf" changed while uploading: expected 70001 bytes, read 70000',
		);
	});

	it('never sends a byte past a part’s announced size: the surplus would reach the service as another request', async () => {
		const announced = 90;
		const body = encodeMultipartStream([
			{
				fieldName: 'files',
				fileName: 'unzipped.pdf',
				contentType: 'application/pdf',
				size: announced,
				source: 'its link https://files.example.com/unzipped.pdf',
				open: () => [Buffer.alloc(60, 1), Buffer.alloc(60, 2), Buffer.alloc(4922, 3)],
			},
		]);
		const sent: Buffer[] = [];
		await expect(
			(async () => {
				for await (const chunk of body.stream()) sent.push(Buffer.from(chunk));
			})(),
		).rejects.toThrow(
			'File "unzipped.pdf" from its link https://files.example.com/unzipped.pdf is longer than the 90 bytes announced for it',
		);
		expect(Buffer.concat(sent).length).toBeLessThanOrEqual(body.size);
	});

	it('is a Blob to n8n’s HTTP client, so it is streamed with a Content-Length', () => {
		const body = encodeMultipartStream(asParts());
		expect(Object.prototype.toString.call(body)).toBe('[object Blob]');
		expect(body.type).toMatch(
			/^multipart\/form-data; boundary=----n8nExtractionAgents[0-9a-f]{24}$/,
		);
	});
});

describe('file names as real server parsers read them', () => {
	const names = ['Rechnung "Q1" ü.pdf', 'Übersicht März.xlsx', 'a;b=c "quoted".pdf', 'plain.pdf'];
	const namedParts = (): MultipartFile[] =>
		names.map((fileName) => ({
			fieldName: 'files',
			fileName,
			contentType: 'application/pdf',
			source: 'file field "data"',
			size: 3,
			open: () => [Buffer.from('pdf')],
		}));
	let pythonSkipReason: string | undefined;

	beforeAll(async () => {
		pythonSkipReason = await ensurePythonMultipart();
	});

	it('busboy reads back every file name as it was, quotes and non-ASCII included', async () => {
		const body = encodeMultipartStream(namedParts(), [
			{ fieldName: 'user_defined_id', value: 'mail-7' },
		]);
		const parts = await parse(await collect(body.stream()), body.type);
		expect(parts.filter((part) => part.filename).map((part) => part.filename)).toEqual(names);
		expect(parts.find((part) => part.name === 'user_defined_id')?.value).toBe('mail-7');
	});

	it('python-multipart (FastAPI’s parser) reads back every file name as it was, quotes and non-ASCII included', async () => {
		if (pythonSkipReason) {
			console.warn(`skipped: ${pythonSkipReason}`);
			return;
		}
		const body = encodeMultipartStream(namedParts(), [
			{ fieldName: 'user_defined_id', value: 'mail-7' },
		]);
		const parts = parseWithPythonMultipart(await collect(body.stream()), body.type);
		expect(parts.filter((part) => part.filename).map((part) => [part.filename, part.size])).toEqual(
			names.map((name) => [name, 3]),
		);
		expect(parts.find((part) => part.name === 'user_defined_id')?.value).toBe('mail-7');
	});
});
