/**
 * A line chart as SVG, rendered to PNG with resvg (a dev dependency of the
 * benchmark only): time per item against parallelism, with optional
 * horizontal reference lines (baselines measured in the same run).
 */
import { writeFileSync } from 'node:fs';

import { Resvg } from '@resvg/resvg-js';

export interface ChartPoint {
	x: number;
	y: number;
}

export interface ChartReference {
	label: string;
	y: number;
}

const REFERENCE_COLOURS = ['#1f77b4', '#2ca02c', '#9467bd'];

export function writeLineChart(
	file: string,
	title: string,
	xLabel: string,
	yLabel: string,
	points: ChartPoint[],
	note: string,
	references: ChartReference[] = [],
	/** A logarithmic y axis, for times that span orders of magnitude. */
	logY = false,
): void {
	const width = 800;
	const height = 500;
	const m = { left: 80, right: 30, top: 60, bottom: 80 };
	const plotW = width - m.left - m.right;
	const plotH = height - m.top - m.bottom;
	// Parallelism doubles each step: an even spacing per point reads best.
	const xs = points.map((p) => p.x);
	const xAt = (i: number) => m.left + (points.length === 1 ? plotW / 2 : (i * plotW) / (points.length - 1));
	const values = [...points.map((p) => p.y), ...references.map((r) => r.y)];
	const yMax = niceCeil(Math.max(...values) * 1.1);
	let yAt = (y: number) => m.top + plotH - (y / yMax) * plotH;
	let ticks = Array.from({ length: 6 }, (_, k) => (yMax * k) / 5);
	if (logY) {
		const low = Math.log10(10 ** Math.floor(Math.log10(Math.min(...values))));
		const high = Math.log10(yMax);
		yAt = (y: number) => m.top + plotH - ((Math.log10(y) - low) / (high - low)) * plotH;
		ticks = [];
		for (let decade = 10 ** low; decade <= yMax; decade *= 10) {
			for (const step of [1, 2, 5]) if (step * decade <= yMax) ticks.push(step * decade);
		}
	}
	const text = (x: number, y: number, s: string, extra = '') => `<text x="${x}" y="${y}" ${extra}>${s}</text>`;
	const parts = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans" font-size="14">`,
		`<rect width="100%" height="100%" fill="white"/>`,
		text(width / 2, 32, title, 'text-anchor="middle" font-size="18" font-weight="bold"'),
		...ticks.map(
			(t) =>
				`<line x1="${m.left}" x2="${m.left + plotW}" y1="${yAt(t)}" y2="${yAt(t)}" stroke="#ddd"/>` +
				text(m.left - 8, yAt(t) + 5, formatNumber(t), 'text-anchor="end"'),
		),
		`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + plotH}" stroke="black"/>`,
		`<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="black"/>`,
		...xs.map((x, i) => text(xAt(i), m.top + plotH + 22, String(x), 'text-anchor="middle"')),
		text(m.left + plotW / 2, height - 38, xLabel, 'text-anchor="middle"'),
		text(20, m.top + plotH / 2, yLabel, `text-anchor="middle" transform="rotate(-90 20 ${m.top + plotH / 2})"`),
		`<polyline fill="none" stroke="#ea4b71" stroke-width="3" points="${points.map((p, i) => `${xAt(i)},${yAt(p.y)}`).join(' ')}"/>`,
		...points.map(
			(p, i) =>
				`<circle cx="${xAt(i)}" cy="${yAt(p.y)}" r="5" fill="#ea4b71"/>` +
				text(xAt(i) + 8, yAt(p.y) - 10, formatNumber(p.y), 'font-size="13"'),
		),
		...references.map((r, k) => {
			const colour = REFERENCE_COLOURS[k % REFERENCE_COLOURS.length];
			const y = yAt(r.y);
			return (
				`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2" stroke-dasharray="8 5"/>` +
				text(m.left + 6, y - 6, `${escapeXml(r.label)}: ${formatNumber(r.y)}`, `font-size="13" fill="${colour}"`)
			);
		}),
		text(width / 2, height - 12, note, 'text-anchor="middle" font-size="12" fill="#555"'),
		'</svg>',
	];
	const png = new Resvg(parts.join('\n'), { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
	writeFileSync(file, png);
}

function niceCeil(value: number): number {
	if (value <= 0) return 1;
	const magnitude = 10 ** Math.floor(Math.log10(value));
	for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
	return 10 * magnitude;
}

function formatNumber(value: number): string {
	return value >= 10 ? value.toFixed(0) : value.toFixed(value >= 1 ? 1 : 2);
}

function escapeXml(value: string): string {
	return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
