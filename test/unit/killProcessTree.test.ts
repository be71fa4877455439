/**
 * killProcessTree (testbed/n8n.ts), what an interrupted bench stops n8n, its
 * task runner and PostgreSQL's backends with: real processes, a shell that
 * started two others, as n8n starts its task runner.
 */
import { spawn, spawnSync } from 'child_process';
import { readFileSync } from 'fs';

import { killProcessTree, until } from '../../testbed/n8n';

/** Whether a process runs: it exists and is not a zombie (dead, not yet reaped by its new parent). */
function running(pid: number): boolean {
	try {
		return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

const childrenOf = (pid: number) =>
	spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
		.stdout.split('\n')
		.filter((line) => line.trim())
		.map(Number);

describe('killProcessTree', () => {
	it('kills a process and the processes it started, at once', async () => {
		const shell = spawn('sh', ['-c', 'sleep 60 & sleep 60 & wait'], { stdio: 'ignore' });
		const exited = new Promise((resolve) => shell.once('exit', (_code, signal) => resolve(signal)));
		const sleeps = await until('the two sleeps', () => {
			const pids = childrenOf(shell.pid!);
			return pids.length === 2 ? pids : undefined;
		}, 10_000, 50);

		try {
			killProcessTree(shell);

			expect(await exited).toBe('SIGKILL');
			// SIGKILL is delivered before kill() returns; the orphans' reaping may take a moment.
			await until('the sleeps gone', () => (sleeps.some(running) ? undefined : true), 5_000, 50);
			expect(sleeps.filter(running)).toEqual([]);
		} finally {
			for (const pid of sleeps.filter(running)) process.kill(pid, 'SIGKILL');
		}
	});
});
