/**
 * Bad-input catalogue: every row of bad-inputs.ts through n8n-core's engine
 * against the emulator. Each row asserts the exact message the user sees and the exact
 * requests sent (the emulator's request log; none for what can be caught locally).
 * The bad-input table of bad-inputs.md (beside this file) must be the catalogue as rendered from the rows.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPoller, executeNode, useHarness, type HarnessInputItem } from '../../dev/harness';
import { DEMO_KEYS } from '../../dev/emulator';
import {
	BAD_INPUTS,
	CATALOGUE_END,
	CATALOGUE_START,
	renderCatalogue,
	type BadInput,
	type ItemsFixture,
} from './bad-inputs';
import { apiPath, pdf, useEmulator, useShortBackoff } from './helpers';

useHarness();
useShortBackoff();
const ctx = useEmulator({ runDurationMs: 200 });
const scratch = mkdtempSync(join(tmpdir(), 'ea-bad-inputs-'));

function items(fixture: ItemsFixture | undefined): HarnessInputItem[] | undefined {
	switch (fixture) {
		case undefined:
			return undefined;
		case 'noBinary':
			return [{ json: { subject: 'no attachment' } }];
		case 'onePdf':
			return [
				{ binary: { data: { data: pdf('x'), fileName: 'a.pdf', mimeType: 'application/pdf' } } },
			];
		case 'attachmentOnly':
			return [
				{
					binary: {
						attachment_0: { data: pdf('x'), fileName: 'a.pdf', mimeType: 'application/pdf' },
					},
				},
			];
		case 'emptyFile':
			return [
				{
					binary: {
						data: { data: Buffer.alloc(0), fileName: 'empty.pdf', mimeType: 'application/pdf' },
					},
				},
			];
		case 'files301': {
			const binary: NonNullable<HarnessInputItem['binary']> = {};
			for (let n = 0; n < 301; n++)
				binary[`file_${n}`] = { data: Buffer.from(`f${n}`), fileName: `f${n}.txt` };
			return [{ binary }];
		}
		case 'fileObjectInJson': {
			const id = 'database:4f0c2a6e-8a51-4d5e-9a43-2b3c1d0e9f7a';
			const file = { mimeType: 'application/pdf', fileName: 'payroll.pdf', id };
			return [{ json: { body: { file } } }];
		}
		case 'oversizedFile': {
			const path = join(scratch, 'huge.pdf');
			const fd = openSync(path, 'w');
			ftruncateSync(fd, 250_000_001);
			closeSync(fd);
			return [{ binary: { data: { path, fileName: 'huge.pdf', mimeType: 'application/pdf' } } }];
		}
	}
}

function credentials(row: BadInput): { apiKey: string; baseUrl: string } {
	const keys = {
		alice: DEMO_KEYS.alice,
		bob: DEMO_KEYS.bob,
		carol: DEMO_KEYS.carol,
		wrong: 'ea_not-a-real-key',
		empty: '   ',
		withSpace: 'ea_0123456789\nabcdef',
	};
	return {
		apiKey: keys[row.credentials?.key ?? 'alice'],
		baseUrl: row.credentials?.baseUrl ?? ctx.emulator.url,
	};
}

async function errorOf(row: BadInput): Promise<Error | undefined> {
	if (row.node === 'trigger') {
		const poller = createPoller({ parameters: row.parameters, credentials: credentials(row) });
		return await poller.poll().then(
			() => undefined,
			(error: Error) => error,
		);
	}
	const result = await executeNode({
		nodeType: 'extractionAgents',
		parameters: row.parameters,
		credentials: credentials(row),
		inputItems: items(row.items),
		binaryMode: row.items === 'oversizedFile' ? 'filesystem' : 'default',
	});
	expect(result.items).toEqual([]);
	return result.error;
}

describe('bad-input catalogue', () => {
	it('has at least 30 rows, each a different input', () => {
		expect(BAD_INPUTS.length).toBeGreaterThanOrEqual(30);
		expect(new Set(BAD_INPUTS.map((row) => `${row.where}: ${row.input}`)).size).toBe(
			BAD_INPUTS.length,
		);
	});

	it.each(BAD_INPUTS.map((row) => [`${row.where}: ${row.input}`, row] as const))(
		'%s',
		async (_name, row) => {
			const seq = ctx.emulator.lastSeq;
			const error = await errorOf(row);
			expect(error?.message).toBe(row.message);
			expect(ctx.emulator.requestsSince(seq).map(apiPath)).toEqual(row.requests);
		},
	);

	it('is the bad-input table of test/reliability/bad-inputs.md (regenerate: npx tsx test/reliability/catalogue.ts --write)', () => {
		const page = readFileSync(join(__dirname, 'bad-inputs.md'), 'utf8');
		const start = page.indexOf(CATALOGUE_START);
		const end = page.indexOf(CATALOGUE_END);
		const heading = page.indexOf('# Bad-input catalogue');
		expect(heading).toBeGreaterThanOrEqual(0);
		expect(start).toBeGreaterThan(heading);
		expect(end).toBeGreaterThan(start);
		expect(page.slice(start, end + CATALOGUE_END.length)).toBe(renderCatalogue(BAD_INPUTS));
	});
});
