/**
 * No import circle in the shipped code: every relative import under nodes/ and
 * credentials/ is read from the sources, and the graph they make must have no
 * cycle. A circle makes the order modules are loaded in decide what a module
 * sees of another at load time, and it usually means two concerns are mixed.
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

describe('imports of the shipped code', () => {
	const files = [...sources(path.join(ROOT, 'nodes')), ...sources(path.join(ROOT, 'credentials'))];
	const graph = new Map(files.map((file) => [file, importsOf(file)]));

	it('reads the imports it checks', () => {
		expect(files.length).toBeGreaterThan(50);
		expect([...graph.values()].flat().length).toBeGreaterThan(files.length);
	});

	it('finds a circle when there is one', () => {
		expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
		expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
	});

	it('has no import circle in nodes/ or credentials/', () => {
		const circles = cycles(graph).map((members) => members.map((m) => path.relative(ROOT, m)));
		expect(circles).toEqual([]);
	});
});
