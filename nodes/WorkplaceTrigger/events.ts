/** The bot's webhook events (a call's body is `{ events: [...] }`): pure helpers of the trigger. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { toUtcIso } from '../../shared/dateTime';
import * as read from '../../shared/transport/jsonValues';

/** The events array of a webhook body, or undefined when the body is not `{ events: [...] }`. */
export function readEvents(body: unknown): IDataObject[] | undefined {
	const events = read.object(body)?.events;
	return Array.isArray(events) ? read.list(events) : undefined;
}

/** The value as an object, or an empty one, so an event's missing parts read as absent keys. */
const object = (value: unknown): IDataObject => read.object(value) ?? {};

/** The first of `values` that is a non-empty string or a number (ids may come as either), else null. */
function firstId(...values: unknown[]): string | number | null {
	for (const value of values) {
		if (typeof value === 'string' && value !== '') return value;
		if (typeof value === 'number' && Number.isFinite(value)) return value;
	}
	return null;
}

/** Below this an epoch number is read as seconds (1e12 ms is September 2001). */
const SECONDS_BELOW = 1e12;

/**
 * An event's time, which the service's samples write in several forms: epoch milliseconds or seconds as a number
 * or a numeric string, or an ISO-8601 string; an ISO time without a zone is read
 * as UTC, whatever the n8n server's own zone. Both forms, or nulls when
 * unreadable: anything else ("-5", "yesterday", a negative number) is no time.
 */
export function eventTime(value: unknown): { timestamp: string | null; timestampMs: number | null } {
	let ms: number | undefined;
	const numeric = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : undefined;
	if (numeric !== undefined) {
		if (Number.isFinite(numeric) && numeric >= 0) ms = Math.round(numeric < SECONDS_BELOW ? numeric * 1000 : numeric);
	} else if (typeof value === 'string' && value.trim() !== '') {
		const read = toUtcIso(value, 'UTC');
		if (read.ok) ms = Date.parse(read.iso);
	}
	const date = ms === undefined ? undefined : new Date(ms);
	if (!date || Number.isNaN(date.getTime())) return { timestamp: null, timestampMs: null };
	return { timestamp: date.toISOString(), timestampMs: ms as number };
}

/**
 * Version 2's item: the fields whose names and forms differ between the
 * service's samples, each read one way, with the event as received under `event`. Every key is always present
 * (null when the event lacks it), so expressions never depend on the event's shape.
 */
export function normaliseEvent(event: IDataObject, verified: boolean): IDataObject {
	const source = object(event.source);
	const message = object(event.message);
	const postback = object(event.postback);
	const text = (value: unknown) => (typeof value === 'string' ? value : null);
	return {
		type: text(event.type),
		replyToken: text(event.replyToken),
		// `uid` in the new pages and join samples, `userId` in the old message sample.
		userId: firstId(source.uid, source.userId),
		username: text(source.username),
		// A free string: the samples show `user`, `direct_chat`, `group`, … and give no fixed list.
		sourceType: text(source.type),
		groupId: firstId(message.groupId, source.gid),
		topicId: firstId(message.topicId),
		messageId: firstId(message.id),
		messageType: text(message.type),
		text: text(message.text),
		// The postback's data, else a top-level `data`: the samples put it in either place.
		data: postback.data !== undefined ? postback.data : event.data !== undefined ? event.data : null,
		postbackText: text(postback.text),
		...eventTime(event.timestamp),
		// False only when the node's Verify Signature is off: a call failing the check makes no items.
		verified,
		event,
	};
}

/**
 * Version 1's item: the event as sent, with a postback's data lifted to the top
 * level as `data` (and its text as `postbackText`), and `verified` saying what
 * the node checked: a `verified` the caller put in the event never passes through.
 */
function legacyItem(event: IDataObject, verified: boolean): IDataObject {
	const json: IDataObject = { ...event, verified };
	const postback = event.postback;
	if (event.type === 'postback' && postback && typeof postback === 'object' && !Array.isArray(postback)) {
		const { data, text } = postback as IDataObject;
		if (data !== undefined) json.data = data;
		if (text !== undefined) json.postbackText = text;
	}
	return json;
}

/** The events of the wanted types. `*` keeps every event, types unknown to this node included. */
export function wantedEvents(events: IDataObject[], wanted: string[]): IDataObject[] {
	if (wanted.includes('*')) return events;
	return events.filter((event) => wanted.includes(typeof event.type === 'string' ? event.type : ''));
}

/** One item per wanted event, with its type as sent. */
export function eventsToItems(
	events: IDataObject[],
	wanted: string[],
	options: { version: number; verified: boolean },
): INodeExecutionData[] {
	return wantedEvents(events, wanted).map((event) => ({
		json: options.version >= 2 ? normaliseEvent(event, options.verified) : legacyItem(event, options.verified),
	}));
}
