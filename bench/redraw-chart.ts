/**
 * `npm run bench:chart -- <bench>` (bench-adaptive, bench-adaptive-n8n): draws
 * a bench's bar chart again from its last saved results (build/<bench>.json),
 * without measuring, where that run drew it (drawBarChart): after a change to
 * how charts are drawn, the figures stay the ones measured.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { ROOT } from '../testbed/root';
import { drawBarChart, type BarChart } from './chart';

const bench = process.argv[2];
if (!bench || !/^[a-z0-9-]+$/.test(bench)) {
	console.error('Usage: npm run bench:chart -- <bench>, e.g. bench-adaptive (its results are build/<bench>.json)');
	process.exit(2);
}
const saved = JSON.parse(readFileSync(path.join(ROOT, 'build', `${bench}.json`), 'utf8')) as { chart?: BarChart };
if (!saved.chart) {
	console.error(`build/${bench}.json holds no chart: run the bench (it keeps its chart with its results), then redraw`);
	process.exit(1);
}
console.log(`Chart: ${path.relative(ROOT, drawBarChart(saved.chart))}`);
