/**
 * One measurement of `npm run bench:memory` in a fresh process: loads the
 * engine and the package as any bench process does, then runs one transfer
 * (raw or through the Workplace node, a download or a download → replace) of
 * the file it is given and reports the RSS before it, the highest RSS while it
 * ran, and the process's own peak (VmHWM). Everything it wrote is removed.
 */
import * as http from 'node:http';
import path from 'node:path';

import { peakResidentBytes } from '../testbed/peakMemory';
import type { EmulatorAccess } from '../emulator/clientCredentials';
import { makeTempFolder, removeTempFolder, removeTempFolders } from '../emulator/common/tempFolders';
import { endsWithBench } from './childProcess';
import { peakRss, run, setUpEngine, tearDownEngine } from './common';
import { rawDownload, rawReplace, transferWorkflows, type FileRef } from './fileTransfer';

export type Variant = 'rawDownload' | 'rawRoundTrip' | 'nodeDownload' | 'nodeRoundTrip';

export interface MemoryTask {
	access: EmulatorAccess;
	source: FileRef;
	size: number;
	sha256: string;
	variant: Variant;
}

export interface MemoryFigures {
	kind: 'figures';
	before: number;
	peak: number;
	/** VmHWM of /proc/self/status: the process's peak resident set, start-up included. */
	hwm: number;
	/**
	 * V8 heap in use and ArrayBuffer memory after the transfer, after a forced
	 * collection, above the same before it: what the transfer left behind, apart
	 * from when V8 chooses to collect (with --expose-gc; NaN without).
	 */
	retainedHeap: number;
	retainedArrayBuffers: number;
	ms: number;
}

async function measure(task: MemoryTask): Promise<MemoryFigures> {
	const agent = new http.Agent({ keepAlive: true });
	const dir = makeTempFolder('workplace-bench-memory-');
	const file = path.join(dir, 'download.bin');
	const { downloadOnly, roundTrip } = transferWorkflows(task.source);
	await setUpEngine(task.access, 'filesystem');
	try {
		const work: Record<Variant, () => Promise<void>> = {
			rawDownload: () => rawDownload(task.access, agent, task.source, file, task.sha256),
			rawRoundTrip: async () => {
				await rawDownload(task.access, agent, task.source, file, task.sha256);
				await rawReplace(task.access, agent, file, task.size);
			},
			nodeDownload: async () => {
				const { result } = await run(downloadOnly);
				if (result.json('Download')[0].sha256 !== task.sha256) throw new Error('node download: sha256 mismatch');
			},
			nodeRoundTrip: async () => {
				const { result } = await run(roundTrip);
				if (result.json('Download')[0].sha256 !== task.sha256) throw new Error('node download → replace: sha256 mismatch');
			},
		};
		const gc = (globalThis as { gc?: () => void }).gc;
		const settled = () => {
			gc?.();
			gc?.();
			return gc ? process.memoryUsage() : { heapUsed: Number.NaN, arrayBuffers: Number.NaN };
		};
		const start = settled();
		const started = performance.now();
		const { before, peak } = await peakRss(work[task.variant]);
		const took = performance.now() - started;
		const end = settled();
		return {
			kind: 'figures',
			before,
			peak,
			hwm: peakResidentBytes() ?? Number.NaN,
			ms: took,
			retainedHeap: end.heapUsed - start.heapUsed,
			retainedArrayBuffers: end.arrayBuffers - start.arrayBuffers,
		};
	} finally {
		agent.destroy();
		tearDownEngine();
		removeTempFolder(dir);
	}
}

// The bench ended before the transfer did: the folder it writes to and the engine's go.
endsWithBench(() => {
	removeTempFolders();
	process.exit(0);
});

process.once('message', (task: MemoryTask) => {
	measure(task).then(
		(figures) => process.send!(figures, () => process.exit(0)),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
});
