// n8n's verification scan (@n8n/scan-community-package), run on this tree
// instead of the registry: its CLI downloads the published package and the
// source its provenance names, so we call its own analysis on the same two
// things here — the source (package.json, nodes/, shared/, credentials/) and the
// tarball `npm pack` makes of the built dist/. Prints the findings and exits
// non-zero on any error. Needs a fresh `npm run build` (npm run scan does it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'workplace-scan-'));
// The scanner makes a temp folder when it is loaded and leaves it behind;
// pointing TMPDIR here puts it inside the folder this script removes.
process.env.TMPDIR = work;

let failed = false;
try {
	if (!fs.existsSync(path.join(root, 'dist', 'nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` first (npm run scan does)');
	}
	// with-node24.sh's npm_config_nodedir is for native builds; npm itself warns about it.
	const { npm_config_nodedir: _nodedir, ...env } = process.env;
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
			cwd: root,
			env,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		}),
	)[0];
	const tarball = path.join(work, packed.filename);
	const unpacked = path.join(work, 'package');
	fs.mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);

	const { analyzePackage, SOURCE_FILE_PATTERNS } = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	// The same two legs, with the same file patterns, as the scanner's analyzePackageByName.
	const legs = [
		// The scanner's own source patterns name nodes/ and credentials/; the package's shared
		// code ships too, so the source leg reads shared/ as well.
		['source', root, [...SOURCE_FILE_PATTERNS, 'shared/**/*.{js,ts,json}']],
		[`tarball ${packed.filename} (${packed.entryCount} files)`, unpacked, ['**/*.js', 'package.json']],
	];
	for (const [name, dir, patterns] of legs) {
		const result = await analyzePackage(dir, patterns);
		const summary = /(\d+) errors?, (\d+) warnings?/.exec(result.details ?? '');
		const errors = result.passed ? 0 : summary ? Number(summary[1]) : 1;
		console.log(`== scan ${name}: ${result.passed ? 'passed' : result.message}, ${errors} errors`);
		if (result.details) console.log(result.details.replaceAll(dir + path.sep, ''));
		if (!result.passed) failed = true;
	}

	// The rule set lets a module through when it is one of the package's
	// devDependencies (bundled at build, it assumes); this package bundles
	// nothing, so every require of the shipped JavaScript must be one n8n provides.
	const provided = new Set(['n8n-workflow', 'crypto', 'node:crypto']);
	const strays = [];
	for (const file of fs.globSync('**/*.js', { cwd: unpacked })) {
		const text = fs.readFileSync(path.join(unpacked, file), 'utf8');
		for (const [, spec] of text.matchAll(/\b(?:require|import)\(\s*["'`]([^"'`]+)["'`]\s*\)/g)) {
			if (!spec.startsWith('.') && !provided.has(spec)) strays.push(`${file}: ${spec}`);
		}
	}
	console.log(`== shipped requires: ${strays.length === 0 ? 'only n8n-workflow, crypto and the package\'s own files' : strays.join(', ')}`);
	if (strays.length > 0) failed = true;
} catch (error) {
	console.error(`scan: ${error instanceof Error ? error.message : String(error)}`);
	failed = true;
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
console.log(failed ? 'scan: FAILED' : 'scan: clean (source and tarball)');
process.exit(failed ? 1 : 0);
