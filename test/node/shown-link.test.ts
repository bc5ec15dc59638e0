/**
 * Which path segments of a link messages mask (actions/run/shownLink.ts): tokens, signed
 * tokens with dots, and never a file name. The generated test
 * (link-secrets.generated.test.ts) proves no secret reaches a message through real requests;
 * this one pins the names that must stay readable, which it cannot generate.
 */
import { shownLink } from '../../nodes/ExtractionAgents/actions/run/shownLink';

const at = (segment: string) => shownLink(`https://files.example.com/d/${segment}`);

describe('a link as messages show it: path segments', () => {
	it.each([
		'invoice-2024-000123.pdf',
		'report.v2.final.pdf',
		'IMG_20240101_123456.jpg',
		'scan.2024-01-15T10-30-00Z',
		'backup.20240101T120000',
		'data.export_v20240101',
		'doc.3f2b8c1e-9a7d-4e2b-8c1e-9a7d4e2b8c1e',
		'archive.tar.gz',
	])('keeps the file name %s', (name) => {
		expect(at(name)).toBe(`https://files.example.com/d/${name}`);
	});

	it.each([
		[
			'a signed JSON Web Token',
			'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
		],
		['an unsigned one', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.'],
		['one padded', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl=='],
		[
			'an encrypted one (five parts)',
			'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijkl.mnopqrstuvwx.yzABCDEFGHIJ',
		],
		['a random token after a dot', 'abc.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
		['a share token', 's!AkXy8F3nQ2b7Lm9pR4tV'],
	])('masks %s', (_, segment) => {
		expect(at(segment)).toBe('https://files.example.com/d/***');
	});
});
