/**
 * CONTRIBUTING.md's "Adding an operation", executed: in a scratch copy of the
 * tree (the files git tracks or would track, node_modules linked), the steps are
 * followed for the guide's illustrative operation, with its files written from
 * the guide's own text, and the copy must then build, lint, type-check and pass
 * the operation's engine test against the emulator. The emulator route is this
 * test's own (the service has no such endpoint); nothing of it ships, and the
 * copy lives under the run's TMPDIR and is removed.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import { ROOT } from '../../testbed/root';
import { suiteScratchCopy } from '../scratchCopy';

const guide = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');

/** The code blocks the guide marks `<!-- <kind>: <path> -->` (e.g. "new file", "add to"). */
function marked(kind: string): Array<{ file: string; code: string }> {
	const pattern = new RegExp(`<!-- ${kind}: (\\S+) -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``, 'g');
	return [...guide.matchAll(pattern)].map(([, file, code]) => ({ file, code }));
}

const newFiles = marked('new file');
const additions = marked('add to');

const scratch = suiteScratchCopy('walkthrough-');

/**
 * The emulator route for the illustrative operation: GET /api/v1/knowledge/:id/summary,
 * behind the knowledge base API's key, registered in its own scope before the server listens.
 */
function addEmulatorRoute(): void {
	const emulatorDir = path.join(scratch.dir, 'emulator');
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
		const target = path.join(scratch.dir, operation.file);
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
		const suite = path.join(scratch.dir, engineTest.file);
		expect(existsSync(suite)).toBe(true);
		writeFileSync(suite, `${readFileSync(suite, 'utf8')}\n${engineTest.code}`);
		const describeName = /^describe\('([^']+)'/m.exec(engineTest.code)![1];

		// Step 7: the parts of `npm test` that concern it (not the whole jest run).
		scratch.run('npm', ['run', '--silent', 'build']);
		scratch.run('npm', ['run', '--silent', 'lint']);
		scratch.run('npm', ['run', '--silent', 'typecheck']);
		const run = scratch.jest([engineTest.file], describeName);
		expect(run.tests.map((test) => [test.fullName, test.status, test.failureMessages])).toEqual([[expect.stringContaining(describeName), 'passed', []]]);
		expect(run).toMatchObject({ numPassedTests: 1, numFailedTests: 0 });
	}, 600_000);
});
