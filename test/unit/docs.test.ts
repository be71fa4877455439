/**
 * The documents stay usable: the README is for users and short, keeps the
 * project's two set-up commands (`.ci/run` calls the README's test command),
 * and every relative link of README, CONTRIBUTING, CHANGELOG and docs/ points
 * at a file that exists and, with a #fragment, at a heading that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import * as path from 'path';
import { ROOT } from '../../testbed/root';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const DOCUMENTS = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	...readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	const withoutFences = markdown.replace(/^```[\s\S]*?^```/gm, '');
	for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const base = heading
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		result.add(n === 0 ? base : `${base}-${n}`);
	}
	return result;
}

/** Relative link targets of a document: [text](target) and ![alt](target), not http(s) or mailto. */
function relativeLinks(markdown: string): string[] {
	return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
		.map(([, target]) => target)
		.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('README.md', () => {
	const readme = read('README.md');

	it('is at most 200 lines', () => {
		expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(200);
	});

	it('keeps the two set-up commands, npm run dev and npm test, in a shell block', () => {
		const blocks = [...readme.matchAll(/^```(?:bash|sh)\n([\s\S]*?)^```/gm)].map(([, code]) => code);
		const commands = blocks.flatMap((code) => code.split('\n').map((line) => line.replace(/#.*$/, '').trim()));
		expect(commands).toContain('npm run dev');
		expect(commands).toContain('npm test');
	});

	it('is what .ci/run runs as its test command', () => {
		expect(read('.ci/run')).toMatch(/^npm test$/m);
	});
});

describe('anchors', () => {
	it('are made as GitHub makes them', () => {
		expect([...anchors("# A\n## Node 24 on a Node 20 machine\n## The Workplace Trigger's webhook\n## Options: Batching, Retry, Timeout\n## `npm run dev`\n## A\n")]).toEqual([
			'a',
			'node-24-on-a-node-20-machine',
			'the-workplace-triggers-webhook',
			'options-batching-retry-timeout',
			'npm-run-dev',
			'a-1',
		]);
	});
});

describe.each(DOCUMENTS)('%s', (document) => {
	const links = relativeLinks(read(document));

	it('has relative links that resolve to files and headings', () => {
		const broken = links.filter((link) => {
			const [file, fragment] = link.split('#') as [string, string | undefined];
			const target = file === '' ? document : path.posix.normalize(path.posix.join(path.posix.dirname(document), decodeURI(file)));
			if (!existsSync(path.join(ROOT, target))) return true;
			if (fragment === undefined) return false;
			return !target.endsWith('.md') || !anchors(read(target)).has(decodeURIComponent(fragment));
		});
		expect(broken).toEqual([]);
	});
});

it('the link check sees links (it can fail)', () => {
	expect(relativeLinks('[a](docs/x.md#y) ![b](p.png) [c](https://e.example) `[d](e.md)`')).toEqual(['docs/x.md#y', 'p.png']);
});
