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
	// The node tests load dist/: build it first whenever the sources changed since the last build.
	globalSetup: '<rootDir>/test/globalSetup.ts',
	globalTeardown: '<rootDir>/test/globalTeardown.ts',
};
