// Lint rules for the code that never ships: dev/, test/, bench/ and scripts/ each hold an
// eslint.config.mjs that is this file. It runs servers, child processes and timers, which
// n8n's node rules forbid, so it gets typescript-eslint's recommended rules instead.
//
// eslint.config.mjs at the root is @n8n/node-cli's default, verbatim (strict mode checks it),
// and lints what ships. `npm run lint` runs `n8n-node lint` with ESLint's config lookup from
// file (ESLINT_FLAGS=unstable_config_lookup_from_file, ESLint 10's default), so each file gets
// the config of its nearest folder: see README, "n8n-node lint".
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
	globalIgnores(['artifacts', 'tmp']),
	{
		files: ['**/*.{ts,js,mjs,cjs}'],
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
	// Inline comments that turn rules off are ignored here too (n8n's scanner ignores them in node code).
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' } },
);
