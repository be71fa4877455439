/**
 * Stopping a process and everything it started, with real processes: a shell
 * that started others, as n8n starts its task runner and e2e.sh its installs
 * and lanes. `processTree` and `killProcessTree` (testbed/n8n.ts: what an
 * interrupted bench stops n8n, its task runner and PostgreSQL's backends
 * with); `stop_descendants` (scripts/processes.sh: what an interrupted or
 * failed e2e.sh stops its installs and lanes with, SIGTERM and then SIGKILL)
 * and `own_tmpdir` (the same, then the run's temporary folder removed).
 */
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';

import { killProcessTree, processTree } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { ROOT } from '../../testbed/root';

/** Whether a process runs: it exists and is not a zombie (dead, not yet reaped by its new parent). */
function running(pid: number): boolean {
	try {
		return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

/** The command line a process runs, with spaces for its NULs ('' once it is gone). */
function commandOf(pid: number): string {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
	} catch {
		return '';
	}
}

/** processTree(shell) once each of `commands` runs in it. */
const treeOnceRunning = (shell: ChildProcess, commands: string[]) =>
	until(commands.join(' and '), () => {
		const tree = processTree(shell.pid!);
		return commands.every((command) => tree.some((pid) => commandOf(pid) === command)) ? tree : undefined;
	}, 10_000, { everyMs: 50 });

/** How a process ends: its signal, else its exit code. */
const ending = (child: ChildProcess) => new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));

/** Every one of `pids` ends; the orphans' reaping may take a moment. */
async function expectAllEnd(pids: number[]): Promise<void> {
	await until('them to end', () => (pids.some(running) ? undefined : true), 5_000, { everyMs: 50 });
	expect(pids.filter(running)).toEqual([]);
}

/** SIGKILL to those of `pids` still running: a failed test leaves none behind. */
const killRunning = (pids: number[]) => pids.filter(running).forEach((pid) => process.kill(pid, 'SIGKILL'));

describe('processTree', () => {
	it('lists a process, then its children, then theirs', async () => {
		const shell = spawn('sh', ['-c', '(sleep 61; true) & sleep 62 & wait'], { stdio: 'ignore' });
		try {
			const tree = await treeOnceRunning(shell, ['sleep 61']);
			expect(tree[0]).toBe(shell.pid);
			expect(tree.map(commandOf).slice(1).sort()).toEqual(['sh -c (sleep 61; true) & sleep 62 & wait', 'sleep 61', 'sleep 62']);
			// The subshell's sleep comes after the subshell.
			const subshell = tree.findIndex((pid, n) => n > 0 && commandOf(pid).startsWith('sh -c'));
			expect(tree.findIndex((pid) => commandOf(pid) === 'sleep 61')).toBeGreaterThan(subshell);
		} finally {
			killProcessTree(shell);
		}
	});
});

describe('killProcessTree', () => {
	it('kills a process and the processes it started, at once', async () => {
		const shell = spawn('sh', ['-c', 'sleep 60 & sleep 61 & wait'], { stdio: 'ignore' });
		const exited = ending(shell);
		const sleeps = (await treeOnceRunning(shell, ['sleep 60', 'sleep 61'])).slice(1);

		try {
			expect(sleeps).toHaveLength(2);

			killProcessTree(shell);

			// SIGKILL is delivered before kill() returns.
			expect(await exited).toBe('SIGKILL');
			await expectAllEnd(sleeps);
		} finally {
			killRunning(sleeps);
		}
	});
});

/** bash as e2e.sh runs (strict mode, scripts/processes.sh sourced), then `start` and `body`, with `env` added to this process's. */
const bashWith = (start: string, body: string, env: NodeJS.ProcessEnv = {}) =>
	spawn('bash', ['-c', `set -euo pipefail; source scripts/processes.sh; ${start}; ${body}`], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, ...env } });

describe('stop_descendants (scripts/processes.sh)', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'stop-descendants-'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	/** bash with processes.sh sourced and stop_descendants on EXIT (1 s of grace), then `body`. */
	const script = (body: string) => bashWith(`trap 'stop_descendants 1' EXIT`, body);

	it('a shell ended by SIGTERM stops what it started in the background and the foreground, with SIGTERM: a script below it still runs its EXIT trap', async () => {
		const mark = path.join(dir, 'cleaned');
		const shell = script(`(bash -c 'trap "echo cleaned > ${mark}" EXIT; sleep 61' | cat) & sleep 62`);
		const exited = ending(shell);
		const below = (await treeOnceRunning(shell, ['sleep 61', 'sleep 62'])).slice(1);
		try {
			expect(below.map(commandOf)).toEqual(expect.arrayContaining(['cat', 'bash -c trap "echo cleaned > ' + mark + '" EXIT; sleep 61']));

			shell.kill('SIGTERM');

			expect(await exited).toBe('SIGTERM');
			await expectAllEnd(below);
			expect(readFileSync(mark, 'utf8')).toBe('cleaned\n');
		} finally {
			killRunning(below);
		}
	});

	it('SIGKILL to what still runs after the grace: a process that ignores SIGTERM goes too', async () => {
		// An ignored signal stays ignored across exec: neither this bash nor its sleep ends on SIGTERM.
		const shell = script(`bash -c 'trap "" TERM; sleep 63; true' & wait`);
		const exited = ending(shell);
		const below = (await treeOnceRunning(shell, ['sleep 63'])).slice(1);
		try {
			expect(below).toHaveLength(2);

			shell.kill('SIGTERM');

			expect(await exited).toBe('SIGTERM');
			await expectAllEnd(below);
		} finally {
			killRunning(below);
		}
	});

	it('keeps the exit status of a shell that ends by itself, with nothing left below it', async () => {
		const shell = script('sleep 0.1 & wait; exit 3');
		expect(await ending(shell)).toBe(3);
	});
});

describe('own_tmpdir (scripts/processes.sh)', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'own-tmpdir-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	/** bash with e2e.sh's start (processes.sh sourced, own_tmpdir, here with 1 s of grace) in `dir` as TMPDIR, then `body`. */
	const script = (body: string) => bashWith('own_tmpdir run-tmp 1', body, { TMPDIR: dir });
	/** The run's folder once it holds `count` entries. */
	const runFolderHolding = (count: number) =>
		until(`the run's folder with ${count} entries`, () => {
			const [run] = readdirSync(dir).filter((name) => name.startsWith('run-tmp.'));
			return run && readdirSync(path.join(dir, run)).length >= count ? path.join(dir, run) : undefined;
		}, 10_000, { everyMs: 50 });

	it('a shell ended by SIGTERM: what it started stops, and the temporary folders they made in TMPDIR go with the run\'s own', async () => {
		// A process making its temporary folder where TMPDIR says, as mkdtemp(os.tmpdir()) does, and one making its own below it.
		const shell = script(`mktemp -d > /dev/null; bash -c 'mktemp -d > /dev/null; sleep 64' & sleep 65`);
		const exited = ending(shell);
		const below = (await treeOnceRunning(shell, ['sleep 64', 'sleep 65'])).slice(1);
		try {
			const run = await runFolderHolding(2);
			expect(statSync(run).mode & 0o777).toBe(0o755);

			shell.kill('SIGTERM');

			expect(await exited).toBe('SIGTERM');
			await expectAllEnd(below);
			expect(readdirSync(dir)).toEqual([]);
		} finally {
			killRunning(below);
		}
	});

	it('a shell that ends by itself keeps its exit status, and its folder goes too', async () => {
		const shell = script('mktemp -d > /dev/null; exit 3');
		expect(await ending(shell)).toBe(3);
		expect(readdirSync(dir)).toEqual([]);
	});
});
