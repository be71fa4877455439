/**
 * The bot in real n8n 2.41.1: an active (published) workflow Workplace Trigger
 * → IF postback → Message → Reply (text) → Message → Send to Group or Topic (a
 * buttons template into the Incident Room's Alerts topic), and for a message →
 * Reply (quick replies) → Send to Group or Topic (back into the event's own
 * chat). The emulator plays a user through its admin route
 * (POST /__emulator/events): it builds the service's event with a fresh reply
 * token, signs the body bytes (X-Eko-Signature, base64 HMAC-SHA256 keyed with
 * the bot's client secret) and posts it to the workflow's PRODUCTION webhook
 * URL. What the bot said is read back from the emulator's records
 * (GET /__emulator/messages), executions from n8n's REST API.
 *
 * The trigger answers "onReceived", so a 2xx means the execution has started,
 * not finished: completion is observed by polling.
 */
import { randomUUID } from 'node:crypto';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { directChatId, mainTopicId, type MessageRecord } from '../../emulator/bot/state';
import type { Delivery } from '../../emulator/bot/webhook';
import { until } from '../../testbed/until';
import { clearMessageRecords, messageRecords, playOverHttp, type OneDelivery } from '../lib/emulatorAdmin';
import { e2eTestbed } from '../lib/testbed';
import { BOT, workplaceTrigger } from '../lib/workflows';

const CONCURRENT = 50;
const WORKFLOW_ID = 'wpMessagingE2e01';
const ALERTS = { gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts };
const node = (n: number) => `c0ffee00-0000-4c55-9e0e-1d2a4b9f07${String(n).padStart(2, '0')}`;
const trigger = "$('Workplace Trigger').item.json";

const workflow = {
	id: WORKFLOW_ID,
	name: 'Bot answers (messaging e2e)',
	nodes: [
		{ ...workplaceTrigger(['message', 'postback']), id: node(1), position: [0, 0] },
		{
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{ id: node(90), leftValue: '={{ $json.type }}', rightValue: 'postback', operator: { type: 'string', operation: 'equals' } },
					],
					combinator: 'and',
				},
				options: {},
			},
			id: node(2),
			name: 'Postback?',
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			position: [220, 0],
		},
		{
			parameters: { resource: 'message', operation: 'reply', replyWith: 'text', text: '=Noted: {{ $json.data }}' },
			id: node(3),
			name: 'Confirm the choice',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [440, -120],
			credentials: BOT,
		},
		{
			parameters: {
				resource: 'message',
				operation: 'sendToGroup',
				groupId: { __rl: true, mode: 'id', value: ALERTS.gid },
				topicId: { __rl: true, mode: 'id', value: ALERTS.tid },
				messageSource: 'panel',
				messages: {
					message: [
						{
							type: 'buttons',
							title: `={{ ${trigger}.data }}`,
							text: `=Chosen by {{ ${trigger}.userId }}`,
							buttons: {
								button: [
									{ type: 'postback', label: 'Undo', data: `=undo:{{ ${trigger}.data }}` },
									{ type: 'uri', label: 'Open the runbook', linkUri: 'https://runbooks.example/incident' },
								],
							},
						},
					],
				},
			},
			id: node(4),
			name: 'Tell the alerts topic',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [660, -120],
			credentials: BOT,
		},
		{
			parameters: {
				resource: 'message',
				operation: 'reply',
				replyWith: 'quickReplies',
				text: '=You said: {{ $json.text }}. Approve?',
				quickReplies: { item: [{ label: 'Approve', text: 'approve' }, { label: 'Reject' }] },
			},
			id: node(5),
			name: 'Offer choices',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [440, 120],
			credentials: BOT,
		},
		{
			parameters: {
				resource: 'message',
				operation: 'sendToGroup',
				groupId: { __rl: true, mode: 'id', value: `={{ ${trigger}.groupId }}` },
				topicId: { __rl: true, mode: 'id', value: `={{ ${trigger}.topicId }}` },
				messageSource: 'panel',
				messages: { message: [{ type: 'text', text: `=Heard: {{ ${trigger}.text }}` }] },
			},
			id: node(6),
			name: 'Echo to the chat',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [660, 120],
			credentials: BOT,
		},
	],
	connections: {
		'Workplace Trigger': { main: [[{ node: 'Postback?', type: 'main', index: 0 }]] },
		'Postback?': {
			main: [[{ node: 'Confirm the choice', type: 'main', index: 0 }], [{ node: 'Offer choices', type: 'main', index: 0 }]],
		},
		'Confirm the choice': { main: [[{ node: 'Tell the alerts topic', type: 'main', index: 0 }]] },
		'Offer choices': { main: [[{ node: 'Echo to the chat', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

// Reply tokens live 60 s by default; the shared two-core machine may take longer for 50 executions.
const bed = e2eTestbed({ emulator: { replyTokenTtlSeconds: 900 }, credentials: ['workplaceBotApi'], workflows: [workflow], publish: true });

/** Plays a user through the emulator's admin route, towards the workflow's production webhook. */
const play = async <T = OneDelivery>(request: Parameters<typeof playOverHttp>[2]) => await playOverHttp<T>(bed.emulator.url, bed.triggerUrl(workflow), request);
const records = async (query: Record<string, string> = {}) => await messageRecords(bed.emulator.url, query);
const executions = async () => await bed.rest.executions(WORKFLOW_ID);
const executionsEnded = async (total: number) => await bed.executionsEnded(WORKFLOW_ID, total);
const routeOf = (record: MessageRecord) => record.route.replace(/^POST /, '');

test('wrong and missing signatures are refused with 401, start no execution and leave the body out of the log', async () => {
	const secretText = `refused-${randomUUID()}`;
	const wrong = await play({ type: 'message', text: secretText, signature: 'wrong' });
	expect({ status: wrong.status, body: wrong.body }).toEqual({ status: 401, body: { message: 'Invalid X-Eko-Signature' } });
	expect(wrong.signature).toMatch(/^[A-Za-z0-9+/]{43}=$/);
	const missing = await play({ type: 'postback', data: secretText, signature: 'none' });
	expect({ status: missing.status, body: missing.body }).toEqual({ status: 401, body: { message: 'Missing X-Eko-Signature' } });
	expect(missing.signature).toBeUndefined();

	// A signed event afterwards runs, so had the refused ones started anything it would show by now.
	const signed = await play({ type: 'postback', data: 'after-refusals' });
	expect(signed.status).toBe(200);
	const [only] = await executionsEnded(1);
	expect(only.status).toBe('success');
	expect(await executions()).toHaveLength(1);
	const said = await records();
	expect(said.map((r) => r.target.replyToken).filter(Boolean)).toEqual([signed.replyToken]);
	expect(JSON.stringify(said)).not.toContain(secretText);
	// n8n logged that it refused, never what was sent.
	expect(bed.n8n.output.join('')).toMatch(/refused a call: signature/);
	expect(bed.n8n.output.join('')).not.toContain(secretText);
	expect(bed.n8n.output.join('')).not.toContain(bed.emulator.credentials.clientSecret);
});

test('a postback is answered with its reply token and announced in the alerts topic as a buttons template', async () => {
	await clearMessageRecords(bed.emulator.url);
	const before = (await executions()).length;
	const uid = SEED_USER_IDS.nattaya;
	const delivered = await play({ type: 'postback', uid, data: 'approve:4711' });
	expect({ status: delivered.status, body: delivered.body }).toEqual({ status: 200, body: { received: 1, accepted: 1 } });
	expect(delivered.replyToken).toMatch(/^[0-9a-f]{32}$/);
	expect(delivered.event).toMatchObject({ type: 'postback', replyToken: delivered.replyToken, postback: { data: 'approve:4711' } });

	const ended = await executionsEnded(before + 1);
	expect(ended.map((e) => e.status)).toEqual(Array(before + 1).fill('success'));
	const said = await until('a reply and a push', async () => {
		const list = await records();
		return list.length >= 2 ? list : undefined;
	});
	expect(said).toHaveLength(2);
	const [reply, push] = said;
	// The reply went to the chat of the event (nattaya's direct chat), with the token it carried.
	expect(routeOf(reply)).toBe('/bot/v1/message/text');
	expect(reply.target).toEqual({ gid: directChatId(uid), tid: null, uid, replyToken: delivered.replyToken });
	expect(reply.text).toBe('Noted: approve:4711');
	// The push went to the Incident Room's Alerts topic, built in the panel's message builder
	// (no picture, so no image options).
	expect(routeOf(push)).toBe('/bot/v2/message/push');
	expect(push.target).toEqual({ gid: ALERTS.gid, tid: ALERTS.tid });
	expect(push.messages).toEqual([
		{
			type: 'template',
			template: {
				type: 'buttons',
				title: 'approve:4711',
				text: `Chosen by ${uid}`,
				actions: [
					{ type: 'postback', label: 'Undo', data: 'undo:approve:4711' },
					{ type: 'uri', label: 'Open the runbook', linkUri: 'https://runbooks.example/incident' },
				],
			},
		},
	]);
	// Filtering the records by chat finds the push in the topic and nothing in the group's main chat.
	expect((await records({ gid: ALERTS.gid, tid: ALERTS.tid })).map((r) => r.seq)).toEqual([push.seq]);
	expect(await records({ gid: ALERTS.gid, tid: '' })).toEqual([]);
	expect(bed.emulator.messaging.replyTokens.get(delivered.replyToken)?.usedAt).toBeDefined();
});

test('a message in a group topic gets quick replies and an echo in the same topic; one in a direct chat, in that chat', async () => {
	await clearMessageRecords(bed.emulator.url);
	const before = (await executions()).length;
	const inTopic = await play({ type: 'message', uid: SEED_USER_IDS.somchai, gid: ALERTS.gid, tid: ALERTS.tid, text: 'Is the API down?' });
	expect(inTopic.status).toBe(200);
	await executionsEnded(before + 1);
	const direct = await play({ type: 'message', uid: SEED_USER_IDS.pimchanok, text: 'Hello bot' });
	expect(direct.status).toBe(200);
	const ended = await executionsEnded(before + 2);
	expect(ended.map((e) => e.status)).toEqual(Array(before + 2).fill('success'));

	const said = await until('two replies and two pushes', async () => {
		const list = await records();
		return list.length >= 4 ? list : undefined;
	});
	expect(said.map((r) => routeOf(r))).toEqual(['/bot/v1/message/quickreply', '/bot/v2/message/push', '/bot/v1/message/quickreply', '/bot/v2/message/push']);
	const [topicReply, topicPush, directReply, directPush] = said;

	expect(topicReply.target).toEqual({ ...ALERTS, replyToken: inTopic.replyToken });
	expect(topicReply.text).toBe('You said: Is the API down?. Approve?');
	expect(topicReply.meta).toEqual({
		quickreply: {
			template: 'default',
			items: [
				{ type: 'label', value: 'Approve', data: { text: 'approve' } },
				{ type: 'label', value: 'Reject', data: { text: 'Reject' } },
			],
		},
	});
	// The trigger's groupId and topicId of the event address the push to the same topic.
	expect(topicPush.target).toEqual(ALERTS);
	expect(topicPush.messages).toEqual([{ type: 'text', text: 'Heard: Is the API down?' }]);

	const uid = SEED_USER_IDS.pimchanok;
	expect(directReply.target).toEqual({ gid: directChatId(uid), tid: null, uid, replyToken: direct.replyToken });
	// A direct chat's event names its main topic; the push with it lands in the direct chat.
	expect(direct.event.message).toMatchObject({ groupId: directChatId(uid), topicId: mainTopicId(directChatId(uid)) });
	expect(directPush.target).toEqual({ gid: directChatId(uid), tid: null, uid });
	expect(directPush.messages).toEqual([{ type: 'text', text: 'Heard: Hello bot' }]);
});

test(`${CONCURRENT} concurrent signed postbacks give ${CONCURRENT} executions and ${CONCURRENT} replies, each reply token used once`, async () => {
	await clearMessageRecords(bed.emulator.url);
	const callsBefore = (route: string) => bed.emulator.logFor('POST', route).length;
	const repliesBefore = callsBefore('/bot/v1/message/text');
	const pushesBefore = callsBefore('/bot/v2/message/push');
	const before = await executions();
	const batch = `b${Date.now().toString(36)}`;

	const { deliveries } = await play<{ deliveries: Delivery[] }>({ type: 'postback', uid: SEED_USER_IDS.somchai, data: `${batch}-{n}`, count: CONCURRENT });
	expect(deliveries).toHaveLength(CONCURRENT);
	const refused = deliveries.filter((d) => d.status !== 200);
	expect(refused.map((d) => ({ status: d.status, body: d.body, error: d.error }))).toEqual([]);
	for (const delivery of deliveries) expect(delivery.body).toEqual({ received: 1, accepted: 1 });
	const tokens = deliveries.flatMap((d) => d.replyTokens);
	expect(new Set(tokens).size).toBe(CONCURRENT);
	const dataOf = new Map(deliveries.map((d) => [d.replyTokens[0], (d.events[0].postback as { data: string }).data]));
	expect(new Set(dataOf.values())).toEqual(new Set(Array.from({ length: CONCURRENT }, (_, n) => `${batch}-${n + 1}`)));

	// n8n: exactly one more execution per event, all successful.
	const ended = await executionsEnded(before.length + CONCURRENT);
	const fresh = ended.filter((e) => !before.some((b) => b.id === e.id));
	expect(fresh).toHaveLength(CONCURRENT);
	expect(fresh.map((e) => e.status)).toEqual(Array(CONCURRENT).fill('success'));
	expect(new Set(fresh.map((e) => e.mode))).toEqual(new Set(['webhook']));

	// The emulator: one reply per delivered token, with its own event's data, and one push per event.
	const said = await until(`${CONCURRENT * 2} records`, async () => {
		const list = await records();
		return list.length >= CONCURRENT * 2 ? list : undefined;
	});
	const replies = said.filter((r) => routeOf(r) === '/bot/v1/message/text');
	const pushes = said.filter((r) => routeOf(r) === '/bot/v2/message/push');
	expect(replies).toHaveLength(CONCURRENT);
	expect(pushes).toHaveLength(CONCURRENT);
	expect(said).toHaveLength(CONCURRENT * 2);
	const used = replies.map((r) => r.target.replyToken as string);
	expect([...used].sort()).toEqual([...tokens].sort());
	for (const reply of replies) expect(reply.text).toBe(`Noted: ${dataOf.get(reply.target.replyToken as string)}`);
	expect(pushes.every((p) => p.target.gid === ALERTS.gid && p.target.tid === ALERTS.tid)).toBe(true);
	const announced = pushes.map((p) => ((p.messages as Array<{ template: { title: string } }>)[0]).template.title);
	expect([...announced].sort()).toEqual([...dataOf.values()].sort());
	// Each token redeemed, and no reply sent twice or refused: every reply call answered 200 once.
	for (const token of tokens) expect(bed.emulator.messaging.replyTokens.get(token)?.usedAt).toBeDefined();
	const replyCalls = bed.emulator.logFor('POST', '/bot/v1/message/text').slice(repliesBefore);
	expect(replyCalls.map((c) => c.status)).toEqual(Array(CONCURRENT).fill(200));
	const pushCalls = bed.emulator.logFor('POST', '/bot/v2/message/push').slice(pushesBefore);
	expect(pushCalls.map((c) => c.status)).toEqual(Array(CONCURRENT).fill(200));

	console.log(
		`messaging e2e: ${CONCURRENT} concurrent signed postbacks → ${deliveries.filter((d) => d.status === 200).length} answered 200, ` +
			`${fresh.length} executions (${fresh.filter((e) => e.status === 'success').length} successful), ` +
			`${replies.length} replies with ${new Set(used).size} distinct reply tokens (of ${tokens.length} delivered), ` +
			`${pushes.length} pushes to the Alerts topic; ${bed.emulator.logFor('POST', '/oauth/token').length} bot token request(s) in the whole suite`,
	);
});
