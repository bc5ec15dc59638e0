/**
 * The README's pictures are taken from the real editor by test/browser/editor.test.ts. They must
 * show what a user gets today: the pictures exist, the README shows them, and they were taken
 * from the current example workflow and the current fields of the node (a change to either
 * means retaking them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	HOW_TO_RETAKE,
	README_PICTURES,
	currentSources,
	imagePath,
	readRecord,
	sha256,
} from '../browser/screenshots';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

describe('the README’s pictures', () => {
	const pictures = [README_PICTURES.canvas, README_PICTURES.panel];

	it.each(pictures)(
		'docs/images/%s is shown in the README and is the picture the editor test took',
		(name) => {
			expect(README).toContain(`docs/images/${name}`);
			const record = readRecord();
			expect(record?.pictures[name]).toBe(sha256(readFileSync(imagePath(name))));
		},
	);

	it(`were taken from the current example and node fields (else retake them: ${HOW_TO_RETAKE})`, () => {
		expect(readRecord()?.takenFrom).toEqual(currentSources());
	});
});
