/**
 * The README's pictures are taken from the real editor by test/browser/editor.test.ts, and of the
 * sheets the Gmail example fills by test/browser/sheet-rows.test.ts. They must show what a user
 * gets today: the pictures exist, the README shows them, and they were taken from the current
 * example workflow and the current fields of the node (a change to either means retaking them);
 * each sheet picture is recorded with the cells it shows, which sheet-rows.test.ts compares with
 * the cells the example writes today. The Form example's completion page
 * (test/browser/form-page.test.ts) is shown in the README and examples/README.md, taken from the
 * Form example as it is today.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	HOW_TO_RETAKE,
	README_PICTURES,
	currentFormExample,
	currentSources,
	imagePath,
	readRecord,
	sha256,
} from '../browser/screenshots';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const EXAMPLES_README = readFileSync(join(ROOT, 'examples', 'README.md'), 'utf8');

describe('the README’s pictures', () => {
	const sheetPictures = [README_PICTURES.invoicesSheet, README_PICTURES.reviewSheet];
	const pictures = [
		README_PICTURES.canvas,
		README_PICTURES.panel,
		...sheetPictures,
		README_PICTURES.formPage,
	];

	it.each(pictures)(
		'docs/images/%s is shown in the README and is the picture the browser test took',
		(name) => {
			expect(README).toContain(`docs/images/${name}`);
			const record = readRecord();
			expect(record?.pictures[name]).toBe(sha256(readFileSync(imagePath(name))));
		},
	);

	it(`were taken from the current example and node fields (else retake them: ${HOW_TO_RETAKE})`, () => {
		expect(readRecord()?.takenFrom).toEqual(currentSources());
	});

	it.each(sheetPictures)('docs/images/%s is recorded with the cells it shows', (name) => {
		expect(readRecord()?.sheetCells?.[name]).toMatch(/^[0-9a-f]{64}$/);
	});

	it(`docs/images/${README_PICTURES.formPage} is shown beside the Form example and was taken from it as it is today (else retake it: ${HOW_TO_RETAKE})`, () => {
		expect(EXAMPLES_README).toContain(`docs/images/${README_PICTURES.formPage}`);
		expect(readRecord()?.formPage?.example).toBe(currentFormExample());
		expect(readRecord()?.formPage?.pageText).toMatch(/^[0-9a-f]{64}$/);
	});
});
