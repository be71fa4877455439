/**
 * CONTRIBUTING.md's "Adding an operation", executed: in a scratch copy of the
 * tree (the files git tracks or would track, node_modules linked), the steps are
 * followed for the guide's illustrative operation, with its files written from
 * the guide's own text, and the copy must then build, lint, type-check and pass
 * the operation's engine test against the emulator. The emulator route is this
 * test's own (the service has no such endpoint); nothing of it ships, and the
 * copy lives under the run's TMPDIR and is removed.
 */
import { execFileSync, spawnSync } from 'child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { ROOT } from '../../testbed/root';

const guide = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');

/** The code blocks the guide marks `<!-- <kind>: <path> -->` (e.g. "new file", "add to"). */
function marked(kind: string): Array<{ file: string; code: string }> {
	const pattern = new RegExp(`<!-- ${kind}: (\\S+) -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``, 'g');
	return [...guide.matchAll(pattern)].map(([, file, code]) => ({ file, code }));
}

const newFiles = marked('new file');
const additions = marked('add to');

let scratch: string;

beforeAll(() => {
	// Under the run's TMPDIR (test/globalSetup.ts), which globalTeardown removes even if afterAll does not run.
	scratch = mkdtempSync(path.join(tmpdir(), 'walkthrough-'));
	const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
		.split('\0')
		.filter(Boolean);
	for (const file of files) {
		const from = path.join(ROOT, file);
		// Tracked but deleted in the working tree, or a symlink to a folder (installs): not part of the copy.
		if (!existsSync(from) || !statSync(from).isFile()) continue;
		const to = path.join(scratch, file);
		mkdirSync(path.dirname(to), { recursive: true });
		writeFileSync(to, readFileSync(from));
	}
	for (const installs of ['node_modules', 'e2e/node_modules']) {
		if (existsSync(path.join(ROOT, installs))) symlinkSync(realpathSync(path.join(ROOT, installs)), path.join(scratch, installs), 'dir');
	}
});

afterAll(() => {
	if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Runs a command in the scratch copy; fails the test with its output when it fails. */
function inScratch(command: string, args: string[]): string {
	const result = spawnSync(command, args, { cwd: scratch, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
	const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
	if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed in the scratch copy (${result.status}):\n${output}`);
	return output;
}

/**
 * The emulator route for the illustrative operation: GET /api/v1/knowledge/:id/summary,
 * behind the knowledge area's API key, registered in its own scope before the server listens.
 */
function addEmulatorRoute(): void {
	const emulatorDir = path.join(scratch, 'emulator');
	const server = listFiles(emulatorDir).find((f) => /export async function startEmulator\(/.test(readFileSync(f, 'utf8')));
	expect(server).toBeDefined();
	const source = readFileSync(server!, 'utf8');
	const listen = 'await app.listen(';
	expect(source).toContain(listen);
	writeFileSync(
		path.join(path.dirname(server!), 'walkthroughRoute.ts'),
		`import type { FastifyInstance } from 'fastify';

export function registerWalkthroughRoute(app: FastifyInstance, config: { apiKey: string }): void {
	app.get<{ Params: { id: string } }>('/api/v1/knowledge/:id/summary', async (request, reply) => {
		if (request.headers['x-api-key'] !== config.apiKey) return reply.code(401).send({ statusCode: 401, message: 'Invalid API key' });
		if (!/^[1-9][0-9]*$/.test(request.params.id)) return reply.code(404).send({ statusCode: 404, message: 'Not found' });
		const knowledgeId = Number(request.params.id);
		return { summary: { knowledgeId, text: \`Knowledge base \${knowledgeId} in brief\` } };
	});
}
`,
	);
	const withRoute = source.replace(listen, `await app.register(async (scope) => registerWalkthroughRoute(scope, config));\n\t${listen}`);
	writeFileSync(server!, `import { registerWalkthroughRoute } from './walkthroughRoute';\n${withRoute}`);
}

function listFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
	);
}

describe("CONTRIBUTING.md's Adding an operation, followed in a scratch copy", () => {
	it('shows a new operation and its engine test', () => {
		expect(newFiles.map((f) => f.file)).toEqual([expect.stringMatching(/^nodes\/Workplace\/actions\/\w+\/\w+\.operation\.ts$/)]);
		expect(newFiles[0].code).toMatch(/export const \w+: OperationDefinition = \{/);
		expect(additions.map((f) => f.file)).toEqual([expect.stringMatching(/^test\/nodes\/\w+\.test\.ts$/)]);
	});

	it('builds, lints, type-checks and passes its engine test', () => {
		// Step 1–3: the operation's file, as the guide writes it.
		const [operation] = newFiles;
		const target = path.join(scratch, operation.file);
		expect(existsSync(target)).toBe(false);
		writeFileSync(target, operation.code);

		// Step 5: registered in actions/<resource>/index.ts (`operations: [...]`).
		const exported = /export const (\w+): OperationDefinition/.exec(operation.code)![1];
		const index = path.join(path.dirname(target), 'index.ts');
		const registration = readFileSync(index, 'utf8');
		expect(registration).toMatch(/operations: \[[^\]]*\]/);
		writeFileSync(
			index,
			`import { ${exported} } from './${path.basename(operation.file, '.ts')}';\n` +
				registration.replace(/operations: \[([^\]]*)\]/, `operations: [$1, ${exported}]`),
		);

		// Step 6: the endpoint in the emulator, and the test in the resource's suite.
		addEmulatorRoute();
		const [engineTest] = additions;
		const suite = path.join(scratch, engineTest.file);
		expect(existsSync(suite)).toBe(true);
		writeFileSync(suite, `${readFileSync(suite, 'utf8')}\n${engineTest.code}`);
		const describeName = /^describe\('([^']+)'/m.exec(engineTest.code)![1];

		// Step 7: the parts of `npm test` that concern it (not the whole jest run).
		inScratch('npm', ['run', '--silent', 'build']);
		inScratch('npm', ['run', '--silent', 'lint']);
		inScratch('npm', ['run', '--silent', 'typecheck']);
		const results = path.join(scratch, 'build', 'walkthrough-results.json');
		mkdirSync(path.dirname(results), { recursive: true });
		inScratch(process.execPath, [
			path.join(scratch, 'node_modules', 'jest', 'bin', 'jest.js'),
			'--ci',
			'--json',
			`--outputFile=${results}`,
			engineTest.file,
			'-t',
			describeName,
		]);
		const run = JSON.parse(readFileSync(results, 'utf8')) as { numPassedTests: number; numFailedTests: number };
		expect(run).toMatchObject({ numPassedTests: 1, numFailedTests: 0 });
	}, 600_000);
});
