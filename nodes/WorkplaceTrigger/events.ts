/** The bot's webhook events (see the spec README): pure helpers of the trigger. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/** The events array of a webhook body, or undefined when the body is not `{ events: [...] }`. */
export function readEvents(body: unknown): IDataObject[] | undefined {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const events = (body as IDataObject).events;
	if (!Array.isArray(events)) return undefined;
	return events.filter((e): e is IDataObject => !!e && typeof e === 'object' && !Array.isArray(e));
}

/**
 * One item per wanted event. `*` keeps every event, types unknown to this node
 * included, with their type as sent. A postback's data is lifted to the top
 * level as `data`, so a Switch node can route on it directly.
 */
export function eventsToItems(events: IDataObject[], wanted: string[]): INodeExecutionData[] {
	const all = wanted.includes('*');
	const items: INodeExecutionData[] = [];
	for (const event of events) {
		const type = typeof event.type === 'string' ? event.type : '';
		if (!all && !wanted.includes(type)) continue;
		const json: IDataObject = { ...event };
		const postback = event.postback;
		if (type === 'postback' && postback && typeof postback === 'object' && !Array.isArray(postback)) {
			const { data, text } = postback as IDataObject;
			if (data !== undefined) json.data = data;
			if (text !== undefined) json.postbackText = text;
		}
		items.push({ json });
	}
	return items;
}
