/**
 * `npm run bench:memory`: does memory grow with file size? Each transfer runs
 * in a fresh process (bench/memory-child.ts), so every figure is a process's
 * first large transfer, the worst case:
 *
 *   downloads, 100 MB and 1 GB: raw http.get → file (baseline), and the
 *   Workplace node's Download → n8n's binary store;
 *   uploads, 10 MB and 100 MB (the service accepts at most 100 MB, and the
 *   node refuses more before sending): raw download → streamed multipart PUT
 *   (baseline), and the node's Download → Replace.
 *
 * n8n's binary data is in filesystem mode (n8n-core's own store, as in the
 * bench's part c). The figure is the highest RSS sampled (every 2 ms) while
 * the transfer ran; the table prints the median of BENCH_MEMORY_RUNS (3) runs
 * per size, the ratio larger / smaller, and the growth over the RSS just
 * before, and what the transfer left in V8's heap and ArrayBuffers after a
 * forced collection (a leak would grow with the file; V8's timing does not
 * move it). Sizes and variants take turns within each run. Sizes:
 * BENCH_MEMORY_SIZES (download small, download large, upload small; the
 * upload's large size is the service's 100 MB); BENCH_MEMORY_VARIANTS picks
 * variants. Figures, not tests.
 */
import type { SeededFile } from '../testbed/largeFile';
import { askChild, measureInChild, median, runBench, saveResults, startEmulatorChild, type Row } from './common';
import { REPLACE_TARGET } from './fileTransfer';
import type { MemoryFigures, MemoryTask, Variant } from './memory-child';

const MiB = 1024 * 1024;
const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 3);
/** The service's largest upload (and the node's). */
const UPLOAD_LIMIT = 100 * MiB;
const [DOWNLOAD_SMALL, DOWNLOAD_LARGE, UPLOAD_SMALL] = (process.env.BENCH_MEMORY_SIZES ?? `${100 * MiB},${1024 * MiB},${10 * MiB}`).split(',').map(Number);

const ALL_COMPARISONS: Array<{ variant: Variant; what: string; sizes: [number, number] }> = [
	{ variant: 'rawDownload', what: 'download: raw http.get → file (baseline)', sizes: [DOWNLOAD_SMALL, DOWNLOAD_LARGE] },
	{ variant: 'nodeDownload', what: 'download: Workplace node Download → binary store', sizes: [DOWNLOAD_SMALL, DOWNLOAD_LARGE] },
	{ variant: 'rawRoundTrip', what: 'upload: raw download → streamed multipart PUT (baseline)', sizes: [UPLOAD_SMALL, UPLOAD_LIMIT] },
	{ variant: 'nodeRoundTrip', what: 'upload: Workplace node Download → Replace', sizes: [UPLOAD_SMALL, UPLOAD_LIMIT] },
];

/** BENCH_MEMORY_VARIANTS (comma-separated, e.g. rawDownload,nodeDownload) measures only those. */
const COMPARISONS = ALL_COMPARISONS.filter(({ variant }) => (process.env.BENCH_MEMORY_VARIANTS ?? variant).split(',').includes(variant));

const sizeLabel = (bytes: number) => (bytes >= 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(bytes % (1024 * MiB) ? 1 : 0)} GB` : `${(bytes / MiB).toFixed(0)} MB`);
const mb = (bytes: number) => `${(bytes / MiB).toFixed(1)} MB`;

async function main(): Promise<void> {
	const extraSizes = [...new Set([DOWNLOAD_SMALL, DOWNLOAD_LARGE, UPLOAD_SMALL, UPLOAD_LIMIT])];
	const { child: emulator, ready } = await startEmulatorChild({ BENCH_FILE_BYTES: '0', BENCH_EXTRA_FILE_BYTES: extraSizes.join(',') });
	try {
		const bySize = new Map<number, SeededFile>(ready.extra.map((file) => [file.size, file]));
		console.log(`Emulator in child process ${emulator.pid}; Node ${process.version}; ${RUNS} runs, a fresh process per transfer`);
		const figures: Record<string, MemoryFigures[]> = {};
		for (let r = 0; r < RUNS; r++) {
			for (const { variant, sizes } of COMPARISONS) {
				for (const size of sizes) {
					const file = bySize.get(size)!;
					const task: MemoryTask = { access: { url: ready.url, credentials: ready.credentials }, source: file, size, sha256: file.sha256, variant };
					const measured = await measureInChild<MemoryFigures>('memory-child.js', task, `${variant} (${sizeLabel(size)})`, { execArgv: ['--expose-gc'] });
					if (variant.endsWith('RoundTrip')) {
						const stored = await askChild<{ sha256: string }>(emulator, { kind: 'file', fileId: REPLACE_TARGET.fileId }, 'file');
						if (stored.sha256 !== file.sha256) throw new Error(`${variant} (${sizeLabel(size)}): the replaced file's sha256 does not match`);
					}
					(figures[`${variant}:${size}`] ??= []).push(measured);
					console.log(
						`run ${r + 1} ${variant} ${sizeLabel(size)}: peak ${mb(measured.peak)} (+${mb(measured.peak - measured.before)}), VmHWM ${mb(measured.hwm)}, ` +
							`left after a collection: heap ${mb(measured.retainedHeap)}, ArrayBuffers ${mb(measured.retainedArrayBuffers)}, ${(measured.ms / 1000).toFixed(1)} s`,
					);
				}
			}
		}
		const rows: Row[] = [];
		const results: Record<string, unknown> = {};
		for (const { variant, what, sizes } of COMPARISONS) {
			const [small, large] = sizes;
			const runs = (size: number) => figures[`${variant}:${size}`];
			const peak = (size: number) => median(runs(size).map((f) => f.peak));
			const growth = (size: number) => median(runs(size).map((f) => f.peak - f.before));
			const retained = (size: number) => median(runs(size).map((f) => f.retainedHeap + f.retainedArrayBuffers));
			const ratio = peak(large) / peak(small);
			results[variant] = { smallBytes: small, largeBytes: large, peakSmallMB: peak(small) / MiB, peakLargeMB: peak(large) / MiB, ratio, growthSmallMB: growth(small) / MiB, growthLargeMB: growth(large) / MiB, runs: { small: runs(small), large: runs(large) } };
			rows.push({
				part: rows.length === 0 ? 'Peak RSS, fresh process, filesystem mode' : '',
				what: `${what}, ${sizeLabel(small)} → ${sizeLabel(large)}`,
				value: `${mb(peak(small))} → ${mb(peak(large))} (growth ${mb(growth(small))} → ${mb(growth(large))}; left after GC ${mb(retained(small))} → ${mb(retained(large))})`,
				ratio: `${ratio.toFixed(3)}×`,
				goal: variant.startsWith('node') ? `≤ 1.10 ${ratio <= 1.1 ? '✓' : '✗'}` : undefined,
			});
		}
		// What the node adds to its raw baseline at the larger size, where both have reached V8's own rhythm.
		for (const [node, rawVariant, label] of [
			['nodeDownload', 'rawDownload', 'download'],
			['nodeRoundTrip', 'rawRoundTrip', 'upload'],
		] as const) {
			const comparison = COMPARISONS.find((c) => c.variant === node);
			if (!comparison || !COMPARISONS.some((c) => c.variant === rawVariant)) continue;
			const large = comparison.sizes[1];
			const growth = (variant: Variant) => median(figures[`${variant}:${large}`].map((f) => f.peak - f.before));
			rows.push({ part: '', what: `${label}, ${sizeLabel(large)}: node's growth − raw's growth`, value: `${(growth(node) - growth(rawVariant) >= 0 ? '+' : '')}${mb(growth(node) - growth(rawVariant))}` });
		}
		saveResults('bench-memory', rows, { runs: RUNS, results });
	} finally {
		emulator.send({ kind: 'close' });
	}
}

runBench(main);
