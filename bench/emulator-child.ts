/**
 * The emulator for the benchmarks, in its own process so its memory and CPU are
 * not counted with the client's. Seeds a 100 MB knowledge file (BENCH_FILE_BYTES)
 * and, for the memory benchmark, one of each size in BENCH_EXTRA_FILE_BYTES
 * (comma-separated), and answers questions over IPC; everything else goes
 * through the emulator's own admin routes (/__emulator: faults, log, config).
 */
import type { EmulatorAccess } from '../emulator/clientCredentials';
import { removeTempFolders } from '../emulator/common/tempFolders';
import { startEmulator, type Emulator } from '../emulator/server';
import { endsWithBench } from './childProcess';
import { addLargeFile, type SeededFile } from '../testbed/largeFile';

export interface ChildReady extends EmulatorAccess {
	kind: 'ready';
	knowledgeId: number;
	fileId: number;
	size: number;
	sha256: string;
	/** One file of each size in BENCH_EXTRA_FILE_BYTES, in that order. */
	extra: SeededFile[];
}

type Message = { kind: 'file'; fileId: number } | { kind: 'addFiles'; knowledgeId: number; count: number } | { kind: 'tokenRequests' } | { kind: 'close' };

async function main(): Promise<void> {
	// From the start on, so a Ctrl-C while the emulator starts leaves it to the bench too, and its folder is removed when the bench is gone.
	let started: Emulator | undefined;
	endsWithBench(() => void (started?.close() ?? Promise.resolve()).finally(() => {
		removeTempFolders();
		process.exit(0);
	}));
	const emulator = (started = await startEmulator());
	const size = Number(process.env.BENCH_FILE_BYTES ?? 100 * 1024 * 1024);
	const file = addLargeFile(emulator, 1, 'big-report.pdf', size);
	const extra = (process.env.BENCH_EXTRA_FILE_BYTES ?? '')
		.split(',')
		.filter(Boolean)
		.map((bytes) => addLargeFile(emulator, 1, `report-${bytes}.pdf`, Number(bytes)));
	process.on('message', (message: Message) => {
		if (message.kind === 'file') {
			const f = emulator.knowledge.files.get(message.fileId);
			process.send!({ kind: 'file', sha256: f?.sha256, size: f?.meta.size });
		} else if (message.kind === 'addFiles') {
			emulator.knowledge.addFiles(message.knowledgeId, message.count);
			const total = emulator.knowledge.filesOf(message.knowledgeId).length;
			process.send!({ kind: 'addFiles', total });
		} else if (message.kind === 'tokenRequests') {
			process.send!({ kind: 'tokenRequests', count: emulator.bot.tokenRequests });
		} else if (message.kind === 'close') {
			void emulator.close().then(() => process.exit(0));
		}
	});
	const ready: ChildReady = {
		kind: 'ready',
		url: emulator.url,
		credentials: emulator.credentials,
		knowledgeId: 1,
		fileId: file.fileId,
		size,
		sha256: file.sha256,
		extra,
	};
	process.send!(ready);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
