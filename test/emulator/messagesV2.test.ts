/**
 * Bot v2 push and reply: every message type (text, image, video, audio,
 * imagemap, template) and every action type of the bot interface, each limit
 * exactly at and one over, the reply-route switch.
 */
import { SEED_GROUP_IDS, SEED_TOPIC_IDS } from '../../emulator/bot/seed';
import { MESSAGE_LIMITS as L } from '../../emulator/bot/messages/schema';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed({ webhook: true });
const G = SEED_GROUP_IDS.incidentRoom;
const T = SEED_TOPIC_IDS.incidentAlerts;

const push = (body: unknown, headers?: Record<string, string>) => bed.call('/bot/v2/message/push', { method: 'POST', auth: 'bot', json: body, headers });
const pushOne = (message: unknown) => push({ gid: G, tid: T, messages: [message] });
const url = (length: number) => `https://x.example/${'a'.repeat(length - 'https://x.example/'.length)}`;
const chars = (n: number) => 'a'.repeat(n);

const ACTIONS: Record<string, Record<string, unknown>> = {
	message: { type: 'message', label: 'Say hi', text: 'hi' },
	postback: { type: 'postback', label: 'Approve', data: 'approve=42', text: 'Approved' },
	workflowTemplate: { type: 'workflowTemplate', label: 'Leave', templateId: 'tpl_1' },
	workflow: { type: 'workflow', label: 'Open', workflowId: 'wf_1' },
	workflows: { type: 'workflows', label: 'Pending', status: 'awaiting' },
	library: { type: 'library', label: 'Docs', url: 'https://lib.example/doc' },
	uri: { type: 'uri', label: 'Runbook', linkUri: 'https://runbook.example/cpu' },
};
const buttons = (template: Record<string, unknown> = {}) => ({
	type: 'template',
	template: { type: 'buttons', text: 'CPU high', actions: [ACTIONS.postback], ...template },
});
const carousel = (columns: unknown[]) => ({ type: 'template', template: { type: 'carousel', imageAspectRatio: 'square', imageSize: 'contain', columns } });
const imagemap = (actions: unknown[], extra: Record<string, unknown> = {}) => ({ type: 'imagemap', baseUrl: 'https://img.example/map', baseSize: { width: 1040, height: 1040 }, actions, ...extra });
const area = { x: 0, y: 0, width: 520, height: 520 };
const withQuickReply = (items: unknown[]) => ({ type: 'text', text: 'Pick one', quickReply: { items } });
const qrItem = (action: unknown = ACTIONS.message, imageUrl?: string) => ({ type: 'action', ...(imageUrl ? { imageUrl } : {}), action });

describe('POST /bot/v2/message/push', () => {
	it('pushes every message type to a topic and records the messages in order', async () => {
		const messages = [
			{ type: 'text', text: 'Alert' },
			{ type: 'image', originalContentUrl: 'https://img.example/a.png', previewImageUrl: 'https://img.example/a-s.png' },
			{ type: 'video', originalContentUrl: 'https://v.example/a.mp4', previewImageUrl: 'https://v.example/a.png' },
			{ type: 'audio', originalContentUrl: 'https://a.example/a.m4a', duration: 60000 },
			imagemap([{ ...ACTIONS.uri, area }], { altText: 'map' }),
		];
		const res = await push({ gid: G, tid: T, messages });
		expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'success' } });
		const templates = [buttons({ thumbnailImageUrl: 'https://img.example/t.png', imageAspectRatio: 'rectangle', imageSize: 'cover', imageBackgroundColor: '#FFFFFF', title: 'Prod' }), carousel([buttons().template])];
		expect((await push({ gid: G, messages: templates })).status).toBe(200);
		expect(bed.emulator.messages({ gid: G, tid: T })).toEqual([expect.objectContaining({ route: 'POST /bot/v2/message/push', messages })]);
		expect(bed.emulator.messages({ gid: G, tid: '' })[0].messages).toEqual(templates);
	});

	it('takes every action type in buttons, quick replies and imagemaps', async () => {
		for (const [type, action] of Object.entries(ACTIONS)) {
			const res = await push({ gid: G, messages: [buttons({ actions: [action] }), withQuickReply([qrItem(action)]), imagemap([{ ...action, label: undefined, area }])] });
			expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 200, body: { status: 'success' } });
		}
		// workflows without a status and library without a url are allowed (the service marks both optional).
		expect((await pushOne(buttons({ actions: [{ type: 'workflows', label: 'All' }, { type: 'library', label: 'Lib' }] }))).status).toBe(200);
	});

	it('refuses wrong content types, missing fields, unknown groups and topics', async () => {
		expect(await push({ gid: G, messages: [{ type: 'text', text: 'x' }] }, { 'content-type': 'text/plain' })).toMatchObject({ status: 400 });
		expect((await bed.call('/bot/v2/message/push', { method: 'POST', auth: 'bot', body: 'gid=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).body).toEqual({
			code: 'invalid_request',
			message: 'Content-Type must be application/json',
		});
		expect((await push({ messages: [{ type: 'text', text: 'x' }] })).body.message).toBe('gid is required (a non-empty string)');
		expect((await push({ gid: G, tid: 1, messages: [{ type: 'text', text: 'x' }] })).body.message).toMatch(/^tid must be a string/);
		expect((await push({ gid: G })).body).toEqual({ code: 'invalid_message', message: 'messages is required (a non-empty array)' });
		expect((await push({ gid: G, messages: [] })).body.message).toBe('messages is required (a non-empty array)');
		expect((await push({ gid: '000000000000000000000000', messages: [{ type: 'text', text: 'x' }] })).status).toBe(404);
		expect((await push({ gid: G, tid: 'nope', messages: [{ type: 'text', text: 'x' }] })).body.code).toBe('topic_not_found');
		expect((await push({ gid: SEED_GROUP_IDS.privateLounge, messages: [{ type: 'text', text: 'x' }] })).status).toBe(403);
		expect((await bed.call('/bot/v2/message/push', { method: 'POST', headers: { authorization: 'Bearer ' }, json: { gid: G, messages: [{ type: 'text', text: 'x' }] } })).status).toBe(401);
		expect(bed.emulator.messages()).toEqual([]);
	});

	// [what, message at the limit (or valid), message one over (or invalid), the refusal]
	const limits: Array<[string, unknown, unknown, string]> = [
		['text length', { type: 'text', text: chars(L.text) }, { type: 'text', text: chars(L.text + 1) }, `messages[0].text must be at most ${L.text} characters`],
		['text required', { type: 'text', text: 'x' }, { type: 'text' }, 'messages[0].text is required (a non-empty string)'],
		['v2 text type is text, not message (the schema table\'s name)', { type: 'text', text: 'x' }, { type: 'message', text: 'x' }, 'messages[0].type must be one of text, image, video, audio, imagemap, template'],
		['image URL', { type: 'image', originalContentUrl: url(L.url), previewImageUrl: url(L.url) }, { type: 'image', originalContentUrl: url(L.url), previewImageUrl: url(L.url + 1) }, `messages[0].previewImageUrl must be at most ${L.url} characters`],
		['image URL scheme', { type: 'image', originalContentUrl: 'http://a.example/x', previewImageUrl: 'https://a.example/x' }, { type: 'image', originalContentUrl: 'ftp://a.example/x', previewImageUrl: 'https://a.example/x' }, 'messages[0].originalContentUrl must be an http(s) URL'],
		['video preview', { type: 'video', originalContentUrl: url(L.url), previewImageUrl: url(20) }, { type: 'video', originalContentUrl: url(L.url + 1), previewImageUrl: url(20) }, `messages[0].originalContentUrl must be at most ${L.url} characters`],
		['audio duration', { type: 'audio', originalContentUrl: url(30), duration: 1 }, { type: 'audio', originalContentUrl: url(30) }, 'messages[0].duration must be an integer >= 1'],
		['imagemap baseUrl', imagemap([{ ...ACTIONS.message, area }], { baseUrl: url(L.url) }), imagemap([{ ...ACTIONS.message, area }], { baseUrl: url(L.url + 1) }), `messages[0].baseUrl must be at most ${L.url} characters`],
		['imagemap baseSize', imagemap([{ ...ACTIONS.message, area }]), imagemap([{ ...ACTIONS.message, area }], { baseSize: { width: 1040 } }), 'messages[0].baseSize.height must be an integer >= 1'],
		['imagemap actions', imagemap(Array.from({ length: L.imagemapActions }, () => ({ ...ACTIONS.message, area }))), imagemap(Array.from({ length: L.imagemapActions + 1 }, () => ({ ...ACTIONS.message, area }))), `messages[0].actions has ${L.imagemapActions + 1} entries; at most ${L.imagemapActions} are allowed`],
		['imagemap area required', imagemap([{ ...ACTIONS.message, area }]), imagemap([ACTIONS.message]), 'messages[0].actions[0].area must be an object'],
		['imagemap area x >= 0', imagemap([{ ...ACTIONS.message, area: { ...area, x: 0 } }]), imagemap([{ ...ACTIONS.message, area: { ...area, x: -1 } }]), 'messages[0].actions[0].area.x must be an integer >= 0'],
		['imagemap area width', imagemap([{ ...ACTIONS.message, area }]), imagemap([{ ...ACTIONS.message, area: { x: 0, y: 0, height: 1 } }]), 'messages[0].actions[0].area.width must be an integer >= 1'],
		['buttons title', buttons({ title: chars(L.buttonsTitle), text: 'x' }), buttons({ title: chars(L.buttonsTitle + 1), text: 'x' }), `messages[0].template.title must be at most ${L.buttonsTitle} characters`],
		['buttons text alone', buttons({ text: chars(L.buttonsText) }), buttons({ text: chars(L.buttonsText + 1) }), `messages[0].template.text must be at most ${L.buttonsText} characters`],
		['buttons text with title', buttons({ title: 't', text: chars(L.buttonsTextWithImageOrTitle) }), buttons({ title: 't', text: chars(L.buttonsTextWithImageOrTitle + 1) }), `messages[0].template.text must be at most ${L.buttonsTextWithImageOrTitle} characters`],
		['buttons text with image', buttons({ thumbnailImageUrl: url(40), text: chars(L.buttonsTextWithImageOrTitle) }), buttons({ thumbnailImageUrl: url(40), text: chars(L.buttonsTextWithImageOrTitle + 1) }), `messages[0].template.text must be at most ${L.buttonsTextWithImageOrTitle} characters`],
		['buttons text required', buttons(), buttons({ text: undefined }), 'messages[0].template.text is required (a non-empty string)'],
		['buttons thumbnail URL', buttons({ thumbnailImageUrl: url(L.url), text: 'x' }), buttons({ thumbnailImageUrl: url(L.url + 1), text: 'x' }), `messages[0].template.thumbnailImageUrl must be at most ${L.url} characters`],
		['buttons actions', buttons({ actions: Array(L.buttonsActions).fill(ACTIONS.uri) }), buttons({ actions: Array(L.buttonsActions + 1).fill(ACTIONS.uri) }), `messages[0].template.actions has ${L.buttonsActions + 1} entries; at most ${L.buttonsActions} are allowed`],
		['buttons actions required', buttons(), buttons({ actions: [] }), 'messages[0].template.actions is required (a non-empty array)'],
		['buttons aspect ratio', buttons({ imageAspectRatio: 'square' }), buttons({ imageAspectRatio: 'wide' }), 'messages[0].template.imageAspectRatio must be one of rectangle, square'],
		['buttons image size', buttons({ imageSize: 'contain' }), buttons({ imageSize: 'fill' }), 'messages[0].template.imageSize must be one of cover, contain'],
		['template type', buttons(), { type: 'template', template: { type: 'confirm', text: 'x', actions: [ACTIONS.uri] } }, 'messages[0].template.type must be buttons or carousel'],
		['template required', buttons(), { type: 'template' }, 'messages[0].template is required (an object)'],
		['carousel columns', carousel(Array(L.carouselColumns).fill(buttons().template)), carousel(Array(L.carouselColumns + 1).fill(buttons().template)), `messages[0].template.columns has ${L.carouselColumns + 1} entries; at most ${L.carouselColumns} are allowed`],
		['carousel column text', carousel([buttons().template, { text: chars(L.buttonsText), actions: [ACTIONS.uri] }]), carousel([buttons().template, { title: 't', text: chars(61), actions: [ACTIONS.uri] }]), `messages[0].template.columns[1].text must be at most ${L.buttonsTextWithImageOrTitle} characters`],
		['carousel column actions', carousel([{ text: 'x', actions: Array(L.buttonsActions).fill(ACTIONS.uri) }]), carousel([{ text: 'x', actions: Array(L.buttonsActions + 1).fill(ACTIONS.uri) }]), `messages[0].template.columns[0].actions has ${L.buttonsActions + 1} entries; at most ${L.buttonsActions} are allowed`],
		['action label', buttons({ actions: [{ ...ACTIONS.uri, label: chars(L.label) }] }), buttons({ actions: [{ ...ACTIONS.uri, label: chars(L.label + 1) }] }), `messages[0].template.actions[0].label must be at most ${L.label} characters`],
		['action label required in buttons', buttons(), buttons({ actions: [{ ...ACTIONS.uri, label: undefined }] }), 'messages[0].template.actions[0].label is required (a non-empty string)'],
		['imagemap action label limit', imagemap([{ ...ACTIONS.uri, label: chars(L.label), area }]), imagemap([{ ...ACTIONS.uri, label: chars(L.label + 1), area }]), `messages[0].actions[0].label must be at most ${L.label} characters`],
		['action type', buttons(), buttons({ actions: [{ type: 'camera', label: 'x' }] }), 'messages[0].template.actions[0].type must be one of message, postback, workflowTemplate, workflow, workflows, library, uri'],
		['message action text', buttons({ actions: [ACTIONS.message] }), buttons({ actions: [{ type: 'message', label: 'x' }] }), 'messages[0].template.actions[0].text is required (a non-empty string)'],
		['postback data', buttons({ actions: [{ type: 'postback', label: 'x', data: 'd' }] }), buttons({ actions: [{ type: 'postback', label: 'x', text: 't' }] }), 'messages[0].template.actions[0].data is required (a non-empty string)'],
		['workflowTemplate templateId', buttons({ actions: [ACTIONS.workflowTemplate] }), buttons({ actions: [{ type: 'workflowTemplate', label: 'x' }] }), 'messages[0].template.actions[0].templateId is required (a non-empty string)'],
		['workflow workflowId', buttons({ actions: [ACTIONS.workflow] }), buttons({ actions: [{ type: 'workflow', label: 'x' }] }), 'messages[0].template.actions[0].workflowId is required (a non-empty string)'],
		['workflows status', buttons({ actions: [{ ...ACTIONS.workflows, status: 'canceled' }] }), buttons({ actions: [{ ...ACTIONS.workflows, status: 'done' }] }), 'messages[0].template.actions[0].status must be one of awaiting, processing, completed, rejected, canceled'],
		['library url', buttons({ actions: [ACTIONS.library] }), buttons({ actions: [{ ...ACTIONS.library, url: 7 }] }), 'messages[0].template.actions[0].url is required (a non-empty string)'],
		['uri linkUri length', buttons({ actions: [{ ...ACTIONS.uri, linkUri: url(L.url) }] }), buttons({ actions: [{ ...ACTIONS.uri, linkUri: url(L.url + 1) }] }), `messages[0].template.actions[0].linkUri must be at most ${L.url} characters`],
		['uri field is linkUri, not the template example\'s uri', buttons({ actions: [ACTIONS.uri] }), buttons({ actions: [{ type: 'uri', label: 'x', uri: 'https://a.example' }] }), 'messages[0].template.actions[0].linkUri is required (send linkUri, not uri)'],
		['quick reply items', withQuickReply(Array(L.quickReplyItems).fill(qrItem())), withQuickReply(Array(L.quickReplyItems + 1).fill(qrItem())), `messages[0].quickReply.items has ${L.quickReplyItems + 1} entries; at most ${L.quickReplyItems} are allowed`],
		['quick reply item type', withQuickReply([qrItem()]), withQuickReply([{ type: 'label', action: ACTIONS.message }]), 'messages[0].quickReply.items[0].type must be action'],
		['quick reply icon URL', withQuickReply([qrItem(ACTIONS.message, url(L.url))]), withQuickReply([qrItem(ACTIONS.message, url(L.url + 1))]), `messages[0].quickReply.items[0].imageUrl must be at most ${L.url} characters`],
		['quick reply action label', withQuickReply([qrItem()]), withQuickReply([qrItem({ type: 'message', text: 'x' })]), 'messages[0].quickReply.items[0].action.label is required (a non-empty string)'],
		['quick reply needs items', withQuickReply([qrItem()]), { type: 'text', text: 'x', quickReply: {} }, 'messages[0].quickReply.items is required (a non-empty array)'],
	];

	it.each(limits)('%s: takes the good one, refuses the other', async (_what, good, bad, message) => {
		expect((await pushOne(good)).body).toEqual({ status: 'success' });
		expect((await pushOne(bad)).body).toEqual({ code: 'invalid_message', message });
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it(`takes ${L.messagesPerCall} messages per call and refuses ${L.messagesPerCall + 1}, naming the bad message's index`, async () => {
		const text = { type: 'text', text: 'x' };
		expect((await push({ gid: G, messages: Array(L.messagesPerCall).fill(text) })).status).toBe(200);
		expect((await push({ gid: G, messages: Array(L.messagesPerCall + 1).fill(text) })).body.message).toBe(`messages has ${L.messagesPerCall + 1} entries; at most ${L.messagesPerCall} per call`);
		expect((await push({ gid: G, messages: [text, text, { type: 'text' }] })).body.message).toBe('messages[2].text is required (a non-empty string)');
		expect((await push({ gid: G, messages: ['text'] })).body.message).toBe('messages[0] must be an object');
	});
});

describe('POST /bot/v2/message/reply', () => {
	it('replies once with a reply token, and answers 404 like an unknown route when switched off', async () => {
		const replyToken = await bed.replyToken({ gid: G, tid: T });
		const body = { replyToken, messages: [buttons(), { type: 'text', text: 'second' }] };
		expect((await push({ gid: G, tid: T, messages: [{ type: 'text' }] })).status).toBe(400);
		const refused = await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: { replyToken, messages: [{ type: 'text' }] } });
		expect(refused.body.code).toBe('invalid_message');
		const ok = await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: body });
		expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: '' });
		expect(bed.emulator.messages({ gid: G, tid: T })).toEqual([expect.objectContaining({ route: 'POST /bot/v2/message/reply', target: { gid: G, tid: T, replyToken }, messages: body.messages })]);
		expect((await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: body })).body).toEqual({ code: 'invalid_reply_token', message: 'Reply token has already been used' });
		expect((await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: { messages: body.messages } })).body.message).toBe('replyToken is required (a non-empty string)');

		bed.emulator.setConfig({ v2ReplyRoute: false });
		const next = await bed.replyToken();
		const gone = await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: { replyToken: next, messages: [{ type: 'text', text: 'x' }] } });
		expect(gone).toMatchObject({ status: 404, body: { code: 'not_found', message: 'Cannot POST /bot/v2/message/reply' } });
		// Even without a token, as a route that does not exist; the admin route flips it back.
		expect((await bed.call('/bot/v2/message/reply', { method: 'POST', headers: { authorization: 'Bearer ' }, json: {} })).status).toBe(404);
		await fetch(`${bed.emulator.url}/__emulator/config`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ v2ReplyRoute: true }) });
		expect((await bed.call('/bot/v2/message/reply', { method: 'POST', auth: 'bot', json: { replyToken: next, messages: [{ type: 'text', text: 'x' }] } })).status).toBe(200);
	});
});
