/**
 * The README's pictures: which workflow and node they show, where they live, and a record of
 * what they were taken from. editor.test.ts takes them from the real editor; with
 * UPDATE_SCREENSHOTS=1 it stores them here with the record, and test/package/screenshots.test.ts
 * fails when the example or the node's fields changed since (the pictures would be stale).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExtractionAgents } from '../../nodes/ExtractionAgents/ExtractionAgents.node';

const ROOT = path.resolve(__dirname, '..', '..');
export const IMAGES_DIR = path.join(ROOT, 'docs', 'images');
const RECORD = path.join(IMAGES_DIR, 'screenshots.json');
const EXAMPLE = path.join(ROOT, 'examples', 'gmail-invoices-to-google-sheets.json');

export const README_PICTURES = {
	workflowName: (JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as { name: string }).name,
	nodeName: 'Extract invoice data',
	canvas: 'workflow-gmail-to-sheets.png',
	panel: 'create-run-panel.png',
};

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** What the pictures show: the example workflow, and the node's fields (every version's). */
export function currentSources(): { example: string; actionNodeFields: string } {
	const example = fs.readFileSync(EXAMPLE, 'utf8');
	const { properties } = new ExtractionAgents().description;
	return { example: sha256(example), actionNodeFields: sha256(JSON.stringify(properties)) };
}

export interface ScreenshotRecord {
	pictures: Record<string, string>;
	takenFrom: ReturnType<typeof currentSources>;
	howToRetake: string;
}

export const HOW_TO_RETAKE = 'UPDATE_SCREENSHOTS=1 npx jest test/browser';

export function readRecord(): ScreenshotRecord | undefined {
	return fs.existsSync(RECORD)
		? (JSON.parse(fs.readFileSync(RECORD, 'utf8')) as ScreenshotRecord)
		: undefined;
}

export function recordScreenshots(pictures: string[]): void {
	fs.mkdirSync(IMAGES_DIR, { recursive: true });
	const record: ScreenshotRecord = {
		pictures: {},
		takenFrom: currentSources(),
		howToRetake: HOW_TO_RETAKE,
	};
	for (const picture of pictures) {
		const name = path.basename(picture);
		fs.copyFileSync(picture, path.join(IMAGES_DIR, name));
		record.pictures[name] = sha256(fs.readFileSync(picture));
	}
	fs.writeFileSync(RECORD, `${JSON.stringify(record, null, '\t')}\n`);
}

export function imagePath(name: string): string {
	return path.join(IMAGES_DIR, name);
}

export { sha256 };
