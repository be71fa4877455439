/**
 * The folders a development process (the emulator, the engine harness, a
 * bench, the demo) makes in the temp folder, remembered in one place: an
 * interrupted process (Ctrl-C, a kill) does not run its `finally` blocks, so
 * its signal handler removes whatever is still here (removeTempFolders), also
 * a folder made by something still starting, which the handler holds no
 * reference to yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new folder `<prefix>…` in the temp folder, kept until removeTempFolder or removeTempFolders removes it. */
export function makeTempFolder(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.add(dir);
	return dir;
}

/** Removes a folder makeTempFolder made (with what it holds); one it did not make is left alone. */
export function removeTempFolder(dir: string): void {
	if (!made.delete(dir)) return;
	rmSync(dir, { recursive: true, force: true });
}

/** Removes every folder makeTempFolder made in this process and nothing removed yet: for a process being interrupted. */
export function removeTempFolders(): void {
	for (const dir of [...made]) removeTempFolder(dir);
}
