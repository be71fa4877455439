/**
 * One shape for a knowledge file (issue 33): the file item of every node (the
 * Workplace Knowledge Trigger, Get, Get Many, Download and Replace; simplified
 * and raw, node versions 1 to 3) holds the same fields with the same values, so
 * an expression written for one node's item works on the next. Each node runs in
 * n8n-core's real engine against the emulator, all on one file in one state.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { FILE_ITEM_FIELDS } from '../../shared/knowledgeFile/file';
import { suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';
import type { WorkflowJson } from '../../testbed/engine';

const bed = suiteTestbed();

const HANDBOOK = 1;
const FILE = 2;
const CONTENT = Buffer.from('type,days\nannual,25\nsick,30\n');

const file: INodeParameters = { resource: 'knowledgeFile', knowledgeId: byId(HANDBOOK), fileId: byId(FILE) };
const upload: INodeExecutionData = { json: {}, binary: { data: { data: CONTENT.toString('base64'), mimeType: 'text/csv', fileName: 'leave-policy-2026.csv' } } };
const watch = (simplify: boolean): INodeParameters => ({ watch: 'knowledgeBase', knowledgeId: byId(HANDBOOK), events: ['fileReplaced'], simplify });

/** The file item's fields of an item, as they are there. */
const fileFields = (json: IDataObject) => Object.fromEntries(FILE_ITEM_FIELDS.filter((field) => field in json).map((field) => [field, json[field]]));

async function only(parameters: INodeParameters, typeVersion = 3, items?: INodeExecutionData[]): Promise<IDataObject> {
	const run = await bed.runNode(parameters, { typeVersion, ...(items ? { items } : {}) });
	expect(run.error).toBeUndefined();
	return run.json.find((json) => json.id === FILE) ?? {};
}

describe('one file item in every node', () => {
	it('the trigger, Get, Get Many, Download and Replace, simplified and raw, give the file the same fields with the same values', async () => {
		const simplifiedTrigger = bed.knowledgePoller(watch(true));
		const rawTrigger = bed.knowledgePoller(watch(false));
		expect(await simplifiedTrigger.poll()).toBeNull();
		expect(await rawTrigger.poll()).toBeNull();

		// The change both triggers see: Replace (raw) uploads a new version under a new name.
		const replacedRaw = await only({ ...file, operation: 'replace', binaryPropertyName: 'data', simplify: false }, 3, [upload]);
		// The same content again with Skip If Unchanged: nothing uploaded, the stored file as it is (simplified).
		const replacedSimplified = await only({ ...file, operation: 'replace', binaryPropertyName: 'data', options: { skipIfUnchanged: true } }, 3, [upload]);
		const [triggerItem] = (await simplifiedTrigger.poll())![0];
		const [rawTriggerItem] = (await rawTrigger.poll())![0];

		const stored = bed.emulator.knowledge.files.get(FILE)!;
		const simplified = await only({ ...file, operation: 'get' });
		// The reference: every field of the file item, in its order, nothing else.
		expect(simplified).toEqual({
			id: FILE,
			originalName: 'leave-policy-2026.csv',
			size: CONTENT.length,
			mimeType: 'text/csv',
			status: 'active',
			usedByLanguageModel: true,
			knowledgeId: HANDBOOK,
			knowledgeName: 'Employee Handbook',
			createdAt: stored.createdAt,
			updatedAt: stored.updatedAt,
		});
		expect(Object.keys(simplified)).toEqual([...FILE_ITEM_FIELDS]);

		const listed = { resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(HANDBOOK), returnAll: true };
		const items: Record<string, IDataObject> = {
			'Workplace Knowledge Trigger (File Replaced)': triggerItem.json,
			'Workplace Knowledge Trigger, Simplify off': rawTriggerItem.json,
			'Get, Simplify off': await only({ ...file, operation: 'get', simplify: false }),
			'Get, version 1': await only({ ...file, operation: 'get' }, 1),
			'Get Many': await only(listed),
			'Get Many, Simplify off': await only({ ...listed, simplify: false }),
			'Get Many, version 2': await only(listed, 2),
			'Replace (skipped, unchanged)': replacedSimplified,
			'Replace, Simplify off': replacedRaw,
		};
		for (const [node, json] of Object.entries(items)) {
			expect({ node, fields: fileFields(json) }).toEqual({ node, fields: simplified });
		}
		// Simplified items hold the file item and only what their node adds to it.
		expect(triggerItem.json).toEqual({ event: 'fileReplaced', ...simplified, changes: expect.any(Object) });
		expect(replacedSimplified).toEqual({ ...simplified, skipped: 'unchanged' });
		// Raw items keep the service's own fields too: its storage name, meta, knowledge base.
		for (const json of [rawTriggerItem.json, items['Get, Simplify off'], items['Get, version 1'], replacedRaw]) {
			expect(json).toMatchObject({ name: stored.name, meta: { originalName: 'leave-policy-2026.csv' }, knowledge: { id: HANDBOOK } });
		}

		// Download knows the fields a download carries, under the same names, and the content's checksum.
		const downloaded = await only({ ...file, operation: 'download', binaryPropertyName: 'data' });
		expect(downloaded).toEqual({ ...fileFields(downloaded), sha256: stored.sha256 });
		expect(Object.keys(fileFields(downloaded))).toEqual(['id', 'originalName', 'size', 'mimeType', 'knowledgeId']);
		for (const field of Object.keys(fileFields(downloaded))) expect({ field, value: downloaded[field] }).toEqual({ field, value: simplified[field] });

		// An expression written for one node's item, resolved by the engine (an Edit Fields node) on every node's item.
		const labels: Record<string, unknown> = {};
		for (const [node, json] of [['Get', simplified] as const, ...Object.entries(items), ['Download', downloaded] as const]) labels[node] = await label(json);
		const expected = `leave-policy-2026.csv (${CONTENT.length} bytes, text/csv), file ${FILE} of knowledge base ${HANDBOOK}`;
		expect(labels).toEqual(Object.fromEntries(Object.keys(labels).map((node) => [node, expected])));
	});
});

/** An expression written once, for any node's file item. */
const LABEL = '={{ $json.originalName }} ({{ $json.size }} bytes, {{ $json.mimeType }}), file {{ $json.id }} of knowledge base {{ $json.knowledgeId }}';

/** Start → Edit Fields, setting `label` to LABEL on each item the start passes on. */
const LABEL_WORKFLOW: WorkflowJson = {
	nodes: [
		{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'label', name: 'Label', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [220, 0], parameters: { mode: 'manual', options: {}, assignments: { assignments: [{ id: 'label', name: 'label', type: 'string', value: LABEL }] } } },
	],
	connections: { Start: { main: [[{ node: 'Label', type: 'main', index: 0 }]] } },
};

/** What the engine makes of LABEL on an item. */
async function label(json: IDataObject): Promise<unknown> {
	const result = await bed.runFrom(LABEL_WORKFLOW, 'Start', [{ json }]);
	return result.nodes.Label?.[0]?.outputs[0]?.[0]?.json.label;
}
