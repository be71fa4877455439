// n8n's community-node rules, as `n8n-node lint` applies them: TypeScript
// sources of what ships, plus package.json parsed as an expression. The full
// recommended set, the one n8n Cloud verification uses (restricted globals and
// imports included), with no rule turned off.
import tsParser from '@typescript-eslint/parser';
import { configs } from '@n8n/eslint-plugin-community-nodes';

const recommended = configs.recommended;

export default [
	{ ignores: ['dist/**', 'build/**', 'node_modules/**', '.tools/**', 'emulator/**', 'test/**', 'bench/**', 'e2e/**', 'scripts/**'] },
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' } },
	{
		...recommended,
		files: ['nodes/**/*.ts', 'shared/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: { parser: tsParser },
	},
	{
		...recommended,
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
];
