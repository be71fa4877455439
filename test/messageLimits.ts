/**
 * The bad-input matrix of messages: every public limit (the v2 message
 * schema's URL, text, action and template limits, and the bot interface's
 * action labels), a message exactly at it and one over it. Shared by the
 * model's unit test and the node test that proves nothing is sent.
 */
import type { IDataObject } from 'n8n-workflow';

export const url = (length: number) => `https://e.com/${'a'.repeat(length - 14)}`;
export const s = (length: number) => 'x'.repeat(length);
export const ack = (label = 'Ack'): IDataObject => ({ type: 'postback', label, data: 'ack' });
export const area = { x: 0, y: 0, width: 10, height: 10 };
export const buttons = (template: IDataObject): IDataObject => ({ type: 'template', template: { type: 'buttons', text: 'Body', actions: [ack()], ...template } });
export const carousel = (column: IDataObject, columns = 1): IDataObject => ({
	type: 'template',
	template: { type: 'carousel', columns: Array.from({ length: columns }, () => ({ text: 'Body', actions: [ack()], ...column })) },
});
export const imagemap = (m: IDataObject): IDataObject => ({
	type: 'imagemap',
	baseUrl: 'https://e.com/map',
	baseSize: { width: 1040, height: 1040 },
	actions: [{ type: 'uri', linkUri: 'https://e.com', area }],
	...m,
});
export const withQuickReply = (item: IDataObject, count = 1): IDataObject => ({
	type: 'text',
	text: 'Pick one',
	quickReply: { items: Array.from({ length: count }, () => ({ type: 'action', action: ack(), ...item })) },
});

/** [limit, a message exactly at it, one over it, what the one over fails with as item 0's first message] */
export const LIMIT_ROWS: Array<[string, IDataObject, IDataObject, string]> = [
	['button label 20', buttons({ actions: [ack(s(20))] }), buttons({ actions: [ack('ok'), ack('ok'), ack(s(21))] }), 'Invalid "Label" of button 3 in message 1, item 0: must be at most 20 characters (got 21)'],
	['carousel button label 20', carousel({ actions: [ack(s(20))] }), carousel({ actions: [ack(s(21))] }, 2), 'Invalid "Label" of button 1 of column 1 in message 1, item 0: must be at most 20 characters (got 21)'],
	['quick-reply label 20', withQuickReply({ action: ack(s(20)) }), withQuickReply({ action: ack(s(21)) }), 'Invalid "Label" of quick reply 1 in message 1, item 0: must be at most 20 characters (got 21)'],
	['imagemap label 20', imagemap({ actions: [{ ...ack(s(20)), area }] }), imagemap({ actions: [{ ...ack(s(21)), area }] }), 'Invalid "Label" of action 1 in message 1, item 0: must be at most 20 characters (got 21)'],
	['image URL 1000', { type: 'image', originalContentUrl: url(1000), previewImageUrl: url(1000) }, { type: 'image', originalContentUrl: url(1001), previewImageUrl: url(20) }, 'Invalid "Content URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['image preview URL 1000', { type: 'image', originalContentUrl: url(20), previewImageUrl: url(1000) }, { type: 'image', originalContentUrl: url(20), previewImageUrl: url(1001) }, 'Invalid "Preview Image URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['video URL 1000', { type: 'video', originalContentUrl: url(1000), previewImageUrl: url(20) }, { type: 'video', originalContentUrl: url(1001), previewImageUrl: url(20) }, 'Invalid "Content URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['video preview URL 1000', { type: 'video', originalContentUrl: url(20), previewImageUrl: url(1000) }, { type: 'video', originalContentUrl: url(20), previewImageUrl: url(1001) }, 'Invalid "Preview Image URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['audio URL 1000', { type: 'audio', originalContentUrl: url(1000), duration: 1 }, { type: 'audio', originalContentUrl: url(1001), duration: 1 }, 'Invalid "Content URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['audio duration at least 1 ms', { type: 'audio', originalContentUrl: url(20), duration: 1 }, { type: 'audio', originalContentUrl: url(20), duration: 0 }, 'Invalid "Duration (Ms)" in message 1, item 0: must be 1 or more (got 0)'],
	['imagemap base URL 1000', imagemap({ baseUrl: url(1000) }), imagemap({ baseUrl: url(1001) }), 'Invalid "Base URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['imagemap base width at least 1', imagemap({ baseSize: { width: 1, height: 1 } }), imagemap({ baseSize: { width: 0, height: 1 } }), 'Invalid "Base Width" in message 1, item 0: must be 1 or more (got 0)'],
	['imagemap base height at least 1', imagemap({ baseSize: { width: 1, height: 1 } }), imagemap({ baseSize: { width: 1, height: 0 } }), 'Invalid "Base Height" in message 1, item 0: must be 1 or more (got 0)'],
	['imagemap 50 actions', imagemap({ actions: Array.from({ length: 50 }, () => ({ type: 'uri', linkUri: 'https://e.com', area })) }), imagemap({ actions: Array.from({ length: 51 }, () => ({ type: 'uri', linkUri: 'https://e.com', area })) }), 'Invalid "Actions" in message 1, item 0: at most 50 actions are allowed (got 51)'],
	['area x at least 0', imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, x: 0 } }] }), imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, x: -1 } }] }), 'Invalid "Area X" of action 1 in message 1, item 0: must be 0 or more, got -1'],
	['area y at least 0', imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, y: 0 } }] }), imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, y: -1 } }] }), 'Invalid "Area Y" of action 1 in message 1, item 0: must be 0 or more, got -1'],
	['area width at least 1', imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, width: 1 } }] }), imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, width: 0 } }] }), 'Invalid "Area Width" of action 1 in message 1, item 0: must be more than 0, got 0'],
	['area height at least 1', imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, height: 1 } }] }), imagemap({ actions: [{ type: 'uri', linkUri: 'https://e.com', area: { ...area, height: 0 } }] }), 'Invalid "Area Height" of action 1 in message 1, item 0: must be more than 0, got 0'],
	['buttons thumbnail URL 1000', buttons({ thumbnailImageUrl: url(1000) }), buttons({ thumbnailImageUrl: url(1001) }), 'Invalid "Thumbnail Image URL" in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['buttons title 40', buttons({ title: s(40) }), buttons({ title: s(41) }), 'Invalid "Title" in message 1, item 0: must be at most 40 characters (got 41)'],
	['buttons text 160', buttons({ text: s(160) }), buttons({ text: s(161) }), 'Invalid "Text" in message 1, item 0: must be at most 160 characters (got 161)'],
	['buttons text 60 with a title', buttons({ title: 'T', text: s(60) }), buttons({ title: 'T', text: s(61) }), 'Invalid "Text" in message 1, item 0: must be at most 60 characters with an image or a title (got 61)'],
	['buttons text 60 with an image', buttons({ thumbnailImageUrl: url(30), text: s(60) }), buttons({ thumbnailImageUrl: url(30), text: s(61) }), 'Invalid "Text" in message 1, item 0: must be at most 60 characters with an image or a title (got 61)'],
	['buttons 4 actions', buttons({ actions: [ack(), ack(), ack(), ack()] }), buttons({ actions: [ack(), ack(), ack(), ack(), ack()] }), 'Invalid "Buttons" in message 1, item 0: at most 4 buttons are allowed (got 5)'],
	['carousel 10 columns', carousel({}, 10), carousel({}, 11), 'Invalid "Columns" in message 1, item 0: at most 10 columns are allowed (got 11)'],
	['column thumbnail URL 1000', carousel({ thumbnailImageUrl: url(1000), text: 'x' }), carousel({ thumbnailImageUrl: url(1001) }), 'Invalid "Thumbnail Image URL" of column 1 in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['column title 40', carousel({ title: s(40) }), carousel({ title: s(41) }, 3), 'Invalid "Title" of column 1 in message 1, item 0: must be at most 40 characters (got 41)'],
	['column text 160', carousel({ text: s(160) }), carousel({ text: s(161) }), 'Invalid "Text" of column 1 in message 1, item 0: must be at most 160 characters (got 161)'],
	['column text 60 with a title', carousel({ title: 'T', text: s(60) }), carousel({ title: 'T', text: s(61) }), 'Invalid "Text" of column 1 in message 1, item 0: must be at most 60 characters with an image or a title (got 61)'],
	['column 4 buttons', carousel({ actions: [ack(), ack(), ack(), ack()] }), carousel({ actions: [ack(), ack(), ack(), ack(), ack()] }), 'Invalid "Buttons" of column 1 in message 1, item 0: at most 4 buttons are allowed (got 5)'],
	['uri button link 1000', buttons({ actions: [{ type: 'uri', label: 'Open', linkUri: url(1000) }] }), buttons({ actions: [{ type: 'uri', label: 'Open', linkUri: url(1001) }] }), 'Invalid "Link URI" of button 1 in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['library button URL 1000', buttons({ actions: [{ type: 'library', label: 'Doc', url: url(1000) }] }), buttons({ actions: [{ type: 'library', label: 'Doc', url: url(1001) }] }), 'Invalid "URL" of button 1 in message 1, item 0: must be at most 1000 characters (got 1001)'],
	['quick-reply icon URL 1000', withQuickReply({ imageUrl: url(1000) }), withQuickReply({ imageUrl: url(1001) }, 2), 'Invalid "Image URL" of quick reply 1 in message 1, item 0: must be at most 1000 characters (got 1001)'],
];
