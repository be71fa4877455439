/**
 * Charts as SVG, rendered to PNG with resvg (a dev dependency of the
 * benchmark only): a line chart of time per item against parallelism, with
 * optional horizontal reference lines (baselines measured in the same run),
 * and bar charts of ratios to a baseline, side by side.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { Resvg } from '@resvg/resvg-js';

import { ROOT } from '../testbed/root';

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

/**
 * A bar's note a word a line, centred on `x`, the first at `y` and each next `step` lower (a negative step: upwards, the last word at `y`, next to the bar).
 * A count of refusals ("504×429") breaks before its "×": a bar is about 30 px wide, and seven characters at 8-9 px are wider.
 */
function wordLines(note: string | undefined, x: number, y: number, step: number, attributes: string): string[] {
	const words = note?.split(/ |(?=×)/) ?? [];
	return (step < 0 ? words.reverse() : words).map((word, line) => `<text x="${x}" y="${y + line * step}" text-anchor="middle" ${attributes}>${escapeXml(word)}</text>`);
}

/** A bar's note on what a run cost: its failed items, else its requests refused (a count, then "×429", which wordLines breaks before the "×"). */
export function costNote(run: { refused: number; failed: number }): string | undefined {
	return run.failed ? `${run.failed} failed` : run.refused ? `${run.refused}×429` : undefined;
}

export interface Bar {
	label: string;
	value: number;
	/** Drawn in the accent colour (the measured subject, against its baselines). */
	highlight?: boolean;
	/** A short note above the bar (e.g. requests refused, items failed). */
	note?: string;
}

export interface BarPanel {
	title: string;
	bars: Bar[];
	/** What the bars are, under them. */
	axis?: string;
}

/**
 * Bar charts side by side, two a row, each on the same scale: values relative
 * to a baseline of 1 (a dashed line at 1 and a dotted one at `goal`), bars
 * above `top` cut at the top with their value written.
 */
export function writeBarPanels(file: string, title: string, panels: BarPanel[], note: string, top = 3, goal = 1.2): void {
	const columns = 2;
	const panelW = 560;
	const panelH = 300;
	const width = columns * panelW;
	const rowsCount = Math.ceil(panels.length / columns);
	const height = 70 + rowsCount * panelH + 40;
	const parts = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans" font-size="12">`,
		`<rect width="100%" height="100%" fill="white"/>`,
		`<text x="${width / 2}" y="32" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
		`<text x="${width / 2}" y="54" text-anchor="middle" font-size="11" fill="#555">pink: the measured defaults; dashed blue: the baseline (1×); dotted green: ${goal}×; red: requests refused (429) or items failed</text>`,
	];
	panels.forEach((panel, k) => {
		const left = (k % columns) * panelW + 60;
		const topY = 70 + Math.floor(k / columns) * panelH + 40;
		const plotW = panelW - 90;
		const plotH = panelH - 90;
		const yAt = (v: number) => topY + plotH - (Math.min(v, top) / top) * plotH;
		const step = plotW / panel.bars.length;
		parts.push(`<text x="${left + plotW / 2}" y="${topY - 12}" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>`);
		for (let t = 0; t <= top; t += 0.5) {
			parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${yAt(t)}" y2="${yAt(t)}" stroke="#eee"/>`);
			parts.push(`<text x="${left - 6}" y="${yAt(t) + 4}" text-anchor="end">${t.toFixed(1)}×</text>`);
		}
		panel.bars.forEach((bar, n) => {
			const x = left + n * step + step * 0.15;
			const w = step * 0.7;
			const y = yAt(bar.value);
			const colour = bar.highlight ? '#ea4b71' : '#8c8c8c';
			parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${topY + plotH - y}" fill="${colour}"/>`);
			if (bar.value > top) {
				// Cut at the top: its value and note inside the bar.
				// One decimal from 10× up: four digits and the sign are wider than the bar.
				parts.push(`<text x="${x + w / 2}" y="${y + 14}" text-anchor="middle" font-size="9" fill="white">${bar.value.toFixed(bar.value >= 10 ? 1 : 2)}×</text>`);
				// A note as wide as the bar would spill, white, onto the white beside it.
				parts.push(...wordLines(bar.note, x + w / 2, y + 28, 10, 'font-size="8" fill="white"'));
			} else {
				parts.push(`<text x="${x + w / 2}" y="${y - 4}" text-anchor="middle" font-size="10">${bar.value.toFixed(2)}</text>`);
				// Upwards: side by side, the notes of neighbouring bars run into each other.
				parts.push(...wordLines(bar.note, x + w / 2, y - 16, -10, 'font-size="9" fill="#b00"'));
			}
			parts.push(`<text x="${x + w / 2}" y="${topY + plotH + 16}" text-anchor="middle" font-size="10">${escapeXml(bar.label)}</text>`);
		});
		parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${yAt(1)}" y2="${yAt(1)}" stroke="#1f77b4" stroke-width="1.5" stroke-dasharray="6 4"/>`);
		parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${yAt(goal)}" y2="${yAt(goal)}" stroke="#2ca02c" stroke-width="1.5" stroke-dasharray="2 3"/>`);
		parts.push(`<line x1="${left}" x2="${left}" y1="${topY}" y2="${topY + plotH}" stroke="black"/>`);
		parts.push(`<line x1="${left}" x2="${left + plotW}" y1="${topY + plotH}" y2="${topY + plotH}" stroke="black"/>`);
		parts.push(`<text x="${left + plotW / 2}" y="${topY + plotH + 34}" text-anchor="middle" font-size="11">${escapeXml(panel.axis ?? 'v4 defaults (first run, later run, 1 h after the last), then fixed Requests in Parallel')}</text>`);
	});
	parts.push(`<text x="${width / 2}" y="${height - 14}" text-anchor="middle" font-size="11" fill="#555">${escapeXml(note)}</text>`);
	parts.push('</svg>');
	const png = new Resvg(parts.join('\n'), { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
	writeFileSync(file, png);
}

/** A bench's bar chart as it is kept with the bench's results (build/<bench>.json), so it can be drawn again without measuring. */
export interface BarChart {
	/** The PNG's file name, e.g. performance-adaptive.png. */
	file: string;
	title: string;
	panels: BarPanel[];
	note: string;
	/** Whether the run measured every part of its bench: only such a chart replaces the one docs/performance.md shows. */
	everyPart: boolean;
}

/** Draws `chart` into docs/ when its run measured every part, else into build/ (a run of some parts leaves the docs' chart as a whole run drew it); returns the file written. */
export function drawBarChart(chart: BarChart): string {
	const folder = path.join(ROOT, chart.everyPart ? 'docs' : 'build');
	mkdirSync(folder, { recursive: true });
	const file = path.join(folder, chart.file);
	writeBarPanels(file, chart.title, chart.panels, chart.note);
	return file;
}
