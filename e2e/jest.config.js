const path = require('node:path');
const { laneSelection } = require('./lanes');

/** @type {import('jest').Config} End-to-end suites: a real n8n per suite, run one at a time (per lane: e2e/lanes.js). */
module.exports = {
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>/tests'],
	...laneSelection(process.env.E2E_LANE || undefined),
	transform: {
		// Type checking is `tsc -p e2e/tsconfig.json`; ts-jest only transpiles.
		'^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, '..', 'tsconfig.dev.json'), diagnostics: false }],
	},
	maxWorkers: 1,
	testTimeout: 600_000,
};
