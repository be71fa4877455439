// "812 of 2,121 packages": how many of the packages a folder's package-lock.json
// lists are unpacked in its node_modules (their package.json is there). The
// progress line of an install (scripts/progress.sh); plain Node, any version.
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const folder = process.argv[2] || '.';
const lock = JSON.parse(readFileSync(path.join(folder, 'package-lock.json'), 'utf8'));
// Optional packages for another platform (darwin-arm64 builds and the like) are never installed.
const elsewhere = (entry) =>
	entry.optional &&
	((entry.os && !entry.os.includes(process.platform)) || (entry.cpu && !entry.cpu.includes(process.arch)) || (entry.libc && !entry.libc.includes('glibc')));
const wanted = Object.entries(lock.packages || {})
	.filter(([key, entry]) => key.startsWith('node_modules/') && !elsewhere(entry))
	.map(([key]) => key);
const done = wanted.filter((key) => existsSync(path.join(folder, key, 'package.json'))).length;
console.log(`${done.toLocaleString('en')} of ${wanted.length.toLocaleString('en')} packages`);
