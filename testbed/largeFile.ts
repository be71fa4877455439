/**
 * Seeds a knowledge file of any size into an emulator without holding it in
 * memory: random bytes are written to disk 1 MiB at a time (hashed as they
 * go), then swapped in as a new file's content, as an upload would be.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

import type { Emulator } from '../emulator/server';

export interface SeededFile {
	fileId: number;
	knowledgeId: number;
	size: number;
	sha256: string;
}

const CHUNK = 1024 * 1024;

export function addLargeFile(emulator: Emulator, knowledgeId: number, originalName: string, size: number): SeededFile {
	const mimetype = 'application/pdf';
	const file = emulator.knowledge.addFile(knowledgeId, { originalName, mimetype, content: Buffer.alloc(0) });
	const scratch = path.join(emulator.knowledge.uploadDir, `seed-${file.id}.bin`);
	const hash = createHash('sha256');
	const chunk = Buffer.alloc(CHUNK);
	const fd = openSync(scratch, 'w');
	try {
		for (let written = 0; written < size; ) {
			const part = chunk.subarray(0, Math.min(CHUNK, size - written));
			randomFillSync(part);
			hash.update(part);
			writeSync(fd, part);
			written += part.length;
		}
	} finally {
		closeSync(fd);
	}
	const sha256 = hash.digest('hex');
	emulator.knowledge.replaceContent(file.id, scratch, { mimetype, originalName, size }, sha256);
	return { fileId: file.id, knowledgeId, size, sha256 };
}
