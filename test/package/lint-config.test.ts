/**
 * `npm run lint` is n8n's `n8n-node lint` in strict mode: eslint.config.mjs is @n8n/node-cli's
 * default file verbatim, so the code that ships gets n8n's Cloud rules exactly, and
 * `n8n-node cloud-support` finds the package eligible. The dev folders carry their own
 * eslint.config.mjs (typescript-eslint's recommended rules), found by ESLint's config lookup
 * from file, which `npm run lint` turns on. The whole tree lints clean, warnings included.
 * ESLint loads its config with import(), so the checks run in a child `node`, not in jest's VM.
 */
import { execSync, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '../..');
const CONFIG_LOOKUP_FLAG = 'unstable_config_lookup_from_file';
/** The environment `npm run lint` gives ESLint. Jest's NODE_ENV=test puts eslint-plugin-n8n-nodes-base in its own test mode (every file is Test.node.ts). */
const LINT_ENV = { ...process.env, NODE_ENV: '', ESLINT_FLAGS: CONFIG_LOOKUP_FLAG };

interface Computed {
	rules: Record<string, unknown[]>;
	plugins: string[];
}

/** The config ESLint computes for `file`: with the lookup flag, from the CLI's default alone, and without the flag. */
const probe = `
import { ESLint } from 'eslint';
import { config } from '@n8n/node-cli/eslint';
const files = JSON.parse(process.argv[1]);
const project = new ESLint({ cwd: process.cwd(), flags: [process.argv[2]] });
// ESLint takes flags from ESLINT_FLAGS too: without it, this is what a bare \`eslint .\` computes.
delete process.env.ESLINT_FLAGS;
const bare = new ESLint({ cwd: process.cwd() });
const cliDefault = new ESLint({ cwd: process.cwd(), overrideConfigFile: true, overrideConfig: config });
const shape = (c) => c && {
	rules: Object.fromEntries(Object.entries(c.rules ?? {}).map(([k, v]) => [k, [].concat(v)])),
	plugins: Object.keys(c.plugins ?? {}).sort(),
};
const out = {};
for (const file of files) {
	out[file] = {
		project: shape(await project.calculateConfigForFile(file)),
		cliDefault: shape(await cliDefault.calculateConfigForFile(file)),
		bare: shape(await bare.calculateConfigForFile(file)),
	};
}
process.stdout.write(JSON.stringify(out));
`;

const SHIPPED = [
	'nodes/ExtractionAgents/ExtractionAgents.node.ts',
	'nodes/ExtractionAgents/transport/serviceRequest.ts',
	'credentials/ExtractionAgentsApi.credentials.ts',
	'package.json',
];
const DEV = [
	'dev/harness/core.ts',
	'dev/emulator/server.ts',
	'test/node/fixtures.ts',
	'bench/run.ts',
	'scripts/bootstrap.js',
];

type Probed = Record<string, { project: Computed; cliDefault: Computed; bare: Computed }>;

let probed: Probed;
/** `eslint .` as `n8n-node lint` runs it, in a process of its own. */
let tree: { files: number; problems: string[]; stderr: string };
beforeAll(() => {
	const lint = spawnSync(
		process.execPath,
		[join(ROOT, 'node_modules/eslint/bin/eslint.js'), '.', '--format', 'json'],
		{ cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: LINT_ENV },
	);
	const results = JSON.parse(lint.stdout) as {
		filePath: string;
		messages: { line: number; ruleId: string | null; message: string }[];
	}[];
	tree = {
		stderr: lint.stderr,
		files: results.length,
		problems: results.flatMap((r) =>
			r.messages.map(
				(m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.ruleId} ${m.message}`,
			),
		),
	};

	const result = spawnSync(
		process.execPath,
		['--input-type=module', '-e', probe, JSON.stringify([...SHIPPED, ...DEV]), CONFIG_LOOKUP_FLAG],
		{ cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: LINT_ENV },
	);
	if (result.status !== 0) throw new Error(`eslint probe failed:\n${result.stderr}`);
	probed = JSON.parse(result.stdout) as Probed;
}, 120_000);

describe('eslint.config.mjs (what `n8n-node lint` runs)', () => {
	it.each(SHIPPED)(
		'lints %s with @n8n/node-cli default config, every rule as it sets it',
		(file) => {
			const { project, cliDefault } = probed[file];
			expect(Object.keys(cliDefault.rules).length).toBeGreaterThan(0);
			expect(project.rules).toEqual(cliDefault.rules);
			expect(project.plugins).toEqual(cliDefault.plugins);
		},
	);

	it('holds the shipped code to n8n Cloud rules (no restricted globals or imports, no console)', () => {
		const { rules } = probed['nodes/ExtractionAgents/transport/serviceRequest.ts'].project;
		expect(rules['@n8n/community-nodes/no-restricted-globals']?.[0]).toBe(2);
		expect(rules['@n8n/community-nodes/no-restricted-imports']?.[0]).toBe(2);
		expect(rules['no-console']?.[0]).toBe(2);
	});

	it.each(DEV)('lints %s with typescript-eslint recommended rules, not the node rules', (file) => {
		const { rules } = probed[file].project;
		expect(rules['@typescript-eslint/no-unused-vars']?.[0]).toBe(2);
		expect(rules['@typescript-eslint/no-unused-expressions']?.[0]).toBe(2);
		expect(rules['@typescript-eslint/ban-ts-comment']?.[0]).toBe(2);
		expect(rules['@n8n/community-nodes/no-restricted-globals']).toBeUndefined();
		expect(rules['no-console']).toBeUndefined();
	});

	it('finds no eslint-disable comment in the code (n8n’s scanner ignores them)', () => {
		const found = execSync(
			"git grep -n -I -e 'eslint-disable' -- '*.ts' '*.js' '*.mjs' '*.cjs' ':!test/package/lint-config.test.ts' || true",
			{ cwd: ROOT, encoding: 'utf8' },
		);
		expect(found).toBe('');
	});

	it('finds no error and no warning in the tree', () => {
		expect(tree.files).toBeGreaterThan(100);
		expect(tree.problems).toEqual([]);
	});

	it('is what npm run lint runs: n8n-node lint in strict mode, with the config lookup from file', () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			scripts: Record<string, string>;
			n8n: { strict: boolean };
		};
		expect(pkg.scripts.lint).toContain(`ESLINT_FLAGS=${CONFIG_LOOKUP_FLAG} n8n-node lint`);
		expect(pkg.scripts.test).toContain('npm run lint');
		expect(pkg.n8n.strict).toBe(true);
		const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
		expect(squash(readFileSync(join(ROOT, 'eslint.config.mjs'), 'utf8'))).toBe(
			squash(
				readFileSync(
					join(
						ROOT,
						'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs',
					),
					'utf8',
				),
			),
		);
	});

	it('n8n-node cloud-support finds the package eligible for n8n Cloud verification', () => {
		const status = spawnSync(
			process.execPath,
			[join(ROOT, 'node_modules/@n8n/node-cli/bin/n8n-node.mjs'), 'cloud-support'],
			{ cwd: ROOT, encoding: 'utf8', env: LINT_ENV },
		);
		// Colours come on where the terminal or CI asks for them: read the text without them.
		const said = `${status.stdout}${status.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
		expect(said).toContain('Strict mode: enabled');
		expect(said).toContain('ESLint config: using default config');
		expect(said).toContain('eligible for n8n Cloud verification');
	});
});

/**
 * Why `npm run lint` and not a bare `npx n8n-node lint` (docs/contributing.md, "Lint"): the bare
 * command runs `eslint .` with the root config only, which strict mode and n8n Cloud
 * eligibility require verbatim and which holds every .ts file to the node rules. These pin the
 * facts that argument rests on, so a release of @n8n/node-cli or ESLint that changes one of
 * them fails here and the arrangement gets looked at again.
 */
describe('why the config lookup flag is needed (a bare `npx n8n-node lint` fails)', () => {
	it.each(DEV.filter((file) => file.endsWith('.ts')))(
		'without the flag, ESLint gives %s the node rules, which forbid what dev code does',
		(file) => {
			const { bare } = probed[file];
			expect(bare.rules['@n8n/community-nodes/no-restricted-imports']?.[0]).toBe(2);
			expect(bare.rules['@n8n/community-nodes/no-restricted-globals']?.[0]).toBe(2);
			expect(bare.rules['no-console']?.[0]).toBe(2);
		},
	);

	it('the ESLint that runs is the one @n8n/node-cli pins, and takes the flag under this name without a warning', () => {
		const version = (name: string) =>
			JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
				version: string;
				dependencies?: Record<string, string>;
			};
		expect(version('eslint').version).toBe(version('@n8n/node-cli').dependencies?.eslint);
		// ESLint 9.30 renamed the flag v10_config_lookup_from_file and warns on the old name;
		// 9.29 knows only this one. ESLint 10 (the lookup on by default) cannot load n8n's config.
		expect(tree.stderr).toBe('');
	});
});
