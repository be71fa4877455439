/**
 * Shared by the bot messaging tests: a bot token, bearer calls, multipart forms
 * and a webhook receiver that keeps the exact bytes and headers it got.
 */
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Emulator, type JsonResponse, call, startTestEmulator } from './helpers';

export async function botToken(em: Emulator): Promise<string> {
	const basic = Buffer.from(`${em.config.clientId}:${em.config.clientSecret}`).toString('base64');
	const res = await fetch(`${em.url}/oauth/token`, {
		method: 'POST',
		headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
		body: 'grant_type=client_credentials&scope=bot+profile',
	});
	return ((await res.json()) as { access_token: string }).access_token;
}

/** POST with the bot token: `json` as application/json, or a FormData / raw body with its headers. */
export function botPost(em: Emulator, token: string, path: string, opts: { json?: unknown; body?: string | FormData; headers?: Record<string, string> }): Promise<JsonResponse> {
	return call(em, path, { method: 'POST', json: opts.json, body: opts.body, headers: { authorization: `Bearer ${token}`, ...(opts.headers ?? {}) } });
}

/** A multipart form from plain fields and optional files ({ name, data, type, filename }). */
export function form(fields: Record<string, string>, files: Array<{ name?: string; data: Buffer; type: string; filename?: string }> = []): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) f.append(k, v);
	for (const file of files) f.append(file.name ?? 'file', new Blob([new Uint8Array(file.data)], { type: file.type }), file.filename ?? 'upload.bin');
	return f;
}

/** 8 bytes of PNG signature and more: what the emulator hashes, not decodes. */
export const pngBytes = (size: number) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(Math.max(0, size - 8), 7)]);

export function expectedSignature(secret: string, raw: Buffer): string {
	return createHmac('sha256', secret).update(raw).digest('base64');
}

export interface Received {
	headers: http.IncomingHttpHeaders;
	raw: Buffer;
	body: { events: Array<Record<string, any>> };
}

/** A webhook on 127.0.0.1: records every POST and answers `answer(received)` (default 200 {ok:true}). */
export async function startWebhook(answer: (r: Received) => { status: number; body?: unknown } = () => ({ status: 200, body: { ok: true } })) {
	const received: Received[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks);
			const r: Received = { headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) };
			received.push(r);
			const { status, body } = answer(r);
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(body === undefined ? '' : JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/bot`;
	return {
		url,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

export type Webhook = Awaited<ReturnType<typeof startWebhook>>;

/** One emulator per test file, reset before each test with a fresh bot token; optionally a webhook receiver. */
export function messagingBed(opts: { webhook?: boolean } = {}) {
	const bed = {} as { em: Emulator; token: string; hook: Webhook };
	beforeAll(async () => {
		bed.em = await startTestEmulator();
		if (opts.webhook) bed.hook = await startWebhook();
	});
	afterAll(async () => {
		await bed.hook?.close();
		await bed.em.close();
	});
	beforeEach(async () => {
		bed.em.reset();
		bed.token = await botToken(bed.em);
	});
	return bed;
}

/** Plays a user through the admin route. */
export function playEvent(em: Emulator, body: Record<string, unknown>): Promise<JsonResponse> {
	return call(em, '/__emulator/events', { method: 'POST', json: body });
}

/** A fresh reply token, handed out in a message event delivered to the webhook. */
export async function replyTokenFrom(em: Emulator, webhookUrl: string, extra: Record<string, unknown> = {}): Promise<string> {
	const res = await playEvent(em, { url: webhookUrl, type: 'message', text: 'hi', ...extra });
	if (res.status !== 200) throw new Error(`play failed: ${res.text}`);
	return res.body.replyToken as string;
}
