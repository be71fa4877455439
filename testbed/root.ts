/**
 * The project's root: the nearest folder above this file that holds a
 * package.json. The sources run from testbed/ (ts-jest, the e2e suites) and
 * compiled from build/testbed/ (bench, demo, dev); build/ has no package.json.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
	let dir = from;
	while (!existsSync(path.join(dir, 'package.json'))) {
		const up = path.dirname(dir);
		if (up === dir) throw new Error(`no project root above ${from}`);
		dir = up;
	}
	return dir;
}

export const ROOT = findRoot(__dirname);
