/**
 * Shared by the emulator tests: start an emulator on a free port and talk to it
 * with plain clients (global fetch, and node:http where fetch hides the bytes).
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import { startEmulator, type Emulator, type StartOptions } from '../../emulator/server';

export type { Emulator } from '../../emulator/server';

export function startTestEmulator(options: StartOptions = {}): Promise<Emulator> {
	return startEmulator({ port: 0, ...options });
}

export function sha256(data: Buffer | Uint8Array | string): string {
	return createHash('sha256').update(data).digest('hex');
}

export interface JsonResponse<T = any> {
	status: number;
	headers: Headers;
	text: string;
	/** Parsed body, or undefined when the body is empty or not JSON. */
	body: T;
}

async function toJsonResponse<T>(res: Response): Promise<JsonResponse<T>> {
	const text = await res.text();
	let body: unknown;
	try {
		body = text ? JSON.parse(text) : undefined;
	} catch {
		body = undefined;
	}
	return { status: res.status, headers: res.headers, text, body: body as T };
}

export interface CallOptions {
	method?: string;
	headers?: Record<string, string>;
	/** Sent as JSON with content-type application/json. */
	json?: unknown;
	/** Sent as is (FormData sets its own multipart content type). */
	body?: string | FormData | Buffer;
	signal?: AbortSignal;
}

/** fetch() against the emulator, returning status, headers, raw text and parsed JSON. */
export async function call<T = any>(em: Emulator, path: string, opts: CallOptions = {}): Promise<JsonResponse<T>> {
	const headers: Record<string, string> = { ...(opts.headers ?? {}) };
	let body: string | FormData | Uint8Array | undefined;
	if (opts.json !== undefined) {
		headers['content-type'] ??= 'application/json';
		body = JSON.stringify(opts.json);
	} else if (opts.body !== undefined) {
		body = Buffer.isBuffer(opts.body) ? new Uint8Array(opts.body) : opts.body;
	}
	const res = await fetch(em.url + path, { method: opts.method ?? 'GET', headers, body, signal: opts.signal, redirect: 'manual' });
	return toJsonResponse<T>(res);
}

/** Same as call(), with the knowledge area's x-api-key. */
export function kb<T = any>(em: Emulator, path: string, opts: CallOptions = {}): Promise<JsonResponse<T>> {
	return call<T>(em, `/api/v1${path}`, { ...opts, headers: { 'x-api-key': em.credentials.apiKey, ...(opts.headers ?? {}) } });
}

/** A multipart body with one `file` part (plus optional extra parts). */
export function fileForm(content: Buffer | string, filename: string, type: string, extra: Array<[string, string | Blob, string?]> = []): FormData {
	const form = new FormData();
	for (const [name, value, fname] of extra) {
		if (typeof value === 'string') form.append(name, value);
		else form.append(name, value, fname);
	}
	const bytes = typeof content === 'string' ? Buffer.from(content) : content;
	form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
	return form;
}

export interface RawResult {
	status?: number;
	headers?: http.IncomingHttpHeaders;
	/** Body bytes received before the response ended or broke. */
	received: Buffer;
	/** True when the body arrived whole ('end' fired without an error). */
	complete: boolean;
	/** Error code or message when the request or response broke. */
	error?: string;
}

/** A bare node:http GET on a fresh connection that reports exactly what arrived, even when the body breaks off. */
export function rawGet(em: Emulator, path: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<RawResult> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		const result: RawResult = { received: Buffer.alloc(0), complete: false };
		let settled = false;
		const done = (error?: string) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			result.received = Buffer.concat(chunks);
			if (error) result.error = error;
			resolve(result);
		};
		const req = http.get(em.url + path, { headers, agent: false }, (res) => {
			result.status = res.statusCode;
			result.headers = res.headers;
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				result.complete = !res.aborted && res.complete;
				done(result.complete ? undefined : 'incomplete');
			});
			res.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
			res.on('close', () => done(res.complete ? undefined : 'closed'));
		});
		req.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
		const timer = setTimeout(() => {
			req.destroy();
			done('timeout');
		}, timeoutMs);
	});
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
