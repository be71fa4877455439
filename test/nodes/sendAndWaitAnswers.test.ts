/**
 * Send and Wait's waiting webhook in n8n-core's real WebhookContext, served
 * over real HTTP as n8n's waiting webhook serves it (with the waiting
 * execution's id): of answers arriving at the same moment only the first
 * resumes the execution and is told it was recorded; every later one is told
 * the question was answered already (a page for a link, `alreadyAnswered` for
 * an answer relayed from the chat, which the trigger turns into its reply).
 * n8n 1.x's waiting webhook has no lock of its own, so this is what keeps one
 * question from being answered twice there (e2e/tests/waitingMany.e2e.test.ts
 * measures it in real n8n).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { botSigningSecret, parseAnswerPostback, relayBody, type Choice } from '../../shared/sendAndWait/chatAnswer';
import { CHAT_REPLIES, relayOutcome } from '../../nodes/WorkplaceTrigger/answerRelay';
import type { WebhookServer } from '../../testbed/webhookServer';
import type { WorkflowJson } from '../../testbed/engine';
import { botCredentialData, singleNodeWorkflow, suiteTestbed } from '../../testbed/testbed';
import { ask } from './sendAndWaitQuestion';

const bed = suiteTestbed();
const servers: WebhookServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});

const APPROVER = String(SEED_USER_IDS.nattaya);

/** The workflow with a node after the question, so a resume shows which answer went on. */
function questionWorkflow(parameters: INodeParameters): WorkflowJson {
	const workflow = singleNodeWorkflow(ask(parameters), { typeVersion: 2 });
	workflow.nodes.push({ id: 'after', name: 'After', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [400, 0], parameters: {} });
	workflow.connections.Workplace = { main: [[{ node: 'After', type: 'main', index: 0 }]] };
	return workflow;
}

/** The actions of the question posted last. */
function postedActions(): IDataObject[] {
	const push = bed.emulator.logFor('POST', '/bot/v2/message/push').at(-1)!;
	const messages = (push.body as { messages: Array<{ template: { actions: IDataObject[] } }> }).messages;
	return messages[messages.length - 1].template.actions;
}

/** The waiting node's webhook for the execution `executionId`, as n8n serves it while it waits. */
async function waitingWebhook(workflow: WorkflowJson, executionId: string): Promise<WebhookServer> {
	const server = await bed.startWebhook(workflow, 'Workplace', { activate: false, waitingExecutionId: executionId });
	servers.push(server);
	return server;
}

interface Answered {
	status: number;
	body: string;
}
async function post(server: WebhookServer, path: string, body: { form?: Record<string, string>; json?: unknown } = {}): Promise<Answered> {
	const init: RequestInit = { method: 'POST' };
	if (body.json !== undefined) {
		init.body = JSON.stringify(body.json);
		init.headers = { 'content-type': 'application/json' };
	} else {
		init.body = new URLSearchParams(body.form ?? {}).toString();
		init.headers = { 'content-type': 'application/x-www-form-urlencoded' };
	}
	const response = await fetch(server.url + path, init);
	return { status: response.status, body: await response.text() };
}

const RECORDED_PAGE = 'Your answer was recorded';
const ALREADY_PAGE = 'This question was answered already';

/** The answers the node handed n8n to resume the execution with (one per resume). */
async function resumes(server: WebhookServer) {
	await server.settled();
	return server.calls.filter((c) => c.result?.workflowData !== undefined).map((c) => c.result!.workflowData![0][0].json.data as IDataObject);
}

test('link: of two answers at the same moment only the first resumes; the other is told it was answered already, and the run goes on with the first', async () => {
	const workflow = questionWorkflow({ approvalOptions: { values: { approvalType: 'double' } } });
	const waiting = await bed.run(workflow);
	expect(waiting.status).toBe('waiting');
	const [approve, decline] = postedActions().map((a) => new URL(a.linkUri as string));
	const executionId = approve.pathname.split('/').at(-2)!;
	const server = await waitingWebhook(workflow, executionId);

	const pageBefore = await fetch(server.url + approve.pathname + approve.search);
	expect(pageBefore.status).toBe(200);
	const answers = await Promise.all([post(server, approve.pathname + approve.search), post(server, decline.pathname + decline.search)]);
	expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
	const first = answers.find((a) => a.status === 200)!;
	expect(first.body).toContain(RECORDED_PAGE);
	expect(answers.find((a) => a.status === 409)!.body).toContain(ALREADY_PAGE);
	const taken = await resumes(server);
	expect(taken).toHaveLength(1);
	expect(taken[0].approved).toBe(answers[0].status === 200);

	// A page opened now still shows its confirmation (opening is not answering); its answer changes nothing.
	const opened = await fetch(server.url + decline.pathname + decline.search);
	expect(opened.status).toBe(200);
	expect(await opened.text()).toContain('<form');
	const late = await post(server, decline.pathname + decline.search);
	expect([late.status, late.body.includes(ALREADY_PAGE)]).toEqual([409, true]);
	expect(await resumes(server)).toHaveLength(1);

	const resumed = await bed.resume(workflow, waiting, [{ json: { data: taken[0] } }]);
	expect(resumed.status).toBe('success');
	expect(resumed.json('After')).toEqual([{ data: taken[0] }]);
});

test('link: each waiting execution takes its own first answer', async () => {
	const workflow = questionWorkflow({});
	await bed.run(workflow);
	const [approve] = postedActions().map((a) => new URL(a.linkUri as string));
	const one = await waitingWebhook(workflow, 'execution-one');
	const two = await waitingWebhook(workflow, 'execution-two');
	const answers = await Promise.all([one, two, one, two].map((s) => post(s, approve.pathname + approve.search)));
	expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409]);
	expect(await resumes(one)).toHaveLength(1);
	expect(await resumes(two)).toHaveLength(1);
});

test('one execution waiting at the node again (a loop, an agent\'s second reviewed call): the new question takes its own first answer', async () => {
	const workflow = questionWorkflow({});
	await bed.run(workflow);
	const [first] = postedActions().map((a) => new URL(a.linkUri as string));
	await bed.run(workflow);
	const [second] = postedActions().map((a) => new URL(a.linkUri as string));
	expect(second.searchParams.get('question')).not.toBe(first.searchParams.get('question'));
	const server = await waitingWebhook(workflow, 'execution-looping');
	expect((await post(server, first.pathname + first.search)).status).toBe(200);
	const answers = await Promise.all([second, second].map((link) => post(server, link.pathname + link.search)));
	expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
	expect(await resumes(server)).toHaveLength(2);
});

test('free text form: a second submission is told it was answered already and resumes nothing', async () => {
	const workflow = questionWorkflow({ responseType: 'freeText' });
	await bed.run(workflow);
	const [link] = postedActions().map((a) => new URL(a.linkUri as string));
	const server = await waitingWebhook(workflow, 'execution-form');
	const answers = await Promise.all(['first', 'second'].map((text) => post(server, link.pathname + link.search, { form: { 'field-0': text } })));
	expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
	expect(await resumes(server)).toHaveLength(1);
});

describe('answers relayed from the chat', () => {
	const parameters = { approvalOptions: { values: { approvalType: 'double' } }, options: { answerInChat: true, approvers: APPROVER } };
	const secret = () => botSigningSecret(botCredentialData(bed.emulator));
	async function question() {
		const workflow = questionWorkflow(parameters);
		await bed.run(workflow);
		const taps = Object.fromEntries(
			postedActions().map((a) => {
				const tapped = parseAnswerPostback(a.data)!;
				return [tapped.choice, tapped.path];
			}),
		) as Record<Choice, string>;
		return { workflow, taps, executionId: new URL(taps.approve, 'http://x').pathname.split('/').at(-2)! };
	}
	const relay = (server: WebhookServer, path: string, choice: Choice, userId: string) =>
		post(server, path, { json: relayBody({ choice, path, userId, username: null, eventTime: null, relayedAt: Date.now() }, secret()) });
	const read = (a: Answered) => relayOutcome(a.status, JSON.parse(a.body));

	test('two taps at the same moment: one is recorded, the other told it was answered already; a stranger is still not allowed', async () => {
		const { workflow, taps, executionId } = await question();
		const server = await waitingWebhook(workflow, executionId);
		const answers = await Promise.all([relay(server, taps.approve, 'approve', APPROVER), relay(server, taps.decline, 'decline', APPROVER)]);
		expect(answers.map(read).sort()).toEqual(['alreadyAnswered', 'answered']);
		const taken = await resumes(server);
		expect(taken).toHaveLength(1);
		expect(taken[0]).toMatchObject({ approved: read(answers[0]) === 'answered', answeredIn: 'chat', answeredBy: { userId: APPROVER } });
		const stranger = await relay(server, taps.approve, 'approve', String(SEED_USER_IDS.pimchanok));
		expect(read(stranger)).toBe('notAllowed');
		expect(CHAT_REPLIES.alreadyAnswered).toBe('This question was answered already: another answer came first and counts.');
		expect(await resumes(server)).toHaveLength(1);
	});

	test('after a limit set as a date has passed, an answer is told the time ran out and resumes nothing (link too)', async () => {
		const { taps, executionId } = await question();
		// The same node with a limit already past, as when the answer arrives before n8n ended the wait.
		const past = questionWorkflow({
			options: { ...parameters.options, limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: new Date(Date.now() - 60_000).toISOString() } } },
		});
		const server = await waitingWebhook(past, executionId);
		expect(read(await relay(server, taps.approve, 'approve', APPROVER))).toBe('expired');
		const links = await waitingWebhook(
			questionWorkflow({ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' } } } }),
			'execution-link-expired',
		);
		const page = await post(links, '/webhook-waiting/execution-link-expired/workplace-node?approved=true');
		expect([page.status, page.body.includes('no longer open')]).toEqual([410, true]);
		expect(await resumes(server)).toEqual([]);
		expect(await resumes(links)).toEqual([]);
	});
});
