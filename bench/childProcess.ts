/**
 * How a bench's child process ends: with its bench. `stop` runs when the
 * bench's IPC channel closes (the bench ended, failed, or was killed, even with
 * SIGKILL). Ctrl-C and `timeout` signal the whole process group: a child left
 * to die of the signal would leave its temporary folders behind, so it leaves
 * the signal to its bench, which cleans up its own and exits, and the closed
 * channel then stops the child.
 */
export function endsWithBench(stop: () => void): void {
	process.on('disconnect', stop);
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
}
