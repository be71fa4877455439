/**
 * Answers to Send and Wait in n8n-core's real engine, through n8n's waiting
 * webhooks as the CLI serves them (testbed/waitingWebhooks.ts: each request
 * reads the execution as stored, the waiting node's webhook runs in the real
 * WebhookContext, an answer resumes the execution in the engine), on n8n
 * 2.41.1's terms unless a test says 1.85.4. A person answers by link as a
 * browser does: the link opened (GET: a page with a token, nothing decided),
 * then the page's form sent. Two servers on one store are two n8n processes;
 * a server with the package loaded anew is n8n after a restart.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { SEED_USER_IDS } from '../../emulator/bot/seed';
import type { ExecutionStore, WaitingWebhookServer } from '../../testbed/waitingWebhooks';
import { storedRun } from '../../testbed/waitingWebhooks';
import type { LoggedPart } from '../../emulator/types';
import { relayBody } from '../../shared/sendAndWait/chatAnswer';
import type { WebhookServer } from '../../testbed/webhookServer';
import { botCredentialData, singleNodeWorkflow, suiteTestbed } from '../../testbed/testbed';
import { anotherProcess, answerByLink, hiddenFields, loopWorkflow, open, post, questionWorkflow } from './sendAndWaitQuestion';

const bed = suiteTestbed();
const servers: WaitingWebhookServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});

const RECORDED = 'Your answer was recorded';
const ALREADY = 'This question was answered already';
const NO_LONGER_OPEN = 'This question is no longer open';
const NOT_CONFIRMED = 'Please answer on the question&#39;s own page';

/** A store of executions and one n8n process serving their waiting webhooks; the resume URLs point at it. */
async function n8n(options: { version?: 1 | 2 } = {}): Promise<{ store: ExecutionStore; server: WaitingWebhookServer }> {
	const store = bed.executionStore();
	const server = await bed.waitingWebhooks(store, options);
	servers.push(server);
	store.publicUrl = server.url;
	return { store, server };
}

/** Another n8n process on the same store (its own copy of the package in memory). */
async function process2(store: ExecutionStore, version: 1 | 2 = 2): Promise<WaitingWebhookServer> {
	const server = await bed.waitingWebhooks(store, { nodeTypes: anotherProcess(), version });
	servers.push(server);
	return server;
}

/** The same address on another process. */
const via = (server: WaitingWebhookServer, link: string) => server.url + new URL(link).pathname + new URL(link).search;

/** The buttons of the question posted last. */
function postedButtons(): IDataObject[] {
	const push = bed.emulator.logFor('POST', '/bot/v2/message/push').at(-1)!;
	const messages = (push.body as { messages: Array<{ template: { actions: IDataObject[] } }> }).messages;
	return messages[messages.length - 1].template.actions;
}
const postedLinks = () => postedButtons().map((a) => a.linkUri as string);

/** What After got in the stored execution (the answer the run went on with). */
const afterGot = (store: ExecutionStore, id: string) => storedRun(store, id).nodes.After?.map((run) => run.outputs[0].map((item) => item.json)) ?? [];

describe('by link', () => {
	test('opening a link shows the confirmation page with its token and decides nothing; its form answers, and the run goes on with the answer', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow({ approvalOptions: { values: { approvalType: 'double', approveLabel: 'Ship it' } } }));
		expect(store.status(id)).toBe('waiting');
		const [approve] = postedLinks();
		for (let n = 0; n < 2; n++) {
			const page = await open(approve);
			expect(page.status).toBe(200);
			expect(page.body).toContain('Ship it?');
			expect(hiddenFields(page.body).confirmation).toMatch(/^[\w-]{43}$/);
			expect(page.headers.get('access-control-allow-origin')).toBeNull();
		}
		expect(store.status(id)).toBe('waiting');
		const answer = await answerByLink(approve);
		expect([answer.status, answer.body.includes(RECORDED)]).toEqual([200, true]);
		expect(store.status(id)).toBe('success');
		expect(afterGot(store, id)).toEqual([[{ data: { approved: true, respondedAt: expect.any(String) } }]]);
	});

	test('a POST without the page\'s token, or with the token of the other answer, answers nothing (issue 30, item 2)', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow({ approvalOptions: { values: { approvalType: 'double' } } }));
		const [approve, decline] = postedLinks();
		const noToken = await post(approve, { confirm: 'approve' });
		expect([noToken.status, noToken.body.includes(NOT_CONFIRMED)]).toEqual([403, true]);
		const declineToken = hiddenFields((await open(decline)).body).confirmation;
		const swapped = await post(approve, { confirmation: declineToken, confirm: 'approve' });
		expect(swapped.status).toBe(403);
		expect(store.status(id)).toBe('waiting');
		expect(store.resumed.get(id)).toBeUndefined();
	});

	test('a page of another site answers nothing: a cross-site POST (text/plain, empty, or with a valid token), a script reading the page (issue 30, item 2)', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow({}));
		const [approve] = postedLinks();
		const token = hiddenFields((await open(approve)).body).confirmation;
		const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };
		const plain = await fetch(approve, { method: 'POST', headers: { ...evil, 'content-type': 'text/plain' }, body: '' });
		expect(plain.status).toBe(403);
		expect((await post(approve, { confirmation: token, confirm: 'approve' }, { headers: evil })).status).toBe(403);
		// Without Sec-Fetch headers (an older browser): the Origin alone decides.
		expect((await fetch(approve, { method: 'POST', headers: { origin: 'https://evil.example' }, body: new URLSearchParams({ confirmation: token, confirm: 'approve' }) })).status).toBe(403);
		// A script of another site cannot fetch the page to read its token.
		const read = await fetch(approve, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' } });
		expect(read.status).toBe(403);
		expect(hiddenFields(await read.text()).confirmation).toBeUndefined();
		expect(store.status(id)).toBe('waiting');
		expect(store.resumed.get(id)).toBeUndefined();
	});

	test('of two answers at the same moment only the first resumes; the other is told it was answered already; a later one finds the question no longer open', async () => {
		const { store, server } = await n8n();
		const { id } = await store.start(questionWorkflow({ approvalOptions: { values: { approvalType: 'double' } } }));
		const [approve, decline] = postedLinks();
		const pages = await Promise.all([open(approve), open(decline)]);
		store.arriveTogether(2);
		const answers = await Promise.all([
			post(approve, hiddenFields(pages[0].body)),
			post(decline, hiddenFields(pages[1].body)),
		]);
		await server.settled();
		expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
		expect(answers.find((a) => a.status === 200)!.body).toContain(RECORDED);
		expect(answers.find((a) => a.status === 409)!.body).toContain(ALREADY);
		expect(store.resumed.get(id)).toBe(1);
		expect(afterGot(store, id)).toEqual([[{ data: { approved: answers[0].status === 200, respondedAt: expect.any(String) } }]]);
		// n8n itself answers once the execution has ended.
		const late = await answerByLink(decline);
		expect(late.body).toContain('No action required');
		expect(store.resumed.get(id)).toBe(1);
	});

	test('each waiting execution takes its own first answer', async () => {
		const { store, server } = await n8n();
		const one = await store.start(questionWorkflow({}));
		const [first] = postedLinks();
		const two = await store.start(questionWorkflow({}));
		const [second] = postedLinks();
		const pages = await Promise.all([first, second, first, second].map((link) => open(link)));
		store.arriveTogether(4);
		const answers = await Promise.all([first, second, first, second].map((link, n) => post(link, hiddenFields(pages[n].body))));
		await server.settled();
		expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409]);
		expect([store.resumed.get(one.id), store.resumed.get(two.id)]).toEqual([1, 1]);
	});

	test('free text: a second submission is told it was answered already; an 8 MiB answer is refused whole, and the refilled page does not carry it back (issue 30, item 8)', async () => {
		const { store, server } = await n8n();
		const { id } = await store.start(questionWorkflow({ responseType: 'freeText' }));
		const [link] = postedLinks();
		const page = await open(link);
		expect(page.body).toContain('maxlength="20000"');
		const huge = await post(link, { ...hiddenFields(page.body), 'field-0': 'x'.repeat(8 * 1024 * 1024) }, { multipart: true });
		expect([huge.status, huge.body.includes('At most 20,000 characters')]).toEqual([400, true]);
		expect(huge.body.length).toBeLessThan(30_000);
		expect(store.status(id)).toBe('waiting');
		store.arriveTogether(2);
		const answers = await Promise.all(['first', 'second'].map((text) => post(link, { ...hiddenFields(page.body), 'field-0': text }, { multipart: true })));
		await server.settled();
		expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
		expect(store.resumed.get(id)).toBe(1);
	});

	test('custom form: labels such as toString and valueOf are fields like any other; a problem of one field is shown at that field only (issue 30, item 6)', async () => {
		const { store } = await n8n();
		const { id } = await store.start(
			questionWorkflow({
				responseType: 'customForm',
				formFields: { values: [{ fieldLabel: 'toString', fieldType: 'text', requiredField: true }, { fieldLabel: 'valueOf', fieldType: 'number' }, { fieldLabel: 'hasOwnProperty', fieldType: 'text', requiredField: true }] },
			}),
		);
		const [link] = postedLinks();
		const token = hiddenFields((await open(link)).body);
		const bad = await post(link, { ...token, 'field-0': 'Ann', 'field-1': 'three', 'field-2': '' }, { multipart: true });
		expect(bad.status).toBe(400);
		expect([...bad.body.matchAll(/<div class="error">([^<]*)<\/div>/g)].map((m) => m[1])).toEqual(['Enter a number', 'This field is required']);
		const good = await post(link, { ...token, 'field-0': 'Ann', 'field-1': '3', 'field-2': 'yes' }, { multipart: true });
		expect(good.status).toBe(200);
		expect(afterGot(store, id)).toEqual([[{ data: { toString: 'Ann', valueOf: 3, hasOwnProperty: 'yes', respondedAt: expect.any(String) } }]]);
	});
});

describe('every answer bound to its question (issue 30, items 1, 3 and 5)', () => {
	test('the same node asking again in one execution: the earlier question\'s link is no longer open, after a restart too; the new question takes its own answer', async () => {
		const { store, server } = await n8n();
		const { id } = await store.start(loopWorkflow({}));
		const [approveA] = postedLinks();
		const pageA = await open(approveA);
		expect((await post(approveA, hiddenFields(pageA.body))).status).toBe(200);
		await server.settled();
		// Approved: the loop asked again, and the execution waits on the new question.
		expect(store.status(id)).toBe('waiting');
		const [approveB, declineB] = postedLinks();
		expect(new URL(approveB).searchParams.get('question')).not.toBe(new URL(approveA).searchParams.get('question'));

		// n8n restarted: the package loaded anew, nothing of the first answer in memory.
		await server.close();
		const restarted = await process2(store);
		const stale = await post(via(restarted, approveA), hiddenFields(pageA.body));
		expect([stale.status, stale.body.includes(NO_LONGER_OPEN)]).toEqual([410, true]);
		const staleOpened = await open(via(restarted, approveA));
		expect([staleOpened.status, staleOpened.body.includes(NO_LONGER_OPEN)]).toEqual([410, true]);
		expect(store.status(id)).toBe('waiting');
		expect(store.resumed.get(id)).toBe(1);

		expect((await answerByLink(via(restarted, declineB))).status).toBe(200);
		await restarted.settled();
		expect(store.status(id)).toBe('success');
		expect(afterGot(store, id)).toEqual([[{ data: { approved: false, respondedAt: expect.any(String) } }]]);
		void approveB;
	});

	test('a link without a question, or naming another, is no longer open', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow({}));
		const [link] = postedLinks();
		for (const question of [undefined, 'AAAAAAAAAAAAAAAAAAAAAA']) {
			const changed = new URL(link);
			if (question) changed.searchParams.set('question', question);
			else changed.searchParams.delete('question');
			// n8n signs the resume URL with its instance secret; a test of the node has to pass that check, so the link is signed again.
			const { Container } = await import('@n8n/di');
			const { InstanceSettings, generateUrlSignature, prepareUrlForSigning } = await import('n8n-core');
			changed.searchParams.delete('signature');
			changed.searchParams.set('signature', generateUrlSignature(prepareUrlForSigning(changed), Container.get(InstanceSettings).hmacSignatureSecret));
			const page = await open(changed.toString());
			expect([page.status, page.body.includes(NO_LONGER_OPEN)]).toEqual([410, true]);
		}
		expect(store.status(id)).toBe('waiting');
	});

	test('a limit set by an expression ends when the question was sent: an answer after it is no longer open (issue 30, item 3)', async () => {
		const { store } = await n8n();
		const { id } = await store.start(
			questionWorkflow({ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '={{ $now.plus({ seconds: 2 }).toISO() }}' } } } }),
		);
		const [link] = postedLinks();
		const page = await open(link);
		expect(page.status).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 2_300));
		const late = await post(link, hiddenFields(page.body));
		expect([late.status, late.body.includes('Its time to answer ran out')]).toEqual([410, true]);
		expect(store.resumed.get(id)).toBeUndefined();
	});

	test('two processes, answers at the same moment: only the answer that resumed the execution is told it was recorded (issue 30, item 5)', async () => {
		const { store, server } = await n8n();
		const other = await process2(store);
		const { id } = await store.start(questionWorkflow({ approvalOptions: { values: { approvalType: 'double' } } }));
		const [approve, decline] = postedLinks();
		const pages = await Promise.all([open(approve), open(via(other, decline))]);
		store.arriveTogether(2);
		const answers = await Promise.all([post(approve, hiddenFields(pages[0].body)), post(via(other, decline), hiddenFields(pages[1].body))]);
		await Promise.all([server.settled(), other.settled()]);
		expect(answers.filter((a) => a.body.includes(RECORDED))).toHaveLength(1);
		// The other was refused by n8n itself, which resumes an execution only while it still waits.
		expect(answers.find((a) => !a.body.includes(RECORDED))).toMatchObject({ status: 500, body: expect.stringContaining('already being resumed') });
		expect(store.resumed.get(id)).toBe(1);
		const winner = answers.findIndex((a) => a.body.includes(RECORDED));
		expect(afterGot(store, id)).toEqual([[{ data: { approved: winner === 0, respondedAt: expect.any(String) } }]]);
		void server;
	});
});

describe('on n8n 1.85.4\'s terms (unsigned links, no check that the execution still waits)', () => {
	test('one process: of two answers at the same moment only the first resumes; a stale link is no longer open', async () => {
		const { store, server } = await n8n({ version: 1 });
		const { id } = await store.start(loopWorkflow({}));
		const [approve, decline] = postedLinks();
		const pages = await Promise.all([open(approve), open(decline)]);
		store.arriveTogether(2);
		const answers = await Promise.all([post(approve, hiddenFields(pages[0].body)), post(decline, hiddenFields(pages[1].body))]);
		await server.settled();
		expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
		expect(store.resumed.get(id)).toBe(1);
		if (answers[0].status === 200) {
			// Approved: the loop asked again; the first question's link is no longer open.
			expect(store.status(id)).toBe('waiting');
			expect((await post(approve, hiddenFields(pages[0].body))).status).toBe(410);
		}
	});
});

describe('answers relayed from the chat (issue 30, items 1, 4 and 8)', () => {
	const APPROVER = SEED_USER_IDS.nattaya;
	const STRANGER = SEED_USER_IDS.pimchanok;
	const inChat = (options: IDataObject = {}) => ({ approvalOptions: { values: { approvalType: 'double' } }, options: { answerInChat: true, approvers: APPROVER, ...options } });
	/** The bot credential's signing secret (its webhook secret, else its client secret). */
	const secret = () => {
		const data = botCredentialData(bed.emulator);
		return String(data.webhookSecret || data.clientSecret);
	};

	/** A published Workplace Trigger on this n8n: it relays the chat's answers to the waiting executions. */
	async function trigger(publicUrl: string): Promise<WebhookServer> {
		const workflow = singleNodeWorkflow({ events: ['*'] });
		workflow.nodes[1] = { ...workflow.nodes[1], name: 'Workplace Trigger', type: 'n8n-nodes-workplace.workplaceTrigger', typeVersion: 2, parameters: { events: ['*'] } };
		workflow.connections = {};
		const server = await bed.startWebhook(workflow, 'Workplace Trigger', { baseUrl: publicUrl });
		triggers.push(server);
		return server;
	}
	const triggers: WebhookServer[] = [];
	afterEach(async () => {
		await Promise.all(triggers.splice(0).map((s) => s.close()));
	});

	/** A person taps a button of the question posted last, in the chat; resolves with the bot's reply to that tap. */
	async function tap(triggerServer: WebhookServer, label: string, uid: string, data?: string): Promise<string | undefined> {
		const push = bed.emulator.logFor('POST', '/bot/v2/message/push').at(-1)!;
		const button = postedButtons().find((b) => b.label === label)!;
		const [delivery] = await bed.emulator.playUser({ url: triggerServer.url, type: 'postback', uid, gid: (push.body as IDataObject).gid as string, tid: (push.body as IDataObject).tid as string, data: data ?? button.data });
		await triggerServer.settled();
		const token = (delivery.events[0] as IDataObject).replyToken;
		const part = (parts: LoggedPart[] | undefined, name: string) => parts?.find((p) => p.name === name)?.value;
		const reply = bed.emulator.logFor('POST', '/bot/v1/message/text').find((e) => part(e.parts, 'replyToken') === token);
		return part(reply?.parts, 'message');
	}

	test('the approver\'s tap resumes with who answered; a stranger is told they may not answer; a later tap finds it closed; the taps start no execution of the trigger\'s workflow', async () => {
		const { store, server } = await n8n();
		const { id } = await store.start(questionWorkflow(inChat()));
		const relay = await trigger(store.publicUrl);
		expect(await tap(relay, 'Approve', STRANGER)).toBe('You are not one of the people who may answer this question.');
		expect(store.status(id)).toBe('waiting');
		expect(await tap(relay, 'Approve', APPROVER)).toBe('Answer recorded: approved');
		await server.settled();
		expect(afterGot(store, id)).toEqual([[{ data: { approved: true, respondedAt: expect.any(String), answeredIn: 'chat', answeredBy: { userId: APPROVER, username: null }, answeredAt: expect.any(String) } }]]);
		expect(await tap(relay, 'Decline', APPROVER)).toBe('This question is no longer open: it was answered already or its time ran out.');
		expect(store.resumed.get(id)).toBe(1);
		expect(relay.executions).toEqual([]);
	});

	test('a link of a question answered in the chat answers nothing', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow(inChat()));
		const path = String(postedButtons()[0].data).split('|')[2];
		const page = await open(store.publicUrl + path);
		expect([page.status, page.body.includes('Please answer in the chat')]).toEqual([403, true]);
		expect(store.status(id)).toBe('waiting');
	});

	test('the trigger passes on only buttons a Workplace node with its bot credential made, and only to that node\'s answer address: a postback naming another path of the instance is not relayed', async () => {
		const { store, server } = await n8n();
		await store.start(questionWorkflow(inChat()));
		const relay = await trigger(store.publicUrl);
		const path = String(postedButtons()[0].data).split('|')[2];
		for (const data of [
			'n8n-answer|approve|/webhook/other-workflow/webhook?answer=chat',
			'n8n-answer|approve|/rest/workflows/1/run?answer=chat',
			`n8n-answer|approve|${path}`,
			`n8n-answer|approve|${path}|${'A'.repeat(22)}`,
		]) {
			expect(await tap(relay, 'Approve', APPROVER, data)).toBe('This button cannot be answered here: it was not sent by a Workplace node with this bot.');
		}
		expect(server.calls).toEqual([]);
	});

	test('the relay\'s signature is its own: an X-Eko-Signature of the same bytes, or another bot\'s relay, answers nothing; a user id given as a list is refused', async () => {
		const { store } = await n8n();
		const { id } = await store.start(questionWorkflow(inChat()));
		const path = String(postedButtons()[0].data).split('|')[2];
		const answer = { choice: 'approve' as const, path, userId: APPROVER, username: null, eventTime: null, relayedAt: Date.now() };
		const send = async (body: unknown) => {
			const response = await fetch(store.publicUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
			return { status: response.status, body: (await response.json()) as IDataObject };
		};
		const ekoSignature = createHmac('sha256', secret()).update(JSON.stringify(answer)).digest();
		for (const signature of [ekoSignature.toString('hex'), ekoSignature.toString('base64')]) {
			expect(await send({ answer, signature })).toMatchObject({ status: 403, body: { outcome: 'refused' } });
		}
		expect(await send(relayBody(answer, 'another-bot-secret'))).toMatchObject({ status: 403, body: { outcome: 'refused' } });
		const listed = { ...answer, userId: [APPROVER] as unknown as string };
		expect(await send(relayBody(listed, secret()))).toMatchObject({ status: 403, body: { outcome: 'refused' } });
		expect(store.status(id)).toBe('waiting');
	});

	/**
	 * An n8n whose waiting webhook takes the relay and then answers a byte a
	 * second without end (`trickle`), or never answers at all (`silent`): the
	 * trigger's address base points at it.
	 */
	async function stalledN8n(mode: 'trickle' | 'silent'): Promise<{ url: string; posts: string[]; close(): Promise<void> }> {
		const posts: string[] = [];
		const timers = new Set<NodeJS.Timeout>();
		const server = createServer((req, res) => {
			posts.push(`${req.method} ${req.url}`);
			req.resume();
			if (mode === 'silent') return;
			res.writeHead(200, { 'content-type': 'application/json' });
			const timer = setInterval(() => res.write(' '), 1000);
			timers.add(timer);
			res.on('close', () => clearInterval(timer));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		return {
			url: `http://127.0.0.1:${port}`,
			posts,
			async close() {
				for (const timer of timers) clearInterval(timer);
				server.closeAllConnections();
				await new Promise((resolve) => server.close(resolve));
			},
		};
	}

	test.each([
		['trickles its answer a byte a second', 'trickle'],
		['never answers', 'silent'],
	] as const)(
		'a relay to a waiting webhook that %s ends within the relay\'s deadline and tells the person it is uncertain, never "recorded" (issue 30, items 5 and 7)',
		async (_, mode) => {
			const { store } = await n8n();
			const { id } = await store.start(questionWorkflow(inChat()));
			const stalled = await stalledN8n(mode);
			try {
				const relay = await trigger(stalled.url);
				const started = Date.now();
				const reply = await tap(relay, 'Approve', APPROVER);
				const tookMs = Date.now() - started;
				expect(reply).toBe('Your answer may not have been recorded. Tap again if the question is still open.');
				expect(stalled.posts).toEqual([expect.stringMatching(/^POST \/webhook-waiting\/.*answer=chat/)]);
				// The relay's deadline (15 s) covers the whole answer, not a silent socket only; the rest is the tap's own round trips.
				expect(tookMs).toBeGreaterThanOrEqual(15_000);
				expect(tookMs).toBeLessThan(25_000);
				expect(store.status(id)).toBe('waiting');
			} finally {
				await stalled.close();
			}
		},
		45_000,
	);

	test('the same node asking again: a tap on the earlier question\'s button is no longer open after a restart; the new question takes the approver\'s tap', async () => {
		const { store, server } = await n8n();
		const { id } = await store.start(loopWorkflow(inChat()));
		const relay = await trigger(store.publicUrl);
		const first = postedButtons().find((b) => b.label === 'Approve')!.data as string;
		expect(await tap(relay, 'Approve', APPROVER)).toBe('Answer recorded: approved');
		await server.settled();
		expect(store.status(id)).toBe('waiting');
		const port = Number(new URL(server.url).port);
		await server.close();
		servers.push(await bed.waitingWebhooks(store, { nodeTypes: anotherProcess(), port }));
		expect(await tap(relay, 'Approve', APPROVER, first)).toBe('This question is no longer open: it was answered already or its time ran out.');
		expect(store.resumed.get(id)).toBe(1);
		expect(await tap(relay, 'Decline', APPROVER)).toBe('Answer recorded: declined');
		await Promise.all(servers.map((s) => s.settled()));
		expect(store.status(id)).toBe('success');
	});
});
