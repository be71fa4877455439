/**
 * The one request path. Every request the package sends goes through it: the
 * node's operations and the knowledge trigger's polls and downloads
 * (apiRequest), the editor's list searches, the credentials' tests and the bot
 * token request (botToken.ts), and the Workplace Trigger's relay and reply in
 * the chat. Whatever n8n helper the context offers is handed in as a Transmit
 * (viaHttpRequest, viaLegacyRequest), and for every request alike the path:
 *
 *  - never follows a redirect (a 3xx is an answer like any status, for the
 *    caller to refuse: the credential's headers would go with it);
 *  - asks the helper for the answer as a stream, so nothing is buffered by the
 *    HTTP client (n8n's helpers set no size limit of their own) and every
 *    byte is counted here, after decompression;
 *  - ends the attempt at its deadline (deadline.ts): the headers and the whole
 *    body within the Timeout, a file's bytes adding the time they take;
 *  - reads a JSON answer to MAX_JSON_BYTES at most and an error answer only as
 *    far as it is shown (body.ts), and stops a download at its size limit,
 *    announced (Content-Length) or counted while it streams.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { AnswerTooLarge, ByteCounter, CountedBody, readErrorBody, readJsonBody, type BinaryStream, type DownloadFailures } from './body';
import { Deadline } from './deadline';
import { contentLength, pastLimit } from './limits';

export interface OutgoingRequest {
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	headers?: Record<string, string>;
	/** JSON (an object), text, or a form (FormData, URLSearchParams). */
	body?: IHttpRequestOptions['body'];
}

export interface Answer<B = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: B;
}

/** What an n8n helper answered, the body still a stream. */
export type StreamedAnswer = Answer<BinaryStream>;

export interface TransmitControl {
	/** The Timeout, for the helper's HTTP client (which applies it to a silent socket only). */
	timeoutMs: number;
	/** Aborted at the deadline; handed to the helper, which passes it to its client where the context leaves it to the node. */
	signal: AbortSignal;
	/** Whether the answer is read as JSON (asks for it); a download asks for the bytes as stored. */
	json: boolean;
}

/** Sends one request through one of n8n's helpers and returns the answer once its headers are in. */
export type Transmit = (request: OutgoingRequest, control: TransmitControl) => Promise<StreamedAnswer>;

/** The parts of an answer the helpers hand back with `returnFullResponse` / `resolveWithFullResponse`. */
export interface HelperAnswer {
	statusCode: number;
	headers?: Answer['headers'];
	body: unknown;
}

/** A body a helper handed back as a value rather than a stream, as something the readers iterate and destroy alike. */
function valueAsStream(value: unknown): BinaryStream {
	const bytes = value === undefined || value === null ? Buffer.alloc(0) : Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
	const stream = {
		async *[Symbol.asyncIterator]() {
			if (bytes.length > 0) yield bytes;
		},
		destroy: () => stream,
	};
	return stream as unknown as BinaryStream;
}

/** A helper's full response as an answer whose body is a stream (a body handed back as a value is made one). */
export function streamedAnswer(answer: HelperAnswer): StreamedAnswer {
	const body = answer.body as Partial<BinaryStream> | undefined;
	const stream = body && typeof body.destroy === 'function' && typeof body[Symbol.asyncIterator] === 'function' ? (body as BinaryStream) : valueAsStream(answer.body);
	return { statusCode: answer.statusCode, headers: answer.headers ?? {}, body: stream };
}

/**
 * n8n's `httpRequest` or `httpRequestWithAuthentication` (bound to its context)
 * as a Transmit: the answer as a stream, every status an answer (a 401 too: the
 * transport fetches one new token for all refused requests, tokenRefresh.ts),
 * no redirect followed.
 */
export function viaHttpRequest(httpRequest: (options: IHttpRequestOptions) => Promise<unknown>): Transmit {
	return async (request, control) =>
		streamedAnswer(
			(await httpRequest({
				method: request.method,
				url: request.url,
				qs: request.qs,
				headers: request.headers,
				body: request.body,
				json: control.json,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: control.timeoutMs,
				abortSignal: control.signal,
			})) as HelperAnswer,
		);
}

/**
 * n8n's legacy `request` helper, the one a credential test gets, as a
 * Transmit: the answer as a stream, every status an answer, no redirect
 * followed (it would follow a GET's by default). It takes no abort signal;
 * the deadline lets go of the answer instead.
 */
export function viaLegacyRequest(request: (options: object) => Promise<unknown>): Transmit {
	return async (outgoing, control) =>
		streamedAnswer(
			(await request({
				method: outgoing.method,
				uri: outgoing.url,
				qs: outgoing.qs,
				headers: { ...(control.json ? { accept: 'application/json' } : {}), ...outgoing.headers },
				body: outgoing.body,
				json: false,
				useStream: true,
				followRedirect: false,
				followAllRedirects: false,
				resolveWithFullResponse: true,
				simple: false,
				timeout: control.timeoutMs,
			})) as HelperAnswer,
		);
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Sends `request` and waits for its answer's headers, no later than the
 * deadline (DeadlinePassed then; an answer that comes after it is let go of).
 */
export async function openAnswer(transmit: Transmit, request: OutgoingRequest, deadline: Deadline, json: boolean): Promise<StreamedAnswer> {
	const sent = transmit(request, { timeoutMs: deadline.timeoutMs, signal: deadline.signal, json });
	return await deadline.race(sent, (late) => late.body.destroy());
}

/**
 * An answer's body as JSON is read: a 2xx to its end (at most MAX_JSON_BYTES,
 * AnswerTooLarge beyond), any other status as far as it is shown; parsed when
 * it is JSON, else the text. Within the deadline (DeadlinePassed).
 */
export async function readAnswer(answer: StreamedAnswer, deadline: Deadline): Promise<Answer> {
	const body = isSuccess(answer.statusCode) ? await readJsonBody(answer.body, deadline) : await readErrorBody(answer.body, deadline);
	return { ...answer, body };
}

/**
 * A download's 2xx body as it is handed on: counted against its Content-Length
 * (when it says the bytes are as stored) and against `maxBytes`, announced or
 * streamed, and ended at the deadline, which each byte moves on as a transfer's
 * time allows. Throws `failures.tooLarge` at once when the Content-Length
 * already says too much, letting go of the connection.
 */
export function downloadBody(answer: StreamedAnswer, deadline: Deadline, maxBytes: number, failures: DownloadFailures): CountedBody {
	const coding = String(answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
	const expected = coding === 'identity' || coding === '' ? contentLength(answer.headers) : undefined;
	if (pastLimit(maxBytes, { announced: expected }) === 'announced') {
		answer.body.destroy();
		deadline.release();
		throw failures.tooLarge(maxBytes, expected);
	}
	const counter = new ByteCounter(expected, failures.incomplete, { bytes: maxBytes, fail: (limit) => failures.tooLarge(limit) });
	return new CountedBody(answer.body, counter, { within: deadline, late: failures.late });
}

export interface Bounds {
	/** The whole answer, headers and body, within this many ms. */
	timeoutMs: number;
}

/**
 * One request whose answer is read as JSON, for callers that need nothing
 * between sending and reading (the credentials' tests, the bot token
 * request, the Workplace Trigger's relay and reply in the chat). Every status
 * comes back as an answer (a 3xx is never followed: refuse it); what cannot be
 * an answer throws: DeadlinePassed (`code` ETIMEDOUT) when the whole answer
 * was not in within `timeoutMs`, AnswerTooLarge for a 2xx past MAX_JSON_BYTES,
 * or the helper's own network error.
 */
export async function boundedRequest(transmit: Transmit, request: OutgoingRequest, bounds: Bounds): Promise<Answer> {
	const deadline = new Deadline(bounds.timeoutMs);
	try {
		return await readAnswer(await openAnswer(transmit, request, deadline, true), deadline);
	} finally {
		deadline.release();
	}
}

export { AnswerTooLarge };
