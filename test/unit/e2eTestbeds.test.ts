/**
 * How an end-to-end suite gets its test bed, held true by reading the suites
 * (e2e/tests only; the jest suites' beds are another test's): every suite
 * takes its emulator, n8n, PostgreSQL and Redis from e2eTestbed()
 * (e2e/lib/testbed.ts) and starts none of them itself, except the suites
 * docs/e2e.md lists as starting their own, with the reason; CONTRIBUTING.md
 * and docs/e2e.md say so, and docs/e2e.md has a row for every suite.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { ROOT } from '../../testbed/root';

// The lanes of `npm run e2e` (plain CommonJS: e2e/jest.config.js reads it too).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SCHEDULE_SUITES, LANES, laneSelection } = require('../../e2e/lanes') as {
	SCHEDULE_SUITES: string[];
	LANES: string[];
	laneSelection: (lane: string | undefined) => { testMatch: string[]; testPathIgnorePatterns: string[] };
};

const SUITES_DIR = path.join(ROOT, 'e2e', 'tests');
const LIB_DIR = path.join(ROOT, 'e2e', 'lib');
const suites = readdirSync(SUITES_DIR).filter((file) => file.endsWith('.e2e.test.ts')).sort();
const source = (file: string) => readFileSync(path.join(SUITES_DIR, file), 'utf8');
const suiteName = (file: string) => file.replace(/\.e2e\.test\.ts$/, '');
const e2eDoc = readFileSync(path.join(ROOT, 'docs', 'e2e.md'), 'utf8');
const contributing = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');

/** What a suite must leave to the bed: each a way of starting a part of it by hand. */
const OWN_SET_UP: Array<[string, RegExp]> = [
	['starts an emulator', /\bstartEmulator\(/],
	['makes an n8n', /\bnew N8n\(/],
	['installs the package into n8n', /\binstallCommunityPackage\(/],
	['starts PostgreSQL', /\bnew Postgres\(/],
	['starts Redis', /\bnew Redis\(/],
	['signs in to n8n', /\bnew N8nRest\(|\.setupOwner\(/],
];

/** The part of docs/e2e.md under a `## ` heading, up to the next one. */
function docSection(heading: string): string {
	const start = e2eDoc.indexOf(`\n## ${heading}\n`);
	if (start < 0) throw new Error(`docs/e2e.md has no "## ${heading}"`);
	const end = e2eDoc.indexOf('\n## ', start + 1);
	return e2eDoc.slice(start, end < 0 ? undefined : end);
}

/** The first column's `names` of the markdown table whose header row is `header`, in a part of docs/e2e.md. */
function firstColumn(text: string, header: string): string[] {
	const start = text.indexOf(`\n${header}\n`);
	if (start < 0) throw new Error(`docs/e2e.md has no table headed ${header}`);
	const rows = text.slice(start + header.length + 2).split('\n\n')[0].split('\n').slice(1).filter(Boolean);
	return rows.map((row) => /^\| `(\w+)` \|/.exec(row)?.[1] ?? row).sort();
}

/** The suites docs/e2e.md says start their own processes, under "A suite's test bed". */
const documentedExceptions = firstColumn(docSection("A suite's test bed"), '| Suite | Why it starts its own |');

describe('the end-to-end suites', () => {
	it('are there', () => {
		expect(suites.length).toBeGreaterThanOrEqual(17);
	});

	it.each(suites)('%s gets its bed from e2eTestbed(), or docs/e2e.md says why not', (file) => {
		const text = source(file);
		const usesBed = /\be2eTestbed\(/.test(text);
		expect({ suite: suiteName(file), usesBed }).toEqual({ suite: suiteName(file), usesBed: !documentedExceptions.includes(suiteName(file)) });
		if (usesBed) expect(OWN_SET_UP.filter(([, pattern]) => pattern.test(text)).map(([what]) => what)).toEqual([]);
	});

	it('the suites docs/e2e.md excepts exist', () => {
		expect(documentedExceptions.filter((name) => !suites.includes(`${name}.e2e.test.ts`))).toEqual([]);
	});

	it('the schedule lane (e2e/lanes.js) names suites that exist, and docs/e2e.md names the same', () => {
		expect(SCHEDULE_SUITES.filter((name) => !suites.includes(`${name}.e2e.test.ts`))).toEqual([]);
		expect(docSection('Two lanes').match(/`(\w+)`/g)?.map((name) => name.slice(1, -1)).filter((name) => suites.includes(`${name}.e2e.test.ts`)).sort()).toEqual([...SCHEDULE_SUITES].sort());
	});

	it('the lanes select each suite once, as jest lists them: the schedule lane its own, the others the rest', () => {
		const listed = (lane: string) =>
			execFileSync(process.execPath, [require.resolve('jest/bin/jest'), '-c', path.join(ROOT, 'e2e', 'jest.config.js'), '--listTests'], {
				cwd: ROOT,
				env: { ...process.env, E2E_LANE: lane },
				encoding: 'utf8',
			})
				.trim()
				.split('\n')
				.map((file) => path.basename(file))
				.sort();
		const [schedule, others, all] = ['schedule', 'others', ''].map(listed);
		expect(LANES).toEqual(['schedule', 'others']);
		expect(schedule).toEqual(suites.filter((file) => SCHEDULE_SUITES.includes(suiteName(file))));
		expect(others).toEqual(suites.filter((file) => !SCHEDULE_SUITES.includes(suiteName(file))));
		expect(all).toEqual(suites);
		expect(() => laneSelection('Schedule')).toThrow('E2E_LANE is "Schedule": use schedule or others');
	}, 60_000);

	it('only the bed starts PostgreSQL and Redis', () => {
		const importers = readdirSync(LIB_DIR)
			.concat(suites.map((file) => `../tests/${file}`))
			.filter((file) => file.endsWith('.ts'))
			.filter((file) => /from '\.\.?\/(?:lib\/)?(?:postgres|redis)'/.test(readFileSync(path.join(LIB_DIR, file), 'utf8')));
		expect(importers).toEqual(['testbed.ts']);
	});

	it('docs/e2e.md has a row for every suite', () => {
		expect(firstColumn(docSection('Suites'), '| Suite | Proves |')).toEqual(suites.map(suiteName).sort());
	});

	it('CONTRIBUTING.md and docs/e2e.md say how a suite gets its bed', () => {
		for (const text of [contributing, docSection("A suite's test bed")]) {
			expect(text).toContain('e2eTestbed(');
			expect(text).toContain('e2e/lib/testbed.ts');
		}
	});
});
