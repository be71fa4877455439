/**
 * The emulator is an authority of its own: it judges requests by its reading
 * of the service, not by the node's rules (test/unit/imports.test.ts holds it to
 * importing nothing of them). So a limit the node gets wrong is caught: in a
 * scratch copy of the tree, the node's rules are made too loose, and the engine
 * tests "what the node lets through, the service accepts" (which pass on the
 * real tree) then fail with the emulator's refusal.
 */
import { suiteScratchCopy } from '../scratchCopy';

/** Where the node keeps the rules this test loosens (follow a move here). */
const NODE_RULES = {
	messages: 'nodes/Workplace/actions/message/rules.ts',
	uploads: 'nodes/Workplace/actions/knowledgeFile/uploadRules.ts',
};

/** The engine tests that send what the node allows, and the suites holding them. */
const CHECK = 'what the node lets through, the service accepts';
const SUITES = ['test/nodes/message.test.ts', 'test/nodes/knowledgeFile.test.ts'];

/** Each loosening: the rule's text, what it becomes, the test it breaks and the emulator's message refusing it. */
const LOOSENED = [
	{
		file: NODE_RULES.messages,
		rule: /(export const LABEL_MAX\b[^=]*=\s*)20\b/,
		loose: '$121',
		test: 'a button label as long as the node allows',
		refusal: 'messages[0].template.actions[0].label must be at most 20 characters',
	},
	{
		file: NODE_RULES.uploads,
		rule: /(export const ALLOWED_MIME_TYPES\b[^=]*=\s*\[)/,
		loose: "$1\n\t'image/png',",
		test: 'every upload type the node allows',
		refusal: 'Unsupported file type',
	},
];

const scratch = suiteScratchCopy('emulator-authority-');

describe('a limit the node gets wrong is refused by the emulator', () => {
	it('fails the engine tests of what the node lets through once the node allows a longer label and an unsupported upload type', () => {
		for (const { file, rule, loose } of LOOSENED) {
			const source = scratch.read(file);
			expect(source).toMatch(rule);
			scratch.write(file, source.replace(rule, loose));
		}

		const run = scratch.jest(SUITES, CHECK);
		const outcome = (name: string) => run.tests.find((test) => test.fullName.endsWith(name));
		expect(run.tests.map((test) => test.status)).toEqual(['failed', 'failed']);
		for (const { test, refusal } of LOOSENED) {
			expect(outcome(test)).toEqual(expect.objectContaining({ status: 'failed', failureMessages: [expect.stringContaining(refusal)] }));
		}
	}, 600_000);
});
