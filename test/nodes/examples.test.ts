/**
 * Every importable workflow in examples/ runs in the real engine against the
 * emulator, as `npm run demo` runs it, with no node failing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { EXAMPLE_ANSWERS, EXAMPLE_EVENTS, exampleTrigger, needsAiNodes } from '../../testbed/examples';
import type { RunWorkflowResult, WorkflowJson } from '../../testbed/engine';
import { suiteTestbed } from '../../testbed/testbed';
import { ROOT } from '../../testbed/root';
import { Workplace } from '../../nodes/Workplace/Workplace.node';
import { WorkplaceTrigger } from '../../nodes/WorkplaceTrigger/WorkplaceTrigger.node';

const dir = path.join(ROOT, 'examples');
const read = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as WorkflowJson;
const all = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
// n8n's AI nodes are not in the harness: those examples run in real n8n (needsAiNodes).
const examples = all.filter((file) => !needsAiNodes(read(file)));

it('only the examples built on n8n\'s AI nodes (AI Agent, MCP Server Trigger) are left to real n8n', () => {
	expect(all.filter((file) => needsAiNodes(read(file)))).toEqual(['ai-agent-task-approval.json', 'mcp-server-tools.json']);
});

const bed = suiteTestbed();

it('has example workflows', () => {
	expect(examples.length).toBeGreaterThanOrEqual(7);
});


/**
 * Runs an example as it runs in n8n: from its Manual Trigger, if it has one;
 * then, if it has a Workplace Trigger, behind a webhook server that the
 * emulator delivers its signed events to (EXAMPLE_EVENTS), one execution each.
 */
async function runExample(file: string): Promise<RunWorkflowResult[]> {
	const workflow = read(file);
	const runs: RunWorkflowResult[] = [];
	if (workflow.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger') || !exampleTrigger(workflow)) {
		const answers = EXAMPLE_ANSWERS[file];
		if (!answers) runs.push(await bed.run(workflow));
		// An example that waits for a person: one run per answer, each resumed with it.
		for (const answer of answers ?? []) {
			const waiting = await bed.run(workflow);
			expect(waiting.status).toBe('waiting');
			runs.push(await bed.resume(workflow, waiting, answer.map((json) => ({ json: json as IDataObject }))));
		}
	}
	const trigger = exampleTrigger(workflow);
	if (trigger) {
		const server = await bed.startWebhook(workflow, trigger.name);
		try {
			for (const event of EXAMPLE_EVENTS[file] ?? []) {
				const [delivery] = await bed.emulator.playUser({ url: `${server.url}/webhook/${trigger.webhookId}/webhook`, ...event });
				expect(delivery.status).toBe(200);
				await server.settled();
			}
			expect(server.executions).toHaveLength(EXAMPLE_EVENTS[file]?.length ?? 0);
			runs.push(...server.executions);
		} finally {
			await server.close();
		}
	}
	return runs;
}

/** The newest version each of the package's nodes offers (what a node added in the editor gets). */
function newestVersions(): Record<string, number> {
	const newest: Record<string, number> = {};
	for (const NodeClass of [Workplace, WorkplaceTrigger]) {
		const { description } = new NodeClass();
		newest[`n8n-nodes-workplace.${description.name}`] = Math.max(...[description.version].flat());
	}
	return newest;
}

it.each(examples)('examples/%s uses the newest version of each of the package\'s nodes', (file) => {
	const newest = newestVersions();
	const older = read(file)
		.nodes.filter((node) => newest[node.type] !== undefined && node.typeVersion < newest[node.type])
		.map((node) => `${node.name} (${node.type} version ${node.typeVersion}, newest ${newest[node.type]})`);
	expect(older).toEqual([]);
});

it('every example started by a Workplace Trigger says which events start it', () => {
	for (const file of examples) if (exampleTrigger(read(file))) expect(EXAMPLE_EVENTS[file]?.length).toBeGreaterThan(0);
});

it.each(examples)('examples/%s runs every node without an error', async (file) => {
	const workflow = read(file);
	const runs = await runExample(file);
	for (const result of runs) {
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		for (const node of workflow.nodes) expect(result.nodes[node.name]?.[0]?.error).toBeUndefined();
	}
	// Each Workplace node produced output in some run (reached the emulator or built locally).
	const workplaceNodes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-workplace.workplace');
	for (const node of workplaceNodes) expect(runs.some((r) => (r.nodes[node.name]?.[0]?.outputs[0]?.length ?? 0) > 0)).toBe(true);
});

it('the incident room example opens a group with the found user and a postback for it', async () => {
	const result = await bed.run(read('incident-room.json'));
	const [group] = result.json('Open the incident group');
	expect(group).toMatchObject({ name: 'Incident 4711', type: 'group_chatv2' });
	const created = bed.emulator.log.find((e) => e.method === 'POST' && e.path === '/bot/v1/groups');
	expect(created?.parts?.filter((p) => p.name === 'uids[]').map((p) => p.value)).toEqual(['64b7f0a1c2d3e4f5a6b7c801']);
	expect(result.json('Build the acknowledge button')).toEqual([
		{ type: 'postback', label: 'Acknowledge', data: `ack:${String(group._id)}` },
	]);
});

it('the ticket-to-task example sends a Bangkok 17:00 due date as 10:00Z with its checklist', async () => {
	await bed.run(read('ticket-to-task.json'));
	const sent = bed.emulator.log.find((e) => e.method === 'POST' && e.path === '/api/v1/task-projects/tasks');
	expect(sent?.body).toEqual({
		taskTitle: 'Call the customer back about ticket 4711',
		taskDescription: 'The customer reported that the export stops at 10,000 rows.',
		priority: 1,
		dueDate: '2026-12-01T10:00:00Z',
		assigneeId: '64b7f0a1c2d3e4f5a6b7c803',
		checklist: [
			{ description: 'Reproduce the export', isDone: false },
			{ description: 'Reply to the customer', isDone: false },
		],
		parentId: 'top_seed0001',
	});
});

it('the alert example posts buttons (one built by Message Action → Build) and a quick reply to the Alerts topic', async () => {
	await runExample('group-alert-with-buttons.json');
	const [record] = bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts });
	expect(record.messages).toEqual([
		{
			type: 'template',
			template: {
				type: 'buttons',
				title: 'Incident 4711',
				text: 'API latency above 2 s for 5 minutes',
				actions: [
					{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', text: 'Acknowledged' },
					{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.example.com/incidents/4711' },
					{ type: 'postback', label: 'Escalate', data: 'escalate:4711' },
				],
			},
			quickReply: { items: [{ type: 'action', action: { type: 'message', label: 'Who is on call?', text: 'Who is on call?' } }] },
		},
	]);
});

it('the approval loop asks with buttons, then answers each tap in its chat: approve creates a task, reject does not', async () => {
	const before = bed.emulator.taskProjects.tasks.size;
	const runs = await runExample('approval-loop.json');
	const records = bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: '' });
	expect(records.map((r) => r.route)).toEqual(['POST /bot/v2/message/push', 'POST /bot/v1/message/text', 'POST /bot/v1/message/text']);
	const task = runs[1].json('Create the leave task')[0];
	expect(task).toMatchObject({ taskTitle: 'Book the approved leave (request 7)', taskDescription: `Approved in the chat by user ${SEED_USER_IDS.somchai}` });
	expect(bed.emulator.taskProjects.tasks.size).toBe(before + 1);
	expect(records[1].text).toBe(`Approved. Task ${String(task.id)} was created to book the leave.`);
	expect(records[2].text).toBe('Rejected. Nattaya will be told.');
	// Each reply used the token of the tap it answers.
	const tokens = runs.slice(1).map((r) => (r.json('When someone taps a button')[0] as IDataObject).replyToken);
	expect(records.slice(1).map((r) => r.target.replyToken)).toEqual(tokens);
});

it('the welcome example answers a join in the new direct chat with quick replies', async () => {
	await runExample('welcome-on-join.json');
	const [record] = bed.emulator.messages({ uid: SEED_USER_IDS.anan });
	expect(record).toMatchObject({ route: 'POST /bot/v1/message/quickreply', text: 'Welcome! I can help with leave, IT and the handbook. What do you need?' });
	expect((record.meta as IDataObject).quickreply).toMatchObject({ template: 'default', items: [{ value: 'Request leave' }, { value: 'IT help' }, { value: 'Handbook', data: { text: 'Handbook' } }] });
});

it('the knowledge change alert posts each replaced or deleting file, its knowledge base and what changed to the Alerts topic', async () => {
	const workflow = read('knowledge-change-alert.json');
	// A manual run (the editor's "Execute workflow") posts the newest file as a sample.
	const sample = await bed.run(workflow);
	expect(sample.status).toBe('success');
	const samples = sample.json('When a knowledge file is replaced or starts deleting');
	// One sample per chosen event, each as a real item of it (issue 33): the message reads as a real one would.
	expect(samples.map((item) => [item.sample, item.event])).toEqual([[true, 'fileReplaced'], [true, 'fileStatusChanged']]);
	const newest = [...bed.emulator.knowledge.files.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
	const sampleTexts = bed.emulator
		.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts })
		.map((m) => m.text ?? (m.messages?.[0] as { text?: string } | undefined)?.text);
	expect(sampleTexts).toEqual([
		expect.stringMatching(new RegExp(`^Sample: "${newest.meta.originalName}" in "\\S.*" was replaced \\(updatedAt: … → \\S+, size: … → ${newest.meta.size}, originalName: … → ${newest.meta.originalName}, status: … → ${newest.status}\\)$`)),
		expect.stringMatching(new RegExp(`^Sample: "${newest.meta.originalName}" in "\\S.*" is now ${newest.status} \\(`)),
	]);
	// Then the active workflow: the trigger polls, and each poll's items run the rest of the workflow.
	const trigger = workflow.nodes[0];
	const poller = bed.knowledgePoller(trigger.parameters);
	expect(await poller.poll()).toBeNull();
	bed.emulator.knowledge.replaceFile(2, { content: 'type,days\nannual,25\n' });
	bed.emulator.knowledge.setStatus(4, 'deleting');
	const polled = await poller.poll();
	expect(polled?.[0].map((item) => item.json.event)).toEqual(['fileReplaced', 'fileStatusChanged']);
	bed.emulator.messaging.reset();
	const run = await bed.runFrom(workflow, trigger.name, polled![0]);
	expect(run.status).toBe('success');
	const texts = bed.emulator
		.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts })
		.map((m) => m.text ?? (m.messages?.[0] as { text?: string } | undefined)?.text);
	expect(texts).toHaveLength(2);
	expect(texts[0]).toMatch(/^"leave-policy.csv" in "Employee Handbook" was replaced \(updatedAt: \S+ → \S+, size: \d+ → 20\)$/);
	expect(texts[1]).toMatch(/^"policies.xml" in "Employee Handbook" is now deleting \(updatedAt: \S+ → \S+, status: active → deleting\)$/);
});
