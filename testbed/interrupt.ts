import { removeTempFolders } from '../emulator/common/tempFolders';

/**
 * An interrupted development process (Ctrl-C, a kill) does not run its
 * `finally` blocks, so what it started and made must be stopped and removed
 * from the signal: on the first SIGINT or SIGTERM `cleanup` runs once (stopping
 * what it started), then every folder makeTempFolder made and nothing removed
 * yet is removed, and the process exits with 130. Later signals (a kill after
 * Ctrl-C, `timeout` passing one on) must not end it mid-cleanup, so every one
 * is handled.
 */
export function exitOnInterrupt(cleanup: () => void = () => undefined): void {
	let interrupted = false;
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.on(signal, () => {
			if (interrupted) return;
			interrupted = true;
			try {
				cleanup();
			} catch (error) {
				// The folders are still removed, and the exit still says "interrupted".
				console.error(error);
			}
			removeTempFolders();
			process.exit(130);
		});
	}
}
