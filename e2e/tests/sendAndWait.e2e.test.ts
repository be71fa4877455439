/**
 * Message → Send and Wait for Response in real n8n, against the emulator:
 * e2e/'s n8n (2.41.1), or with E2E_N8N_VERSION=1.85.4 the one installed in
 * e2e/versions/1.85.4 (resume URLs unsigned there). Each question workflow is published: Webhook (start) → Ask (Send
 * and Wait) → After (No Op, whose input is what Ask resumed with). A published
 * Workplace Trigger workflow (Trigger → Event) receives the chat's taps.
 *
 * A person answers as a phone would: a link is opened (GET: a page, nothing
 * decided) and its button or form sent (POST); a postback is tapped through
 * the emulator's play route, which signs the event and posts it to the
 * trigger's production webhook. What the bot said is read from the emulator's
 * records; executions and their output from n8n's REST API.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { relayBody } from '../../shared/sendAndWait/chatAnswer';
import { answerByLink, openLink, postForm } from '../../testbed/answerPage';
import { launchChromium, RESULTS_DIR, step } from '../lib/browser';
import { chainWorkflow } from '../../testbed/chainWorkflow';
import { byId } from '../../testbed/locator';
import { hasEnded } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { ROOT } from '../../testbed/root';
import { clearMessageRecords, messageRecords, playOverHttp } from '../lib/emulatorAdmin';
import { e2eTestbed, selectedInstall } from '../lib/testbed';
import { triggerWorkflow } from '../lib/waiting';
import { BOT, noOp, webhookStart, workplaceNode } from '../lib/workflows';

const ALERTS = { gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts };
const uuid = (n: number) => `5a0d0000-0000-4c55-9e0e-1d2a4b9f${String(n).padStart(4, '0')}`;
/** Where the page screenshots go: docs/images with SCREENSHOTS=1 (to update the docs), else test-results/. */
const SCREENSHOTS = process.env.SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : RESULTS_DIR;

const INSTALL = selectedInstall();
const [MAJOR, MINOR] = INSTALL.version.split('.').map(Number);
/** n8n signs resume URLs from 1.104 on. */
const SIGNED = MAJOR >= 2 || MINOR >= 104;

type Ask = Record<string, unknown>;

/** A published workflow: POST /webhook/<name> → Ask (Send and Wait to the Alerts topic) → After. */
function questionWorkflow(n: number, name: string, ask: Ask) {
	const parameters = { resource: 'message', operation: 'sendAndWait', sendTo: 'group', groupId: byId(ALERTS.gid), topicId: byId(ALERTS.tid), message: '={{ $json.body.question }}', ...ask };
	const nodes = [webhookStart(name), workplaceNode('Ask', BOT, parameters, 2), noOp('After')];
	// n8n 1.x's import needs `active` (publishing is a CLI step).
	return { ...chainWorkflow(`wpSendAndWait${String(n).padStart(3, '0')}`, `Send and Wait: ${name}`, nodes, (index) => uuid(n * 10 + index + 1)), active: false };
}

const WORKFLOWS = {
	approval: questionWorkflow(1, 'approval', { responseType: 'approval', approvalOptions: { values: { approvalType: 'double', approveLabel: 'Ship it', disapproveLabel: 'Not yet' } } }),
	freeText: questionWorkflow(2, 'free-text', { responseType: 'freeText', options: { messageButtonLabel: 'Answer', responseFormTitle: 'Why the delay?' } }),
	customForm: questionWorkflow(3, 'custom-form', {
		responseType: 'customForm',
		formFields: {
			values: [
				{ fieldLabel: 'Name', fieldType: 'text', requiredField: true },
				{ fieldLabel: 'Days', fieldType: 'number' },
				{ fieldLabel: 'Team', fieldType: 'dropdown', fieldOptions: { values: [{ option: 'Ops' }, { option: 'Dev' }] } },
				{ fieldLabel: 'Needs', fieldType: 'checkbox', fieldOptions: { values: [{ option: 'Laptop' }, { option: 'Badge' }] } },
			],
		},
		options: { responseFormTitle: 'Leave request', responseFormButtonLabel: 'Send request' },
	}),
	timeout: questionWorkflow(4, 'timeout', { responseType: 'approval', options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.05, resumeUnit: 'minutes' } } } }),
	inChat: questionWorkflow(5, 'in-chat', {
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double' } },
		options: { answerInChat: true, approvers: SEED_USER_IDS.nattaya },
	}),
};

const TRIGGER = triggerWorkflow('wpSendAndWaitTrg');

const bed = e2eTestbed({
	install: INSTALL,
	emulator: { replyTokenTtlSeconds: 900 },
	credentials: ['workplaceBotApi'],
	workflows: [...Object.values(WORKFLOWS), TRIGGER],
	publish: true,
});

const records = async () => await messageRecords(bed.emulator.url);
/** A person in the chat, played by the emulator towards the Workplace Trigger. */
const play = async (request: Parameters<typeof playOverHttp>[2]) => await playOverHttp(bed.emulator.url, bed.triggerUrl(TRIGGER), request);

type Action = { type: string; label: string; linkUri?: string; data?: string; text?: string };

/** Starts a question workflow; resolves with its waiting execution's id and the buttons it sent. */
async function ask(workflow: { id: string; nodes: Array<{ parameters: Record<string, unknown> }> }, question: string) {
	await clearMessageRecords(bed.emulator.url);
	const before = new Set((await bed.rest.executions(workflow.id)).map((e) => e.id));
	const name = workflow.nodes[0].parameters.path as string;
	const started = await fetch(`${bed.n8n.url}/webhook/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
	expect(started.status).toBe(200);
	const execution = await until(`a waiting execution of ${workflow.id}`, async () => {
		const list = await bed.rest.executions(workflow.id);
		return list.find((e) => e.status === 'waiting' && !before.has(e.id));
	}, 120_000);
	await savedWaiting(execution.id);
	const [pushed] = await until('the question in the chat', async () => {
		const list = await records();
		return list.length > 0 ? list : undefined;
	});
	expect(pushed.route).toBe('POST /bot/v2/message/push');
	expect(pushed.target).toEqual(ALERTS);
	const buttons = pushed.messages?.at(-1) as { type: string; template: { type: string; text: string; actions: Action[] } };
	expect(buttons.type).toBe('template');
	return { id: execution.id, buttons: buttons.template, record: pushed };
}

const statusOf = async (id: string) => (await bed.rest.execution(id)).status;

/**
 * Waits until n8n has saved the waiting execution's data (Ask's run in it), as
 * it has long before a person answers: n8n 1.85.4 saves an execution's status
 * and its data in separate steps.
 */
async function savedWaiting(id: string): Promise<void> {
	await until(`execution ${id}'s saved data`, async () => {
		const execution = await bed.rest.execution(id);
		return execution.status === 'waiting' && execution.data.resultData.runData.Ask?.length === 1 ? true : undefined;
	}, 60_000);
}

/**
 * An execution once it has ended and its data is saved: n8n 1.85.4 saves an
 * ended execution's status before its data, so a success still showing the
 * data saved when it resumed (Ask's run taken off, After not yet run) is read again.
 */
async function endedAndSaved(id: string) {
	return await until(`execution ${id} to end`, async () => {
		const execution = await bed.rest.execution(id);
		if (!hasEnded(execution.status)) return undefined;
		if (execution.status === 'success' && execution.data.resultData.lastNodeExecuted !== 'After') return undefined;
		return execution;
	}, 180_000);
}

/** The items After got (what Ask resumed with), once the execution has ended. */
async function resumedWith(id: string): Promise<Array<Record<string, unknown>>> {
	const ended = await endedAndSaved(id);
	expect(ended.status).toBe('success');
	return (ended.data.resultData.runData.After?.[0]?.data?.main[0] ?? []).map((item) => item.json);
}

const get = async (url: string) => {
	const page = await openLink(url);
	return { status: page.status, text: page.body, headers: page.headers };
};
/**
 * Answers as a person on the link's page does: opens it (its token), then sends
 * its form url-encoded (the confirmation page), or multipart (the answer forms).
 */
const post = async (url: string, form: Record<string, string | string[]> = {}, multipart = false) => {
	const answer = await answerByLink(url, form, multipart);
	return { status: answer.status, text: answer.body };
};
/** Sends a form with no page opened first (a post of another site, a forged or stale one): no token. */
const postBlind = async (url: string, form: Record<string, string | string[]> = {}) => {
	const answer = await postForm(url, form);
	return { status: answer.status, text: answer.body };
};

test('approval by link: the question carries signed links; a GET (a link preview) decides nothing; the POST approves; a second answer changes nothing', async () => {
	const { id, buttons } = await ask(WORKFLOWS.approval, 'Deploy release 2.4 to production?');
	expect(buttons.text).toBe('Deploy release 2.4 to production?');
	expect(buttons.actions.map((a) => [a.type, a.label])).toEqual([
		['uri', 'Ship it'],
		['uri', 'Not yet'],
	]);
	const [approve, decline] = buttons.actions.map((a) => new URL(a.linkUri as string));
	for (const [link, approved] of [[approve, 'true'], [decline, 'false']] as const) {
		expect(link.origin).toBe(bed.n8n.url);
		expect(link.pathname).toBe(`/webhook-waiting/${id}/${WORKFLOWS.approval.nodes[1].id}`);
		expect(link.searchParams.get('approved')).toBe(approved);
		// n8n 1.104 and later sign the resume URL (HMAC-SHA256, hex); 1.85 does not.
		if (SIGNED) expect(link.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		else expect(link.searchParams.has('signature')).toBe(false);
	}

	// A preview fetches the link twice: a page to confirm, and the execution keeps waiting.
	for (let n = 0; n < 2; n++) {
		const preview = await get(approve.toString());
		expect(preview.status).toBe(200);
		expect(preview.headers.get('content-type')).toContain('text/html');
		// Its address carries the link's signature: the page sends a referrer to its own origin only.
		expect(preview.headers.get('referrer-policy')).toBe('same-origin');
		expect(preview.text).toContain('<form method="post" action=""><input type="hidden" name="confirmation" value="');
		expect(preview.text).toContain('Deploy release 2.4 to production?');
	}
	expect(await statusOf(id)).toBe('waiting');
	if (SIGNED) {
		// A tampered link is refused by n8n itself.
		const tampered = new URL(decline);
		tampered.searchParams.set('approved', 'true');
		expect((await postBlind(tampered.toString())).status).toBe(401);
		expect(await statusOf(id)).toBe('waiting');
	}

	const answered = await post(approve.toString(), { confirm: 'approve' });
	expect(answered.status).toBe(200);
	expect(answered.text).toContain('Got it, thanks');
	const [item] = await resumedWith(id);
	expect(item).toEqual({ data: { approved: true, respondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });

	// A second answer (the other button) gets n8n's polite page and changes nothing.
	const second = await post(decline.toString(), { confirm: 'decline' });
	expect(second.status).toBe(200);
	expect(second.text).not.toContain('Got it, thanks');
	expect(await resumedWith(id)).toEqual([item]);
	expect((await bed.rest.executions(WORKFLOWS.approval.id)).length).toBe(1);
});

test('decline by link resumes with approved: false', async () => {
	const { id, buttons } = await ask(WORKFLOWS.approval, 'Restart the billing service?');
	const decline = buttons.actions.find((a) => a.label === 'Not yet')?.linkUri as string;
	expect((await get(decline)).text).toContain('Not yet');
	// As the confirmation page's button sends it.
	expect((await post(decline, { confirm: 'decline' })).status).toBe(200);
	expect((await resumedWith(id))[0]).toMatchObject({ data: { approved: false } });
});

test('free text: the button opens a form; an empty answer is refused; the typed answer resumes as data.text', async () => {
	const { id, buttons } = await ask(WORKFLOWS.freeText, 'The release is late. What happened?');
	expect(buttons.actions).toHaveLength(1);
	expect(buttons.actions[0]).toMatchObject({ type: 'uri', label: 'Answer' });
	const link = buttons.actions[0].linkUri as string;
	const form = await get(link);
	expect(form.status).toBe(200);
	expect(form.text).toContain('Why the delay?');
	expect(form.text).toContain('<textarea id="field-0" name="field-0" maxlength="20000" required>');
	const empty = await post(link, { 'field-0': '  ' }, true);
	expect(empty.status).toBe(400);
	expect(empty.text).toContain('This field is required');
	expect(await statusOf(id)).toBe('waiting');
	expect((await post(link, { 'field-0': 'A dependency broke.\nFixed now.' }, true)).status).toBe(200);
	expect((await resumedWith(id))[0]).toEqual({ data: { text: 'A dependency broke.\nFixed now.', respondedAt: expect.any(String) } });
});

test('custom form: fields typed and keyed by label; a bad value is named and the form refilled', async () => {
	const { id, buttons } = await ask(WORKFLOWS.customForm, 'Please fill in your leave request.');
	const link = buttons.actions[0].linkUri as string;
	const form = await get(link);
	expect(form.text).toContain('Leave request');
	expect(form.text).toContain('<select id="field-2" name="field-2">');
	const bad = await post(link, { 'field-0': 'Nattaya', 'field-1': 'three', 'field-2': 'Ops' }, true);
	expect(bad.status).toBe(400);
	expect(bad.text).toContain('Enter a number');
	expect(bad.text).toContain('value="Nattaya"');
	expect(await statusOf(id)).toBe('waiting');
	expect((await post(link, { 'field-0': 'Nattaya', 'field-1': '3', 'field-2': 'Ops', 'field-3': ['Laptop', 'Badge'] }, true)).status).toBe(200);
	expect((await resumedWith(id))[0]).toEqual({ data: { Name: 'Nattaya', Days: 3, Team: 'Ops', Needs: ['Laptop', 'Badge'], respondedAt: expect.any(String) } });
});

test('limit wait time: unanswered, the execution goes on with the input item (no data.approved) once the time runs out', async () => {
	const { id } = await ask(WORKFLOWS.timeout, 'Approve within 3 seconds?');
	const [item] = await resumedWith(id);
	expect(item).not.toHaveProperty('data');
	expect(item).toMatchObject({ body: { question: 'Approve within 3 seconds?' } });
});

test('answer in chat: postback buttons; a stranger is told they may not answer; the approver\'s tap resumes with who answered; later taps are told it is closed; no trigger execution', async () => {
	const { id, buttons } = await ask(WORKFLOWS.inChat, 'Grant nattaya admin rights on the billing project?');
	expect(buttons.actions.map((a) => [a.type, a.label, a.text])).toEqual([
		['postback', 'Approve', 'Approve'],
		['postback', 'Decline', 'Decline'],
	]);
	const [approve, decline] = buttons.actions.map((a) => a.data as string);
	const nodeId = WORKFLOWS.inChat.nodes[1].id;
	expect(approve).toMatch(new RegExp(`^n8n-answer\\|approve\\|/webhook-waiting/${id}/${nodeId}\\?answer=chat&question=[\\w-]{22}${SIGNED ? '&signature=[0-9a-f]{64}' : ''}\\|[\\w-]{22}$`));
	expect(decline.startsWith('n8n-answer|decline|')).toBe(true);
	const resumeUrl = `${bed.n8n.url}${approve.split('|')[2]}`;

	// Neither a link opened in a browser nor a forged relay answers.
	const opened = await get(resumeUrl);
	expect(opened.status).toBe(403);
	expect(opened.text).toContain('Please answer in the chat');
	const forged = await fetch(resumeUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(relayBody({ choice: 'approve', path: approve.split('|')[2], userId: SEED_USER_IDS.nattaya, username: null, eventTime: null, relayedAt: Date.now() }, 'not-the-bot-secret')),
	});
	expect(forged.status).toBe(403);
	expect(await forged.json()).toMatchObject({ outcome: 'refused' });
	expect(await statusOf(id)).toBe('waiting');

	const replies = async (n: number) => await until(`${n} replies`, async () => {
		const list = (await records()).filter((r) => r.route === 'POST /bot/v1/message/text');
		return list.length >= n ? list : undefined;
	});
	const stranger = await play({ type: 'postback', uid: SEED_USER_IDS.somchai, ...ALERTS, data: approve });
	expect(stranger.status).toBe(200);
	expect((await replies(1))[0]).toMatchObject({ text: 'You are not one of the people who may answer this question.', target: { replyToken: stranger.replyToken } });
	expect(await statusOf(id)).toBe('waiting');

	const approver = await play({ type: 'postback', uid: SEED_USER_IDS.nattaya, ...ALERTS, data: approve });
	expect(approver.status).toBe(200);
	const [item] = await resumedWith(id);
	expect(item).toEqual({
		data: {
			approved: true,
			respondedAt: expect.any(String),
			answeredIn: 'chat',
			answeredBy: { userId: SEED_USER_IDS.nattaya, username: null },
			answeredAt: (approver.events[0] as { timestamp: string }).timestamp,
		},
	});
	expect((await replies(2))[1]).toMatchObject({ text: 'Answer recorded: approved', target: { replyToken: approver.replyToken } });

	const late = await play({ type: 'postback', uid: SEED_USER_IDS.nattaya, ...ALERTS, data: decline });
	expect((await replies(3))[2]).toMatchObject({ text: 'This question is no longer open: it was answered already or its time ran out.', target: { replyToken: late.replyToken } });
	expect(await resumedWith(id)).toEqual([item]);
	// The taps were answers, not events: the trigger's workflow never ran.
	expect(await bed.rest.executions(TRIGGER.id)).toEqual([]);
	expect(bed.n8n.output.join('')).not.toContain(bed.emulator.credentials.clientSecret);
});

test('20 questions waiting at once survive a restart of n8n; each answered twice at once resumes exactly once', async () => {
	const COUNT = 20;
	await clearMessageRecords(bed.emulator.url);
	const workflow = WORKFLOWS.approval;
	const before = new Set((await bed.rest.executions(workflow.id)).map((e) => e.id));
	const started = await Promise.all(
		Array.from({ length: COUNT }, async (_, n) =>
			(await fetch(`${bed.n8n.url}/webhook/approval`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: `Question ${n}?` }) })).status,
		),
	);
	expect(started).toEqual(Array(COUNT).fill(200));
	const waiting = await until(`${COUNT} waiting executions`, async () => {
		const list = (await bed.rest.executions(workflow.id)).filter((e) => !before.has(e.id));
		return list.length === COUNT && list.every((e) => e.status === 'waiting') ? list : undefined;
	}, 180_000);
	const pushes = await until(`${COUNT} questions`, async () => {
		const list = await records();
		return list.length >= COUNT ? list : undefined;
	});
	expect(pushes).toHaveLength(COUNT);
	// Each question's Approve link, by the execution it resumes.
	const links = new Map<string, string>();
	for (const push of pushes) {
		const { template } = push.messages?.at(-1) as { template: { actions: Action[] } };
		const link = template.actions[0].linkUri as string;
		links.set(new URL(link).pathname.split('/')[2], link);
	}
	expect([...links.keys()].sort()).toEqual(waiting.map((e) => e.id).sort());
	for (const execution of waiting) await savedWaiting(execution.id);

	// n8n stops and starts again on the same port: the executions wait on in its database.
	await bed.restart();
	expect((await Promise.all(waiting.map(async (e) => await statusOf(e.id))))).toEqual(Array(COUNT).fill('waiting'));

	// Every link is sent twice at the same time, as a double tap would.
	const answers = await Promise.all([...links.values()].flatMap((link) => [post(link, { confirm: 'approve' }), post(link, { confirm: 'approve' })]));
	expect(answers.every((a) => [200, 409].includes(a.status))).toBe(true);
	for (const execution of waiting) {
		const ended = await endedAndSaved(execution.id);
		expect(ended.status).toBe('success');
		// After ran once, with the one answer.
		expect(ended.data.resultData.runData.After).toHaveLength(1);
		expect(ended.data.resultData.runData.After[0].data?.main[0]?.map((i) => i.json)).toEqual([{ data: { approved: true, respondedAt: expect.any(String) } }]);
	}
	expect((await bed.rest.executions(workflow.id)).filter((e) => !before.has(e.id))).toHaveLength(COUNT);
	console.log(`${COUNT} waiting executions, restart, ${answers.length} answers (${answers.filter((a) => a.status === 200).length} × 200, ${answers.filter((a) => a.status === 409).length} × 409): ${COUNT} resumed once each`);
});

test('in a browser on a phone-sized screen: the confirmation page shows its button, the form its fields (screenshots)', async () => {
	mkdirSync(SCREENSHOTS, { recursive: true });
	const { buttons: form } = await ask(WORKFLOWS.customForm, 'Please fill in your leave request for December.');
	const { buttons: approval } = await ask(WORKFLOWS.approval, 'Deploy release 2.4 to production?');
	const browser = await launchChromium({ width: 420, height: 760 });
	try {
		await step(browser.page, 'send-and-wait-confirm', async () => {
			await browser.page.goto(approval.actions[0].linkUri as string);
			await browser.page.getByRole('button', { name: 'Ship it' }).waitFor({ state: 'visible' });
			await browser.page.screenshot({ path: path.join(SCREENSHOTS, 'send-and-wait-confirm.png'), fullPage: true });
		});
		await step(browser.page, 'send-and-wait-form', async () => {
			await browser.page.goto(form.actions[0].linkUri as string);
			for (const label of ['Name', 'Days', 'Team']) await browser.page.getByLabel(label).waitFor({ state: 'visible' });
			await browser.page.getByRole('button', { name: 'Send request' }).waitFor({ state: 'visible' });
			await browser.page.screenshot({ path: path.join(SCREENSHOTS, 'send-and-wait-form.png'), fullPage: true });
		});
	} finally {
		await browser.close();
	}
});
