// `npm run lint` runs `n8n-node lint`, which runs `eslint .` with this file.
//
// What ships (nodes/, credentials/, package.json) gets @n8n/node-cli's default config untouched:
// the one `n8n-node cloud-support enable` writes, with n8n Cloud's rules (no timers, no process,
// no fs, no console). test/package/lint-config.test.ts checks they get exactly that config.
//
// The dev code (dev/, test/, bench/, scripts/, the config files at the root) never ships: it runs
// servers, child processes and timers, which those rules forbid in a node. It gets
// typescript-eslint's recommended rules instead. Because of that split, package.json says
// "n8n": { "strict": false }: strict mode requires this file to be the default one verbatim,
// and the default one lints every .ts file as node code (README, "n8n-node lint").
import { config as n8nNodeConfig } from '@n8n/node-cli/eslint';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Code that is not in the package: linted by the dev rules, never by the node rules. */
const devCode = ['{test,bench,scripts,dev}/**/*.{ts,js,mjs}', '*.{js,mjs}'];

export default defineConfig(
	globalIgnores(['dist', 'coverage', 'test/artifacts', 'bench/tmp']),
	{ ignores: devCode, extends: [n8nNodeConfig] },
	{
		files: devCode,
		extends: [tseslint.configs.recommended],
		rules: {
			// The dev code require()s on purpose: n8n-core after the harness set its folder, an n8n install's modules by path.
			'@typescript-eslint/no-require-imports': 'off',
			// `const { field: _, ...rest } = object` is how the dev code leaves a field out.
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
	{
		files: ['**/emulator/**/*.ts'],
		// The emulator's own tests read its JSON replies untyped; their assertions check the shape.
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
	// No eslint-disable comments anywhere: a rule that does not fit is argued above, not muted inline.
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } },
);
