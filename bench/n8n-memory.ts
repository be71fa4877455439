/**
 * `npm run bench:n8n-memory`: does memory grow with file size in a real n8n
 * 2.41.1? For each binary data mode n8n 2.x writes to without a licence or a
 * cloud account — `filesystem` (the default in regular mode) and `database`
 * (the default in queue mode) — each workflow runs with `n8n execute` in a
 * fresh process and the process's peak RSS (VmHWM) is read until it exits:
 *
 *   Manual Trigger alone (n8n's own floor, measured in the same run);
 *   Download of a 100 MB and of a 1 GB knowledge file into n8n's binary store;
 *   Read/Write Files from Disk → Replace of a 10 MB and of a 100 MB file: an
 *   upload (the service accepts at most 100 MB, and the node refuses more
 *   before sending, so 10× is the range an upload has).
 *
 * Not part of CI (a 1 GB round in both modes takes minutes; the binary data
 * suite asserts the property with cheaper sizes). The emulator runs in this
 * process with its defaults. "1 GB" is 999,000,000 bytes: SQLite, the
 * database n8n uses by default, keeps at most 10^9 bytes in one row, and
 * database mode stores a file in one row. Sizes (bytes): N8N_MEMORY_SIZES
 * (download small, download large, upload small, upload large); runs:
 * N8N_MEMORY_RUNS (1); modes: N8N_MEMORY_MODES (filesystem,database).
 * Everything it writes is removed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { exampleCredentials } from '../e2e/lib/examples';
import { N8n, installCommunityPackage, nodeOutput } from '../e2e/lib/n8n';
import { downloadWorkflow, executeWithPeakRss, uploadWorkflow } from '../e2e/lib/peakMemory';
import { startEmulator } from '../emulator/server';
import { int, median, printTable, ROOT, type Row } from './common';
import { REPLACE_TARGET } from './fileTransfer';
import { addLargeFile } from './largeFile';

const MB = 1_000_000;
const [DOWNLOAD_SMALL, DOWNLOAD_LARGE, UPLOAD_SMALL, UPLOAD_LARGE] = (process.env.N8N_MEMORY_SIZES ?? `${100 * MB},${999 * MB},${10 * MB},${100 * MB}`).split(',').map(Number);
const TRANSFERS = [
	{ transfer: 'download', what: 'Download → binary store', sizes: [DOWNLOAD_SMALL, DOWNLOAD_LARGE] },
	{ transfer: 'upload', what: 'Read/Write Files → Replace (upload)', sizes: [UPLOAD_SMALL, UPLOAD_LARGE] },
] as const;
const RUNS = int('N8N_MEMORY_RUNS', 1);
const MODES = (process.env.N8N_MEMORY_MODES ?? 'filesystem,database').split(',');

const MODE_ENV: Record<string, Record<string, string>> = {
	filesystem: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
	// n8n refuses files over 512 MiB in database mode unless told otherwise (at most 1024).
	database: { N8N_DEFAULT_BINARY_DATA_MODE: 'database', N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '1024' },
};

const label = (bytes: number) => (bytes >= 990 * MB ? `${(bytes / 1000 / MB).toFixed(bytes % (1000 * MB) ? 3 : 0)} GB` : `${(bytes / MB).toFixed(0)} MB`);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function main(): Promise<void> {
	const emulator = await startEmulator();
	const n8n = new N8n();
	try {
		const sizes = [...new Set(TRANSFERS.flatMap((t) => t.sizes))];
		const files = new Map(sizes.map((size) => [size, addLargeFile(emulator, 1, `memory-${size}.pdf`, size)]));
		const contentPath = (fileId: number) => String(emulator.knowledge.files.get(fileId)?.contentPath);
		const idle = { id: 'memoryIdle', name: 'Manual Trigger alone (memory)', nodes: [{ parameters: {}, id: 'memoryIdle-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] }], connections: {}, settings: { executionOrder: 'v1' } };
		const workflows = [...files.values()].flatMap((file) => [
			downloadWorkflow(`memoryDownload${file.size}`, file.knowledgeId, file.fileId),
			uploadWorkflow(`memoryUpload${file.size}`, contentPath(file.fileId), `memory-${file.size}.pdf`, REPLACE_TARGET.knowledgeId, REPLACE_TARGET.fileId),
		]);
		await installCommunityPackage(n8n.userFolder);
		await n8n.importCredentials(exampleCredentials(emulator));
		await n8n.importWorkflows([idle, ...workflows]);
		console.log(`n8n 2.41.1 via n8n execute; modes ${MODES.join(', ')}; ${RUNS} run(s)`);

		const figures: Record<string, number[]> = {};
		const note = (key: string, bytes: number) => (figures[key] ??= []).push(bytes);
		for (let r = 0; r < RUNS; r++) {
			for (const mode of MODES) {
				// Read/Write Files from Disk may read only under N8N_RESTRICT_FILE_ACCESS_TO: the emulator's stored files.
				const env = { ...MODE_ENV[mode], N8N_RESTRICT_FILE_ACCESS_TO: path.dirname(contentPath(files.get(sizes[0])!.fileId)) };
				const idleRun = await executeWithPeakRss(n8n, idle.id, env);
				note(`${mode}:idle`, idleRun.peakBytes);
				console.log(`run ${r + 1} ${mode} Manual Trigger alone: peak ${mib(idleRun.peakBytes)}`);
				for (const { transfer, sizes: pair } of TRANSFERS) {
					for (const size of pair) {
						const file = files.get(size)!;
						if (transfer === 'download') {
							const { result, peakBytes } = await executeWithPeakRss(n8n, `memoryDownload${size}`, env);
							const [downloaded] = nodeOutput(result, 'Download');
							if (downloaded?.sha256 !== file.sha256) throw new Error(`${mode} download of ${label(size)}: ${JSON.stringify(result.data.resultData.error ?? downloaded)}`);
							note(`${mode}:download:${size}`, peakBytes);
							console.log(`run ${r + 1} ${mode} download ${label(size)}: peak ${mib(peakBytes)}`);
						} else {
							const { result, peakBytes } = await executeWithPeakRss(n8n, `memoryUpload${size}`, env);
							const stored = emulator.knowledge.files.get(REPLACE_TARGET.fileId);
							if (result.data.resultData.error || stored?.sha256 !== file.sha256) {
								throw new Error(`${mode} upload of ${label(size)}: ${JSON.stringify(result.data.resultData.error ?? stored?.meta)}`);
							}
							note(`${mode}:upload:${size}`, peakBytes);
							console.log(`run ${r + 1} ${mode} Read → Replace ${label(size)}: peak ${mib(peakBytes)}`);
						}
					}
				}
			}
		}

		const rows: Row[] = [];
		const results: Record<string, unknown> = {};
		for (const mode of MODES) {
			const idlePeak = median(figures[`${mode}:idle`]);
			rows.push({ part: `n8n 2.41.1, ${mode} mode`, what: 'Manual Trigger alone (n8n itself)', value: mib(idlePeak) });
			for (const { transfer, what, sizes: [small, large] } of TRANSFERS) {
				const smallPeak = median(figures[`${mode}:${transfer}:${small}`]);
				const largePeak = median(figures[`${mode}:${transfer}:${large}`]);
				const ratio = largePeak / smallPeak;
				results[`${mode}:${transfer}`] = { smallBytes: small, largeBytes: large, smallPeakBytes: smallPeak, largePeakBytes: largePeak, ratio, idlePeakBytes: idlePeak, runs: { small: figures[`${mode}:${transfer}:${small}`], large: figures[`${mode}:${transfer}:${large}`] } };
				rows.push({
					part: '',
					what: `${what}, ${label(small)} → ${label(large)}`,
					value: `${mib(smallPeak)} → ${mib(largePeak)}`,
					ratio: `${ratio.toFixed(3)}×`,
					goal: `≤ 1.10 ${ratio <= 1.1 ? '✓' : '✗'}`,
				});
			}
		}
		printTable(rows);
		mkdirSync(path.join(ROOT, 'build'), { recursive: true });
		writeFileSync(path.join(ROOT, 'build/n8n-memory.json'), `${JSON.stringify({ n8n: '2.41.1', node: process.version, runs: RUNS, results }, null, 2)}\n`);
	} finally {
		await n8n.stop();
		rmSync(n8n.userFolder, { recursive: true, force: true });
		await emulator.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
