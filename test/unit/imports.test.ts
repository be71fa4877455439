/**
 * Import rules, read from the sources.
 *
 * The shape of the shipped code's imports: every relative import under nodes/,
 * shared/ and credentials/ is read. The graph they make has no cycle (a circle
 * makes the order modules are loaded in decide what a module sees of another
 * at load time, and it usually means two concerns are mixed), and what the
 * nodes share lives in shared/: no node imports another node's folder, the
 * credentials import only from shared/, and shared/ imports nothing from
 * nodes/ or credentials/.
 *
 * The emulator imports nothing of the shipped code: it judges the node's
 * requests by its own reading of the service, so a limit the node gets wrong
 * is refused there instead of being agreed with (test/unit/emulatorAuthority.test.ts
 * shows one caught).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** The file a relative specifier names: `./x` as x.ts or x/index.ts. */
function resolve(from: string, specifier: string): string | undefined {
	const base = path.resolve(path.dirname(from), specifier);
	for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
	}
	return undefined;
}

/** Relative imports and re-exports of a file, type-only ones included (they tie the modules too). */
export function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)].map(([, s]) => s);
	return specifiers.map((s) => resolve(file, s)).filter((f): f is string => f !== undefined);
}

/**
 * Every module a source names, in any form: `import … from`, `export … from`,
 * a bare `import '…'`, `require('…')` and `import('…')`.
 */
export function specifiersIn(text: string): string[] {
	const forms = [
		/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm,
		/^\s*import\s+['"]([^'"]+)['"]/gm,
		/\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
	];
	return forms.flatMap((form) => [...text.matchAll(form)].map(([, s]) => s));
}

const PACKAGE_NAME = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
const SHIPPED = ['nodes', 'shared', 'credentials'].map((folder) => path.join(ROOT, folder) + path.sep);

/** A source's text, or undefined when there is no such file. */
const onDisk = (file: string): string | undefined => (existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : undefined);

/**
 * What `files` reach of the shipped code, following their relative imports
 * through every module they load: "<file> → <what it names>" for each import
 * of nodes/, shared/ or credentials/ (or of the package by its name).
 */
export function shippedCodeReachedFrom(files: string[], source: (file: string) => string | undefined = onDisk): string[] {
	const found: string[] = [];
	const seen = new Set<string>();
	const queue = [...files];
	while (queue.length > 0) {
		const file = queue.shift()!;
		const text = seen.has(file) ? undefined : source(file);
		seen.add(file);
		for (const specifier of text === undefined ? [] : specifiersIn(text)) {
			const base = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : undefined;
			const shipped = base
				? SHIPPED.some((folder) => (base + path.sep).startsWith(folder))
				: specifier === PACKAGE_NAME || specifier.startsWith(`${PACKAGE_NAME}/`);
			if (shipped) found.push(`${path.relative(ROOT, file)} → ${specifier}`);
			else if (base) queue.push(...[`${base}.ts`, path.join(base, 'index.ts')].filter((candidate) => source(candidate) !== undefined).slice(0, 1));
		}
	}
	return found;
}

/** Every cycle of the graph, each once (as its strongly connected component's members). */
export function cycles(graph: Map<string, string[]>): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (node: string): void => {
		index.set(node, counter);
		low.set(node, counter++);
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node)!, low.get(next)!));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
		}
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}

/** Where a shipped file lives: `nodes/<Node>`, `shared` or `credentials`. */
function home(file: string): string {
	const [top, folder] = path.relative(ROOT, file).split(path.sep);
	return top === 'nodes' ? `nodes/${folder}` : top;
}

/** The imports that cross from one home into a home it may not import from. */
export function crossings(graph: Map<string, string[]>): string[] {
	const allowed = (from: string, to: string) => from === to || to === 'shared';
	return [...graph].flatMap(([file, imports]) =>
		imports.filter((target) => !allowed(home(file), home(target))).map((target) => `${path.relative(ROOT, file)} → ${path.relative(ROOT, target)}`),
	);
}

describe('imports of the shipped code', () => {
	const files = ['nodes', 'shared', 'credentials'].flatMap((dir) => sources(path.join(ROOT, dir)));
	const graph = new Map(files.map((file) => [file, importsOf(file)]));

	it('reads the imports it checks', () => {
		expect(files.length).toBeGreaterThan(50);
		expect([...graph.values()].flat().length).toBeGreaterThan(files.length);
	});

	it('finds a circle when there is one', () => {
		expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
		expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
	});

	it('has no import circle in nodes/, shared/ or credentials/', () => {
		const circles = cycles(graph).map((members) => members.map((m) => path.relative(ROOT, m)));
		expect(circles).toEqual([]);
	});

	it('finds an import that crosses into another node or out of shared/', () => {
		const at = (relative: string) => path.join(ROOT, relative);
		const crossing = new Map([
			[at('nodes/A/a.ts'), [at('nodes/B/b.ts'), at('shared/s.ts')]],
			[at('shared/s.ts'), [at('nodes/A/a.ts')]],
			[at('credentials/C.ts'), [at('shared/s.ts'), at('nodes/A/a.ts')]],
		]);
		expect(crossings(crossing)).toEqual(['nodes/A/a.ts → nodes/B/b.ts', 'shared/s.ts → nodes/A/a.ts', 'credentials/C.ts → nodes/A/a.ts']);
	});

	it('keeps each node to its own folder and shared/, the credentials to shared/, and shared/ to itself', () => {
		expect(crossings(graph)).toEqual([]);
	});
});

describe('imports of the emulator', () => {
	const files = sources(path.join(ROOT, 'emulator'));

	it('reads every module the emulator names', () => {
		expect(files.length).toBeGreaterThan(30);
		expect(specifiersIn("import a from './a';\nimport type { B } from \"../b\";\nexport * from './c';\nimport './d';\nconst e = require('./e');\nconst f = await import('./f');")).toEqual([
			'./a',
			'../b',
			'./c',
			'./d',
			'./e',
			'./f',
		]);
	});

	it('finds an import of the shipped code, also one made through a module it loads', () => {
		const at = (file: string) => path.join(ROOT, file);
		const texts: Record<string, string> = {
			[at('emulator/a.ts')]: "import { b } from './b';\nimport { createServer } from 'node:http';\n",
			[at('emulator/b.ts')]: "import { LIMIT } from '../testbed/c';\nconst d = require('n8n-nodes-workplace/dist/credentials/d');\n",
			[at('testbed/c/index.ts')]: "export { LIMIT } from '../../shared/messages/rules';\n",
		};
		expect(shippedCodeReachedFrom([at('emulator/a.ts')], (file) => texts[file])).toEqual([
			'emulator/b.ts → n8n-nodes-workplace/dist/credentials/d',
			'testbed/c/index.ts → ../../shared/messages/rules',
		]);
	});

	it('imports nothing from nodes/, shared/ or credentials/, neither itself nor through what it loads', () => {
		expect(shippedCodeReachedFrom(files)).toEqual([]);
	});
});
