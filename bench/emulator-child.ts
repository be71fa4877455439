/**
 * The emulator for bench/knowledge-file-memory.ts, in its own process so its
 * memory is not counted. Seeds a 100 MB file and answers questions over IPC.
 */
import { randomBytes } from 'node:crypto';

import { startEmulator } from '../emulator/server';

export interface ChildReady {
	kind: 'ready';
	url: string;
	apiKey: string;
	knowledgeId: number;
	fileId: number;
	size: number;
	sha256: string;
}

async function main(): Promise<void> {
	const emulator = await startEmulator();
	const size = Number(process.env.BENCH_FILE_BYTES ?? 100 * 1024 * 1024);
	const file = emulator.knowledge.addFile(1, { originalName: 'big-report.pdf', mimetype: 'application/pdf', content: randomBytes(size) });
	process.on('message', (message: { kind: string; fileId?: number }) => {
		if (message.kind === 'file') {
			const f = emulator.knowledge.files.get(message.fileId!);
			process.send!({ kind: 'file', sha256: f?.sha256, size: f?.meta.size });
		} else if (message.kind === 'close') {
			void emulator.close().then(() => process.exit(0));
		}
	});
	const ready: ChildReady = {
		kind: 'ready',
		url: emulator.url,
		apiKey: emulator.credentials.apiKey,
		knowledgeId: 1,
		fileId: file.id,
		size,
		sha256: file.sha256,
	};
	process.send!(ready);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
