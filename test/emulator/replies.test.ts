/**
 * v1 replies with reply tokens the emulator hands out only inside delivered
 * events: single use, short-lived, and the strict content types of each route.
 */
import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { directChatId } from '../../emulator/bot/state';
import { MESSAGE_LIMITS } from '../../emulator/bot/messages/schema';
import { pngBytes } from '../../emulator/bot/pictures';
import { multipartForm, sha256 } from '../../testbed/httpClient';
import { emulatorTestbed, type CallOptions } from '../../testbed/testbed';

const bed = emulatorTestbed({ webhook: true });
const U = SEED_USER_IDS.somchai;

const post = (path: string, options: CallOptions) => bed.call(path, { method: 'POST', auth: 'bot', ...options });
const fresh = (extra: Record<string, unknown> = {}) => bed.replyToken(extra);
const quick = (replyToken: string, items: unknown[] = [{ type: 'label', value: 'Yes', data: { text: 'yes' } }], extra: Record<string, unknown> = {}) => ({
	replyToken,
	message: { data: 'Approve?', meta: { quickreply: { template: 'default', items } }, ...extra },
});

describe('POST /bot/v1/message/text', () => {
	it('replies in the chat of the event, once; a second use, an unknown and an expired token answer 400', async () => {
		const replyToken = await fresh();
		const ok = await post('/bot/v1/message/text', { body: multipartForm({ message: 'Got it', replyToken }) });
		expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: '' });
		expect(bed.emulator.messages({ uid: U })).toEqual([
			expect.objectContaining({ route: 'POST /bot/v1/message/text', text: 'Got it', target: { gid: directChatId(U), tid: null, uid: U, replyToken } }),
		]);
		expect(await post('/bot/v1/message/text', { body: multipartForm({ message: 'again', replyToken }) })).toMatchObject({
			status: 400,
			body: { code: 'invalid_reply_token', message: 'Reply token has already been used' },
		});
		expect((await post('/bot/v1/message/text', { body: multipartForm({ message: 'x', replyToken: 'f'.repeat(32) }) })).body.message).toBe('Invalid reply token');
		const old = await fresh();
		bed.emulator.expireReplyTokens();
		expect((await post('/bot/v1/message/text', { body: multipartForm({ message: 'x', replyToken: old }) })).body).toEqual({
			code: 'invalid_reply_token',
			message: 'Reply token has expired',
		});
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('follows replyTokenTtlSeconds and the admin expiry route', async () => {
		bed.emulator.setConfig({ replyTokenTtlSeconds: 0 });
		expect((await post('/bot/v1/message/text', { body: multipartForm({ message: 'x', replyToken: await fresh() }) })).body.message).toBe('Reply token has expired');
		bed.emulator.setConfig({ replyTokenTtlSeconds: 60 });
		const live = await fresh();
		const entry = bed.emulator.messaging.replyTokens.get(live);
		expect((entry?.expiresAt ?? 0) - Date.now()).toBeGreaterThan(50_000);
		await fetch(`${bed.emulator.url}/__emulator/reply-tokens/expire`, { method: 'POST' });
		expect((await post('/bot/v1/message/text', { body: multipartForm({ message: 'x', replyToken: live }) })).body.message).toBe('Reply token has expired');
	});

	it('replies into the group topic the event came from', async () => {
		const replyToken = await fresh({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts });
		expect((await post('/bot/v1/message/text', { body: multipartForm({ message: 'ack', replyToken }) })).status).toBe(200);
		expect(bed.emulator.messages({ gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts }).map((r) => r.text)).toEqual(['ack']);
	});

	// The reply page documents multipart; some clients report JSON accepted too.
	it('refuses JSON with 415 unless textReplyJson is accept, and other content types with 400', async () => {
		const replyToken = await fresh();
		expect(await post('/bot/v1/message/text', { json: { message: 'x', replyToken } })).toMatchObject({
			status: 415,
			body: { code: 'unsupported_media_type', message: 'Content-Type must be multipart/form-data' },
		});
		expect((await post('/bot/v1/message/text', { body: `message=x&replyToken=${replyToken}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(400);
		bed.emulator.setConfig({ textReplyJson: 'accept' });
		expect((await post('/bot/v1/message/text', { json: { message: 'json', replyToken } })).status).toBe(200);
		expect((await post('/bot/v1/message/text', { json: { replyToken: await fresh() } })).body.message).toBe('message is required (a non-empty string)');
	});

	it('refuses missing fields and over-long text without spending the token', async () => {
		const replyToken = await fresh();
		const p = '/bot/v1/message/text';
		expect((await post(p, { body: multipartForm({ replyToken }) })).body).toEqual({ code: 'invalid_request', message: 'message is required (a non-empty string)' });
		expect((await post(p, { body: multipartForm({ message: 'x' }) })).body.message).toBe('replyToken is required (a non-empty string)');
		expect((await post(p, { body: multipartForm({ message: 'a'.repeat(MESSAGE_LIMITS.text + 1), replyToken }) })).body.message).toBe(`message must be at most ${MESSAGE_LIMITS.text} characters`);
		expect((await post(p, { body: multipartForm({ message: 'x', replyToken }, [{ name: 'message', data: Buffer.from('x'), type: 'text/plain' }]) })).status).toBe(400);
		expect((await post(p, { body: multipartForm({ message: 'a'.repeat(MESSAGE_LIMITS.text), replyToken }) })).status).toBe(200);
	});

	it('lets exactly one of two concurrent replies with the same token through', async () => {
		const replyToken = await fresh();
		const results = await Promise.all([1, 2].map((n) => post('/bot/v1/message/text', { body: multipartForm({ message: `r${n}`, replyToken }) })));
		expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
		expect(bed.emulator.messages()).toHaveLength(1);
	});
});

describe('POST /bot/v1/message/picture', () => {
	it('replies with a picture and refuses non-images, JSON and a used token', async () => {
		const replyToken = await fresh();
		const png = pngBytes(512);
		expect(await post('/bot/v1/message/picture', { body: multipartForm({ replyToken }, [{ data: Buffer.from('x'), type: 'text/plain' }]) })).toMatchObject({ status: 400, body: { code: 'invalid_file' } });
		expect((await post('/bot/v1/message/picture', { json: { replyToken } })).status).toBe(400);
		expect((await post('/bot/v1/message/picture', { body: multipartForm({}, [{ data: png, type: 'image/png' }]) })).body.message).toBe('replyToken is required (a non-empty string)');
		const ok = await post('/bot/v1/message/picture', { body: multipartForm({ replyToken }, [{ data: png, type: 'image/png', filename: 'a.png' }]) });
		expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: '' });
		expect(bed.emulator.messages()[0]).toMatchObject({ route: 'POST /bot/v1/message/picture', file: { filename: 'a.png', size: 512, sha256: sha256(png) } });
		expect((await post('/bot/v1/message/picture', { body: multipartForm({ replyToken }, [{ data: png, type: 'image/png' }]) })).status).toBe(400);
	});
});

describe('POST /bot/v1/message/quickreply', () => {
	const p = '/bot/v1/message/quickreply';
	const item = (value: string) => ({ type: 'label', value, data: { text: value } });

	it('replies with quick-reply items and records the meta', async () => {
		const replyToken = await fresh();
		const res = await post(p, { json: quick(replyToken, [item('Yes'), item('No')]) });
		expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: '' });
		expect(bed.emulator.messages()[0]).toMatchObject({ text: 'Approve?', meta: { quickreply: { template: 'default', items: [item('Yes'), item('No')] } } });
	});

	it('refuses every malformed part and each limit one over, and takes each exactly at the limit', async () => {
		const replyToken = await fresh();
		const max = MESSAGE_LIMITS.quickReplyItems;
		const cases: Array<[unknown, string]> = [
			[{ ...quick(replyToken), replyToken: undefined }, 'replyToken is required (a non-empty string)'],
			[{ replyToken }, 'message is required (an object with data and meta)'],
			[{ replyToken, message: { meta: quick('').message.meta } }, 'message.data is required (a non-empty string)'],
			[{ replyToken, message: { data: 'x' }, meta: quick('').message.meta }, 'message.meta is required (meta belongs inside message, not at the top level)'],
			[{ replyToken, message: { data: 'x', meta: {} } }, 'message.meta.quickreply is required (an object)'],
			[{ replyToken, message: { data: 'x', meta: { quickreply: { template: 'carousel', items: [item('a')] } } } }, 'message.meta.quickreply.template must be default'],
			[quick(replyToken, []), 'message.meta.quickreply.items is required (a non-empty array)'],
			[quick(replyToken, Array.from({ length: max + 1 }, () => item('a'))), `message.meta.quickreply.items has ${max + 1} entries; at most ${max} are allowed`],
			[quick(replyToken, [{ type: 'action', value: 'a', data: { text: 'a' } }]), 'message.meta.quickreply.items[0].type must be label'],
			[quick(replyToken, [item('a'), { type: 'label', data: { text: 'a' } }]), 'message.meta.quickreply.items[1].value is required (a non-empty string)'],
			[quick(replyToken, [item('a'.repeat(MESSAGE_LIMITS.label + 1))]), `message.meta.quickreply.items[0].value must be at most ${MESSAGE_LIMITS.label} characters`],
			[quick(replyToken, [{ type: 'label', value: 'a' }]), 'message.meta.quickreply.items[0].data is required (an object with text)'],
			[quick(replyToken, [{ type: 'label', value: 'a', data: {} }]), 'message.meta.quickreply.items[0].data.text is required (a non-empty string)'],
		];
		for (const [body, message] of cases) {
			expect({ body, answer: (await post(p, { json: body })).body }).toEqual({ body, answer: { code: 'invalid_request', message } });
		}
		expect((await post(p, { body: multipartForm({ replyToken }) })).body.message).toBe('Content-Type must be application/json');
		expect(bed.emulator.messages()).toEqual([]);
		// The token survived every refusal.
		const atLimit = quick(replyToken, Array.from({ length: max }, () => item('a'.repeat(MESSAGE_LIMITS.label))));
		expect((await post(p, { json: atLimit })).status).toBe(200);
	});
});
