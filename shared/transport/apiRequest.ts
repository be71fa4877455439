/**
 * Every request of the node passes through apiRequest. It applies the item's
 * timeout, refuses redirects, waits out the run's rate-limit pause, asks for a
 * new bot token one request at a time, counts streamed answers, and after every
 * failure does what afterFailure says: wait and send again, or give up with its
 * message.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { afterFailure, type Failure } from './afterFailure';
import { SERVICE_APIS, credentialFor, type RunCredential } from './serviceApis';
import { buildPath } from './baseUrl';
import { countedResponseBody, readErrorBody, type CountedBody } from './body';
import { asNodeError, errorCode, failureError, isHttpFailure, thrownResponse, unexpectedAnswerError } from './errors';
import { operationAndItem, redirectRefused, redirectTarget, type Unexpected } from './failureMessages';
import { DEFAULT_RETRY_POLICY, mayHaveReachedService, repeatAnswerMeansDone, type Outcome } from './retry';
import { tokenFailureIn } from './tokenRequestFailure';
import { sendWithToken, type TokenFields } from './tokenRefresh';
import type { ApiRequest, ApiResponse, Context, RequestSettings, SendOptions } from './types';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** The settings of requests no item's settings were handed for (editor lists, polls). */
const DEFAULT_SETTINGS: RequestSettings = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

/** The answer a request of type R gets: a counted stream for a streamed request, else the parsed JSON. */
export type ResponseTo<R extends ApiRequest> = R extends { stream: true } ? ApiResponse<CountedBody> : ApiResponse;

/**
 * One pause shared by every request of a node run: a 429 with Retry-After holds
 * back all of the run's requests (every worker of "Requests in Parallel"), not
 * only the one that was refused.
 */
const rateLimitPauses = new WeakMap<object, { until: number }>();

function pauseRun(ctx: Context, waitMs: number): void {
	const until = Date.now() + waitMs;
	const pause = rateLimitPauses.get(ctx);
	if (!pause) rateLimitPauses.set(ctx, { until });
	else if (until > pause.until) pause.until = until;
}

/** Waits out the run's pause, if any (it may be extended while waiting). */
async function afterPause(ctx: Context): Promise<void> {
	const pause = rateLimitPauses.get(ctx);
	for (let left = pause ? pause.until - Date.now() : 0; left > 0; left = pause!.until - Date.now()) {
		await sleep(left);
	}
}

/** Waits before the next attempt: a rate limit pauses the whole run, anything else only this request. */
async function waitToRetry(ctx: Context, outcome: Outcome, waitMs: number): Promise<void> {
	if ('status' in outcome && outcome.status === 429) pauseRun(ctx, waitMs);
	else await sleep(waitMs);
}

async function httpOptions(request: ApiRequest, url: string, timeoutMs: number): Promise<{ options: IHttpRequestOptions; release?: () => Promise<void> }> {
	let release: (() => Promise<void>) | undefined;
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		qs: request.qs,
		json: !request.stream,
		returnFullResponse: true,
		// Every status comes back as data, a 401 included: n8n would fetch a token for each
		// refused request; the transport fetches one for all (tokenRefresh.ts).
		ignoreHttpStatusErrors: true,
		// A redirect could carry the credential's headers to another host; never follow one.
		disableFollowRedirect: true,
		timeout: timeoutMs,
	};
	if (request.stream) {
		options.encoding = 'stream';
		// An encoded body's Content-Length is not the length of the bytes handed on; ask for none.
		options.headers = { 'accept-encoding': 'identity' };
	}
	if (typeof request.body === 'function') {
		const part = await request.body();
		release = part.release;
		options.body = part.body as IHttpRequestOptions['body'];
		if (part.headers) options.headers = { ...options.headers, ...part.headers };
	} else if (request.body !== undefined) {
		options.body = request.body;
	} else if (request.form !== undefined) {
		options.body = new URLSearchParams(request.form);
		options.headers = { 'content-type': 'application/x-www-form-urlencoded' };
	}
	return { options, release };
}

/**
 * What is wrong with a 2xx body the request reads as JSON, if anything: the HTTP
 * client hands on as text a body it could not parse (said to be JSON) or did not
 * try to (another content type, e.g. a sign-in page). An empty body is no answer
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

/** One attempt: the answer (with the token it was sent with, '' when none), or how it failed before any answer. */
type Sent = { response: ApiResponse; token: string } | { failure: Failure; thrown: unknown };

async function sendOnce(
	ctx: Context,
	run: RunCredential,
	credential: string,
	options: IHttpRequestOptions,
	tokenFields: TokenFields | undefined,
	refusedToken: string | undefined,
): Promise<Sent> {
	const send = async () =>
		(await ctx.helpers.httpRequestWithAuthentication.call(ctx, credential, options, {
			credentialsDecrypted: run.decrypted,
		})) as ApiResponse;
	try {
		if (tokenFields && run.decrypted.data) {
			const sent = await sendWithToken(run.decrypted.data, tokenFields, send, refusedToken);
			return { response: sent.result, token: sent.token };
		}
		return { response: await send(), token: '' };
	} catch (thrown) {
		const token = tokenFailureIn(thrown);
		if (token) return { failure: { token: { answer: token.answer, code: token.code } }, thrown };
		const answered = thrownResponse(thrown);
		if (answered) return { response: answered, token: '' };
		const code = errorCode(thrown);
		// Not a network failure (e.g. a token answer without a token): said as it is.
		if (!code && !isHttpFailure(thrown)) return { failure: { other: true }, thrown };
		return { failure: { network: code ?? 'ECONNRESET' }, thrown };
	}
}

/** A 2xx as the operation gets it: a streamed body counted, a JSON body checked to be JSON. */
function answered<R extends ApiRequest>(ctx: Context, request: R, response: ApiResponse, attempts: number, itemIndex: number | undefined): ResponseTo<R> {
	if (request.stream) {
		response.body = countedResponseBody(ctx, response, itemIndex);
	} else {
		const unexpected = unexpectedBody(response);
		if (unexpected) throw unexpectedAnswerError(ctx, request, response, unexpected, 'a JSON answer', itemIndex);
	}
	response.attempts = attempts;
	return response as ResponseTo<R>;
}

/** Executes one request, doing after each failure what afterFailure says. Non-2xx answers become NodeApiError. */
export async function apiRequest<R extends ApiRequest>(ctx: Context, request: R, sending: SendOptions = {}): Promise<ResponseTo<R>> {
	const api = SERVICE_APIS[request.api];
	const { itemIndex } = sending;
	const { policy, timeoutMs } = sending.settings ?? DEFAULT_SETTINGS;
	let run: RunCredential;
	try {
		run = await credentialFor(ctx, request.api);
	} catch (error) {
		// The cached failure is shared by the run's items; each item gets its own error.
		const { message, description } = error as NodeOperationError;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description: description ?? undefined });
	}
	const url = run.baseUrl + buildPath(api.prefix, request.path);
	const started = Date.now();
	/** The token of an attempt refused with a 401; the request is sent once more with a new token. */
	let refusedToken: string | undefined;
	/** What the latest failed attempt that may have been carried out met (a network code or a status). */
	let uncertainAttempt: string | undefined;

	for (let attempt = 1; ; attempt++) {
		const { options, release } = await httpOptions(request, url, timeoutMs);
		await afterPause(ctx);
		let sent: Awaited<ReturnType<typeof sendOnce>>;
		try {
			sent = await sendOnce(ctx, run, api.credential, options, api.token, refusedToken);
		} finally {
			await release?.();
		}
		let failure: Failure;
		if ('response' in sent) {
			const { response } = sent;
			const status = response.statusCode;
			// A refused token: once more with a new one (fetched by one request of the run for all).
			if (status === 401 && api.token && refusedToken === undefined) {
				if (request.stream) await readErrorBody(response.body);
				refusedToken = sent.token;
				attempt--;
				continue;
			}
			if (status >= 200 && status < 300) return answered(ctx, request, response, attempt, itemIndex);
			if (status >= 300 && status < 400) {
				// Not the service's error, so not a NodeApiError.
				const text = redirectRefused(operationAndItem(request.operation, itemIndex), status, redirectTarget(response.headers.location, url));
				throw new NodeOperationError(ctx.getNode(), text.message, { description: text.description, itemIndex });
			}
			const body = request.stream ? await readErrorBody(response.body) : response.body;
			if (uncertainAttempt !== undefined && repeatAnswerMeansDone(request, status)) {
				// An earlier attempt did it; its answer was lost. Done, and said so by the operation.
				return { ...response, body, attempts: attempt, doneByEarlierAttempt: uncertainAttempt } as ResponseTo<R>;
			}
			failure = { status, body, retryAfter: response.headers['retry-after'] };
		} else {
			failure = sent.failure;
		}

		const next = afterFailure(request, failure, { number: attempt, elapsedMs: Date.now() - started, itemIndex, unauthorizedHint: api.unauthorizedHint }, policy);
		if ('retryAfterMs' in next) {
			// A failed token request never sent this request, so it cannot have been carried out.
			if (!('token' in failure) && mayHaveReachedService(next.outcome)) {
				uncertainAttempt = 'network' in next.outcome ? next.outcome.network : String(next.outcome.status);
			}
			await waitToRetry(ctx, next.outcome, next.retryAfterMs);
			continue;
		}
		if ('asThrown' in next) throw asNodeError(ctx, 'thrown' in sent ? sent.thrown : undefined, itemIndex);
		throw failureError(ctx, next.error, next.details, itemIndex);
	}
}
