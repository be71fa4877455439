/**
 * A server the end-to-end bed runs for itself (PostgreSQL, Redis): its process
 * and a folder of its own in the temp folder, both gone once it is stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

import { killProcessTree } from '../../testbed/n8n';

export abstract class ServerProcess {
	protected dir?: string;
	protected child?: ChildProcess;

	/** Stops the server as it asks to be stopped, then deletes its folder. */
	abstract stop(): Promise<void>;

	/** Kills the server with the processes it started at once and deletes its folder: for a process being interrupted, which cannot wait for stop(). */
	stopNow(): void {
		if (this.child) killProcessTree(this.child);
		this.removeNow();
	}

	/** Forgets the process and deletes the folder. */
	protected removeNow(): void {
		this.child = undefined;
		if (this.dir) rmSync(this.dir, { recursive: true, force: true });
		this.dir = undefined;
	}
}
