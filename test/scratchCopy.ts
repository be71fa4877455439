/**
 * A scratch copy of the tree for a suite that changes the tree itself (follows
 * CONTRIBUTING's walk-through, or breaks a rule of the node on purpose): the
 * files git tracks or would track, the installs linked, under the run's TMPDIR
 * (test/globalSetup.ts), made before the suite's first test and removed after
 * its last (globalTeardown removes it even if afterAll does not run).
 */
import { execFileSync, spawnSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { ROOT } from '../testbed/root';

/** What jest's --json report says of one test. */
export interface JestTestResult {
	fullName: string;
	status: 'passed' | 'failed' | 'pending' | 'skipped' | 'todo' | 'disabled';
	failureMessages: string[];
}

export interface JestReport {
	numPassedTests: number;
	numFailedTests: number;
	tests: JestTestResult[];
}

export interface ScratchCopy {
	/** The copy's folder (valid from the suite's first test on). */
	readonly dir: string;
	/** A file of the copy, by its path in the tree. */
	read(file: string): string;
	write(file: string, text: string): void;
	/** Runs a command in the copy; fails the test with its output when it fails. */
	run(command: string, args: string[]): string;
	/** Runs jest in the copy on `files`, only the tests whose name holds `testName`, and reads its report (failures included). */
	jest(files: string[], testName: string): JestReport;
}

function copyTree(prefix: string): string {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
		.split('\0')
		.filter(Boolean);
	for (const file of files) {
		const from = path.join(ROOT, file);
		// Tracked but deleted in the working tree, or a symlink to a folder (installs): not part of the copy.
		if (!existsSync(from) || !statSync(from).isFile()) continue;
		const to = path.join(dir, file);
		mkdirSync(path.dirname(to), { recursive: true });
		writeFileSync(to, readFileSync(from));
	}
	for (const installs of ['node_modules', 'e2e/node_modules']) {
		if (existsSync(path.join(ROOT, installs))) symlinkSync(realpathSync(path.join(ROOT, installs)), path.join(dir, installs), 'dir');
	}
	return dir;
}

/** The suite's scratch copy, named `<prefix>…` under TMPDIR. */
export function suiteScratchCopy(prefix: string): ScratchCopy {
	let dir: string | undefined;
	beforeAll(() => {
		dir = copyTree(prefix);
	});
	afterAll(() => {
		if (dir) rmSync(dir, { recursive: true, force: true });
	});
	const root = (): string => {
		if (!dir) throw new Error('The scratch copy is made in beforeAll');
		return dir;
	};
	const spawn = (command: string, args: string[]) => {
		const result = spawnSync(command, args, { cwd: root(), encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
		return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
	};
	return {
		get dir() {
			return root();
		},
		read: (file) => readFileSync(path.join(root(), file), 'utf8'),
		write: (file, text) => writeFileSync(path.join(root(), file), text),
		run(command, args) {
			const { status, output } = spawn(command, args);
			if (status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed in the scratch copy (${status}):\n${output}`);
			return output;
		},
		jest(files, testName) {
			const report = path.join(root(), 'build', `scratch-jest-${Date.now()}.json`);
			mkdirSync(path.dirname(report), { recursive: true });
			const { output } = spawn(process.execPath, [path.join(root(), 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--json', `--outputFile=${report}`, ...files, '-t', testName]);
			if (!existsSync(report)) throw new Error(`jest wrote no report in the scratch copy:\n${output}`);
			const json = JSON.parse(readFileSync(report, 'utf8')) as {
				numPassedTests: number;
				numFailedTests: number;
				testResults: Array<{ assertionResults: JestTestResult[] }>;
			};
			return {
				numPassedTests: json.numPassedTests,
				numFailedTests: json.numFailedTests,
				tests: json.testResults.flatMap((suite) => suite.assertionResults).filter((test) => test.status !== 'pending' && test.status !== 'skipped'),
			};
		},
	};
}
