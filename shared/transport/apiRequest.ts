/**
 * Every request to the service's APIs passes through apiRequest, on the one
 * request path (boundedRequest.ts: the whole answer within its deadline, a
 * JSON answer at most MAX_JSON_BYTES, a download at most its Max Download
 * Size, no redirect followed). It waits out a pause the service asked for and
 * reports every answer to the service's limiter (serviceLimiter.ts), asks for
 * a new bot token one request at a time, counts streamed answers, and after
 * every failure does what afterFailure says: wait and send again, or give up
 * with its message.
 */
import { NodeOperationError, sleep } from 'n8n-workflow';

import { afterFailure, type Failure } from './afterFailure';
import { SERVICE_APIS, credentialFor, type RunCredential } from './serviceApis';
import { buildPath } from './baseUrl';
import { AnswerTooLarge, downloadFailures, readErrorBody, type CountedBody } from './body';
import { downloadBody, openAnswer, readAnswer, streamedAnswer, viaHttpRequest, type OutgoingRequest, type StreamedAnswer } from './boundedRequest';
import { Deadline } from './deadline';
import { TOKEN_TIMEOUT_MS } from './botToken';
import { DEFAULT_MAX_DOWNLOAD_BYTES, DEFAULT_TIMEOUT_MS } from './limits';
import { answerTooLargeError, asNodeError, errorCode, failureError, isHttpFailure, thrownResponse, unexpectedAnswerError } from './errors';
import { heldTooLong, operationAndItem, redirectRefused, redirectTarget, type Unexpected } from './failureMessages';
import { DEFAULT_RETRY_POLICY, mayHaveReachedService, repeatAnswerMeansDone } from './retry';
import { limiterOf, PausedTooLong, type Report } from './serviceLimiter';
import { tokenFailureIn } from './tokenRequestFailure';
import { sendWithToken, type TokenFields } from './tokenRefresh';
import type { ApiRequest, ApiResponse, Context, RequestSettings, SendOptions } from './types';

/** The settings of requests no item's settings were handed for (editor lists, polls). */
const DEFAULT_SETTINGS: RequestSettings = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

/** The answer a request of type R gets: a counted stream for a streamed request, else the parsed JSON. */
export type ResponseTo<R extends ApiRequest> = R extends { stream: true } ? ApiResponse<CountedBody> : ApiResponse;

/**
 * The request as the request path sends it; the bytes of a file it uploads
 * (they add to the attempt's time), and what lets go of what sending it opened.
 */
async function outgoingRequest(request: ApiRequest, url: string): Promise<{ outgoing: OutgoingRequest; fileBytes: number; release?: () => Promise<void> }> {
	const outgoing: OutgoingRequest = { method: request.method, url, qs: request.qs };
	let fileBytes = 0;
	let release: (() => Promise<void>) | undefined;
	// An encoded body's Content-Length is not the length of the bytes handed on; ask for none.
	if (request.stream) outgoing.headers = { 'accept-encoding': 'identity' };
	if (typeof request.body === 'function') {
		const part = await request.body();
		release = part.release;
		outgoing.body = part.body as OutgoingRequest['body'];
		fileBytes = part.fileBytes ?? 0;
		if (part.headers) outgoing.headers = { ...outgoing.headers, ...part.headers };
	} else if (request.body !== undefined) {
		outgoing.body = request.body;
	} else if (request.form !== undefined) {
		outgoing.body = new URLSearchParams(request.form);
		outgoing.headers = { 'content-type': 'application/x-www-form-urlencoded' };
	}
	return { outgoing, fileBytes, release };
}

/**
 * What is wrong with a 2xx body the request reads as JSON, if anything: the
 * request path hands on as text a body it could not parse (said to be JSON or
 * not: another content type, e.g. a sign-in page). An empty body is no answer
 * to read, not a wrong one (a 204).
 */
function unexpectedBody(response: ApiResponse): Unexpected | undefined {
	if (typeof response.body !== 'string' || response.body.trim() === '') return undefined;
	const type = String(response.headers['content-type'] ?? '').toLowerCase();
	if (!type.includes('json')) return 'notJson';
	try {
		JSON.parse(response.body);
		return undefined;
	} catch {
		return 'invalid';
	}
}

/** One attempt: the answer with its body still to read (and the token it was sent with, '' when none), or how it failed before any answer. */
type Sent = { answer: StreamedAnswer; token: string; deadline: Deadline } | { failure: Failure; thrown: unknown };

/** What a thrown error says of an attempt: the token request failed, an answer came after all, or the network failed. */
function failureOf(thrown: unknown): { failure: Failure; thrown: unknown } | { answer: StreamedAnswer } {
	const token = tokenFailureIn(thrown);
	if (token) return { failure: { token: { answer: token.answer, code: token.code } }, thrown };
	const answered = thrownResponse(thrown);
	if (answered) return { answer: streamedAnswer(answered) };
	const code = errorCode(thrown);
	// Not a network failure (e.g. a token answer without a token): said as it is.
	if (!code && !isHttpFailure(thrown)) return { failure: { other: true }, thrown };
	return { failure: { network: code ?? 'ECONNRESET' }, thrown };
}

async function sendOnce(
	ctx: Context,
	run: RunCredential,
	credential: string,
	outgoing: OutgoingRequest,
	fileBytes: number,
	json: boolean,
	timeoutMs: number,
	tokenFields: TokenFields | undefined,
	refusedToken: string | undefined,
): Promise<Sent> {
	const transmit = viaHttpRequest(
		async (options) => await ctx.helpers.httpRequestWithAuthentication.call(ctx, credential, options, { credentialsDecrypted: run.decrypted }),
	);
	/** The attempt's deadline, once it is sent. */
	let current: Deadline | undefined;
	// An attempt that fetches a token first (n8n's preAuthentication, within the same call) also has the token request's time.
	const send = async (fetchesToken: boolean) => {
		const deadline = new Deadline(timeoutMs + (fetchesToken ? TOKEN_TIMEOUT_MS : 0), fileBytes);
		current = deadline;
		return { answer: await openAnswer(transmit, outgoing, deadline, json), deadline };
	};
	try {
		if (tokenFields && run.decrypted.data) {
			const sent = await sendWithToken(run.decrypted.data, tokenFields, send, refusedToken);
			return { ...sent.result, token: sent.token };
		}
		return { ...(await send(false)), token: '' };
	} catch (thrown) {
		current?.release();
		const failed = failureOf(thrown);
		return 'answer' in failed ? { ...failed, token: '', deadline: new Deadline(timeoutMs) } : failed;
	}
}

/**
 * A 2xx as the operation gets it: a streamed body counted (against its
 * Content-Length and Max Download Size, ended at the deadline), a JSON body
 * read within its limits and checked to be JSON. A body that breaks off or
 * runs late is a failure like a network one (the retry decision is the same);
 * one past its size limit fails the item.
 */
async function answered<R extends ApiRequest>(
	ctx: Context,
	request: R,
	answer: StreamedAnswer,
	deadline: Deadline,
	itemIndex: number | undefined,
): Promise<{ response: ApiResponse } | { failure: Failure; thrown: unknown }> {
	if (request.stream) {
		const body: CountedBody = downloadBody(answer, deadline, request.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES, downloadFailures(ctx, request, itemIndex));
		return { response: { ...answer, body } };
	}
	let response: ApiResponse;
	try {
		response = await readAnswer(answer, deadline);
	} catch (thrown) {
		if (thrown instanceof AnswerTooLarge) throw answerTooLargeError(ctx, request, answer, thrown.limit, itemIndex);
		const failed = failureOf(thrown);
		return 'failure' in failed ? failed : { failure: { other: true }, thrown };
	} finally {
		deadline.release();
	}
	const unexpected = unexpectedBody(response);
	if (unexpected) throw unexpectedAnswerError(ctx, request, response, unexpected, 'a JSON answer', itemIndex);
	return { response };
}

/** Executes one request, doing after each failure what afterFailure says. Non-2xx answers become NodeApiError. */
export async function apiRequest<R extends ApiRequest>(ctx: Context, request: R, sending: SendOptions = {}): Promise<ResponseTo<R>> {
	const api = SERVICE_APIS[request.api];
	const { itemIndex } = sending;
	const { policy, timeoutMs, adaptive } = sending.settings ?? DEFAULT_SETTINGS;
	let run: RunCredential;
	try {
		run = await credentialFor(ctx, request.api);
	} catch (error) {
		// The cached failure is shared by the run's items; each item gets its own error.
		const { message, description } = error as NodeOperationError;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description: description ?? undefined });
	}
	const url = run.baseUrl + buildPath(api.prefix, request.path);
	const limiter = limiterOf(run);
	const started = Date.now();
	/** The token of an attempt refused with a 401; the request is sent once more with a new token. */
	let refusedToken: string | undefined;
	/** What the latest failed attempt that may have been carried out met (a network code or a status). */
	let uncertainAttempt: string | undefined;
	/** The wait this request chose before its next attempt (a token request's Retry-After may be beyond Max Wait). */
	let chosenWaitMs = 0;

	for (let attempt = 1; ; attempt++) {
		const { outgoing, fileBytes, release } = await outgoingRequest(request, url);
		// Waits out a pause the service asked for (Retry-After), whoever it asked, up to Max Wait; tells the limiter how it ended.
		let report: Report;
		try {
			report = await limiter.send(adaptive === true, Math.max(policy.maxWaitMs, chosenWaitMs));
		} catch (thrown) {
			await release?.();
			if (!(thrown instanceof PausedTooLong)) throw asNodeError(ctx, thrown, itemIndex);
			const text = heldTooLong(operationAndItem(request.operation, itemIndex), thrown.waitMs, policy.maxWaitMs);
			throw new NodeOperationError(ctx.getNode(), text.message, { description: text.description, itemIndex });
		}
		let sent: Sent;
		try {
			sent = await sendOnce(ctx, run, api.credential, outgoing, fileBytes, !request.stream, timeoutMs, api.token, refusedToken);
		} finally {
			await release?.();
		}
		// The limiter hears how the attempt ended once its answer is read (until then it is the service's work),
		// a download's once its headers are in (the operation reads its bytes later).
		if ('answer' in sent && request.stream) report(sent.answer.statusCode);
		let failure: Failure;
		let thrown: unknown;
		try {
			if ('answer' in sent) {
				const { answer, deadline } = sent;
				const status = answer.statusCode;
				// A refused token: once more with a new one (fetched by one request of the run for all).
				if (status === 401 && api.token && refusedToken === undefined) {
					await readErrorBody(answer.body, deadline);
					deadline.release();
					refusedToken = sent.token;
					attempt--;
					continue;
				}
				if (status >= 200 && status < 300) {
					const read = await answered(ctx, request, answer, deadline, itemIndex);
					if ('response' in read) return { ...read.response, attempts: attempt } as ResponseTo<R>;
					({ failure, thrown } = read);
				} else if (status >= 300 && status < 400) {
					answer.body.destroy();
					deadline.release();
					// Not the service's error, so not a NodeApiError.
					const text = redirectRefused(operationAndItem(request.operation, itemIndex), status, redirectTarget(answer.headers.location, url));
					throw new NodeOperationError(ctx.getNode(), text.message, { description: text.description, itemIndex });
				} else {
					const body = await readErrorBody(answer.body, deadline);
					deadline.release();
					if (uncertainAttempt !== undefined && repeatAnswerMeansDone(request, status)) {
						// An earlier attempt did it; its answer was lost. Done, and said so by the operation.
						return { ...answer, body, attempts: attempt, doneByEarlierAttempt: uncertainAttempt } as ResponseTo<R>;
					}
					failure = { status, body, retryAfter: answer.headers['retry-after'] };
				}
			} else {
				({ failure, thrown } = sent);
			}
		} finally {
			report('answer' in sent ? sent.answer.statusCode : undefined);
		}

		const next = afterFailure(request, failure, { number: attempt, elapsedMs: Date.now() - started, itemIndex, unauthorizedHint: api.unauthorizedHint }, policy);
		// A rate limit holds every request to the service, this one's next attempt included (send waits it out).
		if ('holdsServiceMs' in next && next.holdsServiceMs !== undefined) limiter.pause(next.holdsServiceMs);
		if ('retryAfterMs' in next) {
			// A failed token request never sent this request, so it cannot have been carried out.
			if (!('token' in failure) && mayHaveReachedService(next.outcome)) {
				uncertainAttempt = 'network' in next.outcome ? next.outcome.network : String(next.outcome.status);
			}
			chosenWaitMs = next.retryAfterMs;
			if (next.holdsServiceMs === undefined) await sleep(next.retryAfterMs);
			continue;
		}
		if ('asThrown' in next) throw asNodeError(ctx, thrown, itemIndex);
		throw failureError(ctx, next.error, next.details, itemIndex);
	}
}
