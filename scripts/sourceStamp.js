// A fingerprint of everything `npm run build` turns into dist/: the shipped
// sources (nodes/, credentials/) and the files that steer the build. The build
// writes it to dist/ (gulp build:assets); scripts/dev.sh compares it and
// builds again only when they differ.
const { createHash } = require('crypto');
const fs = require('fs');
const path = require('path');

const SOURCE_DIRS = ['nodes', 'credentials'];
const BUILD_FILES = ['package.json', 'tsconfig.json', 'gulpfile.js'];
const STAMP_FILE = path.join('dist', '.source-stamp');

function filesBelow(dir) {
	if (!fs.existsSync(dir)) return [];
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		return entry.isDirectory() ? filesBelow(full) : [full];
	});
}

/** sha256 over the relative path and content of every file that goes into dist/. */
function sourceStamp(root) {
	const files = [
		...SOURCE_DIRS.flatMap((dir) => filesBelow(path.join(root, dir))),
		...BUILD_FILES.map((file) => path.join(root, file)).filter((file) => fs.existsSync(file)),
	]
		.map((file) => path.relative(root, file).split(path.sep).join('/'))
		.sort();
	const hash = createHash('sha256');
	for (const file of files) {
		hash.update(`${file}\0`);
		hash.update(fs.readFileSync(path.join(root, file)));
		hash.update('\0');
	}
	return hash.digest('hex');
}

/** The stamp dist/ was built from, or undefined when dist/ carries none. */
function builtStamp(root) {
	const file = path.join(root, STAMP_FILE);
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

function writeStamp(root) {
	fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
	fs.writeFileSync(path.join(root, STAMP_FILE), `${sourceStamp(root)}\n`);
}

module.exports = { builtStamp, sourceStamp, STAMP_FILE, writeStamp };
