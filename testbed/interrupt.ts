/**
 * An interrupted development process (Ctrl-C, a kill) does not run its
 * `finally` blocks, so what it made in the temp folder must be removed from the
 * signal: `cleanup` runs once, on the first SIGINT or SIGTERM, and the process
 * exits with 130. Later signals (a kill after Ctrl-C, `timeout` passing one on)
 * must not end it mid-cleanup, so every one is handled.
 */
export function exitOnInterrupt(cleanup: () => void): void {
	let interrupted = false;
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.on(signal, () => {
			if (interrupted) return;
			interrupted = true;
			cleanup();
			process.exit(130);
		});
	}
}
