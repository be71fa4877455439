/**
 * Bad-input matrix across every operation, in n8n-core's real engine. Values
 * come from the items through expressions (as an upstream node would hand them
 * on; literals would be stopped by n8n's own parameter checks). Each row runs
 * three items with Continue On Fail: each item must come back as an error item
 * naming the field and its own item number, and no request may reach the emulator.
 */
import { Readable } from 'node:stream';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData, IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';

// Files on disk, so a 100 MB fixture is not held in the execution data.
const bed = suiteTestbed({ binaryMode: 'filesystem' });

const v = '={{ $json.v }}';
const AREA = { areaX: 0, areaY: 10, areaWidth: 520, areaHeight: 1040 };

const kbCreate = (p: INodeParameters = {}): INodeParameters => ({
	resource: 'knowledgeBase',
	operation: 'create',
	name: 'Handbook',
	source: 'internal',
	supportedLanguages: ['en'],
	...p,
});
const kbGet = (p: INodeParameters = {}): INodeParameters => ({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(v), ...p });
const kbDelete = (): INodeParameters => ({ resource: 'knowledgeBase', operation: 'delete', knowledgeId: byId(v) });
const kbGetAll = (p: INodeParameters = {}): INodeParameters => ({ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, ...p });
const file = (operation: string, p: INodeParameters = {}): INodeParameters => ({
	resource: 'knowledgeFile',
	operation,
	knowledgeId: byId('1'),
	fileId: byId('1'),
	...p,
});
const task = (p: INodeParameters = {}, additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'task',
	operation: 'create',
	taskTitle: 'Call back',
	additionalFields,
	...p,
});
const topic = (additionalFields: INodeParameters = {}, p: INodeParameters = {}): INodeParameters => ({
	resource: 'topic',
	operation: 'create',
	taskTitle: 'Q3',
	additionalFields,
	...p,
});
const group = (p: INodeParameters = {}): INodeParameters => ({ resource: 'group', operation: 'create', name: 'Incident room', members: 'u1', ...p });
const groupTopic = (p: INodeParameters = {}): INodeParameters => ({ resource: 'groupTopic', operation: 'create', groupId: 'g1', name: 'Shift', ...p });
const user = (operation: string, p: INodeParameters = {}): INodeParameters => ({ resource: 'user', operation, ...p });
const action = (p: INodeParameters): INodeParameters => ({ resource: 'messageAction', operation: 'build', ...p });

interface Row {
	label: string;
	parameters: INodeParameters;
	/** $json.v of every item (undefined: the items carry no v). */
	value?: unknown;
	/** Field named in the message, as the editor shows it. */
	field: string;
	/** Binary data of every item, when the operation reads a file. */
	binary?: () => Promise<IBinaryData>;
}

async function storedBinary(content: Buffer | Readable, fileName: string, mimeType: string): Promise<IBinaryData> {
	return await Container.get(BinaryDataService).store(
		{ type: 'execution', workflowId: 'fixtures', executionId: 'fixtures' },
		content,
		{ data: '', mimeType, fileName },
	);
}
function overHundredMegabytes(): Readable {
	const chunk = Buffer.alloc(1024 * 1024);
	return Readable.from(
		(function* () {
			for (let n = 0; n < 100; n++) yield chunk;
			yield Buffer.alloc(1);
		})(),
	);
}

/** Text ids refused before any request, whatever field they are in. */
const PATH_UNSAFE: Array<[string, string]> = [
	['a slash', 'g1/admin'],
	['a parent step', '../admin'],
	['a backslash', 'g1\\..\\admin'],
	['a question mark', 'g1?x=1'],
	['a hash', 'g1#top'],
	['a pre-encoded slash', '..%2Fadmin'],
	['a percent-encoded dot pair', '%2e%2e'],
	['a space inside', 'g 1'],
	['a tab inside', 'g\t1'],
	['a NUL', 'g\u00001'],
	['only dots', '...'],
];

const ROWS: Row[] = [
	// Knowledge Base
	{ label: 'KB create: missing name', parameters: kbCreate({ name: v }), value: '', field: 'Name' },
	{ label: 'KB create: blank name', parameters: kbCreate({ name: v }), value: '   ', field: 'Name' },
	{ label: 'KB create: name over 255 characters', parameters: kbCreate({ name: v }), value: 'n'.repeat(256), field: 'Name' },
	{ label: 'KB create: name of the wrong type', parameters: kbCreate({ name: v }), value: 42, field: 'Name' },
	{ label: 'KB create: unknown source', parameters: kbCreate({ source: v, target: 'https://search.example' }), value: 'partner', field: 'Source' },
	{ label: 'KB create: external without target', parameters: kbCreate({ source: 'external', target: v }), value: '', field: 'Target' },
	{ label: 'KB create: no language', parameters: kbCreate({ supportedLanguages: v }), value: [], field: 'Supported Languages' },
	{ label: 'KB create: unsupported language', parameters: kbCreate({ supportedLanguages: v }), value: ['en', 'fr'], field: 'Supported Languages' },
	{ label: 'KB create: fulfillment not a boolean', parameters: kbCreate({ createFulfillment: v }), value: 'maybe', field: 'Create Fulfillment' },
	{ label: 'KB get: non-numeric id', parameters: kbGet(), value: 'abc', field: 'Knowledge Base' },
	{ label: 'KB get: id with /', parameters: kbGet(), value: '1/files', field: 'Knowledge Base' },
	{ label: 'KB get: id ..', parameters: kbGet(), value: '..', field: 'Knowledge Base' },
	{ label: 'KB get: id with ?', parameters: kbGet(), value: '1?admin=true', field: 'Knowledge Base' },
	{ label: 'KB get: id with #', parameters: kbGet(), value: '1#x', field: 'Knowledge Base' },
	{ label: 'KB get: negative id', parameters: kbGet(), value: -3, field: 'Knowledge Base' },
	{ label: 'KB get: fractional id', parameters: kbGet(), value: 1.5, field: 'Knowledge Base' },
	{ label: 'KB get: missing id', parameters: kbGet(), value: '', field: 'Knowledge Base' },
	{ label: 'KB delete: id with ../', parameters: kbDelete(), value: '../1', field: 'Knowledge Base' },
	// Issue 23: ids beyond 2^53 (item 6), tables keyed by user text (item 9), link schemes (item 10)
	{ label: 'KB get: id 2^53 + 1 as digits', parameters: kbGet(), value: '9007199254740993', field: 'Knowledge Base' },
	{ label: 'KB delete: id 2^53 as digits', parameters: kbDelete(), value: '9007199254740992', field: 'Knowledge Base' },
	{ label: 'KB delete: id beyond 2^53 as a number', parameters: kbDelete(), value: 9007199254740993, field: 'Knowledge Base' },
	{ label: 'file get: file id 2^53 + 1', parameters: file('get', { fileId: byId(v) }), value: '9007199254740993', field: 'File' },
	{ label: 'task: priority "constructor"', parameters: task({}, { priority: v }), value: 'constructor', field: 'Priority' },
	{ label: 'task: priority "__proto__"', parameters: task({}, { priority: v }), value: '__proto__', field: 'Priority' },
	{ label: 'task: priority "toString"', parameters: task({}, { priority: v }), value: 'toString', field: 'Priority' },
	{ label: 'task: priority "hasOwnProperty"', parameters: task({}, { priority: v }), value: 'hasOwnProperty', field: 'Priority' },
	{ label: 'file replace: extension ".constructor"', parameters: file('replace', { binaryPropertyName: 'data' }), field: 'Input Binary Field', binary: () => storedBinary(Buffer.from('a,b\n'), 'notes.constructor', 'application/octet-stream') },
	{ label: 'file replace: extension ".__proto__"', parameters: file('replace', { binaryPropertyName: 'data' }), field: 'Input Binary Field', binary: () => storedBinary(Buffer.from('a,b\n'), 'notes.__proto__', 'application/octet-stream') },
	{ label: 'action: button link javascript:', parameters: action({ type: 'uri', usedIn: 'button', label: 'Open', linkUri: v }), value: 'javascript:alert(document.cookie)', field: 'Link URI' },
	{ label: 'action: button link JavaScript: in mixed case', parameters: action({ type: 'uri', usedIn: 'button', label: 'Open', linkUri: v }), value: 'JaVaScRiPt:fetch("//x.example")', field: 'Link URI' },
	{ label: 'action: button link data:', parameters: action({ type: 'uri', usedIn: 'button', label: 'Open', linkUri: v }), value: 'data:text/html,<script>alert(1)</script>', field: 'Link URI' },
	{ label: 'action: button link file:', parameters: action({ type: 'uri', usedIn: 'button', label: 'Open', linkUri: v }), value: 'file:///etc/passwd', field: 'Link URI' },
	{ label: 'action: library url vbscript:', parameters: action({ type: 'library', usedIn: 'button', label: 'Open', url: v }), value: 'vbscript:msgbox(1)', field: 'URL' },
	{ label: 'KB get many: limit 0', parameters: kbGetAll({ limit: v }), value: 0, field: 'Limit' },
	{ label: 'KB get many: limit not a number', parameters: kbGetAll({ limit: v }), value: 'ten', field: 'Limit' },
	{ label: 'Retry: max attempts 0', parameters: kbGet({ knowledgeId: byId('1'), retryOptions: { maxAttempts: v } }), value: 0, field: 'Max Attempts' },
	{ label: 'Retry: max attempts fractional', parameters: kbGet({ knowledgeId: byId('1'), retryOptions: { maxAttempts: v } }), value: 2.5, field: 'Max Attempts' },
	{ label: 'Retry: negative max wait', parameters: kbGet({ knowledgeId: byId('1'), retryOptions: { maxWaitSeconds: v } }), value: -1, field: 'Max Wait (Seconds)' },
	{ label: 'Retry: timeout not a number', parameters: task({ retryOptions: { timeoutSeconds: v } }), value: 'soon', field: 'Timeout (Seconds)' },
	// Knowledge File
	{ label: 'file get: non-numeric knowledge id', parameters: file('get', { knowledgeId: byId(v) }), value: 'kb-1', field: 'Knowledge Base' },
	{ label: 'file get: file id with /', parameters: file('get', { fileId: byId(v) }), value: '1/../2', field: 'File' },
	{ label: 'file delete: file id with ?', parameters: file('delete', { fileId: byId(v) }), value: '2?force=1', field: 'File' },
	{ label: 'file download: file id with #', parameters: file('download', { fileId: byId(v), binaryPropertyName: 'data' }), value: '3#', field: 'File' },
	{ label: 'file download: no output field', parameters: file('download', { binaryPropertyName: v }), value: '', field: 'Put Output File in Field' },
	{ label: 'file get many: unknown status', parameters: file('getAll', { returnAll: true, filters: { status: v } }), value: 'archived', field: 'Status' },
	{ label: 'file get many: unknown name match', parameters: file('getAll', { returnAll: true, filters: { originalName: 'x', originalNameMatch: v } }), value: 'startsWith', field: 'Original Name Match' },
	{ label: 'file replace: unsupported mime type', parameters: file('replace', { binaryPropertyName: 'data' }), field: 'Input Binary Field', binary: () => storedBinary(Buffer.from('\x89PNG'), 'photo.png', 'image/png') },
	{ label: 'file replace: file over 100 MB', parameters: file('replace', { binaryPropertyName: 'data' }), field: 'Input Binary Field', binary: () => storedBinary(overHundredMegabytes(), 'huge.csv', 'text/csv') },
	{ label: 'file replace: file name over 255 characters', parameters: file('replace', { binaryPropertyName: 'data', options: { fileName: v } }), value: `${'n'.repeat(252)}.csv`, field: 'File Name', binary: () => storedBinary(Buffer.from('a,b\n'), 'ok.csv', 'text/csv') },
	{ label: 'file replace: no binary field name', parameters: file('replace', { binaryPropertyName: v }), value: ' ', field: 'Input Binary Field' },
	// Task
	{ label: 'task: missing title', parameters: task({ taskTitle: v }), value: '', field: 'Title' },
	{ label: 'task: unparseable due date', parameters: task({}, { dueDate: v }), value: 'next friday', field: 'Due Date' },
	{ label: 'task: impossible due date', parameters: task({}, { dueDate: v }), value: '2025-02-30T10:00:00', field: 'Due Date' },
	{ label: 'task: unknown priority', parameters: task({}, { priority: v }), value: 'urgent', field: 'Priority' },
	{ label: 'task: fractional custom priority', parameters: task({}, { priority: 'custom', customPriority: v }), value: 2.5, field: 'Custom Priority' },
	{ label: 'task: parent neither topic nor task', parameters: task({}, { parentId: v }), value: 'grp_123', field: 'Parent ID' },
	{ label: 'task: checklist item without description', parameters: task({}, { checklist: { items: [{ description: v, isDone: false }] } }), value: '', field: 'Checklist item 1 Description' },
	{ label: 'task: checklist done not a boolean', parameters: task({}, { checklist: { items: [{ description: 'x', isDone: v }] } }), value: 'maybe', field: 'Checklist item 1 Done' },
	// Topic
	{ label: 'topic: missing title', parameters: topic({}, { taskTitle: v }), value: '  ', field: 'Title' },
	{ label: 'topic: attachments not an array', parameters: topic({ attachments: v }), value: '{"name":"a.pdf"}', field: 'Attachments' },
	{ label: 'topic: attachments not JSON', parameters: topic({ attachments: v }), value: '[{name: a.pdf}]', field: 'Attachments' },
	{ label: 'topic: attachment entry not an object', parameters: topic({ attachments: v }), value: '[{"name":"a.pdf"}, "b.pdf"]', field: 'Attachments' },
	{ label: 'topic: label id not text', parameters: topic({ labelIds: v }), value: ['lbl_ops', 7], field: 'Label IDs' },
	{ label: 'topic: unreadable due date', parameters: topic({ dueDate: v }), value: '31/12/2025', field: 'Due Date' },
	// Group, Group Topic, User
	{ label: 'group: blank name', parameters: group({ name: v }), value: ' ', field: 'Name' },
	{ label: 'group: empty member list', parameters: group({ members: v }), value: [], field: 'Member IDs' },
	{ label: 'group: member with spaces', parameters: group({ members: v }), value: 'a b', field: 'Member IDs' },
	{ label: 'group: member not text', parameters: group({ members: v }), value: [{ id: 1 }], field: 'Member IDs' },
	{ label: 'group: picture that is not an image', parameters: group({ pictureBinaryProperty: 'data' }), field: 'Picture (Binary Property)', binary: () => storedBinary(Buffer.from('%PDF-1.4'), 'a.pdf', 'application/pdf') },
	{ label: 'group topic: blank group id', parameters: groupTopic({ groupId: v }), value: '', field: 'Group ID' },
	{ label: 'group topic: group id with spaces', parameters: groupTopic({ groupId: v }), value: 'x/../y z', field: 'Group ID' },
	{ label: 'group topic: group id ..', parameters: groupTopic({ groupId: v }), value: '..', field: 'Group ID' },
	{ label: 'user in group: user id .', parameters: user('getInfoInGroup', { groupId: 'g1', userId: v }), value: '.', field: 'User ID' },
	{ label: 'group topic: blank name', parameters: groupTopic({ name: v }), value: '', field: 'Name' },
	{ label: 'user find: blank username', parameters: user('findByUsername', { username: v }), value: ' ', field: 'Username' },
	{ label: 'user in group: blank user id', parameters: user('getInfoInGroup', { groupId: 'g1', userId: v }), value: '', field: 'User ID' },
	{ label: 'user in group: group id not text', parameters: user('getInfoInGroup', { groupId: v, userId: 'u1' }), value: { id: 'g1' }, field: 'Group ID' },
	// Text ids that go into a URL path: the one rule (pathSafeIdProblem) for every field
	...PATH_UNSAFE.flatMap(([what, value]): Row[] => [
		{ label: `group topic: group id with ${what}`, parameters: groupTopic({ groupId: v }), value, field: 'Group ID' },
		{ label: `user in group: group id with ${what}`, parameters: user('getInfoInGroup', { groupId: v, userId: 'u1' }), value, field: 'Group ID' },
		{ label: `user in group: user id with ${what}`, parameters: user('getInfoInGroup', { groupId: 'g1', userId: v }), value, field: 'User ID' },
	]),
	// Message Action (built locally)
	{ label: 'action: label over 20 characters', parameters: action({ type: 'message', usedIn: 'button', label: v, text: 't' }), value: 'x'.repeat(21), field: 'Label' },
	{ label: 'action: label not text', parameters: action({ type: 'message', usedIn: 'button', label: v, text: 't' }), value: 42, field: 'Label' },
	{ label: 'action: negative area x', parameters: action({ type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaX: v }), value: -1, field: 'Area X' },
	{ label: 'action: negative area width', parameters: action({ type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaWidth: v }), value: -3, field: 'Area Width' },
	{ label: 'action: area height not a number', parameters: action({ type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaHeight: v }), value: 'tall', field: 'Area Height' },
	{ label: 'action: unknown workflows status', parameters: action({ type: 'workflows', usedIn: 'other', status: v }), value: 'done', field: 'Status' },
	{ label: 'action: uri that is not a URI', parameters: action({ type: 'uri', usedIn: 'other', linkUri: v }), value: 'status page', field: 'Link URI' },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('bad-input matrix', () => {
	it('has at least 50 rows covering every resource', () => {
		expect(ROWS.length).toBeGreaterThanOrEqual(50);
		const resources = new Set(ROWS.map((r) => r.parameters.resource));
		expect([...resources].sort()).toEqual(['group', 'groupTopic', 'knowledgeBase', 'knowledgeFile', 'messageAction', 'task', 'topic', 'user']);
	});

	it.each(ROWS.map((row) => [row.label, row] as const))('%s', async (_label, row) => {
		const items: INodeExecutionData[] = [];
		for (let n = 0; n < 3; n++) {
			const json: IDataObject = row.value === undefined ? {} : { v: row.value as IDataObject[keyof IDataObject] };
			items.push(row.binary ? { json, binary: { data: await row.binary() } } : { json });
		}
		const run = await bed.runNode(row.parameters, { items, continueOnFail: true });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(3);
		run.items.forEach((item, n) => {
			expect(item.pairedItem).toEqual({ item: n });
			expect(item.json.error).toMatch(new RegExp(`^Invalid "${escape(row.field)}" in item ${n}: `));
		});
		expect(bed.emulator.log).toHaveLength(0);
	});

	it.each([
		['"5"', '5', 5],
		['" 3 "', ' 3 ', 3],
		['5', 5, 5],
	])('takes a Limit given as text like other numbers: %s (issue 23, item 13)', async (_label, limit, expected) => {
		bed.emulator.knowledge.addKnowledgeBases(10);
		const run = await bed.runNode(kbGetAll({ limit: v }), { items: [{ json: { v: limit as IDataObject[keyof IDataObject] } }] });
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(expected);
	});

	it('sends the largest exact id, 2^53 - 1, as its digits (issue 23, item 6)', async () => {
		const run = await bed.runNode(kbGet(), { items: [{ json: { v: '9007199254740991' } }], continueOnFail: true });
		expect(run.items).toHaveLength(1);
		expect(bed.emulator.log.map((e) => e.rawUrl)).toContain('/api/v1/knowledge/9007199254740991');
	});

	it('names the exact limit when an id is beyond it (issue 23, item 6)', async () => {
		const run = await bed.runNode(kbGet(), { items: [{ json: { v: '9007199254740993' } }], continueOnFail: true });
		expect(run.json[0].error).toBe(
			'Invalid "Knowledge Base" in item 0: "9007199254740993" is above 9007199254740991, the largest ID the node can send exactly; no other ID is sent in its place',
		);
	});

	it.each([
		['letters, digits and - _ . ~', 'g-1_a.b~c'],
		['inner dots', 'a..b'],
		['Thai letters', 'ทีมขาย'],
		['an address-like id', 'team:ops@example.com'],
	])('a path-safe text id (%s) is sent percent-encoded as one path segment', async (_label, id) => {
		const run = await bed.runNode(user('getInfoInGroup', { groupId: v, userId: 'u1' }), { items: [{ json: { v: id } }], continueOnFail: true });
		expect(run.items).toHaveLength(1);
		const sent = bed.emulator.log.filter((e) => e.path !== '/oauth/token');
		// (A token from an earlier test may be refused once and refreshed: each attempt is checked.)
		expect(sent.length).toBeGreaterThan(0);
		for (const request of sent) expect(request.rawUrl).toBe(`/bot/v2/groups/${encodeURIComponent(id)}/users/u1/info`);
	});
});
