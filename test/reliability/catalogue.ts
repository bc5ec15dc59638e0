/**
 * Prints the bad-input catalogue as the README's Markdown table, or with --write puts it
 * into README.md between the bad-inputs markers (bad-inputs.test.ts checks they match).
 *
 *   npx tsx test/reliability/catalogue.ts [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE_END, CATALOGUE_START, renderCatalogue } from './bad-inputs';

const table = renderCatalogue();
if (process.argv.includes('--write')) {
	const path = join(__dirname, '..', '..', 'README.md');
	const readme = readFileSync(path, 'utf8');
	const start = readme.indexOf(CATALOGUE_START);
	const end = readme.indexOf(CATALOGUE_END);
	if (start < 0 || end < start)
		throw new Error(`README.md has no ${CATALOGUE_START} … ${CATALOGUE_END} block`);
	writeFileSync(path, readme.slice(0, start) + table + readme.slice(end + CATALOGUE_END.length));
	console.log(`README.md: catalogue written (${table.split('\n').length - 4} rows)`);
} else {
	console.log(table);
}
