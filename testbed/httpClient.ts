/**
 * The tests' plain HTTP client, with nothing of the node in it: a request with
 * the platform's fetch, its answer read whole (status, headers, text, JSON); a
 * bare node:http GET that reports exactly what arrived even when the body
 * breaks off; multipart forms; and a recording server on 127.0.0.1 (a webhook
 * that receives the emulator's events, a site a tapped link opens).
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer read whole. `body` is the parsed JSON, or undefined when the body is empty or not JSON. */
export interface HttpReply<T = any> {
	status: number;
	headers: Headers;
	/** The body's exact bytes. */
	bytes: Buffer;
	/** The body as UTF-8 text. */
	text: string;
	body: T;
}

export interface HttpOptions {
	method?: string;
	headers?: Record<string, string>;
	/** Sent as JSON with content-type application/json (unless a content-type header is given). */
	json?: unknown;
	/** Sent as is (FormData sets its own multipart content type). */
	body?: string | FormData | Buffer | Uint8Array;
	signal?: AbortSignal;
}

/** A body as JSON, or undefined when it is empty or not JSON. */
function parsedJson(text: string): unknown {
	try {
		return text ? JSON.parse(text) : undefined;
	} catch {
		return undefined;
	}
}

/** One request; redirects are answered, not followed. */
export async function httpRequest<T = any>(url: string, options: HttpOptions = {}): Promise<HttpReply<T>> {
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	let body: string | FormData | Uint8Array | undefined;
	if (options.json !== undefined) {
		headers['content-type'] ??= 'application/json';
		body = JSON.stringify(options.json);
	} else if (options.body !== undefined) {
		body = Buffer.isBuffer(options.body) ? new Uint8Array(options.body) : options.body;
	}
	const response = await fetch(url, { method: options.method ?? 'GET', headers, body, signal: options.signal, redirect: 'manual' });
	const bytes = Buffer.from(await response.arrayBuffer());
	const text = bytes.toString('utf8');
	return { status: response.status, headers: response.headers, bytes, text, body: parsedJson(text) as T };
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

/** A GET on a fresh connection that reports exactly what arrived, even when the body breaks off. */
export function rawGet(url: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<RawResult> {
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
		const request = http.get(url, { headers, agent: false }, (response) => {
			result.status = response.statusCode;
			result.headers = response.headers;
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => {
				result.complete = !response.aborted && response.complete;
				done(result.complete ? undefined : 'incomplete');
			});
			response.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
			response.on('close', () => done(response.complete ? undefined : 'closed'));
		});
		request.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
		const timer = setTimeout(() => {
			request.destroy();
			done('timeout');
		}, timeoutMs);
	});
}

export interface FormFile {
	/** The part's name; default `file`. */
	name?: string;
	data: Buffer | string;
	type: string;
	/** Default upload.bin. */
	filename?: string;
}

/** A multipart form: plain fields (in order, repeats allowed), then files. */
export function multipartForm(fields: Record<string, string> | Array<[string, string]>, files: FormFile[] = []): FormData {
	const form = new FormData();
	for (const [name, value] of Array.isArray(fields) ? fields : Object.entries(fields)) form.append(name, value);
	for (const file of files) {
		const bytes = typeof file.data === 'string' ? Buffer.from(file.data) : file.data;
		form.append(file.name ?? 'file', new Blob([new Uint8Array(bytes)], { type: file.type }), file.filename ?? 'upload.bin');
	}
	return form;
}

export function sha256(data: Buffer | Uint8Array | string): string {
	return createHash('sha256').update(data).digest('hex');
}

/** A request a recording server received. */
export interface Recorded {
	method: string;
	/** Path and query. */
	url: string;
	headers: http.IncomingHttpHeaders;
	/** The exact bytes of the body. */
	raw: Buffer;
	/** The body as UTF-8 text. */
	text: string;
	/** The body parsed as JSON (undefined when it is not JSON). */
	body: any;
}

export interface Answer {
	status?: number;
	headers?: Record<string, string>;
	/** Text as is; anything else as JSON. */
	body?: unknown;
}

export interface RecordingServer {
	/** http://127.0.0.1:PORT */
	origin: string;
	/** Every request so far, in order of arrival. */
	received: Recorded[];
	close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that keeps every request and answers `answer(request, origin)` (default 200 `{"ok":true}`). */
export async function startRecordingServer(answer: (request: Recorded, origin: string) => Answer | Promise<Answer> = () => ({ body: { ok: true } })): Promise<RecordingServer> {
	const received: Recorded[] = [];
	let origin = '';
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', async () => {
			const raw = Buffer.concat(chunks);
			const text = raw.toString('utf8');
			const recorded: Recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, raw, text, body: parsedJson(text) };
			received.push(recorded);
			const { status = 200, headers = {}, body: answerBody } = await answer(recorded, origin);
			const isText = typeof answerBody === 'string';
			response.writeHead(status, { 'content-type': isText ? 'text/html; charset=utf-8' : 'application/json', ...headers });
			response.end(answerBody === undefined ? '' : isText ? answerBody : JSON.stringify(answerBody));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		origin,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
