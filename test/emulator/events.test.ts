/**
 * Playing a user: the emulator builds the service's webhook events, signs the
 * exact bytes with the client secret (checked here with an independent HMAC)
 * and delivers them; batches arrive concurrently, none lost or doubled.
 */
import { createHmac } from 'node:crypto';
import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { SEED_PICTURE_IDS } from '../../emulator/bot/pictures';
import { directChatId, mainTopicId } from '../../emulator/bot/state';
import { multipartForm, startRecordingServer } from '../../testbed/httpClient';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed({ webhook: (delivered) => ({ body: { got: delivered.body.events.length } }) });
const U = SEED_USER_IDS.somchai;
const G = SEED_GROUP_IDS.incidentRoom;

/** Plays a user through the admin route. */
const play = (body: Record<string, unknown>) => bed.call('/__emulator/events', { method: 'POST', json: body });
/** The signature the service sends, computed independently: base64 HMAC-SHA256 of the raw bytes, keyed with the client secret. */
const expectedSignature = (secret: string, raw: Buffer) => createHmac('sha256', secret).update(raw).digest('base64');

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /__emulator/events', () => {
	it('delivers a signed message event with the service headers and reports the answer', async () => {
		const res = await play({ url: bed.webhook.url, type: 'message', uid: U, text: 'Is prod down?' });
		expect(res.status).toBe(200);
		const [got] = bed.webhook.received;
		expect(got.headers['content-type']).toBe('application/json;charset=utf-8');
		expect(got.headers['user-agent']).toBe('axios/0.19.0');
		expect(got.headers.accept).toBe('application/json, text/plain, */*');
		// Independent check: base64 HMAC-SHA256 of the raw bytes, keyed with the client secret.
		expect(got.headers['x-eko-signature']).toBe(expectedSignature(bed.emulator.config.clientSecret, got.raw));
		expect(Buffer.from(got.headers['x-eko-signature'] as string, 'base64')).toHaveLength(32);
		// Compact JSON, as axios sends it.
		expect(got.raw.toString('utf8')).toBe(JSON.stringify(got.body));
		const event = got.body.events[0];
		expect(got.body.events).toHaveLength(1);
		expect(event).toEqual({
			type: 'message',
			replyToken: expect.stringMatching(/^[0-9a-f]{32}$/),
			source: { type: 'user', uid: U, gid: directChatId(U) },
			timestamp: expect.stringMatching(ISO),
			message: { id: expect.stringMatching(/^[0-9a-f]{24}$/), type: 'text', groupId: directChatId(U), topicId: mainTopicId(directChatId(U)), text: 'Is prod down?' },
		});
		expect(res.body).toEqual({
			status: 200,
			body: { got: 1 },
			event,
			replyToken: event.replyToken,
			events: [event],
			replyTokens: [event.replyToken],
			signature: got.headers['x-eko-signature'],
		});
		expect(bed.emulator.messaging.replyTokens.get(event.replyToken)).toMatchObject({ target: { gid: directChatId(U), tid: null, uid: U }, eventType: 'message' });
	});

	it('builds join (epoch ms, direct_chat source), postback, picture, group and unknown events as the service\'s samples show them', async () => {
		const join = (await play({ url: bed.webhook.url, type: 'join', uid: U })).body.event;
		expect(join).toEqual({ type: 'join', replyToken: expect.any(String), source: { type: 'direct_chat', uid: U }, timestamp: expect.any(Number) });
		expect(join.timestamp).toBeGreaterThan(1e12);

		const postback = (await play({ url: bed.webhook.url, type: 'postback', uid: U, gid: G, tid: SEED_TOPIC_IDS.incidentAlerts, data: 'approve=42' })).body.event;
		expect(postback).toMatchObject({ type: 'postback', source: { type: 'user', uid: U, gid: G }, timestamp: expect.stringMatching(ISO), postback: { data: 'approve=42' } });
		expect(bed.emulator.messaging.replyTokens.get(postback.replyToken)?.target).toEqual({ gid: G, tid: SEED_TOPIC_IDS.incidentAlerts });

		const picture = (await play({ url: bed.webhook.url, type: 'picture', uid: U, gid: G })).body.event;
		expect(picture.message).toEqual({ id: expect.any(String), type: 'picture', groupId: G, topicId: mainTopicId(G), pictureId: expect.stringMatching(/^[0-9a-f]{24}$/), fileName: 'photo-1.png' });
		const image = await bed.call(`/file/image/${picture.message.pictureId}`, { auth: 'bot' });
		expect({ status: image.status, type: image.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });
		const seeded = (await play({ url: bed.webhook.url, type: 'picture', pictureId: SEED_PICTURE_IDS.whiteboardPhoto })).body.event;
		expect(seeded.message).toMatchObject({ pictureId: SEED_PICTURE_IDS.whiteboardPhoto, fileName: 'whiteboard.png' });

		const workflow = (await play({ url: bed.webhook.url, type: 'workflow', data: { type: 'approved', _id: 'wf1' } })).body.event;
		expect(workflow).toMatchObject({ type: 'workflow', replyToken: expect.any(String), workflow: { type: 'approved', _id: 'wf1' } });

		const legacy = (await play({ url: bed.webhook.url, type: 'message', sourceStyle: 'gw', timestamp: 'ms' })).body.event;
		expect(legacy.source).toEqual({ type: 'user', userId: U, username: 'somchai.k' });
		expect(typeof legacy.timestamp).toBe('number');
		expect(bed.webhook.received).toHaveLength(6);
	});

	it('signs wrong (right form, other key) or not at all on request', async () => {
		const wrong = await play({ url: bed.webhook.url, type: 'message', signature: 'wrong' });
		const [w] = bed.webhook.received;
		expect(w.headers['x-eko-signature']).toBe(wrong.body.signature);
		expect(Buffer.from(wrong.body.signature, 'base64')).toHaveLength(32);
		expect(wrong.body.signature).not.toBe(expectedSignature(bed.emulator.config.clientSecret, w.raw));
		const none = await play({ url: bed.webhook.url, type: 'message', signature: 'none' });
		expect(bed.webhook.received[1].headers['x-eko-signature']).toBeUndefined();
		expect(none.body.signature).toBeUndefined();
	});

	it('delivers a batch of 50 concurrently, each signed with its own reply token, and all events in one body on request', async () => {
		const res = await play({ url: bed.webhook.url, type: 'message', text: 'n={n}', count: 50 });
		expect(res.body.deliveries).toHaveLength(50);
		expect(res.body.deliveries.every((d: { status: number }) => d.status === 200)).toBe(true);
		const texts = bed.webhook.received.map((r) => r.body.events[0].message.text).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
		expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `n=${i + 1}`));
		expect(new Set(bed.webhook.received.map((r) => r.body.events[0].replyToken)).size).toBe(50);
		for (const r of bed.webhook.received) expect(r.headers['x-eko-signature']).toBe(expectedSignature(bed.emulator.config.clientSecret, r.raw));

		bed.webhook.received.length = 0;
		const one = await play({ url: bed.webhook.url, type: 'postback', data: 'd{n}', count: 3, inOneBody: true });
		expect(bed.webhook.received).toHaveLength(1);
		expect(bed.webhook.received[0].body.events.map((e: { postback: { data: string } }) => e.postback.data)).toEqual(['d1', 'd2', 'd3']);
		expect(one.body).toMatchObject({ status: 200, body: { got: 3 }, replyTokens: expect.arrayContaining([expect.any(String)]) });
		expect(one.body.replyTokens).toHaveLength(3);
	});

	it("reports the webhook's refusal and an unreachable webhook", async () => {
		const refusing = await startRecordingServer(() => ({ status: 401, body: { message: 'bad signature' } }));
		try {
			expect((await play({ url: `${refusing.origin}/webhook`, type: 'message' })).body).toMatchObject({ status: 401, body: { message: 'bad signature' } });
		} finally {
			await refusing.close();
		}
		const gone = await play({ url: `${refusing.origin}/webhook`, type: 'message' });
		expect(gone.status).toBe(200);
		expect(gone.body.status).toBeUndefined();
		expect(gone.body.error).toMatch(/ECONNREFUSED/);
	});

	it('uses the webhookUrl option when url is left out, and refuses bad requests with 400', async () => {
		expect((await play({ type: 'message' })).body).toEqual({ error: 'bad_request', message: 'url is required (the webhook to deliver to)' });
		bed.emulator.setConfig({ webhookUrl: bed.webhook.url });
		expect((await play({ type: 'message' })).body.status).toBe(200);
		const bad: Array<[Record<string, unknown>, string | RegExp]> = [
			[{ url: 'ftp://x', type: 'message' }, 'url must be http(s)'],
			[{ url: 'not a url', type: 'message' }, /^url is not a URL/],
			[{ url: bed.webhook.url }, 'type is required'],
			[{ url: bed.webhook.url, type: 'postback' }, 'postback needs data (a string)'],
			[{ url: bed.webhook.url, type: 'message', signature: 'maybe' }, 'signature must be valid, wrong or none'],
			[{ url: bed.webhook.url, type: 'message', count: 0 }, 'count must be an integer from 1 to 500'],
			[{ url: bed.webhook.url, type: 'message', count: 501 }, 'count must be an integer from 1 to 500'],
			[{ url: bed.webhook.url, type: 'message', uid: SEED_USER_IDS.somchaiOld }, /is not an active user/],
			[{ url: bed.webhook.url, type: 'message', uid: SEED_USER_IDS.anan, gid: G }, /is not a member of group/],
			[{ url: bed.webhook.url, type: 'join', gid: G }, 'join happens in a direct chat; leave gid out'],
			[{ url: bed.webhook.url, type: 'message', tid: SEED_TOPIC_IDS.incidentAlerts }, 'tid needs a gid'],
			[{ url: bed.webhook.url, type: 'message', gid: G, tid: 'nope' }, /not found/],
			[{ url: bed.webhook.url, type: 'picture', pictureId: 'nope' }, /not a picture the emulator knows/],
		];
		for (const [body, message] of bad) {
			const res = await play(body);
			expect({ body, status: res.status, message: res.body.message }).toEqual({ body, status: 400, message: typeof message === 'string' ? message : expect.stringMatching(message) });
		}
		expect(bed.webhook.received).toHaveLength(1);
	});

	it('is also there programmatically: emulator.playUser', async () => {
		const [delivery] = await bed.emulator.playUser({ url: bed.webhook.url, type: 'join', uid: SEED_USER_IDS.arthit });
		expect(delivery).toMatchObject({ status: 200, events: [{ type: 'join', source: { uid: SEED_USER_IDS.arthit } }] });
	});
});

describe('GET /__emulator/messages', () => {
	it('lists what each user, group and topic received, in order, and clears with DELETE or reset', async () => {
		await bed.call('/bot/v1/direct/message', { method: 'POST', auth: 'bot', json: { uid: U, message: { type: 'text', data: 'one' } } });
		await bed.call('/bot/v2/message/push', { method: 'POST', auth: 'bot', json: { gid: G, tid: SEED_TOPIC_IDS.incidentAlerts, messages: [{ type: 'text', text: 'two' }] } });
		await bed.call('/bot/v1/group/file', { method: 'POST', auth: 'bot', body: multipartForm({ gid: G }, [{ data: Buffer.from('abc'), type: 'text/plain', filename: 'a.txt' }]) });
		const replyToken = (await play({ url: bed.webhook.url, type: 'message', uid: U })).body.replyToken;
		await bed.call('/bot/v1/message/text', { method: 'POST', auth: 'bot', body: multipartForm({ message: 'three', replyToken }) });

		const all = await bed.call('/__emulator/messages');
		expect(all.body.messages.map((m: { seq: number; route: string }) => [m.seq, m.route])).toEqual([
			[1, 'POST /bot/v1/direct/message'],
			[2, 'POST /bot/v2/message/push'],
			[3, 'POST /bot/v1/group/file'],
			[4, 'POST /bot/v1/message/text'],
		]);
		// The admin route adds each record's tappable things (none here).
		expect(all.body.messages).toEqual(bed.emulator.messages().map((m) => ({ ...m, buttons: [] })));
		expect(all.body.messages[2]).toMatchObject({ time: expect.stringMatching(ISO), file: { filename: 'a.txt', size: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
		expect((await bed.call(`/__emulator/messages?uid=${U}`)).body.messages.map((m: { text: string }) => m.text)).toEqual(['one', 'three']);
		expect((await bed.call(`/__emulator/messages?gid=${G}&tid=${SEED_TOPIC_IDS.incidentAlerts}`)).body.messages).toHaveLength(1);
		expect((await bed.call(`/__emulator/messages?gid=${G}&tid=`)).body.messages.map((m: { route: string }) => m.route)).toEqual(['POST /bot/v1/group/file']);
		expect((await bed.call('/__emulator/messages?route=/message/text')).body.messages).toHaveLength(1);
		expect((await bed.call('/__emulator/messages', { method: 'DELETE' })).status).toBe(204);
		expect(bed.emulator.messages()).toEqual([]);
	});
});

describe('GET /__emulator/', () => {
	it('serves the play page with the webhook URL prefilled (escaped) and the three buttons', async () => {
		bed.emulator.setConfig({ webhookUrl: 'http://localhost:5678/webhook/a"b<c>' });
		const page = await fetch(`${bed.emulator.url}/__emulator/`);
		const html = await page.text();
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		expect(html).toContain('value="http://localhost:5678/webhook/a&quot;b&lt;c&gt;"');
		for (const label of ['Send message', 'Tap postback', 'Join']) expect(html).toContain(`>${label}</button>`);
		expect(html).toContain('<option value="64b7f0a1c2d3e4f5a6b7c801">somchai.k</option>');
		expect(html).not.toContain('somchai.k.old');
		const bare = await fetch(`${bed.emulator.url}/__emulator`, { redirect: 'manual' });
		expect({ status: bare.status, location: bare.headers.get('location') }).toEqual({ status: 302, location: '/__emulator/' });
	});
});

describe('the request log and credentials', () => {
	it('never holds the access token, the client secret, the JWT or the API key', async () => {
		const token = await bed.botToken();
		await bed.call('/bot/v1/direct/message', { method: 'POST', auth: 'bot', json: { uid: U, message: { type: 'text', data: 'x' } } });
		// Id and secret also as form fields (one client sends them so instead of HTTP Basic): the body is logged without the secret.
		const basic = Buffer.from(`${bed.emulator.config.clientId}:${bed.emulator.config.clientSecret}`).toString('base64');
		await bed.call('/oauth/token', {
			method: 'POST',
			auth: 'botClient',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: `grant_type=client_credentials&client_id=${bed.emulator.config.clientId}&client_secret=${bed.emulator.config.clientSecret}`,
		});
		await bed.call('/api/v1/knowledge/1', { auth: 'knowledgeBase' });
		await bed.call('/api/v1/task-projects/tasks', { method: 'POST', json: {}, auth: 'taskProjects' });
		const basicLogged = JSON.stringify(bed.emulator.log).includes(basic);
		expect(basicLogged).toBe(false);
		const logged = JSON.stringify(bed.emulator.log) + (await bed.call('/__emulator/log')).text;
		for (const secret of [token, bed.emulator.config.clientSecret, bed.emulator.credentials.jwt, bed.emulator.credentials.apiKey]) expect(logged).not.toContain(secret);
		expect(bed.emulator.logFor('POST', '/bot/v1/direct/message')[0].headers.authorization).toMatch(/^Bearer \[redacted sha256:[0-9a-f]{12}\]$/);
		expect(bed.emulator.logFor('POST', '/oauth/token')[1].body).toMatchObject({ client_id: bed.emulator.config.clientId, client_secret: expect.stringMatching(/^\[redacted/) });
	});
});

describe('emulator CLI options (npm run emulator / npm run dev)', () => {
	it('reads the webhook URL and the messaging switches from the environment', async () => {
		const { optionsFromEnv } = await import('../../emulator/main');
		const saved = { ...process.env };
		try {
			Object.assign(process.env, { WEBHOOK_URL: 'http://127.0.0.1:5678/webhook/bot', REPLY_TOKEN_TTL_SECONDS: '5', V1_SEND_ANSWER: 'status', TEXT_REPLY_JSON: 'accept', MAX_MESSAGE_FILE_BYTES: '1024' });
			expect(optionsFromEnv()).toMatchObject({ webhookUrl: 'http://127.0.0.1:5678/webhook/bot', replyTokenTtlSeconds: 5, v1SendAnswer: 'status', textReplyJson: 'accept', maxMessageFileBytes: 1024 });
		} finally {
			process.env = saved;
		}
	});
});
