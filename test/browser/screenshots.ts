/**
 * The README's pictures: which workflow and node they show, where they live, and a record of
 * what they were taken from. editor.test.ts takes them from the real editor; with
 * UPDATE_SCREENSHOTS=1 it stores them here with the record, and test/package/screenshots.test.ts
 * fails when the example or the node's fields changed since (the pictures would be stale).
 * sheet-rows.test.ts takes the pictures of the sheets the example fills and records the cells
 * they show (`sheetCells`): it fails when the example writes other cells today.
 * form-page.test.ts takes the Form example's completion page from real n8n and records the
 * example and the page's text (`formPage`): a changed example or page means retaking it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';

const ROOT = path.resolve(__dirname, '..', '..');
export const IMAGES_DIR = path.join(ROOT, 'docs', 'images');
const RECORD = path.join(IMAGES_DIR, 'screenshots.json');
const EXAMPLE = path.join(ROOT, 'examples', 'gmail-invoices-to-google-sheets.json');
export const FORM_EXAMPLE_FILE = path.join(
	ROOT,
	'examples',
	'form-upload-shows-extracted-values.json',
);

export const README_PICTURES = {
	workflowName: (JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as { name: string }).name,
	nodeName: 'Extract invoice data',
	canvas: 'workflow-gmail-to-sheets.png',
	panel: 'create-run-panel.png',
	/** The example's *Invoices* sheet after a few emails, and its *Needs review* sheet. */
	invoicesSheet: 'sheet-rows.png',
	reviewSheet: 'sheet-needs-review.png',
	/** The Form example's last page after an upload: the values read and the Run's link. */
	formPage: 'form-completion-page.png',
};

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** What the pictures show: the example workflow, and the node's fields (every version's). */
export function currentSources(): { example: string; actionNodeFields: string } {
	const example = fs.readFileSync(EXAMPLE, 'utf8');
	const { properties } = new ExtractionAgents().description;
	return { example: sha256(example), actionNodeFields: sha256(JSON.stringify(properties)) };
}

export interface ScreenshotRecord {
	/** Each picture's sha256. */
	pictures: Record<string, string>;
	/** What the editor's pictures show: the example and the node's fields when they were taken. */
	takenFrom: ReturnType<typeof currentSources>;
	/** Each sheet picture's cells (the sha256 of their JSON) when it was taken. */
	sheetCells?: Record<string, string>;
	/** The form picture's sources: the Form example's sha256, and its page's text's. */
	formPage?: { example: string; pageText: string };
	howToRetake: string;
}

export const HOW_TO_RETAKE = 'UPDATE_SCREENSHOTS=1 npx jest test/browser';

export function readRecord(): ScreenshotRecord | undefined {
	return fs.existsSync(RECORD)
		? (JSON.parse(fs.readFileSync(RECORD, 'utf8')) as ScreenshotRecord)
		: undefined;
}

/** Copies pictures to docs/images/ and records them; the record's other pictures stay. */
function storePictures(pictures: string[], update: (record: ScreenshotRecord) => void): void {
	fs.mkdirSync(IMAGES_DIR, { recursive: true });
	const record: ScreenshotRecord = {
		pictures: {},
		takenFrom: currentSources(),
		...readRecord(),
		howToRetake: HOW_TO_RETAKE,
	};
	for (const picture of pictures) {
		const name = path.basename(picture);
		fs.copyFileSync(picture, path.join(IMAGES_DIR, name));
		record.pictures[name] = sha256(fs.readFileSync(picture));
	}
	update(record);
	fs.writeFileSync(RECORD, `${JSON.stringify(record, null, '\t')}\n`);
}

/** The editor's pictures, taken from the current example and node fields. */
export function recordScreenshots(pictures: string[]): void {
	storePictures(pictures, (record) => {
		record.takenFrom = currentSources();
	});
}

/** The sha256 of a sheet's cells, as sheetCells records them. */
export const cellsDigest = (cells: unknown): string => sha256(JSON.stringify(cells));

/** Sheet pictures, each with the cells it shows. */
export function recordSheetPictures(pictures: Array<{ picture: string; cells: unknown }>): void {
	storePictures(
		pictures.map(({ picture }) => picture),
		(record) => {
			record.sheetCells = { ...record.sheetCells };
			for (const { picture, cells } of pictures)
				record.sheetCells[path.basename(picture)] = cellsDigest(cells);
		},
	);
}

/** The Form example as it is today (its sha256), which the form picture shows. */
export const currentFormExample = (): string => sha256(fs.readFileSync(FORM_EXAMPLE_FILE, 'utf8'));

/** The form's completion page, with the text it shows. */
export function recordFormPagePicture(picture: string, pageText: string): void {
	storePictures([picture], (record) => {
		record.formPage = { example: currentFormExample(), pageText: sha256(pageText) };
	});
}

export function imagePath(name: string): string {
	return path.join(IMAGES_DIR, name);
}

export { sha256 };
