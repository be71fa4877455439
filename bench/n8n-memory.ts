/**
 * `npm run bench:n8n-memory`: does memory grow with file size in a real n8n
 * 2.41.1? For each binary data mode n8n 2.x writes to without a licence or a
 * cloud account — `filesystem` (the default in regular mode) and `database`
 * (the default in queue mode) — each workflow runs with `n8n execute` in a
 * fresh process and the process's peak RSS (VmHWM) is read until it exits:
 *
 *   Manual Trigger alone (n8n's own floor);
 *   downloads of a 100 MB and a 1 GB knowledge file into n8n's binary store,
 *   with the Workplace node and, as the same run's baseline, with n8n's HTTP
 *   Request node;
 *   Read/Write Files from Disk → Workplace Replace of a 10, 50 and 100 MB
 *   file (the service accepts at most 100 MB, and the node refuses more
 *   before sending), and Read/Write Files alone as the same run's baseline.
 *
 * Not part of CI (a 1 GB round in both modes takes many minutes and, in
 * database mode, several GB of memory; the binary data suite asserts the
 * property with cheaper sizes). The emulator runs in this process with its
 * defaults. "1 GB" is 999,000,000 bytes: SQLite, the database n8n uses by
 * default, keeps at most 10^9 bytes in one row, and database mode stores a
 * file in one row. Sizes (bytes, comma-separated): N8N_MEMORY_DOWNLOAD_SIZES,
 * N8N_MEMORY_UPLOAD_SIZES; runs: N8N_MEMORY_RUNS (1); modes: N8N_MEMORY_MODES
 * (filesystem,database). Needs the n8n of e2e/ (`bash e2e/install.sh`, which
 * `npm run e2e` runs). Everything it writes is removed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { exampleCredentials } from '../testbed/examples';
import { N8n, installCommunityPackage, nodeOutput, type ExecuteResult } from '../testbed/n8n';
import { downloadWorkflow, executeWithPeakRss, httpRequestDownloadWorkflow, readWorkflow, uploadWorkflow, type StoredWorkflow } from '../testbed/peakMemory';
import { startEmulator } from '../emulator/server';
import { int, median, onInterrupted, printTable, runBench, type Row } from './common';
import { ROOT } from '../testbed/root';
import { REPLACE_TARGET } from './fileTransfer';
import { addLargeFile } from '../testbed/largeFile';

const MB = 1_000_000;
const sizes = (name: string, fallback: number[]) => (process.env[name] ? process.env[name].split(',').map(Number) : fallback);
const DOWNLOAD_SIZES = sizes('N8N_MEMORY_DOWNLOAD_SIZES', [100 * MB, 999 * MB]);
const UPLOAD_SIZES = sizes('N8N_MEMORY_UPLOAD_SIZES', [10 * MB, 50 * MB, 100 * MB]);
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
	// The emulator's server ends with this process and its folder goes with the temp folders (runBench); n8n would not.
	const cancelCleanup = onInterrupted(() => n8n.stopNow());
	try {
		const files = new Map([...new Set([...DOWNLOAD_SIZES, ...UPLOAD_SIZES])].map((size) => [size, addLargeFile(emulator, 1, `memory-${size}.pdf`, size)]));
		const contentPath = (size: number) => String(emulator.knowledge.files.get(files.get(size)!.fileId)?.contentPath);
		const target = REPLACE_TARGET;
		const replaced = () => emulator.knowledge.files.get(target.fileId)?.sha256;
		const downloaded = (result: ExecuteResult) => nodeOutput(result, 'Download')[0];

		/** What is measured: a workflow per size, and how a run proves it moved the file. */
		const measurements: Array<{ key: string; what: string; sizes: number[]; goal: boolean; workflow: (size: number) => StoredWorkflow; check: (result: ExecuteResult, size: number) => boolean }> = [
			{
				key: 'download',
				what: 'Workplace Download → binary store',
				sizes: DOWNLOAD_SIZES,
				goal: true,
				workflow: (size) => downloadWorkflow(`memoryDownload${size}`, files.get(size)!.knowledgeId, files.get(size)!.fileId),
				check: (result, size) => downloaded(result)?.sha256 === files.get(size)!.sha256,
			},
			{
				key: 'httpRequestDownload',
				what: "n8n's HTTP Request node download → binary store (baseline)",
				sizes: DOWNLOAD_SIZES,
				goal: false,
				workflow: (size) => httpRequestDownloadWorkflow(`memoryHttpDownload${size}`, emulator.url, files.get(size)!.knowledgeId, files.get(size)!.fileId),
				check: (result) => result.data.resultData.error === undefined && downloaded(result) !== undefined,
			},
			{
				key: 'upload',
				what: 'Read/Write Files → Workplace Replace (upload)',
				sizes: UPLOAD_SIZES,
				goal: true,
				workflow: (size) => uploadWorkflow(`memoryUpload${size}`, contentPath(size), `memory-${size}.pdf`, target.knowledgeId, target.fileId),
				check: (result, size) => result.data.resultData.error === undefined && replaced() === files.get(size)!.sha256,
			},
			{
				key: 'read',
				what: 'Read/Write Files alone (baseline)',
				sizes: UPLOAD_SIZES,
				goal: false,
				workflow: (size) => readWorkflow(`memoryRead${size}`, contentPath(size), `memory-${size}.pdf`),
				check: (result) => result.data.resultData.error === undefined,
			},
		];
		const idle = { id: 'memoryIdle', name: 'Manual Trigger alone (memory)', nodes: [{ parameters: {}, id: 'memoryIdle-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] }], connections: {}, settings: { executionOrder: 'v1' } };
		await installCommunityPackage(n8n.userFolder);
		await n8n.importCredentials(exampleCredentials(emulator));
		await n8n.importWorkflows([idle, ...measurements.flatMap((m) => m.sizes.map(m.workflow))]);
		console.log(`n8n 2.41.1 via n8n execute; modes ${MODES.join(', ')}; ${RUNS} run(s)`);

		const figures: Record<string, number[]> = {};
		for (let r = 0; r < RUNS; r++) {
			for (const mode of MODES) {
				// Read/Write Files from Disk may read only under N8N_RESTRICT_FILE_ACCESS_TO: the emulator's stored files.
				const env = { ...MODE_ENV[mode], N8N_RESTRICT_FILE_ACCESS_TO: path.dirname(contentPath(UPLOAD_SIZES[0])) };
				const idleRun = await executeWithPeakRss(n8n, idle.id, env);
				(figures[`${mode}:idle`] ??= []).push(idleRun.peakBytes);
				console.log(`run ${r + 1} ${mode} Manual Trigger alone: peak ${mib(idleRun.peakBytes)}`);
				for (const m of measurements) {
					for (const size of m.sizes) {
						const { result, peakBytes } = await executeWithPeakRss(n8n, m.workflow(size).id, env);
						if (!m.check(result, size)) throw new Error(`${mode} ${m.key} of ${label(size)}: ${JSON.stringify(result.data.resultData.error ?? result.data.resultData.runData)}`.slice(0, 2000));
						(figures[`${mode}:${m.key}:${size}`] ??= []).push(peakBytes);
						console.log(`run ${r + 1} ${mode} ${m.key} ${label(size)}: peak ${mib(peakBytes)}`);
					}
				}
			}
		}

		const rows: Row[] = [];
		const results: Record<string, unknown> = {};
		for (const mode of MODES) {
			const idlePeak = median(figures[`${mode}:idle`]);
			rows.push({ part: `n8n 2.41.1, ${mode} mode`, what: 'Manual Trigger alone (n8n itself)', value: mib(idlePeak) });
			results[`${mode}:idle`] = figures[`${mode}:idle`];
			for (const m of measurements) {
				const peaks = m.sizes.map((size) => median(figures[`${mode}:${m.key}:${size}`]));
				const ratio = peaks[peaks.length - 1] / peaks[0];
				results[`${mode}:${m.key}`] = { sizes: m.sizes, peakBytes: peaks, ratio, runs: m.sizes.map((size) => figures[`${mode}:${m.key}:${size}`]) };
				rows.push({
					part: '',
					what: `${m.what}, ${m.sizes.map(label).join(' / ')}`,
					value: peaks.map(mib).join(' / '),
					ratio: `${ratio.toFixed(3)}×`,
					goal: m.goal ? `≤ 1.10 ${ratio <= 1.1 ? '✓' : '✗'}` : undefined,
				});
			}
		}
		printTable(rows);
		mkdirSync(path.join(ROOT, 'build'), { recursive: true });
		writeFileSync(path.join(ROOT, 'build/n8n-memory.json'), `${JSON.stringify({ n8n: '2.41.1', node: process.version, runs: RUNS, results }, null, 2)}\n`);
	} finally {
		await n8n.close();
		await emulator.close();
		cancelCleanup();
	}
}

runBench(main);
