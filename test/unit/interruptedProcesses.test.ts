/**
 * How an interrupted development process cleans up: `exitOnInterrupt`
 * (testbed/interrupt.ts, a bench or `npm run demo` on Ctrl-C) and
 * `endsWithBench` (bench/childProcess.ts, a bench's child when its bench is
 * gone). Real processes and real signals: each child runs the module as jest
 * runs it (transpiled only), from the run's temporary folder.
 */
import { fork, type ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import * as ts from 'typescript';

import { until } from '../../testbed/n8n';
import { ROOT } from '../../testbed/root';

let dir: string;

beforeAll(() => {
	dir = mkdtempSync(path.join(tmpdir(), 'interrupted-'));
	for (const [file, name] of [
		['testbed/interrupt.ts', 'interrupt.js'],
		['bench/childProcess.ts', 'childProcess.js'],
	]) {
		const source = readFileSync(path.join(ROOT, file), 'utf8');
		writeFileSync(path.join(dir, name), ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);
	}
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
	process: ChildProcess;
	/** Everything the child printed so far. */
	output(): string;
	/** Waits until the child printed `line`. */
	printed(line: string): Promise<void>;
	/** How the child ended, or 'still running' after 10 s. */
	ended: Promise<Ending>;
}

type Ending = { code: number | null; signal: NodeJS.Signals | null } | 'still running';

/** A node process running `script` (CommonJS, `dir` holding the compiled modules), with an IPC channel to this one. */
function start(script: string): Child {
	const file = path.join(dir, `child-${Math.random().toString(36).slice(2)}.js`);
	writeFileSync(file, script);
	const child = fork(file, [], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
	let output = '';
	child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	// A message to a child already gone fails here; the test's expectations then say what went wrong.
	child.on('error', (error) => (output += `(to the child: ${error.message})\n`));
	const ended = new Promise<Ending>((resolve) => {
		const timer = setTimeout(() => resolve('still running'), 10_000);
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal });
		});
	});
	return {
		process: child,
		output: () => output,
		printed: async (line) => {
			await until(`the child to print ${line}`, () => (output.split('\n').includes(line) ? true : undefined), 10_000, 20);
		},
		ended,
	};
}

const timesPrinted = (child: Child, line: string) => child.output().split('\n').filter((l) => l === line).length;

describe('exitOnInterrupt', () => {
	// The clean-up takes 300 ms, as removing folders may: a second signal meanwhile must not end the process.
	const script = `
		const { exitOnInterrupt } = require('./interrupt.js');
		exitOnInterrupt(() => {
			console.log('cleaning');
			const until = Date.now() + 300;
			while (Date.now() < until);
			console.log('cleaned');
		});
		console.log('ready');
		setInterval(() => undefined, 1000);
	`;

	it.each(['SIGINT', 'SIGTERM'] as const)('on %s cleans up once and exits with 130, a second signal during the clean-up ignored', async (first) => {
		const child = start(script);
		try {
			await child.printed('ready');
			child.process.kill(first);
			await child.printed('cleaning');
			child.process.kill(first === 'SIGINT' ? 'SIGTERM' : 'SIGINT');
			child.process.kill(first);

			expect(await child.ended).toEqual({ code: 130, signal: null });
			expect(timesPrinted(child, 'cleaning')).toBe(1);
			expect(timesPrinted(child, 'cleaned')).toBe(1);
		} finally {
			child.process.kill('SIGKILL');
		}
	});
});

describe('endsWithBench', () => {
	// The child stops as the emulator's child does: a clean-up, then exit 0 on the next turn.
	const script = (afterBenchGone: string) => `
		const { endsWithBench } = require('./childProcess.js');
		let stops = 0;
		endsWithBench(() => {
			stops++;
			console.log('stop ' + stops);
			${afterBenchGone}
			setTimeout(() => { console.log('stops ' + stops); process.exit(0); }, 100);
		});
		process.on('message', (message) => process.send({ echo: message }));
		console.log('ready');
		setInterval(() => undefined, 1000);
	`;

	it('ignores Ctrl-C and SIGTERM (its bench cleans up first), and stops once its bench closes the channel', async () => {
		const child = start(script(''));
		try {
			await child.printed('ready');
			child.process.kill('SIGINT');
			child.process.kill('SIGTERM');
			// Still running and answering after both signals.
			const echo = new Promise((resolve) => child.process.once('message', resolve));
			child.process.send('still there?');
			expect(await Promise.race([echo, child.ended])).toEqual({ echo: 'still there?' });

			child.process.disconnect();

			expect(await child.ended).toEqual({ code: 0, signal: null });
			expect(timesPrinted(child, 'stop 1')).toBe(1);
			expect(timesPrinted(child, 'stops 1')).toBe(1);
		} finally {
			child.process.kill('SIGKILL');
		}
	});

	it('stops once when a message to its gone bench fails as well', async () => {
		// A message sent once the channel closed fails as an 'error' event on the process.
		const child = start(script(`process.send({ late: true });`));
		try {
			await child.printed('ready');
			child.process.disconnect();

			expect(await child.ended).toEqual({ code: 0, signal: null });
			expect(timesPrinted(child, 'stop 1')).toBe(1);
			expect(timesPrinted(child, 'stops 1')).toBe(1);
			expect(child.output()).not.toContain('Error');
		} finally {
			child.process.kill('SIGKILL');
		}
	});

	it('stops when a message fails before the channel is seen closed', async () => {
		// The bench is gone but the child has not yet heard: its next message fails first.
		const child = start(`
			const { endsWithBench } = require('./childProcess.js');
			let stops = 0;
			endsWithBench(() => {
				stops++;
				console.log('stop ' + stops);
				setTimeout(() => { console.log('stops ' + stops); process.exit(0); }, 100);
			});
			process.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
			console.log('ready');
			setInterval(() => undefined, 1000);
		`);
		try {
			expect(await child.ended).toEqual({ code: 0, signal: null });
			expect(timesPrinted(child, 'stop 1')).toBe(1);
			expect(timesPrinted(child, 'stops 1')).toBe(1);
		} finally {
			child.process.kill('SIGKILL');
		}
	});
});
