/**
 * Message resource: every operation in n8n-core's real engine against the
 * emulator over HTTP, checked against what the emulator recorded as received.
 * Reply tokens come only from events the emulator delivers to a webhook, as
 * the service hands them out.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';

import type { IBinaryData, IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { suiteTestbed } from '../../testbed/testbed';
import { LIMIT_ROWS } from '../messageLimits';
import { byId } from '../../testbed/locator';
import { LABEL_MAX } from '../../nodes/Workplace/actions/message/rules';

/** With a webhook that takes every delivery: the emulator needs somewhere to deliver events (and their reply tokens) to. */
const bed = suiteTestbed({ webhook: true });

const U = SEED_USER_IDS;
const G = SEED_GROUP_IDS;
const T = SEED_TOPIC_IDS;
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(4096, 9)]);
const PDF = Buffer.from('%PDF-1.4\n% quarterly report\n');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sends = () => bed.emulator.log.filter((e) => e.path.startsWith('/bot/'));

function fileItem(data: Buffer, mimeType: string, fileName: string, json: IDataObject = {}): INodeExecutionData {
	return { json, binary: { data: { data: data.toString('base64'), mimeType, fileName } as IBinaryData } };
}

const push = (p: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'sendToGroup',
	groupId: byId(G.incidentRoom),
	topicId: byId(T.incidentAlerts),
	...p,
});

/** An event the emulator delivers (somchai writing in the incident room's alerts topic), with its reply token. */
async function event(type: 'message' | 'postback' | 'join' | 'picture' = 'message', extra: IDataObject = {}) {
	const where = type === 'join' ? {} : { gid: G.incidentRoom, tid: T.incidentAlerts };
	const [delivery] = await bed.emulator.playUser({ url: bed.webhook.url, type, uid: U.somchai, ...where, ...extra });
	expect(delivery.status).toBe(200);
	return { replyToken: delivery.replyTokens[0], event: delivery.events[0] };
}

const buttonsEntry = {
	type: 'buttons',
	title: 'Incident 4711',
	text: 'Database latency above 2 s',
	buttons: {
		button: [
			{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', postbackText: 'On it' },
			{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.example.com/4711' },
		],
	},
	quickReplies: { quickReply: [{ type: 'message', label: 'Later', text: 'later' }] },
};

describe('Send to Group or Topic (v2 push)', () => {
	it('pushes messages built in the panel to a topic, as one call, and the topic receives them', async () => {
		const run = await bed.runNode(push({ messages: { message: [{ type: 'text', text: 'Alert: DB latency' }, buttonsEntry] } }));
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([
			{
				sent: true,
				endpoint: 'POST /bot/v2/message/push',
				groupId: G.incidentRoom,
				topicId: T.incidentAlerts,
				messageCount: 2,
				ids: [],
				messageId: null,
				note: 'The service confirmed the send but gave no message id',
				attempts: 1,
				response: { status: 'success' },
			},
		]);
		const [record] = bed.emulator.messages({ gid: G.incidentRoom, tid: T.incidentAlerts });
		expect(record.messages).toEqual([
			{ type: 'text', text: 'Alert: DB latency' },
			{
				type: 'template',
				template: {
					type: 'buttons',
					title: 'Incident 4711',
					text: 'Database latency above 2 s',
					actions: [
						{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', text: 'On it' },
						{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.example.com/4711' },
					],
				},
				quickReply: { items: [{ type: 'action', action: { type: 'message', label: 'Later', text: 'later' } }] },
			},
		]);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	// The public pages call tid the topic id, yet a send to the group's main chat has it empty.
	it('leaves tid out when the topic is empty: the group\'s main chat', async () => {
		const run = await bed.runNode(push({ topicId: byId(''), messages: { message: [{ type: 'text', text: 'Hello room' }] } }));
		expect(run.error).toBeUndefined();
		const [request] = sends();
		expect(request.body).toEqual({ gid: G.incidentRoom, messages: [{ type: 'text', text: 'Hello room' }] });
		expect(bed.emulator.messages({ gid: G.incidentRoom, tid: '' })).toHaveLength(1);
	});

	it('takes messages as JSON, and actions from Message Action → Build through "From JSON"', async () => {
		const approve = { type: 'postback', label: 'Approve', data: 'approve:7' };
		const reject = { type: 'postback', label: 'Reject', data: 'reject:7' };
		const json = await bed.runNode(push({ messageSource: 'json', messagesJson: '={{ $json.messages }}' }), {
			items: [{ json: { messages: [{ type: 'image', originalContentUrl: 'https://e.com/a.png', previewImageUrl: 'https://e.com/a.png' }] } }],
		});
		expect(json.error).toBeUndefined();
		const fromBuild = await bed.runNode(
			push({
				messages: {
					message: [{ type: 'buttons', text: 'Leave request #7', buttons: { button: [{ type: 'fromJson', actionJson: '={{ $json.actions }}' }] } }],
				},
			}),
			{ items: [{ json: { actions: [approve, reject] } }] },
		);
		expect(fromBuild.error).toBeUndefined();
		const [image, buttons] = bed.emulator.messages({ gid: G.incidentRoom, tid: T.incidentAlerts }).map((r) => r.messages);
		expect(image).toEqual([{ type: 'image', originalContentUrl: 'https://e.com/a.png', previewImageUrl: 'https://e.com/a.png' }]);
		expect(buttons).toEqual([{ type: 'template', template: { type: 'buttons', text: 'Leave request #7', actions: [approve, reject] } }]);
	});

	it('a carousel, an imagemap, video and audio pass the emulator\'s strict checks', async () => {
		const run = await bed.runNode(
			push({
				messages: {
					message: [
						{
							type: 'carousel',
							imageAspectRatio: 'square',
							imageSize: 'contain',
							columns: {
								column: Array.from({ length: 10 }, (_, c) => ({
									thumbnailImageUrl: `https://e.com/${c}.png`,
									title: `Option ${c + 1}`,
									text: 'x'.repeat(60),
									buttons: { button: [1, 2, 3, 4].map((b) => ({ type: 'message', label: 'l'.repeat(20), text: `${c}-${b}` })) },
								})),
							},
						},
						{
							type: 'imagemap',
							baseUrl: 'https://e.com/map',
							baseWidth: 1040,
							baseHeight: 1040,
							imagemapActions: {
								action: Array.from({ length: 50 }, (_, a) => ({ type: 'uri', linkUri: `https://e.com/${a}`, areaX: a, areaY: 0, areaWidth: 10, areaHeight: 10 })),
							},
						},
						{ type: 'video', originalContentUrl: 'https://e.com/v.mp4', previewImageUrl: 'https://e.com/v.png' },
						{ type: 'audio', originalContentUrl: 'https://e.com/a.m4a', duration: 60000 },
					],
				},
			}),
		);
		expect(run.error).toBeUndefined();
		const [record] = bed.emulator.messages();
		expect((record.messages as IDataObject[]).map((m) => m.type)).toEqual(['template', 'imagemap', 'video', 'audio']);
	});
});

const errorsOf = (json: IDataObject[]) => json.map((j) => j.error);

describe('bad input: every violation names item, message, button and field; nothing is sent', () => {
	const cases: Array<[string, INodeParameters, string]> = [
		[
			'a 21-character label of button 2',
			push({ messages: { message: [{ type: 'text', text: 'hi' }, { ...buttonsEntry, buttons: { button: [buttonsEntry.buttons.button[0], { type: 'message', label: '={{ "x".repeat(21) }}', text: 't' }] } }] } }),
			'Invalid "Label" of button 2 in message 2, item 0: must be at most 20 characters (got 21)',
		],
		[
			'five buttons',
			push({ messages: { message: [{ type: 'buttons', text: 't', buttons: { button: Array.from({ length: 5 }, () => ({ type: 'postback', label: 'a', data: 'b' })) } }] } }),
			'Invalid "Buttons" in message 1, item 0: at most 4 buttons are allowed (got 5)',
		],
		[
			'a column title of 41 characters',
			push({ messages: { message: [{ type: 'carousel', columns: { column: [{ text: 't', buttons: { button: [{ type: 'postback', label: 'a', data: 'b' }] } }, { title: 'x'.repeat(41), text: 't', buttons: { button: [{ type: 'postback', label: 'a', data: 'b' }] } }] } }] } }),
			'Invalid "Title" of column 2 in message 1, item 0: must be at most 40 characters (got 41)',
		],
		['messages JSON that is not JSON', push({ messageSource: 'json', messagesJson: '[{' }), 'Invalid "Messages" in item 0: is not valid JSON'],
		['a topic id with a space', push({ topicId: byId('a b'), messages: { message: [{ type: 'text', text: 'hi' }] } }), 'Invalid "Topic" in item 0: must not contain spaces or other whitespace'],
		['no group', push({ groupId: byId('={{ $json.groupId }}'), messages: { message: [{ type: 'text', text: 'hi' }] } }), 'Invalid "Group" in item 0: is required'],
	];

	it.each(cases)('%s', async (_label, parameters, message) => {
		const run = await bed.runNode(parameters);
		expect(String(run.error?.message)).toContain(message);
		expect(sends()).toHaveLength(0);
		expect(bed.emulator.log.filter((e) => e.path === '/oauth/token')).toHaveLength(0);
	});

	it('the whole matrix: one over every public limit fails its own item and sends nothing; exactly at every limit, the emulator accepts each', async () => {
		const json = { messageSource: 'json', messagesJson: '={{ $json.messages }}' };
		const over = await bed.runNode(push(json), { continueOnFail: true, items: LIMIT_ROWS.map(([, , message]) => ({ json: { messages: [message] } })) });
		expect(errorsOf(over.json)).toEqual(LIMIT_ROWS.map(([, , , error], i) => error.replace('item 0', `item ${i}`)));
		expect(sends()).toHaveLength(0);
		const at = await bed.runNode(push(json), { items: LIMIT_ROWS.map(([, message]) => ({ json: { messages: [message] } })) });
		expect(at.error).toBeUndefined();
		expect(bed.emulator.messages()).toHaveLength(LIMIT_ROWS.length);
	});

	it('with Continue On Fail, only the bad item fails, named by its own number; the others are sent', async () => {
		const run = await bed.runNode(
			push({ messages: { message: [{ type: 'buttons', text: '={{ $json.text }}', buttons: { button: [{ type: 'postback', label: '={{ $json.label }}', data: 'x' }] } }] } }),
			{
				continueOnFail: true,
				items: [{ json: { text: 'ok', label: 'Fine' } }, { json: { text: 'ok', label: 'L'.repeat(25) } }, { json: { text: 'y'.repeat(161), label: 'Fine' } }],
			},
		);
		expect(run.json[0].sent).toBe(true);
		expect(run.json[1].error).toBe('Invalid "Label" of button 1 in message 1, item 1: must be at most 20 characters (got 25)');
		expect(run.json[2].error).toBe('Invalid "Text" in message 1, item 2: must be at most 160 characters (got 161)');
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(bed.emulator.messages()).toHaveLength(1);
	});
});

// The emulator judges messages by its own reading of the service (emulator/bot/messages/schema.ts):
// a limit the node gets too loose fails here (test/unit/emulatorAuthority.test.ts shows it).
describe('what the node lets through, the service accepts', () => {
	it('a button label as long as the node allows', async () => {
		const label = 'x'.repeat(LABEL_MAX);
		const run = await bed.runNode(push({ messages: { message: [{ type: 'buttons', text: 'Ready?', buttons: { button: [{ type: 'postback', label, data: 'ok' }] } }] } }));
		expect(run.error?.message).toBeUndefined();
		expect(bed.emulator.messages()).toEqual([expect.objectContaining({ messages: [expect.objectContaining({ template: expect.objectContaining({ actions: [expect.objectContaining({ label })] }) })] })]);
	});
});

describe('Send to User and Send Picture or File to Group or Topic (v1)', () => {
	// The public pages show the v1 send answer as {"status":"success"} alone or with a message {id, ...}.
	it('text to a user\'s direct chat, as JSON; the v1 answer\'s message id is read when present', async () => {
		const run = await bed.runNode({ resource: 'message', operation: 'sendToUser', userId: byId(U.nattaya), content: 'text', text: 'Your leave is approved' });
		expect(run.error).toBeUndefined();
		expect(sends()[0].body).toEqual({ uid: U.nattaya, message: { type: 'text', data: 'Your leave is approved' } });
		const [record] = bed.emulator.messages({ uid: U.nattaya });
		expect(record.text).toBe('Your leave is approved');
		expect(run.json[0]).toMatchObject({ sent: true, endpoint: 'POST /bot/v1/direct/message', userId: U.nattaya, messageId: record.messageId });
	});

	it('answers with only {"status":"success"} are success too', async () => {
		bed.emulator.setConfig({ v1SendAnswer: 'status' });
		const run = await bed.runNode({ resource: 'message', operation: 'sendToUser', userId: byId(U.nattaya), content: 'text', text: 'Hi' });
		expect(run.json[0]).toMatchObject({ sent: true, messageId: null, response: { status: 'success' } });
	});

	it('a picture with a caption and a file, streamed as multipart with their bytes intact', async () => {
		const picture = await bed.runNode(
			{ resource: 'message', operation: 'sendToUser', userId: byId(U.nattaya), content: 'picture', caption: 'The chart' },
			{ items: [fileItem(PNG, 'image/png', 'chart.png')] },
		);
		const file = await bed.runNode(
			{ resource: 'message', operation: 'sendToUser', userId: byId(U.nattaya), content: 'file' },
			{ items: [fileItem(PDF, 'application/pdf', 'report.pdf')] },
		);
		expect(picture.error).toBeUndefined();
		expect(file.error).toBeUndefined();
		const [p, f] = bed.emulator.messages({ uid: U.nattaya });
		expect(p).toMatchObject({ route: 'POST /bot/v1/direct/picture', caption: 'The chart', file: { filename: 'chart.png', contentType: 'image/png', size: PNG.length, sha256: sha256(PNG) } });
		expect(f).toMatchObject({ route: 'POST /bot/v1/direct/file', file: { filename: 'report.pdf', size: PDF.length, sha256: sha256(PDF) } });
	});

	it('a picture and a file to a group topic, and to the main chat without tid', async () => {
		const topic = await bed.runNode(
			{ resource: 'message', operation: 'sendFileToGroup', groupId: byId(G.incidentRoom), topicId: byId(T.incidentAlerts), sendAs: 'picture', caption: 'Latency' },
			{ items: [fileItem(PNG, 'image/png', 'latency.png')] },
		);
		const main = await bed.runNode(
			{ resource: 'message', operation: 'sendFileToGroup', groupId: byId(G.incidentRoom), topicId: byId(''), sendAs: 'file' },
			{ items: [fileItem(PDF, 'application/pdf', 'postmortem.pdf')] },
		);
		expect(topic.error).toBeUndefined();
		expect(main.error).toBeUndefined();
		expect(bed.emulator.messages({ gid: G.incidentRoom, tid: T.incidentAlerts })[0]).toMatchObject({ caption: 'Latency', file: { sha256: sha256(PNG) } });
		expect(bed.emulator.messages({ gid: G.incidentRoom, tid: '' })[0]).toMatchObject({ route: 'POST /bot/v1/group/file', file: { sha256: sha256(PDF) } });
		expect(sends()[1].parts!.map((part) => part.name)).toEqual(['gid', 'file']);
	});

	it('a picture that is not an image, or a missing binary field, fails before anything is sent', async () => {
		const pdf = await bed.runNode(
			{ resource: 'message', operation: 'sendFileToGroup', groupId: byId(G.incidentRoom), sendAs: 'picture' },
			{ items: [fileItem(PDF, 'application/pdf', 'a.pdf')] },
		);
		expect(pdf.error?.message).toBe('Invalid "Input Binary Field" in item 0: a picture must be an image, got application/pdf');
		const none = await bed.runNode({ resource: 'message', operation: 'sendToUser', userId: byId(U.nattaya), content: 'file', binaryPropertyName: 'report' });
		expect(none.error?.message).toBe('Invalid "Input Binary Field" in item 0: the item has no binary field "report"');
		expect(sends()).toHaveLength(0);
	});

	it('the user locator searches users by username, without deleted accounts', async () => {
		const found = await bed.listSearch('searchUsers', { resource: 'message', operation: 'sendToUser' }, 'somchai');
		expect(found.results).toEqual([{ name: 'somchai.k (Somchai Kittisak)', value: U.somchai }]);
	});
});

describe('Reply with a reply token', () => {
	// The reply page documents multipart; some clients report JSON accepted too.
	it('text, as multipart as the reply page documents, into the event\'s chat', async () => {
		const { replyToken } = await event();
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'text', text: 'Got it' }, { items: [{ json: { replyToken } }] });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ sent: true, endpoint: 'POST /bot/v1/message/text', replyWith: 'text' });
		expect(sends()[0].parts!.map((p) => [p.name, p.value])).toEqual([
			['message', 'Got it'],
			['replyToken', replyToken],
		]);
		expect(bed.emulator.messages({ gid: G.incidentRoom, tid: T.incidentAlerts })).toMatchObject([{ text: 'Got it', target: { replyToken } }]);
	});

	it('a picture from a binary field', async () => {
		const { replyToken } = await event();
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'picture' }, { items: [fileItem(PNG, 'image/png', 'map.png', { replyToken })] });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.messages()[0]).toMatchObject({ route: 'POST /bot/v1/message/picture', file: { sha256: sha256(PNG) } });
	});

	it('quick replies as v1 JSON, meta inside message (as the reply page\'s example has it; its table puts meta at the top level)', async () => {
		const { replyToken } = await event('join');
		const run = await bed.runNode(
			{
				resource: 'message',
				operation: 'reply',
				replyWith: 'quickReplies',
				text: 'Welcome! What do you need?',
				quickReplies: { item: [{ label: 'Leave', text: 'I want to request leave' }, { label: 'IT help' }] },
			},
			{ items: [{ json: { replyToken } }] },
		);
		expect(run.error).toBeUndefined();
		expect(sends()[0].body).toEqual({
			replyToken,
			message: {
				data: 'Welcome! What do you need?',
				meta: {
					quickreply: {
						template: 'default',
						items: [
							{ type: 'label', value: 'Leave', data: { text: 'I want to request leave' } },
							{ type: 'label', value: 'IT help', data: { text: 'IT help' } },
						],
					},
				},
			},
		});
		expect(bed.emulator.messages({ uid: U.somchai })).toHaveLength(1);
	});

	it('rich messages through the v2 reply', async () => {
		const { replyToken } = await event('postback', { data: 'ack:4711' });
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'messages', messages: { message: [buttonsEntry] } }, { items: [{ json: { replyToken } }] });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.messages()[0]).toMatchObject({ route: 'POST /bot/v2/message/reply', target: { gid: G.incidentRoom, tid: T.incidentAlerts } });
	});

	it('a service without the v2 reply: the error says so and points to Send to Group or Topic', async () => {
		bed.emulator.setConfig({ v2ReplyRoute: false });
		const { replyToken } = await event();
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'messages', messages: { message: [{ type: 'text', text: 'x' }] } }, { items: [{ json: { replyToken } }] });
		expect(run.error?.message).toMatch(/^The service has no v2 reply \(POST \/bot\/v2\/message\/reply answered 404\), so item 0 was not sent\. Send the messages with Message → Send to Group or Topic instead/);
		expect(bed.emulator.messages()).toHaveLength(0);
	});

	it('a used reply token is refused with what a token is good for', async () => {
		const { replyToken } = await event();
		const first = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'text', text: 'One' }, { items: [{ json: { replyToken } }] });
		expect(first.error).toBeUndefined();
		const second = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'text', text: 'Two' }, { items: [{ json: { replyToken } }] });
		expect(second.error?.message).toMatch(/^The service refused the reply token of item 0: a token answers one event once, shortly after it arrived/);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('no reply token (the default expression finds none) fails before anything is sent', async () => {
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyTo: '={{ $json.replyToken }}', replyWith: 'text', text: 'x' });
		expect(run.error?.message).toBe('Invalid "Reply Token" in item 0: is required: the input item has none (the Workplace Trigger gives each event\'s as replyToken)');
		expect(sends()).toHaveLength(0);
	});
});

describe('Download Picture', () => {
	it('streams the picture a user sent into a binary field', async () => {
		const { event: sent } = await event('picture');
		const pictureId = String((sent.message as IDataObject).pictureId);
		const run = await bed.runNode({ resource: 'message', operation: 'downloadPicture', pictureId: '={{ $json.event.message.pictureId }}', size: 'small' }, { items: [{ json: { event: sent } }] });
		expect(run.error).toBeUndefined();
		const expected = bed.emulator.messaging.pictures.png(pictureId, 'small')!;
		expect(run.json[0]).toMatchObject({ pictureId, imageSize: 'small', mimeType: 'image/png', size: expected.length, sha256: sha256(expected), endpoint: 'GET /file/image/' });
		expect(run.items[0].binary!.data.mimeType).toBe('image/png');
		expect(Buffer.from(run.items[0].binary!.data.data, 'base64')).toEqual(expected);
	});

	// The public pages name /file/image/ for picture downloads; a client reports /file/view/.
	it('falls back to /file/view/ when /file/image/ answers 404', async () => {
		bed.emulator.setConfig({ fileImageRoute: false });
		const { event: sent } = await event('picture');
		const pictureId = String((sent.message as IDataObject).pictureId);
		const run = await bed.runNode({ resource: 'message', operation: 'downloadPicture', pictureId }, {});
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ endpoint: 'GET /file/view/', sha256: sha256(bed.emulator.messaging.pictures.png(pictureId, 'large')!) });
		expect(bed.emulator.log.filter((e) => e.path.startsWith('/file/')).map((e) => `${e.path.split('/')[2]} ${e.status}`)).toEqual(['image 404', 'view 200']);
	});

	it('a picture sent with a path as its name gets a plain binary name; the name as sent stays in originalFileName (issue 23, item 12)', async () => {
		const { event: sent } = await event('picture');
		const pictureId = String((sent.message as IDataObject).pictureId);
		const png = bed.emulator.messaging.pictures.png(pictureId, 'large')!;
		bed.emulator.faults.add({
			method: 'GET',
			path: `/file/image/${pictureId}`,
			action: { kind: 'status', status: 200, body: png.toString('latin1'), headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="../../../home/node/.n8n/config"' } },
		});
		const run = await bed.runNode({ resource: 'message', operation: 'downloadPicture', pictureId });
		expect(run.error).toBeUndefined();
		expect(run.items[0].binary!.data.fileName).toBe('config');
		expect(run.json[0]).toMatchObject({ fileName: 'config', originalFileName: '../../../home/node/.n8n/config' });
	});

	it('an unknown picture: both paths answer 404 and the error says not found', async () => {
		const run = await bed.runNode({ resource: 'message', operation: 'downloadPicture', pictureId: 'nope' });
		expect(run.error?.message).toMatch(/^Not found/);
		expect(bed.emulator.log.filter((e) => e.path.startsWith('/file/')).map((e) => e.path)).toEqual(['/file/image/nope', '/file/view/nope']);
	});
});

/**
 * The next connection to `port` is made to a port nothing listens on, so the
 * operating system refuses it (ECONNREFUSED) before any byte is sent; later
 * connections go through. n8n-core 2.41 opens a connection per request
 * (test/nodes/parallel.test.ts), so the next request is the one refused.
 */
async function refuseNextConnection(port: number): Promise<{ refused: () => boolean; restore: () => void }> {
	const spare = createServer();
	await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
	const closedPort = (spare.address() as AddressInfo).port;
	await new Promise((resolve) => spare.close(resolve));
	const original = Socket.prototype.connect;
	let refused = false;
	Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
		const first = args[0];
		const options = (Array.isArray(first) ? first[0] : first) as { port?: unknown } | undefined;
		if (!refused && options && typeof options === 'object' && Number(options.port) === port) {
			refused = true;
			options.port = closedPort;
		}
		return (original as (...a: unknown[]) => Socket).apply(this, args);
	} as typeof original;
	return { refused: () => refused, restore: () => (Socket.prototype.connect = original) };
}

describe('sending is never repeated blindly', () => {
	const text = (value: string) => push({ messages: { message: [{ type: 'text', text: value }] } });
	const pushes = () => bed.emulator.log.filter((e) => e.path === '/bot/v2/message/push');

	it('a reset after the push reached the service: an error saying it may have been delivered, not resent, one delivery', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/bot/v2/message/push', phase: 'after', action: { kind: 'reset' } });
		const run = await bed.runNode(text('Disk full on db-1'));
		expect(run.error?.message).toBe(
			'The connection to the service was reset; the message may have been delivered even so. It was not retried automatically, to avoid a duplicate: check before running this item again',
		);
		expect(pushes()).toHaveLength(1);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('a 503 after a reply: not resent either (the reply token would be spent twice)', async () => {
		const { replyToken } = await event();
		bed.emulator.faults.add({ method: 'POST', path: '/bot/v1/message/text', phase: 'after', action: { kind: 'status', status: 503 } });
		const run = await bed.runNode({ resource: 'message', operation: 'reply', replyWith: 'text', text: 'On it' }, { items: [{ json: { replyToken } }] });
		expect(run.error?.message).toMatch(/the message may have been delivered even so\. It was not retried automatically/);
		expect(bed.emulator.log.filter((e) => e.path === '/bot/v1/message/text')).toHaveLength(1);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('a reset after a streamed picture reached the service: not resent', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/bot/v1/group/picture', phase: 'after', action: { kind: 'reset' } });
		const run = await bed.runNode(
			{ resource: 'message', operation: 'sendFileToGroup', groupId: byId(G.incidentRoom), sendAs: 'picture' },
			{ items: [fileItem(PNG, 'image/png', 'graph.png')] },
		);
		expect(run.error?.message).toMatch(/^The connection to the service was reset; the message may have been delivered even so/);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('a 429 with Retry-After (refused before processing) is retried: one delivery, and the output says it took two attempts', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/bot/v2/message/push', action: { kind: 'status', status: 429, retryAfter: 1 } });
		const run = await bed.runNode(text('Disk full on db-1'));
		expect(run.error).toBeUndefined();
		expect(pushes().map((e) => e.status)).toEqual([429, 200]);
		expect(bed.emulator.messages()).toHaveLength(1);
		expect(run.json[0]).toMatchObject({ sent: true, attempts: 2 });
	});

	it('a refused connection (nothing sent) is retried: one delivery', async () => {
		// The token first, so the refused connection is the push's own.
		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		bed.emulator.clearLog();
		const refusal = await refuseNextConnection(bed.emulator.port);
		let run;
		try {
			run = await bed.runNode(text('Disk full on db-1'));
		} finally {
			refusal.restore();
		}
		expect(refusal.refused()).toBe(true);
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /bot/v2/message/push 200']);
		expect(bed.emulator.messages()).toHaveLength(1);
		expect(run.json[0]).toMatchObject({ sent: true, attempts: 2 });
	});
});
