/**
 * Prints the bad-input catalogue as the Markdown table of test/reliability/bad-inputs.md, or with
 * --write puts it into that file between the bad-inputs markers (bad-inputs.test.ts checks
 * they match).
 *
 *   npx tsx test/reliability/catalogue.ts [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE_END, CATALOGUE_START, renderCatalogue } from './bad-inputs';

const table = renderCatalogue();
if (process.argv.includes('--write')) {
	const path = join(__dirname, 'bad-inputs.md');
	const page = readFileSync(path, 'utf8');
	const start = page.indexOf(CATALOGUE_START);
	const end = page.indexOf(CATALOGUE_END);
	if (start < 0 || end < start)
		throw new Error(
			`test/reliability/bad-inputs.md has no ${CATALOGUE_START} … ${CATALOGUE_END} block`,
		);
	writeFileSync(path, page.slice(0, start) + table + page.slice(end + CATALOGUE_END.length));
	console.log(
		`test/reliability/bad-inputs.md: catalogue written (${table.split('\n').length - 4} rows)`,
	);
} else {
	console.log(table);
}
