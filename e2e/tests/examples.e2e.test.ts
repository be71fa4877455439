/**
 * Every example workflow in a real n8n 2.41.1 with the package installed as a
 * community package: imported with `n8n import:workflow`, run with
 * `n8n execute --id`, and the outputs checked against the emulator's state.
 *
 * The scheduled sync example starts with a Schedule Trigger. `n8n execute`
 * starts a workflow only from a Manual (or Execute Workflow / manual chat)
 * trigger (findCliWorkflowStart in n8n/dist/utils.js) and refuses it with
 * "Missing node to start execution"; the test pins that, then runs the example
 * unchanged the way a user runs it on demand: the editor's "Execute workflow"
 * (POST /rest/workflows/:id/run from the Schedule Trigger) on `n8n start`.
 * The examples started by a Workplace Trigger (approval loop, welcome on join)
 * are published before n8n starts, as a user publishes them; the emulator then
 * plays a user and delivers its signed events to their production webhook URLs,
 * and the replies, pushes and tasks are checked in the emulator's records. The
 * approval loop's Manual Trigger half runs with `n8n execute` first.
 * n8n 2.41 keeps binary data on disk unless told otherwise, so this suite runs
 * in the in-memory mode (`default`); binaryData.e2e.test.ts covers `filesystem`.
 */
import { readFileSync } from 'node:fs';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { EXAMPLE_EVENTS, exampleTrigger, exampleWorkflows } from '../../testbed/examples';
import { nodeOutput } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { e2eTestbed } from '../lib/testbed';

const examples = exampleWorkflows();
const example = (file: string) => {
	const found = examples.find((e) => e.file === file);
	if (!found) throw new Error(`no examples/${file}`);
	return found;
};

// n8n starts (server()) for the tests that need it; `n8n execute` needs no server.
const bed = e2eTestbed({
	env: { N8N_DEFAULT_BINARY_DATA_MODE: 'default' },
	workflows: examples.map((e) => e.workflow),
	// 2.x: publishing replaces activation; n8n registers the production webhooks of published workflows at start.
	publish: examples.filter((e) => exampleTrigger(e.workflow)).map((e) => e.id),
	start: false,
});
beforeEach(() => bed.emulator.reset());

/**
 * The emulator plays a user towards an example's production webhook, retrying
 * while n8n still answers 404 (it registers the webhook while it activates).
 */
async function deliver(file: string, index: number): Promise<string> {
	const trigger = exampleTrigger(example(file).workflow)!;
	const url = `${bed.n8n.url}/webhook/${String(trigger.webhookId)}/webhook`;
	const event = EXAMPLE_EVENTS[file][index];
	const delivery = await until(`the webhook of ${file}`, async () => {
		const [d] = await bed.emulator.playUser({ url, ...event });
		return d.status === 404 ? undefined : d;
	}, 120_000);
	expect(delivery.status).toBe(200);
	return delivery.replyTokens[0];
}

/** No emulator secret in anything n8n printed or returned. */
function expectNoSecrets(text: string): void {
	const { apiKey, jwt, clientSecret } = bed.emulator.credentials;
	for (const secret of [apiKey, jwt, clientSecret]) expect(text).not.toContain(secret);
}

it('there are examples to run, each with a stable id', () => {
	expect(examples.map((e) => e.file)).toEqual(
		expect.arrayContaining([
			'approval-loop.json',
			'group-alert-with-buttons.json',
			'incident-room.json',
			'knowledge-base-inventory.json',
			'knowledge-change-alert.json',
			'scheduled-knowledge-base-sync.json',
			'ticket-to-task.json',
			'welcome-on-join.json',
		]),
	);
	expect(new Set(examples.map((e) => e.id)).size).toBe(examples.length);
});

it('knowledge-base-inventory: lists every knowledge base and gets each one', async () => {
	const result = await bed.n8n.execute(example('knowledge-base-inventory.json').id);
	expect(result.data.resultData.error).toBeUndefined();
	const seeded = [...bed.emulator.knowledge.bases.values()].sort((a, b) => a.id - b.id);
	expect(seeded.length).toBeGreaterThan(1);
	const listed = nodeOutput(result, 'List knowledge bases');
	expect(listed.map((kb) => kb.id)).toEqual(seeded.map((kb) => kb.id));
	const got = nodeOutput(result, 'Get each knowledge base');
	expect(got.map((kb) => [kb.id, kb.name, kb.supportedLanguages])).toEqual(seeded.map((kb) => [kb.id, kb.name, kb.supportedLanguages]));
	expect(bed.emulator.logFor('GET', /^\/api\/v1\/knowledge\/\d+$/)).toHaveLength(seeded.length);
	expectNoSecrets(JSON.stringify(result));
});

it('incident-room: finds the engineer, opens a group with them, adds a topic and builds the button', async () => {
	const result = await bed.n8n.execute(example('incident-room.json').id);
	expect(result.data.resultData.error).toBeUndefined();
	const [engineer] = nodeOutput(result, 'Find the on-call engineer');
	// Version 3 with Simplify on: the user's id as `id`.
	expect(engineer).toMatchObject({ id: '64b7f0a1c2d3e4f5a6b7c801', username: 'somchai.k' });

	const [group] = nodeOutput(result, 'Open the incident group');
	const stored = bed.emulator.bot.groups.get(String(group._id));
	expect(stored).toMatchObject({ name: 'Incident 4711', type: 'group_chatv2' });
	expect(stored?.members.has('64b7f0a1c2d3e4f5a6b7c801')).toBe(true);

	const [topic] = nodeOutput(result, 'Add a timeline topic');
	expect(bed.emulator.bot.topics.get(String(topic._id))).toEqual({ _id: topic._id, name: 'Timeline', gid: group._id });
	expect(nodeOutput(result, 'Build the acknowledge button')).toEqual([{ type: 'postback', label: 'Acknowledge', data: `ack:${String(group._id)}` }]);
	expectNoSecrets(JSON.stringify(result) + bed.n8n.output.join(''));
});

it('ticket-to-task: creates the subtask with a Bangkok 17:00 due date sent as 10:00Z', async () => {
	const before = new Set(bed.emulator.taskProjects.tasks.keys());
	const result = await bed.n8n.execute(example('ticket-to-task.json').id);
	expect(result.data.resultData.error).toBeUndefined();
	const [created] = nodeOutput(result, 'Create the follow-up task');
	expect(before.has(String(created.id))).toBe(false);
	expect(bed.emulator.taskProjects.tasks.get(String(created.id))).toMatchObject({
		taskTitle: 'Call the customer back about ticket 4711',
		priority: 1,
		dueDate: '2026-12-01T10:00:00Z',
		assigneeId: '64b7f0a1c2d3e4f5a6b7c803',
		parentId: 'top_seed0001',
		checklist: [
			{ description: 'Reproduce the export', isDone: false },
			{ description: 'Reply to the customer', isDone: false },
		],
		status: 'open',
	});
	expect(created).toMatchObject({ id: created.id, dueDate: '2026-12-01T10:00:00Z' });
	expectNoSecrets(JSON.stringify(result));
});

describe('scheduled-knowledge-base-sync (Schedule Trigger)', () => {
	const sync = () => example('scheduled-knowledge-base-sync.json');

	it('`n8n execute` refuses it: the CLI starts only from a manual trigger', async () => {
		await expect(bed.n8n.execute(sync().id)).rejects.toThrow(/Missing node to start execution/);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('runs from its Schedule Trigger as the editor runs it: replaces faq.csv, then skips it as unchanged', async () => {
		const rest = await bed.server();
		const trigger = 'Every night at 02:00';
		const before = bed.emulator.knowledge.files.get(7);
		expect(before?.meta.originalName).toBe('faq.csv');
		const shaBefore = before?.sha256;

		const first = await rest.runManually(sync().id, trigger);
		expect(first.status).toBe('success');
		const [replaced] = nodeOutput(first, 'Replace faq.csv');
		const after = bed.emulator.knowledge.files.get(7);
		expect(after?.sha256).not.toBe(shaBefore);
		// Version 3 with Simplify on: the file as uploaded, and the upload's sha256.
		expect(replaced).toMatchObject({ id: 7, originalName: 'faq.csv', mimeType: 'text/csv', sha256: after?.sha256 });
		const stored = readFileSync(String(after?.contentPath), 'utf8');
		expect(stored).toContain('Which languages are supported?');
		expect(bed.emulator.logFor('PUT', '/api/v1/knowledge/2/files/7')).toHaveLength(1);

		bed.emulator.clearLog();
		const second = await rest.runManually(sync().id, trigger);
		expect(second.status).toBe('success');
		expect(nodeOutput(second, 'Replace faq.csv')).toEqual([expect.objectContaining({ id: 7, skipped: 'unchanged' })]);
		// Skip If Unchanged: the stored file's metadata and a streamed download, no upload.
		expect(bed.emulator.logFor('GET', '/api/v1/knowledge/2/files/7/download')).toHaveLength(1);
		expect(bed.emulator.logFor('PUT', '/api/v1')).toHaveLength(0);
		expectNoSecrets(JSON.stringify([first, second]) + bed.n8n.output.join(''));
	});
});

it('knowledge-change-alert: run from its trigger in the editor, posts a sample of each chosen event, made from the newest knowledge file, to the Alerts topic', async () => {
	const rest = await bed.server();
	const alert = example('knowledge-change-alert.json');
	const trigger = alert.workflow.nodes.find((n) => n.type === 'n8n-nodes-workplace.workplaceKnowledgeTrigger')!;
	const result = await rest.runManually(alert.id, trigger.name);
	expect(result.status).toBe('success');
	const samples = nodeOutput(result, trigger.name);
	const newest = [...bed.emulator.knowledge.files.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
	// The example watches File Replaced and File Status Changed: a sample of each, never "added".
	expect(samples).toEqual([
		expect.objectContaining({ sample: true, event: 'fileReplaced', id: newest.id, originalName: newest.meta.originalName, changes: expect.any(Object) }),
		expect.objectContaining({ sample: true, event: 'fileStatusChanged', id: newest.id, originalName: newest.meta.originalName, changes: expect.any(Object) }),
	]);
	const posted = bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts });
	const base = String(samples[0].knowledgeName);
	const texts = posted.map((m) => m.text ?? (m.messages?.[0] as { text?: string } | undefined)?.text ?? '');
	const beginnings = [
		`Sample: "${newest.meta.originalName}" in "${base}" was replaced (updatedAt: … → `,
		`Sample: "${newest.meta.originalName}" in "${base}" is now ${newest.status} (`,
	];
	expect(texts.map((text, n) => text.slice(0, beginnings[n]?.length))).toEqual(beginnings);
	expectNoSecrets(JSON.stringify(result) + bed.n8n.output.join(''));
});

it('group-alert-with-buttons: posts the alert with its buttons (one from Message Action → Build) to the Alerts topic', async () => {
	const result = await bed.n8n.execute(example('group-alert-with-buttons.json').id);
	expect(result.data.resultData.error).toBeUndefined();
	expect(nodeOutput(result, 'Post the alert to the Alerts topic')).toEqual([expect.objectContaining({ sent: true, messageCount: 1 })]);
	const [record] = bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts });
	expect(record.route).toBe('POST /bot/v2/message/push');
	expect(record.messages).toEqual([
		expect.objectContaining({
			type: 'template',
			template: expect.objectContaining({
				title: 'Incident 4711',
				actions: [
					{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', text: 'Acknowledged' },
					{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.example.com/incidents/4711' },
					{ type: 'postback', label: 'Escalate', data: 'escalate:4711' },
				],
			}),
		}),
	]);
	expectNoSecrets(JSON.stringify(result));
});

describe('examples started by the Workplace Trigger (published, events signed and delivered by the emulator)', () => {
	it('approval-loop: asks with buttons; a tap on Approve creates a task and replies, a tap on Reject replies', async () => {
		const asked = await bed.n8n.execute(example('approval-loop.json').id);
		expect(asked.data.resultData.error).toBeUndefined();
		await bed.server();
		const tasksBefore = new Set(bed.emulator.taskProjects.tasks.keys());
		const approveToken = await deliver('approval-loop.json', 0);
		const rejectToken = await deliver('approval-loop.json', 1);
		const records = await until('the two replies', () => {
			const r = bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: '' });
			return r.length >= 3 ? r : undefined;
		}, 120_000);
		expect(records.map((r) => r.route)).toEqual(['POST /bot/v2/message/push', 'POST /bot/v1/message/text', 'POST /bot/v1/message/text']);
		const created = [...bed.emulator.taskProjects.tasks.values()].filter((t) => !tasksBefore.has(t.id));
		expect(created.map((t) => t.taskTitle)).toEqual(['Book the approved leave (request 7)']);
		const byToken = new Map(records.slice(1).map((r) => [r.target.replyToken, r.text]));
		expect(byToken.get(approveToken)).toBe(`Approved. Task ${created[0].id} was created to book the leave.`);
		expect(byToken.get(rejectToken)).toBe('Rejected. Nattaya will be told.');
		expectNoSecrets(bed.n8n.output.join(''));
	});

	it('welcome-on-join: a join is answered in the new direct chat with quick replies', async () => {
		await bed.server();
		const token = await deliver('welcome-on-join.json', 0);
		const [record] = await until('the welcome', () => {
			const r = bed.emulator.messages({ uid: SEED_USER_IDS.anan });
			return r.length > 0 ? r : undefined;
		}, 120_000);
		expect(record).toMatchObject({ route: 'POST /bot/v1/message/quickreply', target: { replyToken: token } });
		expect(record.text).toBe('Welcome! I can help with leave, IT and the handbook. What do you need?');
	});
});

