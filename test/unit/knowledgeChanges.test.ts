/**
 * The knowledge trigger's comparison of two listings (nodes/WorkplaceKnowledgeTrigger/changes.ts),
 * as a table: what each difference of a file or a base is reported as.
 */
import type { IDataObject } from 'n8n-workflow';

import { compare, readRecordedState, recordState, type ListedBase } from '../../nodes/WorkplaceKnowledgeTrigger/changes';

const file = (id: number, fields: Partial<{ updatedAt: string; size: number; originalName: string; status: string }> = {}): IDataObject => ({
	id,
	status: fields.status ?? 'active',
	updatedAt: fields.updatedAt ?? '2024-01-10T10:00:00.000Z',
	meta: { originalName: fields.originalName ?? `f${id}.csv`, size: fields.size ?? 10, mimetype: 'text/csv' },
});
const base = (id: number, files: IDataObject[]): ListedBase => ({ id, base: { id, name: `KB ${id}` }, files });
const events = (before: ListedBase[], after: ListedBase[], all = false) =>
	compare(recordState('s', before), after, all).map((c) => [c.event, c.file?.id ?? c.knowledgeBase.id]);

describe('compare', () => {
	const T2 = '2024-01-11T10:00:00.000Z';
	it.each([
		['nothing changed', [file(1)], [], ],
		['a new file', [file(1), file(2)], [['fileAdded', 2]]],
		['a file gone', [], [['fileRemoved', 1]]],
		['updatedAt moved', [file(1, { updatedAt: T2 })], [['fileReplaced', 1]]],
		['size changed', [file(1, { size: 11 })], [['fileReplaced', 1]]],
		['original name changed', [file(1, { originalName: 'g.csv' })], [['fileReplaced', 1]]],
		['status changed alone', [file(1, { status: 'deleting' })], [['fileStatusChanged', 1]]],
		['status changed, updatedAt with it', [file(1, { status: 'deleting', updatedAt: T2 })], [['fileStatusChanged', 1]]],
		['status and size changed', [file(1, { status: 'deleting', size: 12 })], [['fileReplaced', 1], ['fileStatusChanged', 1]]],
		['a field the trigger does not compare', [{ ...file(1), path: 'elsewhere' }], []],
	] as Array<[string, IDataObject[], Array<[string, number]>]>)('%s', (_name, now, expected) => {
		expect(events([base(1, [file(1)])], [base(1, now)])).toEqual(expected);
	});

	it('bases appear and disappear only when watching all; a removed base reports itself, not its files', () => {
		const before = [base(1, [file(1)]), base(2, [file(2)])];
		const after = [base(1, [file(1)]), base(3, [file(3)])];
		expect(events(before, after, true)).toEqual([
			['knowledgeBaseAdded', 3],
			['fileAdded', 3],
			['knowledgeBaseRemoved', 2],
		]);
	});

	it('before → after for each changed field', () => {
		const [change] = compare(recordState('s', [base(1, [file(1)])]), [base(1, [file(1, { size: 20, originalName: 'n.csv' })])], false);
		expect(change.changes).toEqual({ size: { before: 10, after: 20 }, originalName: { before: 'f1.csv', after: 'n.csv' } });
	});
});

describe('recorded state', () => {
	it('keeps only the compared fields, as [id, …] pairs', () => {
		expect(recordState('all', [base(1, [file(7)])])).toEqual({ scope: 'all', bases: [['1', { name: 'KB 1', files: [['7', ['2024-01-10T10:00:00.000Z', 10, 'f7.csv', 'active']]] }]] });
	});

	it('reads a state kept as objects keyed by ids (the form before) by its own entries', () => {
		const before = { scope: 'all', bases: { 1: { name: 'KB 1', files: { 7: ['2024-01-10T10:00:00.000Z', 10, 'f7.csv', 'active'] } } } };
		expect(readRecordedState(JSON.parse(JSON.stringify(before)), 'all')).toEqual(recordState('all', [base(1, [file(7)])]));
	});

	it('is read only for the scope it was recorded for (another knowledge base starts afresh)', () => {
		const state = recordState('knowledgeBase:1', [base(1, [])]);
		expect(readRecordedState(state, 'knowledgeBase:1')).toBe(state);
		expect(readRecordedState(state, 'knowledgeBase:2')).toBeUndefined();
		expect(readRecordedState(state, 'all')).toBeUndefined();
		expect(readRecordedState(undefined, 'all')).toBeUndefined();
		expect(readRecordedState({ scope: 'all' }, 'all')).toBeUndefined();
	});
});
