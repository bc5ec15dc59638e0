/** Tests run against the TypeScript sources through ts-jest (transpile only: `npm run build` type-checks). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
	},
	testTimeout: 120000,
	maxWorkers: 2,
	verbose: false,
};
