const path = require('node:path');

/** @type {import('jest').Config} End-to-end suites: a real n8n per suite, run one at a time. */
module.exports = {
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>/tests'],
	testMatch: ['**/*.e2e.test.ts'],
	transform: {
		// Type checking is `tsc -p e2e/tsconfig.json`; ts-jest only transpiles.
		'^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, '..', 'tsconfig.dev.json'), diagnostics: false }],
	},
	maxWorkers: 1,
	testTimeout: 600_000,
};
