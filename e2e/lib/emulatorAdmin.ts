/**
 * The emulator's admin routes over HTTP, as a test driving it from outside
 * does: play a user towards a webhook (POST /__emulator/events: the event
 * built with a fresh reply token, signed and delivered), and read or clear
 * what the bot said (GET and DELETE /__emulator/messages).
 */
import type { MessageRecord } from '../../emulator/bot/state';
import type { Delivery, PlayRequest } from '../../emulator/bot/webhook';

/** What POST /__emulator/events answers for one event (count 1). */
export type OneDelivery = Delivery & { event: Record<string, unknown>; replyToken: string };

/** Plays a user: the emulator signs the event and posts it to the webhook URL; its report of the delivery. */
export async function playOverHttp<T = OneDelivery>(emulatorUrl: string, webhookUrl: string, request: Omit<PlayRequest, 'url'>): Promise<T> {
	const response = await fetch(`${emulatorUrl}/__emulator/events`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ url: webhookUrl, ...request }),
	});
	const body = (await response.json()) as T;
	if (!response.ok) throw new Error(`POST /__emulator/events → ${response.status}: ${JSON.stringify(body)}`);
	return body;
}

/** What the bot said, as the emulator recorded it (filtered by gid, tid, uid, route, …). */
export async function messageRecords(emulatorUrl: string, query: Record<string, string> = {}): Promise<MessageRecord[]> {
	const response = await fetch(`${emulatorUrl}/__emulator/messages?${new URLSearchParams(query).toString()}`);
	return ((await response.json()) as { messages: MessageRecord[] }).messages;
}

/** Forgets what the bot said so far. */
export async function clearMessageRecords(emulatorUrl: string): Promise<void> {
	const response = await fetch(`${emulatorUrl}/__emulator/messages`, { method: 'DELETE' });
	await response.arrayBuffer();
}
