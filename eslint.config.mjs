// `npm run lint`: the source held to n8n's verification rules (see scripts/scan-config.mjs).
// Inline eslint-disable comments are ignored, as the scanner ignores them.
import { scanConfig } from './scripts/scan-config.mjs';

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'test/**',
			'scripts/**',
			'bench/**',
			'examples/**',
			'*.js',
			'*.mjs',
		],
	},
	...scanConfig,
	{ linterOptions: { noInlineConfig: true } },
];
