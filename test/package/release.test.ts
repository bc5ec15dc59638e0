/**
 * The version a release publishes is said the same way everywhere: package.json (what npm
 * publishes, and what the publish workflow compares the tag with), package-lock.json's two
 * copies of it, and the newest release in CHANGELOG.md, which keeps an empty-or-not
 * [Unreleased] section on top and a link for every section.
 */
import { readFileSync } from 'fs';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { name: string; version: string };
const lock = JSON.parse(read('package-lock.json')) as {
	name: string;
	version: string;
	packages: Record<string, { name?: string; version?: string }>;
};
const changelog = read('CHANGELOG.md');
const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(
	(match) => ({ name: match[1], date: match[2] }),
);
const REPOSITORY = 'https://github.com/extraction-agents/n8n-nodes-extraction-agents';

describe('the release version', () => {
	it('package-lock.json names the version of package.json at its top and for the root package', () => {
		expect([lock.name, lock.version]).toEqual([pkg.name, pkg.version]);
		expect(lock.packages['']).toMatchObject({ name: pkg.name, version: pkg.version });
	});

	it('CHANGELOG.md has [Unreleased] first, then the version of package.json with its date', () => {
		expect(headings[0]).toEqual({ name: 'Unreleased', date: undefined });
		expect(headings[1].name).toBe(pkg.version);
		expect(headings[1].date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
	});

	it('CHANGELOG.md lists its releases newest first, each with a date', () => {
		const released = headings.slice(1);
		const order = (version: string) => version.split('.').map(Number);
		for (const [index, release] of released.entries()) {
			expect({ release: release.name, semver: /^\d+\.\d+\.\d+$/.test(release.name) }).toEqual({
				release: release.name,
				semver: true,
			});
			if (index === 0) continue;
			const [newer, older] = [order(released[index - 1].name), order(release.name)];
			const firstDifference = newer.findIndex((part, at) => part !== older[at]);
			expect({
				newer: released[index - 1].name,
				older: release.name,
				descending: newer[firstDifference] > older[firstDifference],
			}).toEqual({
				newer: released[index - 1].name,
				older: release.name,
				descending: true,
			});
		}
		// 0.1.0 was released before dates were written.
		for (const release of released.filter((r) => r.name !== '0.1.0'))
			expect({ release: release.name, date: release.date }).toEqual({
				release: release.name,
				date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
			});
	});

	it('CHANGELOG.md links every section: [Unreleased] to the changes since the newest tag, a release to its own', () => {
		const links = Object.fromEntries(
			[...changelog.matchAll(/^\[([^\]]+)\]: (\S+)$/gm)].map((match) => [match[1], match[2]]),
		);
		const released = headings.slice(1).map((heading) => heading.name);
		expect(links.Unreleased).toBe(`${REPOSITORY}/compare/v${released[0]}...HEAD`);
		for (const [index, version] of released.entries()) {
			const previous = released[index + 1];
			expect([version, links[version]]).toEqual([
				version,
				previous
					? `${REPOSITORY}/compare/v${previous}...v${version}`
					: `${REPOSITORY}/releases/tag/v${version}`,
			]);
		}
	});
});
