/**
 * Message → Send and Wait for Response in n8n-core's real engine against the
 * emulator: the question sent (buttons with resume links, or postbacks for
 * answers in the chat), the execution left waiting until the limit, bad input
 * refused before anything is sent, and the run going on with the answer once
 * resumed (resumeWorkflow does what n8n's waiting webhook does). The answer
 * pages and the relay are driven in real n8n (e2e/tests/sendAndWait.e2e.test.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { singleNodeWorkflow, suiteTestbed } from '../../testbed/testbed';
import { ALERTS, ask } from './sendAndWaitQuestion';

const bed = suiteTestbed();

const pushes = () => bed.emulator.logFor('POST', '/bot/v2/message/push');
type Template = { type: string; template: { type: string; text: string; actions: IDataObject[] } };

test('approval: one buttons template with signed resume links, and the execution waits without limit', async () => {
	const run = await bed.runNode(ask({ approvalOptions: { values: { approvalType: 'double', approveLabel: 'Ship it' } } }), { typeVersion: 2 });
	expect(run.error).toBeUndefined();
	expect(run.result.status).toBe('waiting');
	expect(run.result.run.waitTill).toEqual(WAIT_INDEFINITELY);
	const [push] = pushes();
	expect(push.status).toBe(200);
	const body = push.body as { gid: string; tid: string; messages: Template[] };
	expect({ gid: body.gid, tid: body.tid }).toEqual(ALERTS);
	expect(body.messages).toHaveLength(1);
	const { template } = body.messages[0];
	expect(template.text).toBe('Deploy release 2.4?');
	expect(template.actions.map((a) => [a.type, a.label])).toEqual([
		['uri', 'Ship it'],
		['uri', 'Decline'],
	]);
	const links = template.actions.map((a) => new URL(a.linkUri as string));
	for (const [link, approved] of [[links[0], 'true'], [links[1], 'false']] as const) {
		// The harness's waiting base, execution and node id; signed with the instance's secret.
		expect(link.pathname).toMatch(/^\/webhook-waiting\/harness-\d+\/workplace-node$/);
		expect(link.searchParams.get('approved')).toBe(approved);
		expect(link.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
	}
	expect(run.json[0]).toMatchObject({ sent: true, waitingForAnswer: true, groupId: ALERTS.gid });
});

test('a long question goes as a text, then the buttons', async () => {
	const question = `Please review: ${'x'.repeat(200)}`;
	await bed.runNode(ask({ message: question }), { typeVersion: 2 });
	const messages = (pushes()[0].body as { messages: Array<IDataObject | Template> }).messages;
	expect(messages[0]).toEqual({ type: 'text', text: question });
	expect((messages[1] as Template).template).toMatchObject({ type: 'buttons', text: 'Your answer:' });
});

test('Answer in Chat: postback buttons carrying the choice and the resume path, and a limit sets the wait\'s end', async () => {
	const before = Date.now();
	const run = await bed.runNode(
		ask({
			approvalOptions: { values: { approvalType: 'double' } },
			options: { answerInChat: true, approvers: SEED_USER_IDS.nattaya, limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
		}),
		{ typeVersion: 2 },
	);
	expect(run.result.status).toBe('waiting');
	const waitTill = run.result.run.waitTill as Date;
	expect(waitTill.getTime()).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
	expect(waitTill.getTime()).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
	const { template } = (pushes()[0].body as { messages: Template[] }).messages[0];
	expect(template.actions.map((a) => [a.type, a.label, a.text])).toEqual([
		['postback', 'Approve', 'Approve'],
		['postback', 'Decline', 'Decline'],
	]);
	// The choice, the resume path for chat answers, and the node's signature of both.
	expect(template.actions[0].data).toMatch(/^n8n-answer\|approve\|\/webhook-waiting\/harness-\d+\/workplace-node\?answer=chat&question=[\w-]{22}&signature=[0-9a-f]{64}\|[\w-]{22}$/);
	expect(template.actions[1].data).toMatch(/^n8n-answer\|decline\|/);
});

test('to a user: a direct message with one link per answer', async () => {
	await bed.runNode(ask({ sendTo: 'user', userId: { __rl: true, mode: 'id', value: SEED_USER_IDS.nattaya }, responseType: 'freeText' }), { typeVersion: 2 });
	const [sent] = bed.emulator.logFor('POST', '/bot/v1/direct/message');
	expect(sent.body).toMatchObject({ uid: SEED_USER_IDS.nattaya, message: { type: 'text' } });
	expect(((sent.body as IDataObject).message as IDataObject).data).toMatch(/^Deploy release 2\.4\?\n\nRespond: http:\/\/.+\/webhook-waiting\/harness-\d+\/workplace-node\?approved=true&question=[\w-]{22}&signature=[0-9a-f]{64}$/);
});

test('several input items ask one question: the execution waits for one answer', async () => {
	const run = await bed.runNode(ask(), { typeVersion: 2, items: [{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }] });
	expect(run.result.status).toBe('waiting');
	expect(pushes()).toHaveLength(1);
});

test.each([
	[{ approvalOptions: { values: { approveLabel: 'Approve this deployment now' } } }, 'Invalid "Approve Label" in item 0: must be at most 20 characters (got 27)'],
	[{ options: { approvers: '1001' } }, 'Invalid "Approvers" in item 0: needs Answer in Chat: a link cannot tell who opened it'],
	[{ sendTo: 'user', userId: { __rl: true, mode: 'id', value: SEED_USER_IDS.nattaya }, options: { answerInChat: true } }, 'Invalid "Answer in Chat" in item 0: needs a group or topic: the direct message endpoint sends no buttons'],
	[{ responseType: 'customForm', formFields: { values: [] } }, 'Invalid "Form Fields" in item 0: add at least one field'],
	[{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' } } } }, 'Invalid "Limit Wait Time" in item 0: Max Date and Time is in the past (2020-01-01T00:00:00.000Z)'],
	[{ message: '  ' }, 'Invalid "Message" in item 0: is required and cannot be empty'],
])('refused before anything is sent: %p', async (parameters, message) => {
	const run = await bed.runNode(ask(parameters as INodeParameters), { typeVersion: 2 });
	expect(run.error?.message).toBe(message);
	expect(run.result.status).toBe('error');
	expect(bed.emulator.log.filter((entry) => entry.path.startsWith('/bot/v'))).toEqual([]);
});

const interval = (resumeAmount: unknown, resumeUnit: unknown) => ({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount, resumeUnit } } } });
test.each([
	// Limit Wait Time from expressions: inherited names are no unit, and the wait must end where n8n can wait (issue 30, item 6).
	[interval(1, '={{ "constructor" }}'), 'Invalid "Limit Wait Time" in item 0: Unit must be minutes, hours or days, got "constructor"'],
	[interval(1, '={{ "valueOf" }}'), 'Invalid "Limit Wait Time" in item 0: Unit must be minutes, hours or days, got "valueOf"'],
	[interval(1, '={{ "__proto__" }}'), 'Invalid "Limit Wait Time" in item 0: Unit must be minutes, hours or days, got "__proto__"'],
	[interval('={{ 1e20 }}', 'minutes'), 'Invalid "Limit Wait Time" in item 0: Amount ends the wait on or after 3000-01-01T00:00:00.000Z, which n8n reads as waiting indefinitely; leave Limit Wait Time off for that'],
	[{ options: { limitWaitTime: { values: { limitType: '={{ "toString" }}', resumeAmount: 1 } } } }, 'Invalid "Limit Wait Time" in item 0: Limit Type must be After Time Interval or At Specified Time, got "toString"'],
	[{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '3000-06-01T00:00:00Z' } } } }, 'Invalid "Limit Wait Time" in item 0: Max Date and Time ends the wait on or after 3000-01-01T00:00:00.000Z, which n8n reads as waiting indefinitely; leave Limit Wait Time off for that'],
	// Labels a person reads to decide (issue 30, item 8).
	[{ approvalOptions: { values: { approveLabel: 'Approve\u202E' } } }, 'Invalid "Approve Label" in item 0: must not contain bidirectional control characters (they change how the label reads)'],
	[{ approvalOptions: { values: { approveLabel: '\u202Eenilced' } } }, 'Invalid "Approve Label" in item 0: must not contain bidirectional control characters (they change how the label reads)'],
	[{ approvalOptions: { values: { approveLabel: '\u200B\u200B\u2060' } } }, 'Invalid "Approve Label" in item 0: must show something: it has only spaces or invisible characters'],
	[{ approvalOptions: { values: { approvalType: 'double', approveLabel: 'Decline', disapproveLabel: 'Decline' } } }, 'Invalid "Disapprove Label" in item 0: reads the same as the Approve Label ("Decline"): a person could not tell the answers apart'],
	[{ approvalOptions: { values: { approvalType: 'double', approveLabel: 'Decline', disapproveLabel: 'DECLINE\u200B' } } }, 'Invalid "Disapprove Label" in item 0: reads the same as the Approve Label ("Decline"): a person could not tell the answers apart'],
	[{ responseType: 'freeText', options: { messageButtonLabel: '\u2066Respond\u2069' } }, 'Invalid "Message Button Label" in item 0: must not contain bidirectional control characters (they change how the label reads)'],
	// Form labels n8n leaves out of items when it copies them (issue 30, item 6).
	[{ responseType: 'customForm', formFields: { values: [{ fieldLabel: '__proto__', requiredField: true }] } }, 'Invalid "Form Fields" in item 0: field 1 cannot be labelled "__proto__": n8n leaves a field of that name out of items; choose another label'],
	[{ responseType: 'customForm', formFields: { values: [{ fieldLabel: 'Name' }, { fieldLabel: 'constructor' }] } }, 'Invalid "Form Fields" in item 0: field 2 cannot be labelled "constructor": n8n leaves a field of that name out of items; choose another label'],
	[{ responseType: 'customForm', formFields: { values: [{ fieldLabel: 'Team', fieldType: 'toString' }] } }, 'Invalid "Form Fields" in item 0: field "Team" has an unknown type "toString"'],
])('refused before anything is sent, naming the field: %p', async (parameters, message) => {
	const run = await bed.runNode(ask(parameters as INodeParameters), { typeVersion: 2 });
	expect(run.error?.message).toBe(message);
	expect(run.result.status).toBe('error');
	expect(bed.emulator.log.filter((entry) => entry.path.startsWith('/bot/v'))).toEqual([]);
});

test('the question is recorded with the execution, in its custom data: its id (the links\' question) and the end of its wait', async () => {
	const before = Date.now();
	const run = await bed.runNode(ask({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 30, resumeUnit: 'minutes' } } } }), { typeVersion: 2 });
	const metadata = run.result.run.data.resultData.metadata as Record<string, string>;
	const [key, record] = Object.entries(metadata)[0];
	expect(key).toMatch(/^workplaceQuestion_[0-9a-f]{24}$/);
	const [id, end] = record.split('.');
	const { template } = (pushes()[0].body as { messages: Template[] }).messages[0];
	expect(new URL(template.actions[0].linkUri as string).searchParams.get('question')).toBe(id);
	// One moment decides both: the recorded end is the date n8n waits until.
	expect(Number(end)).toBe((run.result.run.waitTill as Date).getTime());
	expect(Number(end)).toBeGreaterThanOrEqual(before + 30 * 60_000);
});

test('a question that cannot be recorded with the execution (its custom data full: 10 entries taken) is not sent', async () => {
	const workflow = singleNodeWorkflow(ask(), { typeVersion: 2 });
	workflow.nodes.splice(1, 0, {
		id: 'custom-data',
		name: 'Execution Data',
		type: 'n8n-nodes-base.executionData',
		typeVersion: 1.1,
		position: [100, 0],
		parameters: { dataToSave: { values: Array.from({ length: 10 }, (_, n) => ({ key: `k${n}`, value: 'v' })) } },
	});
	const trigger = workflow.nodes[0].name;
	workflow.connections = { [trigger]: { main: [[{ node: 'Execution Data', type: 'main', index: 0 }]] }, 'Execution Data': { main: [[{ node: 'Workplace', type: 'main', index: 0 }]] } };
	const run = await bed.run(workflow);
	expect(run.status).toBe('error');
	expect(run.nodes.Workplace[0].error?.message).toBe('Send and Wait could not record its question with the execution: the execution\'s custom data holds at most 10 entries, and they are taken');
	expect(pushes()).toEqual([]);
});

test('resumed with the answer, the run goes on with it: the next node gets data.approved', async () => {
	const workflow = singleNodeWorkflow(ask({ approvalOptions: { values: { approvalType: 'double' } } }), { typeVersion: 2 });
	workflow.nodes.push({ id: 'after', name: 'After', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [400, 0], parameters: {} });
	workflow.connections.Workplace = { main: [[{ node: 'After', type: 'main', index: 0 }]] };
	const waiting = await bed.run(workflow);
	expect(waiting.status).toBe('waiting');
	expect(waiting.nodes.After).toBeUndefined();
	const answer = { data: { approved: false, respondedAt: new Date().toISOString() } };
	const resumed = await bed.resume(workflow, waiting, [{ json: answer }]);
	expect(resumed.status).toBe('success');
	expect(resumed.json('After')).toEqual([answer]);
	// The question was sent once: resuming sends nothing again.
	expect(pushes()).toHaveLength(1);
});
