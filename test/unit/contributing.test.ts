/**
 * CONTRIBUTING.md walks through adding an operation with snippets of real
 * files. Each snippet marked `<!-- file: path -->` must still appear in that
 * file as it is, so the walk stays true when the code changes.
 */
import { readFileSync } from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
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
