/**
 * Runs once before every jest run: the node tests load the package from dist/
 * as n8n does, so dist/ must be built from the sources as they are now. When
 * the stamp the build wrote (dist/.source-stamp) differs from the sources, this
 * builds again (tsc + the asset copy, i.e. `npm run build`); if that still
 * leaves them apart, the run fails before any test starts.
 */
import { execFileSync } from 'child_process';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { ROOT } from '../testbed/root';

// Plain JS, shared with gulpfile.js.
const { builtStamp, sourceStamp } = require('../scripts/sourceStamp') as {
	builtStamp(root: string): string | undefined;
	sourceStamp(root: string): string;
};


export default function globalSetup(): void {
	// Every temporary folder of the run (n8n homes, binary stores, emulator data) goes
	// under one folder that globalTeardown removes: workers inherit TMPDIR, and a test
	// process that ends without its own clean-up leaves nothing behind.
	const runTmp = mkdtempSync(path.join(tmpdir(), 'workplace-jest-'));
	process.env.WORKPLACE_JEST_TMP = runTmp;
	process.env.TMPDIR = runTmp;
	if (builtStamp(ROOT) === sourceStamp(ROOT)) return;
	process.stdout.write('\ndist/ is older than nodes/ or credentials/: building it before the tests (npm run build)\n');
	const run = (script: string, args: string[]) =>
		execFileSync(process.execPath, [path.join(ROOT, 'node_modules', script), ...args], { cwd: ROOT, stdio: 'inherit' });
	run('typescript/bin/tsc', ['-p', 'tsconfig.json']);
	run('gulp/bin/gulp.js', ['build:assets']);
	if (builtStamp(ROOT) !== sourceStamp(ROOT)) {
		throw new Error('dist/ still does not match the sources after `npm run build`; the tests would load a stale build');
	}
}
