/**
 * The message model: panel entries and JSON become v2 messages, checked against
 * every public limit (exactly at the limit passes, one over fails) with a message
 * naming message, column, button and field. Pure functions; the node tests show
 * the same problems stop a run before any request.
 */
import type { IDataObject } from 'n8n-workflow';

import { checkMessages, MessageProblem } from '../../nodes/Workplace/actions/message/model';
import { messagesFromFields } from '../../nodes/Workplace/actions/message/messagesFromFields';
import { ack, area, buttons, carousel, imagemap, LIMIT_ROWS, s, url, withQuickReply } from '../messageLimits';

function problem(messages: unknown, item = 0): string {
	try {
		checkMessages(messages);
	} catch (error) {
		if (error instanceof MessageProblem) return error.messageFor(item);
		throw error;
	}
	throw new Error('no problem found');
}

describe('bad-input matrix: every public limit, exactly at it and one over', () => {
	// [limit, passes at the limit, fails one over, the message it fails with]
	const rows = LIMIT_ROWS;

	it.each(rows)('%s', (_limit, atLimit, overLimit, message) => {
		expect(() => checkMessages([atLimit])).not.toThrow();
		expect(problem([atLimit, overLimit].slice(1))).toBe(message);
		// The same problem in the second message and the fourth item says so.
		expect(problem([{ type: 'text', text: 'first' }, overLimit], 3)).toBe(message.replace('message 1, item 0', 'message 2, item 3'));
	});

	it('counts characters, not UTF-16 units (a 20-character Thai label with combining marks passes)', () => {
		const thai = 'รับทราบเหตุการณ์แล้วค่ะ'.slice(0, 20);
		expect(() => checkMessages(buttons({ actions: [ack(thai)] }))).not.toThrow();
		expect(problem(buttons({ title: '😀'.repeat(41) }))).toMatch(/"Title" in message 1, item 0: must be at most 40 characters \(got 41\)/);
	});
});

describe('required values, allowed values and shapes', () => {
	it.each<[string, unknown, string]>([
		['no message', [], 'Invalid "Messages" in item 0: at least one message is required'],
		['empty JSON text', '  ', 'Invalid "Messages" in item 0: at least one message is required'],
		['JSON text that does not parse', '[{"type": "text"', 'Invalid "Messages" in item 0: is not valid JSON'],
		['a message that is not an object', ['hello'], 'Invalid "Message" in message 1, item 0: expected a message object, got "hello"'],
		['an unknown type', [{ type: 'sticker' }], 'Invalid "Type" in message 1, item 0: must be one of text, image, video, audio, imagemap, template, got "sticker"'],
		['a text without text', [{ type: 'text' }], 'Invalid "Text" in message 1, item 0: is required'],
		['a blank text', [{ type: 'text', text: '  ' }], 'Invalid "Text" in message 1, item 0: is required and cannot be blank'],
		['a text that is a number', [{ type: 'text', text: 42 }], 'Invalid "Text" in message 1, item 0: expected text, got 42'],
		['an image without URL', [{ type: 'image' }], 'Invalid "Content URL" in message 1, item 0: is required'],
		['a relative image URL', [{ type: 'image', originalContentUrl: '/a.png', previewImageUrl: '/a.png' }], 'Invalid "Content URL" in message 1, item 0: must be an absolute http(s) URL, got "/a.png"'],
		['an ftp image URL', [{ type: 'image', originalContentUrl: 'ftp://e.com/a.png', previewImageUrl: 'ftp://e.com/a.png' }], 'must be an absolute http(s) URL'],
		['a video without preview', [{ type: 'video', originalContentUrl: url(20) }], 'Invalid "Preview Image URL" in message 1, item 0: is required'],
		['an audio without duration', [{ type: 'audio', originalContentUrl: url(20) }], 'Invalid "Duration (Ms)" in message 1, item 0: must be a whole number, got nothing'],
		['an audio with a fractional duration', [{ type: 'audio', originalContentUrl: url(20), duration: 1.5 }], 'must be a whole number, got 1.5'],
		['an imagemap without base size', [imagemap({ baseSize: undefined })], 'Invalid "Base Size" in message 1, item 0: expected {"width", "height"}, got nothing'],
		['an imagemap without actions', [imagemap({ actions: [] })], 'Invalid "Actions" in message 1, item 0: at least one action is required'],
		['an imagemap action without area', [imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com' }] })], 'Invalid "Area X" of action 1 in message 1, item 0: must be a whole number, got nothing'],
		['a template without template', [{ type: 'template' }], 'Invalid "Template" in message 1, item 0: expected a template object, got nothing'],
		['a confirm template', [{ type: 'template', template: { type: 'confirm' } }], 'Invalid "Template Type" in message 1, item 0: must be one of buttons, carousel, got "confirm"'],
		['buttons without text', [buttons({ text: undefined })], 'Invalid "Text" in message 1, item 0: is required'],
		['buttons without actions', [buttons({ actions: [] })], 'Invalid "Buttons" in message 1, item 0: at least one button is required'],
		['buttons with a wide aspect ratio', [buttons({ imageAspectRatio: 'wide' })], 'Invalid "Image Aspect Ratio" in message 1, item 0: must be one of rectangle, square, got "wide"'],
		['buttons with image size fill', [buttons({ imageSize: 'fill' })], 'Invalid "Image Size" in message 1, item 0: must be one of cover, contain, got "fill"'],
		['a background color name', [buttons({ imageBackgroundColor: 'white' })], 'Invalid "Image Background Color" in message 1, item 0: must be a color such as #FFFFFF, got "white"'],
		['a button without label', [buttons({ actions: [{ type: 'postback', data: 'x' }] })], 'Invalid "Label" of button 1 in message 1, item 0: is required for an action used in a button template'],
		['a column button without label', [carousel({ actions: [{ type: 'message', text: 'x' }] })], 'Invalid "Label" of button 1 of column 1 in message 1, item 0: is required for an action used in a carousel'],
		['a button of an unknown type', [buttons({ actions: [ack(), { type: 'call', label: 'x' }] })], 'Invalid "Type" of button 2 in message 1, item 0: must be one of message, postback, workflowTemplate, workflow, workflows, library, uri, got "call"'],
		['a postback without data', [buttons({ actions: [{ type: 'postback', label: 'x' }] })], 'Invalid "Data" of button 1 in message 1, item 0: is required for a postback action'],
		['a uri button that is not a URI', [buttons({ actions: [{ type: 'uri', label: 'x', linkUri: 'status page' }] })], 'Invalid "Link URI" of button 1 in message 1, item 0: must be an absolute http(s) URL'],
		['a workflows button with an unknown status', [buttons({ actions: [{ type: 'workflows', label: 'x', status: 'open' }] })], 'Invalid "Status" of button 1 in message 1, item 0: must be one of awaiting, processing, completed, rejected, canceled, got "open"'],
		['a carousel without columns', [{ type: 'template', template: { type: 'carousel', columns: [] } }], 'Invalid "Columns" in message 1, item 0: at least one column is required'],
		['quick replies without items', [{ type: 'text', text: 'x', quickReply: { items: [] } }], 'Invalid "Quick Replies" in message 1, item 0: at least one quick reply is required'],
		['a quick reply without label', [withQuickReply({ action: { type: 'message', text: 'x' } })], 'Invalid "Label" of quick reply 1 in message 1, item 0: is required for an action used in a quick reply'],
		['a quick reply without action', [withQuickReply({ action: undefined })], 'Invalid "Action" of quick reply 1 in message 1, item 0: expected an action object, got nothing'],
		['a quick-reply item of another type', [withQuickReply({ type: 'camera' })], 'Invalid "Type" of quick reply 1 in message 1, item 0: must be "action", got "camera"'],
	])('%s', (_label, messages, expected) => {
		expect(problem(messages)).toContain(expected);
	});

	it('names the JSON path of the value', () => {
		try {
			checkMessages([{ type: 'text', text: 'a' }, carousel({ actions: [ack(), ack(s(21))] }, 2)]);
			throw new Error('passed');
		} catch (error) {
			expect((error as MessageProblem).path).toBe('messages[1].template.columns[0].actions[1]');
		}
	});
});

describe('what is sent', () => {
	it('a text, one object or a list or {messages}; JSON text too', () => {
		const text = { type: 'text', text: 'Hello' };
		expect(checkMessages(text)).toEqual([text]);
		expect(checkMessages([text, text])).toEqual([text, text]);
		expect(checkMessages({ messages: [text] })).toEqual([text]);
		expect(checkMessages(JSON.stringify([text]))).toEqual([text]);
	});

	// The v2 schema table lists the text type as "message" and a template example writes uri; other pages and the action schema use "text" and linkUri.
	it('sends type "text" for the schema table\'s "message" and linkUri for the template example\'s "uri"', () => {
		expect(checkMessages({ type: 'message', text: 'Hi' })).toEqual([{ type: 'text', text: 'Hi' }]);
		const [sent] = checkMessages(buttons({ actions: [{ type: 'uri', label: 'Open', uri: 'https://e.com/x' }] }));
		expect((sent.template as IDataObject).actions).toEqual([{ type: 'uri', label: 'Open', linkUri: 'https://e.com/x' }]);
	});

	it('keeps fields it does not know (altText, an imagemap video) for the service to judge', () => {
		const video = { originalContentUrl: url(20), previewImageUrl: url(20), area };
		const [sent] = checkMessages(imagemap({ altText: 'Floor plan', video }));
		expect(sent).toMatchObject({ altText: 'Floor plan', video });
	});

	it('every action type, in a buttons template, as the document defines it', () => {
		const actions = [
			{ type: 'message', label: 'Say', text: 'hi' },
			{ type: 'postback', label: 'Ack', data: 'ack', text: 'Acknowledged' },
			{ type: 'workflowTemplate', label: 'Leave', templateId: 'tpl_1' },
		];
		const more = [
			{ type: 'workflow', label: 'Open', workflowId: 'wf_1' },
			{ type: 'workflows', label: 'Mine', status: 'awaiting' },
			{ type: 'library', label: 'Handbook', url: 'https://lib.e.com/1' },
			{ type: 'uri', label: 'Status', linkUri: 'https://status.e.com/1' },
		];
		const [a] = checkMessages(buttons({ actions }));
		const [b] = checkMessages(buttons({ actions: more }));
		expect((a.template as IDataObject).actions).toEqual(actions);
		expect((b.template as IDataObject).actions).toEqual(more);
	});
});

describe('the panel builder → v2 messages', () => {
	const panel = (...message: IDataObject[]) => ({ message });

	it('text, image (its own preview), video, audio', () => {
		expect(
			checkMessages(
				messagesFromFields(
					panel(
						{ type: 'text', text: 'Hello' },
						{ type: 'image', originalContentUrl: 'https://e.com/a.png' },
						{ type: 'video', originalContentUrl: 'https://e.com/v.mp4', previewImageUrl: 'https://e.com/v.png' },
						{ type: 'audio', originalContentUrl: 'https://e.com/a.m4a', duration: 61000 },
					),
				),
			),
		).toEqual([
			{ type: 'text', text: 'Hello' },
			{ type: 'image', originalContentUrl: 'https://e.com/a.png', previewImageUrl: 'https://e.com/a.png' },
			{ type: 'video', originalContentUrl: 'https://e.com/v.mp4', previewImageUrl: 'https://e.com/v.png' },
			{ type: 'audio', originalContentUrl: 'https://e.com/a.m4a', duration: 61000 },
		]);
	});

	it('a buttons template with image options, each button its own action type, and quick replies', () => {
		// The card's fields go into the template as they are.
		const card = {
			thumbnailImageUrl: 'https://e.com/t.png',
			imageAspectRatio: 'square',
			imageSize: 'contain',
			imageBackgroundColor: '#112233',
			title: 'Incident 4711',
			text: 'Database latency above 2 s',
		};
		const [sent] = checkMessages(
			messagesFromFields(
				panel({
					type: 'buttons',
					...card,
					buttons: {
						button: [
							{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', postbackText: 'On it', text: 'ignored' },
							{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.e.com/4711', data: 'ignored' },
							{ type: 'workflows', label: 'Approvals', status: '' },
						],
					},
					quickReplies: { quickReply: [{ imageUrl: 'https://e.com/i.png', type: 'message', label: 'Later', text: 'later' }] },
				}),
			),
		);
		expect(sent).toEqual({
			type: 'template',
			template: {
				type: 'buttons',
				...card,
				actions: [
					{ type: 'postback', label: 'Acknowledge', data: 'ack:4711', text: 'On it' },
					{ type: 'uri', label: 'Dashboard', linkUri: 'https://status.e.com/4711' },
					{ type: 'workflows', label: 'Approvals' },
				],
			},
			quickReply: { items: [{ type: 'action', imageUrl: 'https://e.com/i.png', action: { type: 'message', label: 'Later', text: 'later' } }] },
		});
	});

	it('a carousel and an imagemap', () => {
		const [carouselMessage, map] = checkMessages(
			messagesFromFields(
				panel(
					{
						type: 'carousel',
						imageAspectRatio: 'rectangle',
						imageSize: 'cover',
						columns: {
							column: [
								{ thumbnailImageUrl: 'https://e.com/a.png', title: 'A', text: 'First', buttons: { button: [{ type: 'message', label: 'Pick A', text: 'A' }] } },
								{ text: 'Second', buttons: { button: [{ type: 'workflow', label: 'Open', workflowId: 'wf_2' }] } },
							],
						},
					},
					{
						type: 'imagemap',
						baseUrl: 'https://e.com/map',
						baseWidth: 1040,
						baseHeight: 520,
						imagemapActions: { action: [{ type: 'uri', linkUri: 'https://e.com/left', areaX: 0, areaY: 0, areaWidth: 520, areaHeight: 520 }] },
					},
				),
			),
		);
		expect(carouselMessage).toEqual({
			type: 'template',
			template: {
				type: 'carousel',
				imageAspectRatio: 'rectangle',
				imageSize: 'cover',
				columns: [
					{ thumbnailImageUrl: 'https://e.com/a.png', title: 'A', text: 'First', actions: [{ type: 'message', label: 'Pick A', text: 'A' }] },
					{ text: 'Second', actions: [{ type: 'workflow', label: 'Open', workflowId: 'wf_2' }] },
				],
			},
		});
		expect(map).toEqual({
			type: 'imagemap',
			baseUrl: 'https://e.com/map',
			baseSize: { width: 1040, height: 520 },
			actions: [{ type: 'uri', linkUri: 'https://e.com/left', area: { x: 0, y: 0, width: 520, height: 520 } }],
		});
	});

	it('"From JSON" buttons take Message Action → Build\'s output: one action or a list, in place', () => {
		const built = { type: 'postback', label: 'Approve', data: 'approve' };
		const list = [
			{ type: 'postback', label: 'Reject', data: 'reject' },
			{ type: 'uri', label: 'Details', linkUri: 'https://e.com/r/1' },
		];
		const [sent] = checkMessages(
			messagesFromFields(
				panel({
					type: 'buttons',
					text: 'Approve the request?',
					buttons: { button: [{ type: 'fromJson', actionJson: built }, { type: 'fromJson', actionJson: JSON.stringify(list) }] },
				}),
			),
		);
		expect((sent.template as IDataObject).actions).toEqual([built, ...list]);
	});

	it('a "From JSON" button that is not JSON, or breaks a limit, is named', () => {
		const bad = (actionJson: unknown) => () =>
			checkMessages(messagesFromFields(panel({ type: 'buttons', text: 'x', buttons: { button: [ack(), { type: 'fromJson', actionJson }] } })));
		expect(bad('{"type":')).toThrow('Action (JSON): is not valid JSON');
		try {
			bad('{"type":')();
		} catch (error) {
			expect((error as MessageProblem).messageFor(2)).toMatch(/^Invalid "Action \(JSON\)" of button 2 in message 1, item 2: is not valid JSON/);
		}
		expect(bad([ack(), ack(), ack(), ack()])).toThrow('at most 4 buttons are allowed (got 5)');
		expect(bad({ type: 'postback', label: s(21), data: 'x' })).toThrow('Label: must be at most 20 characters (got 21)');
	});

	it('image options only where a card has a picture', () => {
		const [plain] = checkMessages(messagesFromFields(panel({ type: 'buttons', text: 'x', imageAspectRatio: 'rectangle', imageSize: 'cover', buttons: { button: [ack()] } })));
		expect(plain.template).toEqual({ type: 'buttons', text: 'x', actions: [ack()] });
	});

	it('no entries: no message', () => {
		expect(() => checkMessages(messagesFromFields({}))).toThrow('Messages: at least one message is required');
	});
});
