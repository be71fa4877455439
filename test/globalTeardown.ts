/** Removes the run's temporary folder made by globalSetup (see there). */
import { rmSync } from 'fs';

export default function globalTeardown(): void {
	const runTmp = process.env.WORKPLACE_JEST_TMP;
	if (runTmp) rmSync(runTmp, { recursive: true, force: true });
}
