import { issueJwt, verifyJwt } from '../../emulator/taskProjects/jwt';
import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { CLOSED_TASK_ID, SEED_OPEN_TASK_ID, SEED_TOPIC_ID } from '../../emulator/taskProjects/state';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed();

interface ErrorBody {
	error: string;
	message: string;
	details: Array<{ path: string; message: string }>;
}

/** A POST with the API's valid JWT (`headers` may replace it) and a JSON content type; `body` text is sent as is. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
	const res = await bed.call(path, {
		method: 'POST',
		auth: 'taskProjects',
		headers: { 'content-type': 'application/json', ...headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
	return { status: res.status, body: res.body as Record<string, unknown> };
}

const TASKS = '/api/v1/task-projects/tasks';
const TOPICS = '/api/v1/task-projects/topics';
const paths = (body: Record<string, unknown>) => (body as unknown as ErrorBody).details.map((d) => d.path);

describe('jwt', () => {
	it('issues HS256 tokens that verify, and reports why others do not', () => {
		const t = issueJwt('s', { expiresInSeconds: 60, role: 'viewer', sub: 'u1' });
		const ok = verifyJwt('s', t);
		expect(ok).toEqual({ ok: true, claims: expect.objectContaining({ sub: 'u1', role: 'viewer' }) });
		expect(verifyJwt('other', t)).toEqual({ ok: false, reason: 'signature' });
		expect(verifyJwt('s', 'abc')).toEqual({ ok: false, reason: 'malformed' });
		expect(verifyJwt('s', issueJwt('s', { expiresInSeconds: -1 }))).toEqual({ ok: false, reason: 'expired' });
	});
});

describe('POST /api/v1/task-projects/tasks', () => {
	it('creates a task (201) and answers every documented error', async () => {
		const task = {
			taskTitle: 'Write runbook',
			taskDescription: 'For the payment outage',
			priority: 1,
			dueDate: '2025-02-28T17:00:00Z',
			assigneeId: SEED_USER_IDS.nattaya,
			checklist: [{ description: 'Draft', isDone: false }],
			parentId: SEED_TOPIC_ID,
		};
		const ok = await post(TASKS, { ...task, somethingExtra: 'ignored' });
		expect(ok.status).toBe(201);
		// Every field sent comes back as sent, an unknown one is dropped.
		expect(ok.body).toEqual({
			id: expect.stringMatching(/^tsk_[A-Za-z0-9]{20}$/),
			...task,
			status: 'open',
			createdAt: expect.stringMatching(/Z$/),
			updatedAt: expect.stringMatching(/Z$/),
		});
		expect(bed.emulator.taskProjects.tasks.has(ok.body.id as string)).toBe(true);

		// Minimal body; a subtask of an open task.
		const minimal = await post(TASKS, { taskTitle: 'Sub', parentId: SEED_OPEN_TASK_ID });
		expect(minimal.status).toBe(201);
		expect(minimal.body).toMatchObject({ parentId: SEED_OPEN_TASK_ID, assigneeId: null, priority: null });
		expect((await post(TASKS, { taskTitle: 'Root' })).body.parentId).toBeNull();

		// 401: missing, malformed, wrong signature, expired.
		const noAuth = await bed.call(TASKS, { method: 'POST', json: {} });
		expect(noAuth.status).toBe(401);
		expect(noAuth.body).toEqual({ error: 'unauthorized', message: 'Missing bearer token', details: [] });
		const expired = issueJwt(bed.emulator.config.jwtSecret, { expiresInSeconds: -5 });
		expect(await post(TASKS, { taskTitle: 'x' }, { authorization: `Bearer ${expired}` })).toEqual({
			status: 401,
			body: { error: 'unauthorized', message: 'Token expired', details: [] },
		});
		const forged = issueJwt('not-the-secret', { expiresInSeconds: 60 });
		expect((await post(TASKS, { taskTitle: 'x' }, { authorization: `Bearer ${forged}` })).body.message).toBe(
			'Invalid token signature',
		);
		expect((await post(TASKS, { taskTitle: 'x' }, { authorization: 'Bearer nope' })).status).toBe(401);
		// Auth comes before body parsing: broken JSON with no token is still a 401.
		expect((await post(TASKS, '{broken', { authorization: '' })).status).toBe(401);

		// 403: viewer role.
		const viewer = issueJwt(bed.emulator.config.jwtSecret, { expiresInSeconds: 60, role: 'viewer' });
		expect(await post(TASKS, { taskTitle: 'x' }, { authorization: `Bearer ${viewer}` })).toEqual({
			status: 403,
			body: { error: 'forbidden', message: 'Write access to task projects is required', details: [] },
		});

		// 400: content type, broken JSON, non-object body, types.
		const form = await post(TASKS, 'taskTitle=x', { 'content-type': 'application/x-www-form-urlencoded' });
		expect(form.status).toBe(400);
		expect(form.body).toMatchObject({ error: 'bad_request', message: 'Content-Type must be application/json' });
		expect((await post(TASKS, 'x', { 'content-type': 'text/plain' })).status).toBe(400);
		expect((await post(TASKS, 'x', { 'content-type': 'application/xml' })).body.error).toBe('bad_request');
		expect((await post(TASKS, '{broken')).body).toMatchObject({ error: 'bad_request', details: [] });
		expect((await post(TASKS, [1])).status).toBe(400);
		const types = await post(TASKS, {
			taskDescription: 5,
			priority: 1.5,
			dueDate: 20250101,
			assigneeId: 7,
			parentId: null,
			checklist: [{ description: 'a', isDone: true }, { description: 'b', isDone: 'no' }, { isDone: false }, 'x'],
		});
		expect(types.status).toBe(400);
		expect(types.body.error).toBe('bad_request');
		expect(paths(types.body)).toEqual([
			'taskTitle',
			'taskDescription',
			'priority',
			'dueDate',
			'assigneeId',
			'parentId',
			'checklist[1].isDone',
			'checklist[2].description',
			'checklist[3]',
		]);
		expect(paths((await post(TASKS, { taskTitle: '  ' })).body)).toEqual(['taskTitle']);
		expect(paths((await post(TASKS, { taskTitle: 'x', checklist: {} })).body)).toEqual(['checklist']);
		expect((await post(TASKS, { taskTitle: 'x', priority: '2' })).status).toBe(400);

		// 422: field rules.
		const invalid = await post(TASKS, {
			taskTitle: 't'.repeat(201),
			taskDescription: 'd'.repeat(5001),
			priority: 9,
			dueDate: '2025-02-30T10:00:00Z',
			parentId: 'task-1',
		});
		expect(invalid.status).toBe(422);
		expect(invalid.body.error).toBe('validation_failed');
		expect(paths(invalid.body)).toEqual(['taskTitle', 'taskDescription', 'priority', 'dueDate', 'parentId']);
		for (const dueDate of ['2025-02-01', '2025-02-01T10:00:00+07:00', '2025-02-01T10:00:00', '2025-13-01T00:00:00Z']) {
			expect((await post(TASKS, { taskTitle: 'x', dueDate })).status).toBe(422);
		}
		for (const dueDate of ['2024-02-29T23:59:59Z', '2025-02-01T10:00Z', '2025-02-01T10:00:00.123Z']) {
			expect((await post(TASKS, { taskTitle: 'x', dueDate })).status).toBe(201);
		}
		expect((await post(TASKS, { taskTitle: 't'.repeat(200), priority: 5 })).status).toBe(201);

		// 404: unknown assignee and parent, together; a deleted user is not assignable.
		const missing = await post(TASKS, { taskTitle: 'x', assigneeId: 'nobody', parentId: 'top_nothere' });
		expect(missing.status).toBe(404);
		expect(missing.body.error).toBe('not_found');
		expect(paths(missing.body)).toEqual(['assigneeId', 'parentId']);
		expect(paths((await post(TASKS, { taskTitle: 'x', assigneeId: SEED_USER_IDS.somchaiOld })).body)).toEqual([
			'assigneeId',
		]);
		expect(paths((await post(TASKS, { taskTitle: 'x', parentId: 'tsk_nothere' })).body)).toEqual(['parentId']);

		// 409: subtask of a closed task.
		expect(await post(TASKS, { taskTitle: 'x', parentId: CLOSED_TASK_ID })).toEqual({
			status: 409,
			body: { error: 'conflict', message: 'Parent task is closed; subtasks cannot be added', details: [] },
		});
	});
});

describe('POST /api/v1/task-projects/topics', () => {
	it('creates a topic (201) and answers every documented error', async () => {
		const topic = {
			taskTitle: 'Incident 42 follow-up',
			taskDescription: 'Close every action item',
			priority: 2,
			dueDate: '2025-03-01T00:00:00Z',
			labelIds: ['lbl_urgent', 'lbl_backend'],
			attachments: [{ url: 'https://example.com/postmortem' }],
		};
		const ok = await post(TOPICS, { ...topic, checklist: 'ignored: not a topic field' });
		expect(ok.status).toBe(201);
		expect(ok.body).toEqual({
			id: expect.stringMatching(/^top_[A-Za-z0-9]{20}$/),
			...topic,
			status: 'open',
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
		});
		// A new topic can parent a task.
		expect((await post(TASKS, { taskTitle: 'child', parentId: ok.body.id })).status).toBe(201);

		expect((await post(TOPICS, { taskTitle: 'x' }, { authorization: '' })).status).toBe(401);
		const viewer = issueJwt(bed.emulator.config.jwtSecret, { expiresInSeconds: 60, role: 'viewer' });
		expect((await post(TOPICS, { taskTitle: 'x' }, { authorization: `Bearer ${viewer}` })).status).toBe(403);
		expect((await post(TOPICS, 'x', { 'content-type': 'text/plain' })).status).toBe(400);

		const types = await post(TOPICS, { taskTitle: 3, labelIds: ['lbl_ops', 4], attachments: ['a'] });
		expect(types.status).toBe(400);
		expect(paths(types.body)).toEqual(['taskTitle', 'labelIds[1]', 'attachments[0]']);
		expect(paths((await post(TOPICS, { taskTitle: 'x', labelIds: 'lbl_ops', attachments: {} })).body)).toEqual([
			'labelIds',
			'attachments',
		]);

		const tooMany = await post(TOPICS, {
			taskTitle: 'x',
			dueDate: 'tomorrow',
			labelIds: Array.from({ length: 21 }, () => 'lbl_ops'),
			attachments: Array.from({ length: 13 }, () => ({})),
		});
		expect(tooMany.status).toBe(422);
		expect(paths(tooMany.body)).toEqual(['dueDate', 'labelIds', 'attachments']);

		const unknownLabel = await post(TOPICS, { taskTitle: 'x', labelIds: ['lbl_ops', 'lbl_urgent', 'lbl_nope'] });
		expect(unknownLabel.status).toBe(404);
		expect(unknownLabel.body).toMatchObject({ error: 'not_found', details: [{ path: 'labelIds[2]' }] });
	});
});
