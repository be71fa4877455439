/**
 * How a bench's child process ends: with its bench. `stop` runs once, when the
 * bench's IPC channel closes (the bench ended, failed, or was killed, even with
 * SIGKILL) or a message to it fails. Ctrl-C and `timeout` signal the whole
 * process group: a child left to die of the signal would leave its temporary
 * folders behind, so it leaves the signal to its bench, which cleans up its own
 * and exits, and the closed channel then stops the child.
 */
export function endsWithBench(stop: () => void): void {
	let stopping = false;
	const stopOnce = () => {
		if (stopping) return;
		stopping = true;
		stop();
	};
	process.on('disconnect', stopOnce);
	// A message sent once the bench is gone fails (EPIPE) as an 'error' event,
	// which unhandled would end the child before 'disconnect' stops it.
	process.on('error', stopOnce);
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
}
