/**
 * One test bed for the jest suites: CONTRIBUTING.md's Tests table says, per
 * folder of test/, which bed a suite there takes from testbed/testbed.ts
 * (`suiteTestbed()` for the engine suites, `emulatorTestbed()` for the
 * emulator's, none for the pure ones). Every suite under test/ is read here
 * and must take exactly that bed, once, as `const bed = …` at its top level,
 * and start no emulator, engine or bed of its own. (The e2e suites have their
 * own rules, in e2e/.)
 */
import { readdirSync, readFileSync } from 'fs';
import * as path from 'path';
import { ROOT } from '../../testbed/root';

const BEDS = ['suiteTestbed', 'emulatorTestbed'] as const;
type Bed = (typeof BEDS)[number] | 'none';

/** The Tests table of CONTRIBUTING.md: folder → the bed its suites take. */
function bedsByFolder(guide: string): Map<string, Bed> {
	const start = guide.indexOf('\n## Tests\n');
	const section = guide.slice(start, guide.indexOf('\n## ', start + 1));
	const rows = [...section.matchAll(/^\| `(test\/[\w/]+\/)` \|[^|\n]*\| ([^|\n]+) \|$/gm)];
	return new Map(
		rows.map(([, folder, bed]) => {
			const named = /`(\w+)\(\)`/.exec(bed)?.[1];
			return [folder, (named ?? bed.trim()) as Bed];
		}),
	);
}

/** The code of a source without its comments and the contents of its strings, so only real calls are counted. */
function codeOf(text: string): string {
	return text.replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
}

/** What a suite imports that only its bed may: the emulator's server (type-only imports are fine). */
const OWN_IMPORTS: Array<[RegExp, string]> = [[/^import\s+(?!type\b)[^;]*from\s+'[./]*emulator\/server'/m, 'imports the emulator server (startEmulator)']];

/** The engine's set-up and runs (testbed/engine.ts, testbed/webhookServer.ts), which a suite reaches through its bed (bed.run, bed.setBinaryMode, …). */
const ENGINE_SET_UP = ['initHarnessEnv', 'loadCommunityPackage', 'readCommunityPackage', 'buildAdditionalData', 'runWorkflow', 'resumeWorkflow', 'runListSearch', 'createPoller', 'testCredential', 'startWebhookServer'];

/** What a suite calls that only its bed may: start an emulator, set up or run the engine, make a bed by hand. */
const OWN_CALLS: Array<[RegExp, string]> = [
	[/\bstartEmulator\s*\(/, 'starts an emulator'],
	[new RegExp(`(?<![.\\w])(${ENGINE_SET_UP.join('|')})\\s*\\(|\\bnew\\s+(InMemoryCredentialsHelper|HarnessNodeTypes)\\b`), 'sets up or runs the engine itself'],
	[/\bnew\s+(Testbed|EmulatorBed)\s*\(/, 'makes a bed by hand'],
];

/** How one suite gets its bed, and what it does besides that it should not. */
export function bedOf(text: string): { bed: Bed | 'more than one'; problems: string[] } {
	const code = codeOf(text);
	const calls = BEDS.flatMap((name) => [...code.matchAll(new RegExp(`\\b${name}\\s*\\(`, 'g'))].map(() => name));
	const declared = [...code.matchAll(/^const bed = (suiteTestbed|emulatorTestbed)\(/gm)];
	const problems = [
		...OWN_IMPORTS.filter(([pattern]) => pattern.test(text)).map(([, problem]) => problem),
		...OWN_CALLS.filter(([pattern]) => pattern.test(code)).map(([, problem]) => problem),
	];
	if (calls.length > declared.length) problems.push('calls a bed function other than as `const bed = …(` at its top level');
	if (calls.length === 0) return { bed: 'none', problems };
	return { bed: calls.length === 1 ? calls[0] : 'more than one', problems };
}

function suites(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const relative = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return suites(relative);
		return entry.name.endsWith('.test.ts') ? [relative] : [];
	});
}

const table = bedsByFolder(readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8'));
const all = suites('test');

describe('one test bed for the jest suites', () => {
	it("reads CONTRIBUTING's Tests table: each folder of test/ and the bed its suites take", () => {
		expect(Object.fromEntries(table)).toEqual({
			'test/emulator/': 'emulatorTestbed',
			'test/nodes/': 'suiteTestbed',
			'test/reliability/': 'suiteTestbed',
			'test/unit/': 'none',
		});
	});

	it('tells the ways a suite gets its bed apart', () => {
		expect(bedOf("import { suiteTestbed } from '../../testbed/testbed';\n\nconst bed = suiteTestbed({ binaryMode: 'filesystem' });\n")).toEqual({ bed: 'suiteTestbed', problems: [] });
		expect(bedOf("import type { WorkflowJson } from '../../testbed/engine';\nconst bed = emulatorTestbed();\n")).toEqual({ bed: 'emulatorTestbed', problems: [] });
		expect(bedOf("import { startEmulator } from '../../emulator/server';\nlet em;\nbeforeAll(async () => { em = await startEmulator(); });\n")).toEqual({
			bed: 'none',
			problems: ['imports the emulator server (startEmulator)', 'starts an emulator'],
		});
		expect(bedOf("const bed = suiteTestbed();\ndescribe('x', () => { const other = emulatorTestbed(); });\nit('y', async () => await initHarnessEnv({}));\n")).toEqual({
			bed: 'more than one',
			problems: ['sets up or runs the engine itself', 'calls a bed function other than as `const bed = …(` at its top level'],
		});
		expect(bedOf("import { pairedItems } from '../../testbed/engine';\nconst bed = suiteTestbed();\nit('y', async () => await bed.testCredential('cred-kb'));\n")).toEqual({ bed: 'suiteTestbed', problems: [] });
		expect(bedOf('const bed = new Testbed();\n').problems).toEqual(['makes a bed by hand']);
	});

	it('finds every suite under test/ in a folder the table names', () => {
		expect(all.length).toBeGreaterThan(50);
		expect(all.filter((suite) => ![...table.keys()].some((folder) => suite.startsWith(folder)))).toEqual([]);
	});

	it.each(all)('%s takes the bed of its folder and sets up nothing else', (suite) => {
		const folder = [...table.keys()].find((f) => suite.startsWith(f));
		expect(bedOf(readFileSync(path.join(ROOT, suite), 'utf8'))).toEqual({ bed: folder && table.get(folder), problems: [] });
	});
});
