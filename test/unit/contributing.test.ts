/**
 * CONTRIBUTING.md walks through adding an operation with snippets of real
 * files. Each snippet marked `<!-- file: path -->` must still appear in that
 * file as it is, so the walk stays true when the code changes. Its layout
 * (the trees under "The shape of the node", the transport table, the Layout
 * table's rows for nodes/) is compared with the files under nodes/ and shared/ as they are,
 * and what it says about resources (where their engine tests are, which
 * credential each is shown) with the node's sources. The walk itself is executed by
 * walkthrough.test.ts.
 */
import { readdirSync, readFileSync } from 'fs';
import * as path from 'path';

import { RESOURCES } from '../../nodes/Workplace/actions/resources';
import { Workplace } from '../../nodes/Workplace/Workplace.node';
import { ROOT } from '../../testbed/root';

const guide = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
const snippets = [...guide.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file, code }));

describe('CONTRIBUTING.md', () => {
	it('quotes at least the whole of one operation', () => {
		expect(snippets.length).toBeGreaterThanOrEqual(2);
		expect(snippets[0].code).toMatch(/export const \w+: OperationDefinition = \{/);
	});

	it.each(snippets)('quotes $file as it is', ({ file, code }) => {
		expect(readFileSync(path.join(ROOT, file), 'utf8')).toContain(code);
	});
});

/** The part of the guide under a `## ` heading, up to the next one. */
function section(heading: string): string {
	const start = guide.indexOf(`\n## ${heading}\n`);
	expect(start).toBeGreaterThanOrEqual(0);
	const end = guide.indexOf('\n## ', start + 1);
	return guide.slice(start, end < 0 ? undefined : end);
}

/** Every file under `dir` (relative to ROOT), read at run time. */
function filesUnder(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const relative = `${dir}/${entry.name}`;
		return entry.isDirectory() ? filesUnder(relative) : [relative];
	});
}

/** A name of the layout tree as a path pattern: `<resource>` stands for one folder or name, `*` for any part of one. */
function pathPattern(name: string): RegExp {
	const escaped = name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '[^/]+').replace(/\*/g, '[^/]*');
	return new RegExp(`^${escaped}$`);
}

/**
 * A tree drawn in a code block under "The shape of the node": each line's
 * first word is a file or folder (a folder ends in `/`), indented two spaces
 * per level below the one before; the rest of the line says what it is.
 */
function layoutTree(block: string): { files: string[]; folders: string[] } {
	const files: string[] = [];
	const folders: string[] = [];
	const parents: string[] = [];
	for (const line of block.split('\n').filter((l) => l.trim())) {
		const depth = (line.length - line.trimStart().length) / 2;
		const name = line.trim().split(/\s+/)[0];
		parents.length = depth;
		const full = [...parents, name].join('');
		if (name.endsWith('/')) {
			parents.push(name);
			folders.push(full);
		} else files.push(full);
	}
	return { files, folders };
}

/** The trees under "The shape of the node": the Workplace node's, then the shared code's. */
function layoutTrees(): Array<{ files: string[]; folders: string[] }> {
	const blocks = [...section('The shape of the node').matchAll(/```\n([\s\S]*?)```/g)].map(([, block]) => block);
	return blocks.map(layoutTree);
}

/** The transport modules, from the first column of the table under "The shape of the node". */
function transportModules(): string[] {
	const table = /\| Module \| Concern \|\n\|[-|]+\|\n((?:\|.*\|\n?)+)/.exec(section('The shape of the node'));
	expect(table).not.toBeNull();
	return table![1]
		.split('\n')
		.filter(Boolean)
		.flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map(([, name]) => name));
}

describe("CONTRIBUTING.md's layout", () => {
	const [nodeTree, sharedTree] = layoutTrees();
	const node = nodeTree.folders[0].replace(/\/$/, '');
	const shared = sharedTree.folders[0].replace(/\/$/, '');
	const transport = `${shared}/transport/`;
	const modules = transportModules().map((m) => `${transport}${m}`);
	const named = [...nodeTree.files, ...sharedTree.files, ...modules];
	const real = [...filesUnder(node), ...filesUnder(shared)];

	it('draws the tree of the Workplace node and of the shared code', () => {
		expect(node).toBe('nodes/Workplace');
		expect(shared).toBe('shared');
		expect(sharedTree.folders).toContain(transport);
		expect(modules.length).toBeGreaterThan(0);
	});

	it('names only files that exist', () => {
		const missing = named.filter((name) => !real.some((file) => pathPattern(name).test(file)));
		expect(missing).toEqual([]);
	});

	it('names every file of the node and of the shared code, in a tree or in the transport table', () => {
		const patterns = named.map(pathPattern);
		const unnamed = real.filter((file) => !patterns.some((p) => p.test(file)));
		expect(unnamed).toEqual([]);
	});

	it('names every file of the other nodes in their row of the Layout table', () => {
		const rows = section('Layout').split('\n').filter((row) => row.startsWith('| `nodes/'));
		const others = readdirSync(path.join(ROOT, 'nodes')).filter((folder) => `nodes/${folder}` !== node);
		expect(others.length).toBeGreaterThan(0);
		const unnamed = others.flatMap((folder) => {
			const row = rows.find((r) => r.startsWith(`| \`nodes/${folder}/\` |`));
			if (!row) return [`nodes/${folder}/ (no row)`];
			// Icons and codex files are named once, where the build copies them ("icons … and codex JSON").
			return filesUnder(`nodes/${folder}`).filter(
				(file) => !/\.(svg|node\.json)$/.test(file) && !row.includes(`\`${path.basename(file)}\``),
			);
		});
		expect(unnamed).toEqual([]);
		expect(section('Layout')).toMatch(/copies icons \(light and dark\s+SVG\) and codex JSON/);
	});
});

describe("CONTRIBUTING.md's Adding an operation, on resources", () => {
	const adding = section('Adding an operation');

	it('names the suites that hold every resource\'s engine tests (step 6)', () => {
		const step = /\n6\. ([\s\S]*?)\n7\. /.exec(adding);
		expect(step).not.toBeNull();
		const suites = [...step![1].matchAll(/`(\w+\.test\.ts)`/g)].map(([, file]) => `test/nodes/${file}`);
		expect(suites.length).toBeGreaterThan(0);
		const texts = suites.map((suite) => readFileSync(path.join(ROOT, suite), 'utf8'));
		const untested = RESOURCES.filter((r) => !texts.some((text) => text.includes(`resource: '${r.value}'`))).map((r) => r.value);
		expect(untested).toEqual([]);
	});

	it('is right that a resource which talks to the service is shown its credential (step 5)', () => {
		expect(adding).toMatch(/`displayOptions` of its credential in\s+`Workplace.node.ts`/);
		const credentials = new Workplace().description.credentials ?? [];
		const shownTo = (resource: string) => credentials.filter((c) => c.displayOptions?.show?.resource?.includes(resource)).map((c) => c.name);
		for (const resource of RESOURCES) {
			const sends = resource.operations.some((o) => o.request);
			expect({ resource: resource.value, credentials: shownTo(resource.value).length }).toEqual({ resource: resource.value, credentials: sends ? 1 : 0 });
		}
	});
});

describe('npm scripts of the benchmarks', () => {
	const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
	// A bench that reads the parts to run (or, bench:chart, the bench to redraw) from its command line (process.argv), in a script that names none of its own.
	const choosingParts = Object.entries(scripts)
		.map(([name, command]) => ({ name, command, run: /build\/bench\/([\w-]+)\.js([^']*)'/.exec(command) }))
		.filter(({ run }) => run !== null && !/\w/.test(run[2].replace('"$@"', '')) && readFileSync(path.join(ROOT, 'bench', `${run[1]}.ts`), 'utf8').includes('process.argv'));

	it('are found: the three whose parts can be chosen, and the chart redrawn', () => {
		expect(choosingParts.map(({ name }) => name).sort()).toEqual(['bench', 'bench:adaptive', 'bench:adaptive-n8n', 'bench:chart']);
	});

	it.each(choosingParts)('$name hands on what follows `--`', ({ command, run }) => {
		// Inside `bash -c '…' _`, "$@" is what follows the script's own name (`_`): npm appends the arguments there.
		expect(run![2]).toBe(' "$@"');
		expect(command.endsWith(`${run![0]} _`)).toBe(true);
	});
});
