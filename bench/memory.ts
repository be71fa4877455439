/**
 * `npm run bench:memory`: does memory grow with file size? A 100 MB and a
 * 1 GB knowledge file (BENCH_FILE_BYTES, BENCH_LARGE_FILE_BYTES) go through
 * the same four transfers, each in a fresh process (bench/memory-child.ts) so
 * every figure is a process's first large transfer, the worst case:
 *
 *   raw http.get → file, and the same → raw streamed multipart PUT (baselines);
 *   Workplace node Download → n8n's binary store, and Download → Replace.
 *
 * n8n's binary data is in filesystem mode (n8n-core's own store, as in the
 * bench's part c). The figure is the highest RSS sampled (every 2 ms) while
 * the transfer ran; the table prints the median of BENCH_MEMORY_RUNS (3) runs
 * per size, the ratio 1 GB / 100 MB, and the growth over the RSS just before.
 * Sizes and variants take turns within each run. The emulator runs in its own
 * process with its upload limit raised to the large file's size (the service's
 * limit, and the emulator's default, is 100 MB). Figures, not tests.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { askChild, int, median, printTable, ROOT, type Row } from './common';
import type { ChildReady } from './emulator-child';
import { REPLACE_TARGET } from './fileTransfer';
import type { MemoryFigures, MemoryTask, Variant } from './memory-child';

const MB = 1024 * 1024;
const RUNS = int('BENCH_MEMORY_RUNS', 3);
const SMALL = int('BENCH_FILE_BYTES', 100 * MB);
const LARGE = int('BENCH_LARGE_FILE_BYTES', 1024 * MB);

const VARIANTS: Array<{ variant: Variant; what: string }> = [
	{ variant: 'rawDownload', what: 'raw http.get → file (baseline)' },
	{ variant: 'nodeDownload', what: 'Workplace node: Download → binary store' },
	{ variant: 'rawRoundTrip', what: 'raw download → streamed multipart PUT (baseline)' },
	{ variant: 'nodeRoundTrip', what: 'Workplace node: Download → Replace' },
];

const sizeLabel = (bytes: number) => (bytes >= 1024 * MB ? `${(bytes / 1024 / MB).toFixed(bytes % (1024 * MB) ? 1 : 0)} GB` : `${(bytes / MB).toFixed(0)} MB`);
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

function measureInFreshProcess(task: MemoryTask): Promise<MemoryFigures> {
	return new Promise((resolve, reject) => {
		const child = fork(path.join(__dirname, 'memory-child.js'), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		let figures: MemoryFigures | undefined;
		child.once('message', (message: MemoryFigures) => (figures = message));
		child.once('exit', (code) => (figures ? resolve(figures) : reject(new Error(`${task.variant} (${sizeLabel(task.size)}): child exited with ${code}`))));
		child.send(task);
	});
}

async function main(): Promise<void> {
	const emulator: ChildProcess = fork(path.join(__dirname, 'emulator-child.js'), [], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		env: { ...process.env, BENCH_FILE_BYTES: String(SMALL), BENCH_LARGE_FILE_BYTES: String(LARGE), BENCH_MAX_UPLOAD_BYTES: String(LARGE) },
	});
	try {
		const ready = await askChild<ChildReady>(emulator, {}, 'ready');
		if (!ready.large) throw new Error('the emulator seeded no large file');
		const files = [
			{ size: SMALL, source: { knowledgeId: ready.knowledgeId, fileId: ready.fileId }, sha256: ready.sha256 },
			{ size: LARGE, source: { knowledgeId: ready.large.knowledgeId, fileId: ready.large.fileId }, sha256: ready.large.sha256 },
		];
		console.log(`Emulator in child process ${emulator.pid}; Node ${process.version}; ${sizeLabel(SMALL)} and ${sizeLabel(LARGE)}, ${RUNS} runs, a fresh process per transfer`);
		const figures: Record<string, MemoryFigures[]> = {};
		for (let r = 0; r < RUNS; r++) {
			for (const { variant } of VARIANTS) {
				for (const file of files) {
					const measured = await measureInFreshProcess({ access: { url: ready.url, credentials: ready.credentials }, ...file, variant });
					if (variant.endsWith('RoundTrip')) {
						const stored = await askChild<{ sha256: string }>(emulator, { kind: 'file', fileId: REPLACE_TARGET.fileId }, 'file');
						if (stored.sha256 !== file.sha256) throw new Error(`${variant} (${sizeLabel(file.size)}): the replaced file's sha256 does not match`);
					}
					(figures[`${variant}:${file.size}`] ??= []).push(measured);
					console.log(`run ${r + 1} ${variant} ${sizeLabel(file.size)}: peak ${mb(measured.peak)} (+${mb(measured.peak - measured.before)}), VmHWM ${mb(measured.hwm)}, ${(measured.ms / 1000).toFixed(1)} s`);
				}
			}
		}
		const rows: Row[] = [];
		const results: Record<string, unknown> = {};
		const at = (variant: Variant, size: number, pick: (f: MemoryFigures) => number) => median(figures[`${variant}:${size}`].map(pick));
		for (const { variant, what } of VARIANTS) {
			const peak = (size: number) => at(variant, size, (f) => f.peak);
			const growth = (size: number) => at(variant, size, (f) => f.peak - f.before);
			const ratio = peak(LARGE) / peak(SMALL);
			results[variant] = { peakSmallMB: peak(SMALL) / MB, peakLargeMB: peak(LARGE) / MB, ratio, growthSmallMB: growth(SMALL) / MB, growthLargeMB: growth(LARGE) / MB, runs: { small: figures[`${variant}:${SMALL}`], large: figures[`${variant}:${LARGE}`] } };
			rows.push({
				part: rows.length === 0 ? `Peak RSS, ${sizeLabel(SMALL)} → ${sizeLabel(LARGE)} (filesystem mode)` : '',
				what,
				value: `${mb(peak(SMALL))} → ${mb(peak(LARGE))} (growth ${mb(growth(SMALL))} → ${mb(growth(LARGE))})`,
				ratio: `${ratio.toFixed(3)}×`,
				goal: variant.startsWith('node') ? `${ratio <= 1.1 ? '≤ 1.10 ✓' : '≤ 1.10 ✗'}` : undefined,
			});
		}
		printTable(rows);
		mkdirSync(path.join(ROOT, 'build'), { recursive: true });
		writeFileSync(path.join(ROOT, 'build/bench-memory.json'), `${JSON.stringify({ node: process.version, runs: RUNS, small: SMALL, large: LARGE, results }, null, 2)}\n`);
	} finally {
		emulator.send({ kind: 'close' });
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
