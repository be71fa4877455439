/**
 * The Workplace Trigger's item for one event (version 2, see
 * nodes/WorkplaceTrigger/events.ts) as the tests expect it, field by field:
 * every field an item has, null where the event says nothing, the event kept
 * whole, then `fields`. Shared by the unit test of the reading and the
 * engine test of the trigger.
 */
import type { IDataObject } from 'n8n-workflow';

export function triggerItem(event: IDataObject, fields: IDataObject): IDataObject {
	return {
		type: event.type,
		replyToken: event.replyToken ?? null,
		userId: null,
		username: null,
		sourceType: null,
		groupId: null,
		topicId: null,
		messageId: null,
		messageType: null,
		text: null,
		data: null,
		postbackText: null,
		timestamp: null,
		timestampMs: null,
		verified: true,
		event,
		...fields,
	};
}
