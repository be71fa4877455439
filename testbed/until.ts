/**
 * The one polling loop of the development code (testbed, end-to-end suites,
 * tests, benchmarks): check again and again until something holds or time is up.
 */
import type { ChildProcess } from 'node:child_process';

/** A process whose answer is awaited: when it has exited there is nothing more to wait for. */
export interface AwaitedProcess {
	/** As messages name it, e.g. "postgres". */
	name: string;
	child: ChildProcess;
	/** All it printed so far; failures end with its last 4,000 characters. */
	output: () => string;
}

export interface UntilOptions {
	/** The pause between checks (default 500 ms). */
	everyMs?: number;
	/** Fails the wait at once when it has exited, instead of at the deadline. */
	process?: AwaitedProcess;
}

/**
 * Calls check() until it gives a value (not undefined) and resolves with it.
 * A throw counts as "not yet": the deadline's error names the last one.
 */
export async function until<T>(
	what: string,
	check: () => T | undefined | Promise<T | undefined>,
	timeoutMs = 300_000,
	{ everyMs = 500, process: awaited }: UntilOptions = {},
): Promise<T> {
	const tail = () => (awaited ? `:\n${awaited.output().slice(-4000)}` : '');
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	while (Date.now() < deadline) {
		if (awaited && (awaited.child.exitCode !== null || awaited.child.signalCode !== null)) {
			throw new Error(`${awaited.name} exited with ${awaited.child.exitCode ?? awaited.child.signalCode} while waiting for ${what}${tail()}`);
		}
		try {
			const value = await check();
			if (value !== undefined) return value;
		} catch (error) {
			last = error;
		}
		await new Promise((resolve) => setTimeout(resolve, everyMs));
	}
	throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${String(last)}` : ''}${tail()}`);
}
