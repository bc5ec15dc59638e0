/**
 * The pages for people who use the nodes (the README and docs/*.md; not docs/design/, the
 * maintainers' notes, nor docs/contributing.md) are short and speak their words: the README
 * at most 2,000 words, each page at most 800 (words as `wc -w` counts them: runs of
 * non-space). They hold no test paths, generated seeds or n8n's internals; a variable a
 * self-hoster sets (N8N_ENCRYPTION_KEY, N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE) is fine.
 * Their links to other files of the repository lead to files that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const REPOSITORY_FILES = 'https://github.com/extraction-agents/n8n-nodes-extraction-agents/';

const README = join(ROOT, 'README.md');
const USER_PAGES = readdirSync(DOCS)
	.filter((name) => name.endsWith('.md') && name !== 'contributing.md')
	.map((name) => join(DOCS, name));

const MAX_README_WORDS = 2000;
const MAX_PAGE_WORDS = 800;

const wordsIn = (text: string) => text.split(/\s+/).filter((word) => word !== '').length;
const name = (path: string) => relative(ROOT, path);
const read = (path: string) => readFileSync(path, 'utf8');

/** What a user page must not hold, each with why. */
const MAKERS_WORDS: Array<[RegExp, string]> = [
	[/(^|[\s(`'"/])test\//m, 'a test path'],
	[/\.test\.ts\b/, 'a test file'],
	[/\bseeds? \d+/i, 'a generated seed'],
	[/\bN8N_(SCHEDULER|POLLER|USE_WORKFLOW_PUBLICATION)\w*/, 'an n8n internal setting'],
	[/\b(stateId|getPollBudgetMs|staticData|busboy|python-multipart)\b/, 'a code name'],
	[/\bdev\/(emulator|harness)\b/, 'the development tools'],
];

/** Words a user page may hold, though they look like the ones above. */
const SELF_HOSTERS_VARIABLES = /\bN8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE\b/;

describe('the user pages', () => {
	it('are the README and the pages of docs/ (not docs/design/ or docs/contributing.md)', () => {
		expect(USER_PAGES.map(name)).toEqual(
			expect.arrayContaining(['docs/troubleshooting.md', 'docs/using-the-trigger.md']),
		);
		expect(USER_PAGES.map(name)).not.toContain('docs/contributing.md');
		expect(USER_PAGES.some((page) => page.includes('/design/'))).toBe(false);
	});

	it(`the README has at most ${MAX_README_WORDS} words`, () => {
		expect(wordsIn(read(README))).toBeLessThanOrEqual(MAX_README_WORDS);
	});

	it.each(USER_PAGES.map((page) => [name(page), page]))(
		`%s has at most ${MAX_PAGE_WORDS} words`,
		(_, page) => {
			expect(wordsIn(read(page))).toBeLessThanOrEqual(MAX_PAGE_WORDS);
		},
	);

	it.each([README, ...USER_PAGES].map((page) => [name(page), page]))(
		'%s holds no test paths, generated seeds or n8n internals',
		(_, page) => {
			const text = read(page).replace(SELF_HOSTERS_VARIABLES, '');
			const found = MAKERS_WORDS.filter(([pattern]) => pattern.test(text)).map(
				([pattern, what]) => `${what}: ${text.match(pattern)?.[0].trim()}`,
			);
			expect(found).toEqual([]);
		},
	);

	it.each([README, ...USER_PAGES].map((page) => [name(page), page]))(
		'%s links only to files of the repository that exist',
		(_, page) => {
			const missing: string[] = [];
			for (const [, target] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
				const path = target.split('#')[0];
				let file: string | undefined;
				if (target.startsWith(REPOSITORY_FILES)) {
					const inRepository = target.slice(REPOSITORY_FILES.length).split('#')[0];
					const match = /^(?:blob|tree)\/main\/(.+)$/.exec(inRepository);
					if (match) file = join(ROOT, match[1]);
				} else if (!/^[a-z]+:/i.test(target) && path !== '') {
					file = resolve(dirname(page), path);
				}
				// examples/README.md is written with the examples; the link is checked once it exists.
				if (file && !existsSync(file) && !file.endsWith(join('examples', 'README.md')))
					missing.push(target);
			}
			expect(missing).toEqual([]);
		},
	);

	it('say "file field" for what the panel calls so, "binary field" only for older node versions', () => {
		for (const page of [README, ...USER_PAGES]) {
			const sections = read(page).split(/^## /m);
			const outside = sections.filter((section) => !/^Older/.test(section)).join('\n');
			expect({ page: name(page), binaryField: /binary field/i.test(outside) }).toEqual({
				page: name(page),
				binaryField: false,
			});
		}
	});

	it('name both n8n lines where they say how to turn a workflow on: Publish (2.x) and Activate (1.x)', () => {
		for (const page of [README, ...USER_PAGES]) {
			const text = read(page);
			if (!/\*\*Publish\*\*/.test(text)) continue;
			expect({ page: name(page), activate: /\*\*Active\*\*|\*\*Activate\*\*/.test(text) }).toEqual({
				page: name(page),
				activate: true,
			});
		}
	});
});
