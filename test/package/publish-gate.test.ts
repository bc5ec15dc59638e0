/**
 * The publish safeguard runs: `npm publish` from a checkout stops at package.json's
 * prepublishOnly (`n8n-node prerelease`, which exits 1 unless RELEASE_MODE is set), before npm
 * packs anything. It only runs if npm runs scripts on publish, which `ignore-scripts=true` in
 * .npmrc once prevented: a plain `npm publish --dry-run` then "published" an unbuilt tarball.
 * The release workflow publishes the tarball its test job packed (npm runs no script for a
 * tarball), under the dist-tag scripts/release-version.mjs derives from the version.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '../..');

/** The environment of a developer's shell: no RELEASE_MODE, and no npm setting `npm test` passed down. */
function developerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (key === 'RELEASE_MODE' || /^npm_/i.test(key)) continue;
		env[key] = value;
	}
	return { ...env, NO_COLOR: '1', ...extra };
}

describe('npm publish from a checkout', () => {
	it('stops at prepublishOnly (n8n-node prerelease) before packing: `npm publish --dry-run` exits 1', () => {
		const result = spawnSync('npm', ['publish', '--dry-run'], {
			cwd: ROOT,
			encoding: 'utf8',
			env: developerEnv(),
			timeout: 120_000,
		});
		const output = `${result.stdout}${result.stderr}`;
		expect(output).toContain('> n8n-node prerelease');
		expect(output).toContain('Run `npm run release` to publish the package');
		expect(output).toContain('command sh -c n8n-node prerelease');
		// Nothing was packed or "published": npm prints the tarball's contents and
		// "Publishing to ..." only after prepublishOnly passes.
		expect(output).not.toMatch(/Tarball Contents|Publishing to /);
		expect(result.status).toBe(1);
	}, 120_000);

	it('passes the gate with RELEASE_MODE set, as in the release workflow', () => {
		const result = spawnSync('npm', ['run', 'prepublishOnly', '--silent'], {
			cwd: ROOT,
			encoding: 'utf8',
			env: developerEnv({ RELEASE_MODE: 'true' }),
			timeout: 120_000,
		});
		expect(`${result.stdout}${result.stderr}`).not.toContain('npm run release');
		expect(result.status).toBe(0);
	}, 120_000);

	it('.npmrc leaves scripts on (the gate needs them); installs turn them off themselves', () => {
		const npmrc = readFileSync(join(ROOT, '.npmrc'), 'utf8');
		expect(npmrc).not.toMatch(/^\s*ignore-scripts\s*=/m);
		expect(readFileSync(join(ROOT, 'scripts/bootstrap.js'), 'utf8')).toContain(
			"'npm ci --ignore-scripts",
		);
	});
});

describe('scripts/release-version.mjs (the release workflow’s first step)', () => {
	function releaseVersion(version: string, tag: string) {
		const dir = mkdtempSync(join(tmpdir(), 'release-version-'));
		try {
			writeFileSync(join(dir, 'package.json'), JSON.stringify({ version }));
			const result = spawnSync(process.execPath, [join(ROOT, 'scripts/release-version.mjs')], {
				cwd: dir,
				encoding: 'utf8',
				env: { ...process.env, GITHUB_REF_NAME: tag },
			});
			return { status: result.status, stdout: result.stdout, stderr: result.stderr };
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	it('publishes a release under latest', () => {
		expect(releaseVersion('0.4.0', 'v0.4.0')).toEqual({
			status: 0,
			stdout: 'dist-tag=latest\n',
			stderr: '',
		});
		expect(releaseVersion('1.0.0+build.7', 'v1.0.0+build.7').stdout).toBe('dist-tag=latest\n');
	});

	it('publishes a prerelease (v0.4.0-rc.1) under next, so latest stays on the last release', () => {
		expect(releaseVersion('0.4.0-rc.1', 'v0.4.0-rc.1').stdout).toBe('dist-tag=next\n');
		expect(releaseVersion('1.0.0-beta', 'v1.0.0-beta').stdout).toBe('dist-tag=next\n');
	});

	it('stops when the tag does not name the version in package.json', () => {
		const result = releaseVersion('0.4.0-rc.1', 'v0.4.0');
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(
			'The tag "v0.4.0" does not name the version in package.json (v0.4.0-rc.1).\n',
		);
		expect(result.stdout).toBe('');
	});
});
