// Copies what tsc does not: node and credential icons (light and dark SVG) and
// codex JSON, keeping their folders so `file:` icon paths resolve in dist.
const { src, dest, parallel, series } = require('gulp');
const { writeStamp } = require('./scripts/sourceStamp');

function copyIcons() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'credentials/**/*.svg', 'credentials/**/*.png'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' }).pipe(dest('dist'));
}

// Last step of `npm run build` (after tsc): records which sources dist/ was built from.
function stampBuild(done) {
	writeStamp(__dirname);
	done();
}

exports['build:assets'] = series(parallel(copyIcons, copyCodex), stampBuild);
exports['build:icons'] = copyIcons;
