/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		// Type checking is done once by `tsc -p tsconfig.dev.json`; with isolatedModules
		// set there, ts-jest only transpiles.
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json', diagnostics: false }],
	},
	testTimeout: 60_000,
	// One temporary folder for the whole run, removed at its end.
	globalSetup: '<rootDir>/test/globalSetup.ts',
	globalTeardown: '<rootDir>/test/globalTeardown.ts',
};
