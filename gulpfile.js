// Copies what tsc does not: node and credential icons (light and dark SVG) and
// codex JSON, keeping their folders so `file:` icon paths resolve in dist.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'credentials/**/*.svg', 'credentials/**/*.png'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' }).pipe(dest('dist'));
}

exports['build:assets'] = parallel(copyIcons, copyCodex);
exports['build:icons'] = copyIcons;
