/**
 * Runs once before every jest run. Every temporary folder of the run (n8n
 * homes, binary stores, emulator data, scratch copies) goes under one folder
 * that globalTeardown removes: workers inherit TMPDIR, so a test process that
 * ends without its own clean-up leaves nothing behind. (No build is needed:
 * the suites load the node's sources through ts-jest, see testbed/testbed.ts.)
 */
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';

export default function globalSetup(): void {
	const runTmp = mkdtempSync(path.join(tmpdir(), 'workplace-jest-'));
	process.env.WORKPLACE_JEST_TMP = runTmp;
	process.env.TMPDIR = runTmp;
}
