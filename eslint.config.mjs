// n8n's community-node rules, as `n8n-node lint` applies them: TypeScript
// sources of what ships, plus package.json parsed as an expression.
import tsParser from '@typescript-eslint/parser';
import { configs } from '@n8n/eslint-plugin-community-nodes';

// The recommended set minus the rules that exist only for n8n Cloud
// verification (restricted globals and imports).
const recommended = configs.recommendedWithoutN8nCloudSupport;

export default [
	{ ignores: ['dist/**', 'build/**', 'node_modules/**', '.tools/**', 'emulator/**', 'test/**', 'bench/**', 'e2e/**', 'scripts/**'] },
	{
		...recommended,
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: { parser: tsParser },
	},
	{
		...recommended,
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		rules: {
			...recommended.rules,
			// The package's design requires form-data at run time (streamed multipart
			// uploads); n8n installs a community package's dependencies with it.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
		},
	},
];
