/**
 * What the trigger reads of an event where the public pages disagree (event
 * types, postback payload, timestamp as epoch ms or ISO string, sender as uid or
 * userId, source and message types): time, sender, postback data.
 */
import { eventTime, normaliseEvent } from '../../nodes/WorkplaceTrigger/events';
import { triggerItem } from '../triggerItem';

describe('eventTime', () => {
	it.each([
		['epoch ms (join sample)', 1569563054859, '2019-09-27T05:44:14.859Z', 1569563054859],
		['epoch seconds', 1569563054, '2019-09-27T05:44:14.000Z', 1569563054000],
		['epoch seconds with a fraction', 1569563054.5, '2019-09-27T05:44:14.500Z', 1569563054500],
		['epoch ms as a string', '1569563054859', '2019-09-27T05:44:14.859Z', 1569563054859],
		['epoch seconds as a string', '1569563054', '2019-09-27T05:44:14.000Z', 1569563054000],
		['ISO with Z (message sample)', '2019-09-27T05:44:14.859Z', '2019-09-27T05:44:14.859Z', 1569563054859],
		['ISO with an offset', '2019-09-27T12:44:14+07:00', '2019-09-27T05:44:14.000Z', 1569563054000],
		['1e12 exactly is milliseconds', 1e12, '2001-09-09T01:46:40.000Z', 1e12],
	])('%s', (_label, value, iso, ms) => {
		expect(eventTime(value)).toEqual({ timestamp: iso, timestampMs: ms });
	});

	it.each([
		['absent', undefined],
		['null', null],
		['not a date', 'yesterday-ish'],
		['empty', ''],
		['negative', -5],
		['not finite', Number.POSITIVE_INFINITY],
		['out of range', 9e20],
		['an object', { at: 1 }],
	])('%s → nulls', (_label, value) => {
		expect(eventTime(value)).toEqual({ timestamp: null, timestampMs: null });
	});
});

describe('normaliseEvent', () => {
	it('reads the new pages\' join: source.uid, epoch ms', () => {
		const join = { type: 'join', replyToken: 'rt-j', source: { type: 'direct_chat', uid: 'u-7' }, timestamp: 1569563054859 };
		// Every field of the item: null where the event says nothing.
		expect(normaliseEvent(join, true)).toEqual(
			triggerItem(join, { userId: 'u-7', sourceType: 'direct_chat', timestamp: '2019-09-27T05:44:14.859Z', timestampMs: 1569563054859 }),
		);
	});

	it('reads the old pages\' message: source.userId and username, ISO time, message fields', () => {
		const message = {
			type: 'message',
			replyToken: 'rt-m',
			source: { type: 'user', userId: 'u-8', username: 'nattaya.p' },
			timestamp: '2019-09-27T05:44:14.859Z',
			message: { id: 'm-1', type: 'text', groupId: 'g-1', topicId: 't-1', text: 'hello' },
		};
		expect(normaliseEvent(message, false)).toMatchObject({
			userId: 'u-8',
			username: 'nattaya.p',
			sourceType: 'user',
			groupId: 'g-1',
			topicId: 't-1',
			messageId: 'm-1',
			messageType: 'text',
			text: 'hello',
			timestampMs: 1569563054859,
			verified: false,
			event: message,
		});
	});

	it('prefers uid over userId, and the message\'s group over the source\'s gid', () => {
		expect(normaliseEvent({ source: { uid: 'a', userId: 'b', gid: 'g-src' }, message: { groupId: 'g-msg' } }, true)).toMatchObject({
			userId: 'a',
			groupId: 'g-msg',
		});
		expect(normaliseEvent({ source: { userId: 'b', gid: 'g-src' } }, true)).toMatchObject({ userId: 'b', groupId: 'g-src' });
	});

	it.each([
		['postback.data', { type: 'postback', postback: { data: 'ack', text: 'OK' } }, 'ack', 'OK'],
		['a top-level data', { type: 'postback', data: 'ack' }, 'ack', null],
		['postback.data before data', { type: 'postback', postback: { data: 'a' }, data: 'b' }, 'a', null],
		['structured data as sent', { type: 'postback', postback: { data: { step: 2 } } }, { step: 2 }, null],
		['none', { type: 'postback' }, null, null],
	])('postback data from %s', (_label, event, data, postbackText) => {
		expect(normaliseEvent(event, true)).toMatchObject({ data, postbackText });
	});

	it('keeps an unknown type and a picture message whole, with nulls where nothing is known', () => {
		const unknown = { type: 'workflow', workflow: { type: 'approve', _id: 'w-1' }, source: 'not an object' };
		expect(normaliseEvent(unknown, true)).toMatchObject({ type: 'workflow', userId: null, sourceType: null, event: unknown });
		const picture = { type: 'message', message: { type: 'picture', pictureId: 'p-1' } };
		expect(normaliseEvent(picture, true)).toMatchObject({ messageType: 'picture', text: null, event: { message: { pictureId: 'p-1' } } });
	});
});
