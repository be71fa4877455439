/**
 * Playing a user: build the webhook event the service would send, hand out a
 * fresh reply token inside it, sign the exact body bytes (X-Eko-Signature =
 * base64 HMAC-SHA256 keyed with the bot client secret) and POST it to a
 * webhook URL with the service's headers.
 */
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { isPlainObject, objectId } from '../common/helpers';
import type { EmulatorConfig } from '../types';
import { type ChatTarget, type MessagingState, directChatId, mainTopicId } from './state';

export interface PlayRequest {
	/** The webhook to deliver to (default: config.webhookUrl). */
	url?: string;
	/** message, postback, join, picture, or any other type (passed through as the service may add types). */
	type: string;
	/** The user who acts (default: somchai.k, the first seed user). */
	uid?: string;
	/** A group the user writes in (default: the user's direct chat). */
	gid?: string;
	tid?: string;
	/** message: the text (default "Hello"); `{n}` becomes the event's number in a batch. */
	text?: string;
	/** postback: postback.data (required); other unknown types: the object put under the type's name. */
	data?: unknown;
	/** picture: reuse a seed picture id instead of a new one. */
	pictureId?: string;
	signature?: 'valid' | 'wrong' | 'none';
	/** Number of deliveries made concurrently, one event each (default 1, at most 500). */
	count?: number;
	/** With count: all events in one body instead of one delivery each. */
	inOneBody?: boolean;
	/** Event source style: `ev` (uid, gid) or `gw` (the old pages' userId and username, no uid). Default ev. */
	sourceStyle?: 'ev' | 'gw';
	/** Timestamp form; default epoch ms for join, ISO for the rest (as the samples show). */
	timestamp?: 'iso' | 'ms';
	timeoutMs?: number;
}

export interface Delivery {
	/** The webhook's answer; absent when the connection failed (see error). */
	status?: number;
	body?: unknown;
	error?: string;
	/** The events sent in this delivery and their reply tokens. */
	events: Array<Record<string, unknown>>;
	replyTokens: string[];
	/** The X-Eko-Signature header sent (absent for signature none). */
	signature?: string;
}

export class PlayError extends Error {}

const DEFAULT_UID = '64b7f0a1c2d3e4f5a6b7c801';
const MAX_COUNT = 500;

interface Resolved {
	uid: string;
	username: string;
	target: ChatTarget;
}

function resolve(messaging: MessagingState, req: PlayRequest): Resolved {
	const uid = req.uid ?? DEFAULT_UID;
	const user = messaging.activeUser(uid);
	if (!user) throw new PlayError(`uid ${uid} is not an active user`);
	if (req.gid === undefined || req.gid === '') {
		if (req.tid) throw new PlayError('tid needs a gid');
		return { uid, username: user.username, target: { gid: directChatId(uid), tid: null, uid } };
	}
	if (req.type === 'join') throw new PlayError('join happens in a direct chat; leave gid out');
	const lookup = messaging.groupChat(req.gid, req.tid);
	if ('message' in lookup) throw new PlayError(lookup.message);
	if (!messaging.canWrite(lookup.target, uid)) throw new PlayError(`uid ${uid} is not a member of group ${req.gid}`);
	return { uid, username: user.username, target: lookup.target };
}

function buildEvent(messaging: MessagingState, req: PlayRequest, who: Resolved, n: number | undefined): { event: Record<string, unknown>; token: string } {
	const { target } = who;
	const token = messaging.issueReplyToken(target, req.type);
	const now = Date.now();
	const epoch = req.timestamp ? req.timestamp === 'ms' : req.type === 'join';
	const withN = (s: string) => (n === undefined ? s : s.replaceAll('{n}', String(n)));
	const event: Record<string, unknown> = { type: req.type, replyToken: token };
	if (req.type === 'join') {
		event.source = { type: 'direct_chat', uid: who.uid };
	} else if (req.sourceStyle === 'gw') {
		event.source = { type: 'user', userId: who.uid, username: who.username };
	} else {
		event.source = { type: 'user', uid: who.uid, gid: target.gid };
	}
	event.timestamp = epoch ? now : new Date(now).toISOString();
	const chat = { groupId: target.gid, topicId: target.tid ?? mainTopicId(target.gid) };
	const id = objectId();
	if (req.type === 'message') {
		event.message = { id, type: 'text', ...chat, text: withN(req.text ?? 'Hello') };
	} else if (req.type === 'picture') {
		const picture = req.pictureId ? messaging.pictures.get(req.pictureId) : messaging.pictures.add(objectId(), `photo-${n ?? 1}.png`);
		if (!picture) throw new PlayError(`pictureId ${req.pictureId} is not a picture the emulator knows`);
		event.message = { id, type: 'picture', ...chat, pictureId: picture.id, fileName: picture.fileName };
	} else if (req.type === 'postback') {
		event.postback = { data: withN(req.data as string) };
	} else if (req.type !== 'join' && req.data !== undefined && !(req.type in event)) {
		event[req.type] = req.data;
	}
	return { event, token };
}

export function sign(secret: string, body: Buffer): string {
	return createHmac('sha256', secret).update(body).digest('base64');
}

function post(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string }> {
	const client = url.protocol === 'https:' ? https : http;
	return new Promise((resolvePost, reject) => {
		const request = client.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
			res.on('error', reject);
		});
		request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
		request.on('error', reject);
		request.end(body);
	});
}

/** The webhook a URL names, or why it names none (an http(s) URL): one rule for the configured webhook and a play request's. */
export function webhookUrlOf(raw: string): URL | string {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return `is not a URL: ${raw}`;
	}
	return url.protocol === 'http:' || url.protocol === 'https:' ? url : 'must be http(s)';
}

function checkRequest(req: PlayRequest, config: EmulatorConfig): URL {
	const raw = req.url ?? config.webhookUrl;
	if (typeof raw !== 'string' || raw === '') throw new PlayError('url is required (the webhook to deliver to)');
	const url = webhookUrlOf(raw);
	if (typeof url === 'string') throw new PlayError(`url ${url}`);
	if (typeof req.type !== 'string' || req.type === '') throw new PlayError('type is required');
	if (req.type === 'postback' && (typeof req.data !== 'string' || req.data === '')) throw new PlayError('postback needs data (a string)');
	if (req.signature !== undefined && !['valid', 'wrong', 'none'].includes(req.signature)) throw new PlayError('signature must be valid, wrong or none');
	const count = req.count ?? 1;
	if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new PlayError(`count must be an integer from 1 to ${MAX_COUNT}`);
	return url;
}

async function deliver(url: URL, events: Array<Record<string, unknown>>, tokens: string[], req: PlayRequest, config: EmulatorConfig): Promise<Delivery> {
	// The bytes signed are the bytes sent (compact JSON, as axios sends it).
	const body = Buffer.from(JSON.stringify({ events }), 'utf8');
	const headers: Record<string, string> = {
		'content-type': 'application/json;charset=utf-8',
		accept: 'application/json, text/plain, */*',
		'user-agent': 'axios/0.19.0',
	};
	const mode = req.signature ?? 'valid';
	// A wrong signature has the right form (base64 of 32 bytes) under another key.
	if (mode !== 'none') headers['x-eko-signature'] = sign(mode === 'valid' ? config.clientSecret : `not-${config.clientSecret}`, body);
	const delivery: Delivery = { events, replyTokens: tokens, ...(mode === 'none' ? {} : { signature: headers['x-eko-signature'] }) };
	try {
		const answer = await post(url, body, headers, req.timeoutMs ?? 30_000);
		delivery.status = answer.status;
		try {
			delivery.body = answer.text === '' ? undefined : JSON.parse(answer.text);
		} catch {
			delivery.body = answer.text;
		}
	} catch (err) {
		delivery.error = (err as Error).message;
	}
	return delivery;
}

/**
 * Delivers the request's events; one delivery per event unless inOneBody.
 * `numbered: false` sends text and data exactly as given (a tap's postback data is not a template).
 */
export async function playUser(messaging: MessagingState, config: EmulatorConfig, req: PlayRequest, { numbered = true } = {}): Promise<Delivery[]> {
	if (!isPlainObject(req)) throw new PlayError('JSON object expected');
	const url = checkRequest(req, config);
	const who = resolve(messaging, req);
	const built = Array.from({ length: req.count ?? 1 }, (_, i) => buildEvent(messaging, req, who, numbered ? i + 1 : undefined));
	if (req.inOneBody) {
		return [await deliver(url, built.map((b) => b.event), built.map((b) => b.token), req, config)];
	}
	return Promise.all(built.map((b) => deliver(url, [b.event], [b.token], req, config)));
}
