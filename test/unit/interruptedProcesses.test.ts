/**
 * How a development process leaves the temp folder, and how an interrupted one
 * cleans up: `exitOnInterrupt` (testbed/interrupt.ts: a bench, `npm run demo`
 * on Ctrl-C) removes every folder `makeTempFolder` made
 * (emulator/common/tempFolders.ts), also the emulator's while it is still
 * starting; the emulator removes its own when it closes or fails to start;
 * `endsWithBench` (bench/childProcess.ts) ends a bench's child when its bench
 * is gone. Real processes and real signals: each child loads the project's
 * sources as jest does (transpiled only), with its own temp folder.
 */
import { fork, type ChildProcess } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';

import { until } from '../../testbed/until';
import { ROOT } from '../../testbed/root';

let dir: string;

beforeAll(() => {
	dir = mkdtempSync(path.join(tmpdir(), 'interrupted-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Opens the child's script: `source(file)` requires one of the project's TypeScript files, transpiled as jest transpiles it. */
const PREAMBLE = `
	const { readFileSync } = require('fs');
	const ts = require(${JSON.stringify(path.join(ROOT, 'node_modules/typescript'))});
	const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
	require.extensions['.ts'] = (module, file) => module._compile(ts.transpileModule(readFileSync(file, 'utf8'), { fileName: file, compilerOptions: options }).outputText, file);
	const source = (file) => require(${JSON.stringify(ROOT)} + '/' + file);
`;

interface Child {
	process: ChildProcess;
	/** The child's temp folder (its TMPDIR). */
	tmp: string;
	/** Everything the child printed so far. */
	output(): string;
	/** Waits until the child printed `line`. */
	printed(line: string): Promise<void>;
	/** How the child ended, or 'still running' after 10 s. */
	ended: Promise<Ending>;
}

type Ending = { code: number | null; signal: NodeJS.Signals | null } | 'still running';

/** A node process running `script` (CommonJS, after PREAMBLE), with an IPC channel to this one; its temp folder is `child.tmp`, empty at the start. */
function start(script: string): Child {
	const name = `child-${Math.random().toString(36).slice(2)}`;
	const file = path.join(dir, `${name}.js`);
	const tmp = path.join(dir, `${name}-tmp`);
	mkdirSync(tmp);
	writeFileSync(file, PREAMBLE + script);
	const child = fork(file, [], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, TMPDIR: tmp } });
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
		tmp,
		output: () => output,
		printed: async (line) => {
			await until(`the child to print ${line}`, () => (output.split('\n').includes(line) ? true : undefined), 10_000, { everyMs: 20 });
		},
		ended,
	};
}

const timesPrinted = (child: Child, line: string) => child.output().split('\n').filter((l) => l === line).length;

describe('exitOnInterrupt', () => {
	// The clean-up takes 300 ms, as removing folders may: a second signal meanwhile must not end the process.
	const script = `
		const { exitOnInterrupt } = source('testbed/interrupt.ts');
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
	it('then removes every folder makeTempFolder made and no other, also when the clean-up throws', async () => {
		const child = start(`
			const { exitOnInterrupt } = source('testbed/interrupt.ts');
			const { makeTempFolder, removeTempFolder } = source('emulator/common/tempFolders.ts');
			const { mkdirSync, writeFileSync } = require('fs');
			const { tmpdir } = require('os');
			exitOnInterrupt(() => {
				throw new Error('the clean-up failed');
			});
			writeFileSync(makeTempFolder('made-a-') + '/content', 'a file inside');
			makeTempFolder('made-b-');
			removeTempFolder(makeTempFolder('made-c-'));
			// Not made by makeTempFolder: removeTempFolder and an interrupt leave it.
			mkdirSync(tmpdir() + '/not-made');
			removeTempFolder(tmpdir() + '/not-made');
			console.log('ready');
			setInterval(() => undefined, 1000);
		`);
		try {
			await child.printed('ready');
			expect(readdirSync(child.tmp).map((name) => name.replace(/-[A-Za-z0-9]{6}$/, '-…')).sort()).toEqual(['made-a-…', 'made-b-…', 'not-made']);
			child.process.kill('SIGINT');

			expect(await child.ended).toEqual({ code: 130, signal: null });
			expect(readdirSync(child.tmp)).toEqual(['not-made']);
			expect(child.output()).toContain('Error: the clean-up failed');
		} finally {
			child.process.kill('SIGKILL');
		}
	});
});

describe("the emulator's data folder", () => {
	/** The child's temp folder as its lines print it: names sorted, a random suffix shown as …. */
	const listing = `const listing = () => require('fs').readdirSync(require('os').tmpdir()).map((name) => name.replace(/^(workplace-emulator-).+/, '$1…')).sort().join(' ');`;

	it('is removed when the emulator closes and when it fails to start; one it was given is kept', async () => {
		const child = start(`
			const { startEmulator } = source('emulator/server.ts');
			${listing}
			(async () => {
				const running = await startEmulator();
				console.log('running: ' + listing());
				// Its port in use: the second start fails.
				await startEmulator({ port: running.port }).catch((error) => console.log('second start ' + error.code + ': ' + listing()));
				await running.close();
				console.log('closed: ' + listing());
				const given = require('os').tmpdir() + '/given';
				require('fs').mkdirSync(given);
				await (await startEmulator({ dataDir: given })).close();
				console.log('given, closed: ' + listing());
				process.exit(0);
			})();
		`);
		try {
			expect(await child.ended).toEqual({ code: 0, signal: null });
			expect(child.output().trim().split('\n')).toEqual([
				'running: workplace-emulator-…',
				'second start EADDRINUSE: workplace-emulator-…',
				'closed: ',
				'given, closed: given',
			]);
		} finally {
			child.process.kill('SIGKILL');
		}
	});

	it('is removed by an interrupt while the emulator starts (exitOnInterrupt)', async () => {
		// A real SIGINT is handled only once the event loop is polled, which a start on a quiet machine may finish
		// before doing; emitted, the handlers run at once, as on a Ctrl-C that finds the start waiting.
		const child = start(`
			const { exitOnInterrupt } = source('testbed/interrupt.ts');
			const { startEmulator } = source('emulator/server.ts');
			${listing}
			exitOnInterrupt();
			void startEmulator().then(() => console.log('started'));
			console.log('starting: ' + listing());
			process.emit('SIGINT', 'SIGINT');
		`);
		try {
			expect(await child.ended).toEqual({ code: 130, signal: null });
			expect(child.output().trim().split('\n')).toEqual(['starting: workplace-emulator-…']);
			expect(readdirSync(child.tmp)).toEqual([]);
		} finally {
			child.process.kill('SIGKILL');
		}
	});
});

describe('endsWithBench', () => {
	// The child stops as the emulator's child does: a clean-up, then exit 0 on the next turn.
	const script = (afterBenchGone: string) => `
		const { endsWithBench } = source('bench/childProcess.ts');
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
			const { endsWithBench } = source('bench/childProcess.ts');
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
