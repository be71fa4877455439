/**
 * Task → Create and Topic → Create, and the task-projects credential, executed
 * in n8n-core's real engine against the emulator over HTTP on 127.0.0.1. The
 * emulator's request log is the proof of what was sent.
 */
import { getSchema } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { issueJwt } from '../../emulator/taskProjects/jwt';
import { redactedHeader } from '../../emulator/common/requestLog';
import { Workplace } from '../../nodes/Workplace/Workplace.node';
import { CREDENTIALS, suiteTestbed } from '../../testbed/testbed';

const bed = suiteTestbed();

beforeEach(() => {
	useToken(bed.emulator.credentials.jwt);
});

function useToken(token: string, baseUrl = bed.emulator.url) {
	bed.credentialsHelper.set({ ...CREDENTIALS.taskProjects, data: { baseUrl, token } });
}

const tpRequests = (path?: 'tasks' | 'topics') =>
	bed.emulator.log.filter((e) => e.path.startsWith(`/api/v1/task-projects/${path ?? ''}`));
const taskCount = () => bed.emulator.taskProjects.tasks.size;
const topicCount = () => bed.emulator.taskProjects.topics.size;
const assignee = () => [...bed.emulator.taskProjects.users][0];

const task = (params: INodeParameters = {}, additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'task',
	operation: 'create',
	taskTitle: 'Call the customer back',
	additionalFields,
	...params,
});
const topic = (params: INodeParameters = {}, additionalFields: INodeParameters = {}): INodeParameters => ({
	resource: 'topic',
	operation: 'create',
	taskTitle: 'Q3 onboarding',
	additionalFields,
	...params,
});

describe('Task → Create', () => {
	it('sends every field as the document defines it, the due date converted from the workflow timezone', async () => {
		const user = assignee();
		const before = taskCount();
		const run = await bed.runNode(
			task(
				{},
				{
					taskDescription: 'Customer asked for a call about the renewal',
					priority: 'high',
					dueDate: '2025-03-09T02:30:00', // in New York's spring-forward gap: 03:30 EDT
					assigneeId: user,
					checklist: {
						items: [
							{ description: 'Read the ticket', isDone: true },
							{ description: 'Call', isDone: false },
						],
					},
					parentId: 'top_seed0001',
				},
			),
			{ settings: { timezone: 'America/New_York' } },
		);
		expect(run.error).toBeUndefined();

		const [sent] = tpRequests();
		expect(sent.method).toBe('POST');
		expect(sent.path).toBe('/api/v1/task-projects/tasks');
		expect(sent.body).toEqual({
			taskTitle: 'Call the customer back',
			taskDescription: 'Customer asked for a call about the renewal',
			priority: 1,
			dueDate: '2025-03-09T07:30:00Z',
			assigneeId: user,
			checklist: [
				{ description: 'Read the ticket', isDone: true },
				{ description: 'Call', isDone: false },
			],
			parentId: 'top_seed0001',
		});
		expect(sent.headers.authorization).toBe(redactedHeader('authorization', `Bearer ${bed.emulator.credentials.jwt}`));
		expect(sent.headers['content-type']).toMatch(/^application\/json/);
		expect(tpRequests()).toHaveLength(1);

		expect(run.json).toHaveLength(1);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		const out = run.json[0];
		expect(out.id).toMatch(/^tsk_/);
		expect(out).toMatchObject({ status: 'open', parentId: 'top_seed0001', priority: 1, dueDate: '2025-03-09T07:30:00Z' });
		expect(taskCount()).toBe(before + 1);
		expect(bed.emulator.taskProjects.tasks.get(out.id as string)?.assigneeId).toBe(user);
	});

	it('sends only the title when no additional field is set', async () => {
		const run = await bed.runNode(task());
		expect(run.error).toBeUndefined();
		expect(tpRequests()[0].body).toEqual({ taskTitle: 'Call the customer back' });
	});

	it.each([
		['Asia/Bangkok', '2025-06-01T09:00:00', '2025-06-01T02:00:00Z'],
		['America/New_York', '2025-06-01T09:00:00', '2025-06-01T13:00:00Z'],
		['America/New_York', '2025-12-01T09:00:00', '2025-12-01T14:00:00Z'],
		['Asia/Bangkok', '2025-06-01T09:00:00Z', '2025-06-01T09:00:00Z'],
		['Asia/Bangkok', '2025-06-01T09:00:00-04:00', '2025-06-01T13:00:00Z'],
		// luxon DateTime from an expression: its own zone counts, not the workflow's.
		['Asia/Bangkok', "={{ DateTime.fromISO('2025-07-15T09:00:00', { zone: 'Europe/Berlin' }) }}", '2025-07-15T07:00:00Z'],
		// $now-style arithmetic in the workflow's zone.
		['Asia/Bangkok', "={{ DateTime.fromISO('2025-07-15T09:00:00').plus({ days: 1 }) }}", '2025-07-16T02:00:00Z'],
		// a JS Date from an expression
		['America/New_York', "={{ new Date('2025-07-15T09:00:00Z') }}", '2025-07-15T09:00:00Z'],
	])('workflow timezone %s: due date %s is sent as %s', async (timezone, dueDate, expected) => {
		const run = await bed.runNode(task({}, { dueDate }), { settings: { timezone } });
		expect(run.error).toBeUndefined();
		expect((tpRequests()[0].body as IDataObject).dueDate).toBe(expected);
		expect(run.json[0].dueDate).toBe(expected);
	});

	it.each([
		['medium', {}, 2],
		['low', {}, 3],
		['high', {}, 1],
		['custom', { customPriority: 5 }, 5],
		['={{ 4 }}', {}, 4],
		['={{ "2" }}', {}, 2],
	])('priority %s %j is sent as the integer %i', async (priority, extra, expected) => {
		const run = await bed.runNode(task({}, { priority, ...extra }));
		expect(run.error).toBeUndefined();
		expect((tpRequests()[0].body as IDataObject).priority).toBe(expected);
		expect(Number.isInteger((tpRequests()[0].body as IDataObject).priority)).toBe(true);
	});

	it('creates a subtask of a task', async () => {
		const run = await bed.runNode(task({}, { parentId: 'tsk_seed0001' }));
		expect(run.error).toBeUndefined();
		expect(tpRequests()[0].body).toEqual({ taskTitle: 'Call the customer back', parentId: 'tsk_seed0001' });
		expect(run.json[0].parentId).toBe('tsk_seed0001');
	});

	it.each([
		['a blank title (from an expression)', { taskTitle: '={{ $json.title }}' }, {}, /"Title" in item 0: is required/],
		[
			'a checklist item without description',
			{},
			{ checklist: { items: [{ description: 'ok', isDone: false }, { description: '', isDone: true }] } },
			/"Checklist item 2 Description" in item 0: is required/,
		],
		[
			'a checklist item whose done flag is not a boolean',
			{},
			{ checklist: { items: [{ description: 'Call', isDone: '={{ "maybe" }}' }] } },
			/"Checklist item 1 Done" in item 0: is required and must be true or false, got "maybe"/,
		],
		[
			'a checklist item without done flag',
			{},
			{ checklist: { items: [{ description: 'Call', isDone: '={{ undefined }}' }] } },
			/"Checklist item 1 Done" in item 0/,
		],
		['a custom priority that is not an integer', {}, { priority: 'custom', customPriority: 2.5 }, /"Custom Priority" in item 0: must be a whole number/],
		['a priority that is not an integer', {}, { priority: '={{ "urgent" }}' }, /"Priority" in item 0: must be High, Medium, Low, Custom or a whole number, got "urgent"/],
		['a due date that is not a real date', {}, { dueDate: '2025-02-30T10:00:00' }, /"Due Date" in item 0: is not a real calendar date/],
		['a due date that cannot be read', {}, { dueDate: '={{ "next friday" }}' }, /"Due Date" in item 0: cannot be read as a date-time/],
		['a parent that is neither topic nor task', {}, { parentId: 'grp_123' }, /"Parent ID" in item 0: must be a topic ID \(top_…\) or a task ID \(tsk_…\)/],
	])('rejects %s before any request', async (_label, params, fields, message) => {
		const run = await bed.runNode(task(params, fields), { items: [{ json: { title: '  ' } }] });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(message);
		expect(tpRequests()).toHaveLength(0);
	});

	it('does not block the recommended title limit; the service\'s 422 shows each detail with its path', async () => {
		const title = 'x'.repeat(201);
		const run = await bed.runNode(task({ taskTitle: title }, { taskDescription: 'y'.repeat(5001) }));
		expect(tpRequests()).toHaveLength(1);
		expect((tpRequests()[0].body as IDataObject).taskTitle).toBe(title);
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('422');
		expect(run.error?.message).toBe('The service rejected the values sent: Field validation failed');
		expect(run.error?.description).toContain('taskTitle: taskTitle must be at most 200 characters');
		expect(run.error?.description).toContain('taskDescription: taskDescription must be at most 5000 characters');
	});

	it('names the unknown assignee of a 404', async () => {
		const before = taskCount();
		const run = await bed.runNode(task({}, { assigneeId: 'usr_nobody' }));
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('404');
		expect(run.error?.message).toBe('Not found: Related resource not found (assigneeId)');
		expect(run.error?.description).toContain('assigneeId: User usr_nobody does not exist');
		expect(taskCount()).toBe(before);
	});

	it('turns a 409 into a business-rule error (subtask of a closed task)', async () => {
		const before = taskCount();
		const run = await bed.runNode(task({}, { parentId: 'tsk_closed0001' }));
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('409');
		expect(run.error?.message).toBe(
			'The service refused the request because of a business rule: Parent task is closed; subtasks cannot be added',
		);
		expect(taskCount()).toBe(before);
		expect(tpRequests()).toHaveLength(1);
	});

	it('shows a 400 from the service with its details', async () => {
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/task-projects/tasks',
			action: {
				kind: 'status',
				status: 400,
				body: { error: 'bad_request', message: 'Invalid payload', details: [{ path: 'checklist[0].isDone', message: 'isDone must be a boolean' }] },
			},
		});
		const run = await bed.runNode(task());
		expect(run.error?.httpCode).toBe('400');
		expect(run.error?.message).toBe('The service rejected the request: Invalid payload');
		expect(run.error?.description).toContain('checklist[0].isDone: isDone must be a boolean');
		expect(tpRequests()).toHaveLength(1);
	});

	it('reports a token with a bad signature as a 401, without the token', async () => {
		const forged = issueJwt('not-the-service-secret', { expiresInSeconds: 3600 });
		useToken(forged);
		const run = await bed.runNode(task());
		expect(run.error?.httpCode).toBe('401');
		expect(run.error?.message).toBe('The service rejected the credentials: Invalid token signature');
		expect(JSON.stringify(run.result.run.data.resultData)).not.toContain(forged);
	});

	it('reports a token without write access as a 403', async () => {
		useToken(bed.emulator.issueJwt({ expiresInSeconds: 3600, role: 'viewer' }));
		const run = await bed.runNode(task());
		expect(run.error?.httpCode).toBe('403');
		expect(run.error?.message).toBe(
			'The credentials lack permission for this operation: Write access to task projects is required',
		);
		expect(taskCount()).toBe(2);
	});

	it('refuses an expired token before sending, for every item, without the token', async () => {
		const expired = bed.emulator.issueJwt({ expiresInSeconds: -90 });
		useToken(expired);
		const run = await bed.runNode(task(), { items: [{ json: {} }, { json: {} }], continueOnFail: true });
		expect(tpRequests()).toHaveLength(0);
		expect(run.json).toHaveLength(2);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const json of run.json) {
			expect(json.error).toMatch(
				/^The credential's JWT expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(\d+ (s|min) ago\); issue a new token and update the credential \(nothing was sent\)$/,
			);
		}
		expect(JSON.stringify(run.result.run.data.resultData)).not.toContain(expired);
	});

	it.each([
		['−1e13 (before any date)', -1e13],
		['1e13 beyond any date, and 1e16', 1e16],
	])('refuses a JWT whose exp is %s with a clear message, not "Invalid time value" (issue 23, item 11)', async (_label, exp) => {
		useToken(bed.emulator.issueJwt({ expiresInSeconds: exp - Math.floor(Date.now() / 1000) }));
		const run = await bed.runNode(task());
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/^The credential's JWT is malformed \(its "exp" claim, -?\d+, is not a time any date can hold\) \(nothing was sent\)$/);
		expect(tpRequests()).toHaveLength(0);
	});

	it('refuses a token that is not a JWT before sending', async () => {
		useToken('not-a-jwt');
		const run = await bed.runNode(task());
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toBe(
			"The credential's JWT is malformed (expected three dot-separated base64url parts) (nothing was sent)",
		);
		expect(tpRequests()).toHaveLength(0);
	});

	it('keeps going with Continue On Fail: each failed item is an error item paired to its input', async () => {
		const before = taskCount();
		const user = assignee();
		const run = await bed.runNode(task({}, { assigneeId: '={{ $json.who }}' }), {
			items: [{ json: { who: user } }, { json: { who: 'usr_ghost' } }, { json: { who: user } }],
			continueOnFail: true,
		});
		expect(run.json).toHaveLength(3);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(run.json[0].id).toMatch(/^tsk_/);
		expect(run.json[1]).toMatchObject({ httpCode: '404', error: 'Not found: Related resource not found (assigneeId)' });
		expect(run.json[2].id).toMatch(/^tsk_/);
		expect(taskCount()).toBe(before + 2);
	});
});

describe('Task → Create never duplicates a task', () => {
	it('retries a 429 (refused before processing) after Retry-After: one task', async () => {
		const before = taskCount();
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/task-projects/tasks',
			times: 2,
			action: { kind: 'status', status: 429, retryAfter: 1 },
		});
		const run = await bed.runNode(task());
		expect(run.error).toBeUndefined();
		const sent = tpRequests();
		expect(sent.map((e) => e.status)).toEqual([429, 429, 201]);
		// Each retry waited for Retry-After (1 s) before resending.
		for (let n = 1; n < sent.length; n++) {
			expect(Date.parse(sent[n].time) - Date.parse(sent[n - 1].time)).toBeGreaterThanOrEqual(950);
		}
		expect(taskCount()).toBe(before + 1);
		expect(run.json).toHaveLength(1);
		expect(bed.emulator.taskProjects.tasks.has(run.json[0].id as string)).toBe(true);
	});

	it('gives up on a 429 that persists, with a rate-limit error and no task', async () => {
		const before = taskCount();
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/task-projects/tasks',
			times: Infinity,
			action: { kind: 'status', status: 429, retryAfter: 0 },
		});
		const run = await bed.runNode(task());
		expect(tpRequests().map((e) => e.status)).toEqual([429, 429, 429, 429]);
		expect(run.error?.httpCode).toBe('429');
		expect(run.error?.message).toMatch(/^Create a task \(item 0\): gave up after 4 attempts over \d+(\.\d)? s; the last answer was 429/);
		expect(taskCount()).toBe(before);
	});

	it('a 503 after the task was stored: exactly one task, no retry, and an error saying so', async () => {
		const before = taskCount();
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/task-projects/tasks',
			phase: 'after',
			action: { kind: 'status', status: 503 },
		});
		const run = await bed.runNode(task({ taskTitle: 'Renew contract' }), { continueOnFail: true });
		expect(tpRequests()).toHaveLength(1);
		expect(tpRequests()[0].status).toBe(503);
		expect(taskCount()).toBe(before + 1);
		expect([...bed.emulator.taskProjects.tasks.values()].filter((t) => t.taskTitle === 'Renew contract')).toHaveLength(1);

		expect(run.json).toHaveLength(1);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(run.json[0].httpCode).toBe('503');
		expect(run.json[0].error).toBe(
			'The service answered 503: Service Unavailable; the task may have been created even so. It was not retried automatically, to avoid a duplicate: check before running this item again',
		);
	});

	it.each([500, 502, 504])('a %d is not retried either', async (status) => {
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: { kind: 'status', status } });
		const run = await bed.runNode(task());
		expect(tpRequests()).toHaveLength(1);
		expect(run.error?.httpCode).toBe(String(status));
		expect(run.error?.message).toMatch(/the task may have been created even so\. It was not retried automatically/);
	});

	it('a connection reset after the task was stored: exactly one task, no retry, and an error saying so', async () => {
		const before = taskCount();
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: { kind: 'reset' } });
		const run = await bed.runNode(task());
		expect(tpRequests()).toHaveLength(1);
		expect(taskCount()).toBe(before + 1);
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.message).toMatch(
			/^The connection to the service was (reset|closed while sending); the task may have been created even so\. It was not retried automatically/,
		);
	});
});

describe('Topic → Create', () => {
	it('sends every field as the document defines it, attachments passed through as given', async () => {
		const attachments = [
			{ name: 'brief.pdf', url: 'https://files.example.com/brief.pdf', size: 1234 },
			{ type: 'link', href: 'https://wiki.example.com/onboarding', meta: { pinned: true } },
		];
		const before = topicCount();
		const run = await bed.runNode(
			topic(
				{},
				{
					taskDescription: 'Everything new starters need',
					priority: 'low',
					dueDate: '2025-09-30T17:00:00',
					labelIds: 'lbl_urgent, lbl_backend',
					attachments: JSON.stringify(attachments),
				},
			),
			{ settings: { timezone: 'Asia/Bangkok' } },
		);
		expect(run.error).toBeUndefined();
		const [sent] = tpRequests();
		expect(sent.path).toBe('/api/v1/task-projects/topics');
		expect(sent.body).toEqual({
			taskTitle: 'Q3 onboarding',
			taskDescription: 'Everything new starters need',
			priority: 3,
			dueDate: '2025-09-30T10:00:00Z',
			labelIds: ['lbl_urgent', 'lbl_backend'],
			attachments,
		});
		expect(sent.headers.authorization).toBe(redactedHeader('authorization', `Bearer ${bed.emulator.credentials.jwt}`));
		expect(sent.headers['content-type']).toMatch(/^application\/json/);
		expect(run.json[0].id).toMatch(/^top_/);
		expect(run.json[0]).toMatchObject({ status: 'open', labelIds: ['lbl_urgent', 'lbl_backend'], attachments });
		expect(topicCount()).toBe(before + 1);
	});

	it('takes labels and attachments as lists from expressions', async () => {
		const run = await bed.runNode(
			topic({}, { labelIds: '={{ $json.labels }}', attachments: '={{ $json.files }}', priority: 'custom', customPriority: 4 }),
			{ items: [{ json: { labels: ['lbl_ops'], files: [{ id: 'att_1' }] } }] },
		);
		expect(run.error).toBeUndefined();
		expect(tpRequests()[0].body).toEqual({
			taskTitle: 'Q3 onboarding',
			priority: 4,
			labelIds: ['lbl_ops'],
			attachments: [{ id: 'att_1' }],
		});
	});

	it.each([
		['attachments that are an object, not an array', { attachments: '{"name":"a.pdf"}' }, /"Attachments" in item 0: must be a JSON array of objects/],
		['attachments holding a non-object', { attachments: '[{"name":"a.pdf"}, "b.pdf"]' }, /"Attachments" in item 0: entry 2 must be an object, got "b.pdf"/],
		['attachments holding a list', { attachments: '[[1]]' }, /"Attachments" in item 0: entry 1 must be an object, got a list/],
		['attachments that are not JSON', { attachments: '[{name: a.pdf}]' }, /"Attachments" in item 0: is not valid JSON/],
		['a label id that is not text', { labelIds: '={{ ["lbl_ops", 7] }}' }, /"Label IDs" in item 0: entry 2 must be text, got 7/],
		['a due date that cannot be read', { dueDate: '31/12/2025' }, /"Due Date" in item 0: cannot be read as a date-time/],
	])('rejects %s before any request', async (_label, fields, message) => {
		const run = await bed.runNode(topic({}, fields));
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(message);
		expect(tpRequests()).toHaveLength(0);
	});

	it('names the unknown label of a 404 by its path', async () => {
		const run = await bed.runNode(topic({}, { labelIds: 'lbl_urgent, lbl_nope' }));
		expect(run.error?.httpCode).toBe('404');
		expect(run.error?.message).toBe('Not found: Related resource not found (labelIds[1])');
		expect(run.error?.description).toContain('labelIds[1]: Label lbl_nope does not exist');
	});

	it('does not block the recommended label and attachment limits; the 422 shows each path', async () => {
		const labels = Array.from({ length: 21 }, () => 'lbl_ops').join(',');
		const attachments = JSON.stringify(Array.from({ length: 13 }, (_, n) => ({ id: `att_${n}` })));
		const run = await bed.runNode(topic({}, { labelIds: labels, attachments }));
		expect(tpRequests()).toHaveLength(1);
		expect((tpRequests()[0].body as IDataObject).labelIds).toHaveLength(21);
		expect((tpRequests()[0].body as IDataObject).attachments).toHaveLength(13);
		expect(run.error?.httpCode).toBe('422');
		expect(run.error?.description).toContain('labelIds: at most 20 labels are allowed');
		expect(run.error?.description).toContain('attachments: at most 12 attachments are allowed');
	});

	it('a 503 after the topic was stored: exactly one topic and an error saying so', async () => {
		const before = topicCount();
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/task-projects/topics', phase: 'after', action: { kind: 'status', status: 503 } });
		const run = await bed.runNode(topic());
		expect(tpRequests()).toHaveLength(1);
		expect(topicCount()).toBe(before + 1);
		expect(run.error?.message).toMatch(/the project topic may have been created even so/);
	});
});

describe('Workplace Task Projects API credential test', () => {
	it('passes with a valid token, and creates nothing', async () => {
		const tasks = taskCount();
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		// n8n's own message for a declarative test that passed (the 400 for the empty body is let through).
		expect(result).toEqual({ status: 'OK', message: 'Connection successful' });
		const sent = tpRequests();
		expect(sent).toHaveLength(1);
		expect(sent[0]).toMatchObject({ method: 'POST', path: '/api/v1/task-projects/tasks', body: {}, status: 400 });
		expect(sent[0].headers.authorization).toBe(redactedHeader('authorization', `Bearer ${bed.emulator.credentials.jwt}`));
		expect(taskCount()).toBe(tasks);
	});

	it('fails an expired token without sending anything', async () => {
		useToken(bed.emulator.issueJwt({ expiresInSeconds: -3600 }));
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The credential's JWT expired at .+ \(60 min ago\); issue a new token and update the credential \(nothing was sent\)$/);
		expect(tpRequests()).toHaveLength(0);
	});

	it('fails a malformed token without sending anything', async () => {
		useToken('abc.def');
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result).toEqual({ status: 'Error', message: "The credential's JWT is malformed (expected three dot-separated base64url parts) (nothing was sent)" });
		expect(tpRequests()).toHaveLength(0);
	});

	it('fails a token the service rejects (401), without the token in the message', async () => {
		const forged = issueJwt('wrong-secret', { expiresInSeconds: 600 });
		useToken(forged);
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result).toEqual({ status: 'Error', message: 'The service rejected the credentials: Invalid token signature' });
		expect(JSON.stringify(result)).not.toContain(forged);
	});

	it('fails a token without write access (403)', async () => {
		useToken(bed.emulator.issueJwt({ expiresInSeconds: 600, role: 'viewer' }));
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result).toEqual({ status: 'Error', message: 'The JWT lacks write access to task projects' });
	});

	it('fails, saying so, if the service ever created something from the empty test body', async () => {
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/task-projects/tasks',
			action: { kind: 'status', status: 201, body: { id: 'tsk_unexpected1', taskTitle: '' } },
		});
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result).toEqual({
			status: 'Error',
			message: 'The service accepted the token, but it also accepted an empty task; remove it',
		});
	});

	it('fails a Base URL that does not serve the interface', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', action: { kind: 'status', status: 404 } });
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^No task-projects interface at this Base URL \(the service answered 404\)/);
	});

	it.each([
		['not-an-address', /has no scheme/],
		['ftp://workplace.example.com', /must start with http:\/\/ or https:\/\//],
		['https://workplace.example.com/?x=1', /must not contain "\?" or "#"/],
	])('fails for the Base URL %p without a request, as the node does', async (baseUrl, message) => {
		useToken(bed.emulator.credentials.jwt, baseUrl);
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(message);
		expect(tpRequests()).toHaveLength(0);
		const run = await bed.runNode({ resource: 'task', operation: 'create', taskTitle: 'T' });
		expect(run.error?.message).toMatch(message);
		expect(tpRequests()).toHaveLength(0);
	});

	it('fails when the service cannot be reached', async () => {
		useToken(bed.emulator.credentials.jwt, 'http://127.0.0.1:9');
		const result = await bed.testCredential(CREDENTIALS.taskProjects.id);
		expect(result).toEqual({ status: 'Error', message: 'The service refused the connection' });
	});
});

describe('as an AI Agent tool', () => {
	it('is usable as a tool, and every task and topic field has a description a model can read', () => {
		const description = new Workplace().description;
		expect(description.usableAsTool).toBe(true);
		const shown = description.properties.filter((p) => {
			const resources = p.displayOptions?.show?.resource as string[] | undefined;
			return resources?.some((r) => r === 'task' || r === 'topic');
		});
		const missing: string[] = [];
		const walk = (props: INodeProperties[], where: string) => {
			for (const p of props) {
				if (p.name !== 'operation' && !(typeof p.description === 'string' && p.description.length >= 10)) {
					missing.push(`${where}${p.name}`);
				}
				for (const option of (p.options ?? []) as Array<INodeProperties | { name: string; values?: INodeProperties[] }>) {
					if ('type' in option) walk([option], `${where}${p.name}.`);
					else if ('values' in option && option.values) walk(option.values, `${where}${p.name}.${option.name}.`);
				}
			}
		};
		walk(shown, '');
		expect(missing).toEqual([]);
		expect(shown.map((p) => p.name)).toEqual(expect.arrayContaining(['taskTitle', 'additionalFields']));
	});

	it('creates a task from the arguments a model fills through $fromAI', async () => {
		const parameters = task(
			{ taskTitle: "={{ $fromAI('title', 'Human-readable title of the task', 'string') }}" },
			{
				dueDate: "={{ $fromAI('dueDate', 'When it is due, ISO 8601', 'string') }}",
				priority: "={{ $fromAI('priority', 'Priority: 1 high, 2 medium, 3 low', 'number') }}",
				assigneeId: "={{ $fromAI('assigneeId', 'ID of the user to assign', 'string') }}",
			},
		);
		// The schema n8n gives the model for these parameters.
		const schema = getSchema({
			id: 'x',
			name: 'Workplace',
			type: 'n8n-nodes-workplace.workplaceTool',
			typeVersion: 1,
			position: [0, 0],
			parameters,
		});
		expect(Object.keys(schema.shape).sort()).toEqual(['assigneeId', 'dueDate', 'priority', 'title']);
		expect(schema.shape.title.description).toBe('Human-readable title of the task');

		// n8n's tool executor hands the model's arguments to the node as its input item.
		const user = assignee();
		const run = await bed.runNode(parameters, {
			items: [{ json: { query: { title: 'Follow up on invoice 42', dueDate: '2025-08-01T10:00:00', priority: 1, assigneeId: user } } }],
			settings: { timezone: 'Asia/Bangkok' },
		});
		expect(run.error).toBeUndefined();
		expect(tpRequests()[0].body).toEqual({
			taskTitle: 'Follow up on invoice 42',
			dueDate: '2025-08-01T03:00:00Z',
			priority: 1,
			assigneeId: user,
		});
		expect(run.json[0].id).toMatch(/^tsk_/);
	});
});
