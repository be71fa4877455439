/**
 * Every importable workflow in examples/ runs in the real engine against the
 * emulator, as `npm run demo` runs it, with no node failing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { WorkflowJson } from '../harness/engine';
import { ROOT, Testbed } from '../harness/testbed';

const dir = path.join(ROOT, 'examples');
const examples = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

let bed: Testbed;
beforeAll(async () => {
	bed = await Testbed.start();
});
afterAll(async () => {
	await bed?.close();
});
beforeEach(() => bed.emulator.reset());

it('has example workflows', () => {
	expect(examples.length).toBeGreaterThanOrEqual(4);
});

it.each(examples)('examples/%s runs every node without an error', async (file) => {
	const workflow = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as WorkflowJson;
	const result = await bed.run(workflow);
	expect(result.error).toBeUndefined();
	expect(result.status).toBe('success');
	for (const node of workflow.nodes) {
		const runs = result.nodes[node.name];
		expect(runs?.[0]?.error).toBeUndefined();
	}
	// Each Workplace node produced output and reached the emulator or built locally.
	const workplaceNodes = workflow.nodes.filter((n) => n.type === 'n8n-nodes-workplace.workplace');
	for (const node of workplaceNodes) expect(result.items(node.name).length).toBeGreaterThan(0);
});

it('the incident room example opens a group with the found user and a postback for it', async () => {
	const workflow = JSON.parse(readFileSync(path.join(dir, 'incident-room.json'), 'utf8')) as WorkflowJson;
	const result = await bed.run(workflow);
	const [group] = result.json('Open the incident group');
	expect(group).toMatchObject({ name: 'Incident 4711', type: 'group_chatv2' });
	const created = bed.emulator.log.find((e) => e.method === 'POST' && e.path === '/bot/v1/groups');
	expect(created?.parts?.filter((p) => p.name === 'uids[]').map((p) => p.value)).toEqual(['64b7f0a1c2d3e4f5a6b7c801']);
	expect(result.json('Build the acknowledge button')).toEqual([
		{ type: 'postback', label: 'Acknowledge', data: `ack:${String(group._id)}` },
	]);
});

it('the ticket-to-task example sends a Bangkok 17:00 due date as 10:00Z with its checklist', async () => {
	const workflow = JSON.parse(readFileSync(path.join(dir, 'ticket-to-task.json'), 'utf8')) as WorkflowJson;
	await bed.run(workflow);
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
