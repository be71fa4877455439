/**
 * Every request of the node passes through
 * apiRequest. It applies the item's timeout, refuses redirects, waits out the
 * run's rate-limit pause, asks for a new bot token one request at a time,
 * meters streamed answers, asks the retry decision after every failure (the bot
 * token request's included) and maps what is left to errors.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { buildPath } from './baseUrl';
import { meterResponseBody, readErrorBody, type MeteredBody } from './body';
import { AREAS, credentialFor, type RunCredential } from './areas';
import { tokenFailureIn } from './tokenRequestFailure';
import {
	apiError,
	errorCode,
	isHttpFailure,
	mayHaveBeenApplied,
	networkError,
	rateLimitError,
	redirectError,
	retriesExhaustedError,
	thrownResponse,
	unexpectedAnswerError,
	waitTooLongError,
} from './errors';
import { decideRetry, mayHaveReachedService, repeatAnswerMeansDone, TOKEN_REQUEST, type Outcome, type RetryDecision } from './retry';
import { sendWithToken } from './tokenRefresh';
import type { Unexpected } from './failureMessages';
import { DEFAULT_RETRY_POLICY } from './retry';
import type { ApiRequest, ApiResponse, Context, RequestSettings, SendOptions } from './types';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** The settings of requests no item's settings were handed for (editor lists, polls). */
const DEFAULT_SETTINGS: RequestSettings = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

/** The answer a request of type R gets: a metered stream for a streamed request, else the parsed JSON. */
export type ResponseTo<R extends ApiRequest> = R extends { stream: true } ? ApiResponse<MeteredBody> : ApiResponse;

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
async function waitToRetry(ctx: Context, outcome: Outcome, decision: { retryAfterMs: number }): Promise<void> {
	if ('status' in outcome && outcome.status === 429) pauseRun(ctx, decision.retryAfterMs);
	else await sleep(decision.retryAfterMs);
}

function asNodeError(ctx: Context, error: unknown, itemIndex: number | undefined): Error {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

async function httpOptions(request: ApiRequest, url: string, timeoutMs: number): Promise<IHttpRequestOptions> {
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
		options.body = part.body as IHttpRequestOptions['body'];
		if (part.headers) options.headers = { ...options.headers, ...part.headers };
	} else if (request.body !== undefined) {
		options.body = request.body;
	} else if (request.form !== undefined) {
		options.body = new URLSearchParams(request.form);
		options.headers = { 'content-type': 'application/x-www-form-urlencoded' };
	}
	return options;
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

/** Executes one request with the retry decision after each failure. Non-2xx answers become NodeApiError. */
export async function apiRequest<R extends ApiRequest>(ctx: Context, request: R, sending: SendOptions = {}): Promise<ResponseTo<R>> {
	const { credential, prefix, token: tokenFields } = AREAS[request.area];
	const { itemIndex } = sending;
	const { policy, timeoutMs } = sending.settings ?? DEFAULT_SETTINGS;
	let run: RunCredential;
	try {
		run = await credentialFor(ctx, request.area);
	} catch (error) {
		// The cached failure is shared by the run's items; each item gets its own error.
		const { message, description } = error as NodeOperationError;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description: description ?? undefined });
	}
	const url = run.baseUrl + buildPath(prefix, request.path);
	const started = Date.now();
	/** The token of an attempt refused with a 401; the request is sent once more with a new token. */
	let refusedToken: string | undefined;
	/** What the latest failed attempt that may have been carried out met (a network code or a status). */
	let uncertainAttempt: string | undefined;
	const retrying = async (outcome: Outcome, decision: { retryAfterMs: number }) => {
		if (mayHaveReachedService(outcome)) uncertainAttempt = 'network' in outcome ? outcome.network : String(outcome.status);
		await waitToRetry(ctx, outcome, decision);
	};

	for (let attempt = 1; ; attempt++) {
		const options = await httpOptions(request, url, timeoutMs);
		const send = async () =>
			(await ctx.helpers.httpRequestWithAuthentication.call(ctx, credential, options, {
				credentialsDecrypted: run.decrypted,
			})) as ApiResponse;
		let response: ApiResponse;
		let sentWith = '';
		await afterPause(ctx);
		try {
			if (tokenFields && run.decrypted.data) {
				const sent = await sendWithToken(run.decrypted.data, tokenFields, send, refusedToken);
				response = sent.result;
				sentWith = sent.token;
			} else {
				response = await send();
			}
		} catch (error) {
			const token = tokenFailureIn(error);
			if (token) {
				// No token, so this request was not sent: the token request's own decision applies.
				const outcome: Outcome | undefined = token.answer ?? (token.code ? { network: token.code } : undefined);
				const decision: RetryDecision = outcome ? decideRetry(TOKEN_REQUEST, outcome, attempt, policy) : { stop: 'final' };
				if (outcome && 'retryAfterMs' in decision) {
					await waitToRetry(ctx, outcome, decision);
					continue;
				}
				throw token.code ? networkError(ctx, token.code, itemIndex, attempt) : asNodeError(ctx, error, itemIndex);
			}
			const answered = thrownResponse(error);
			if (!answered) {
				const code = errorCode(error);
				// Not a network failure (e.g. a token answer without a token): say so as it is.
				if (!code && !isHttpFailure(error)) throw asNodeError(ctx, error, itemIndex);
				const outcome = { network: code ?? 'ECONNRESET' };
				const decision = decideRetry(request, outcome, attempt, policy);
				if ('retryAfterMs' in decision) {
					await retrying(outcome, decision);
					continue;
				}
				if (decision.stop === 'attemptsUsed' && attempt > 1) {
					throw retriesExhaustedError(ctx, request, attempt, Date.now() - started, outcome, itemIndex);
				}
				throw networkError(ctx, outcome.network, itemIndex, attempt, decision.stop === 'mayHaveBeenApplied' ? request : undefined);
			}
			response = answered;
		}

		const status = response.statusCode;
		// A refused token: once more with a new one (fetched by one request of the run for all).
		if (status === 401 && tokenFields && refusedToken === undefined) {
			if (request.stream) await readErrorBody(response.body);
			refusedToken = sentWith;
			attempt--;
			continue;
		}
		if (status >= 200 && status < 300) {
			if (request.stream) {
				response.body = meterResponseBody(ctx, response, itemIndex);
			} else {
				const unexpected = unexpectedBody(response);
				if (unexpected) throw unexpectedAnswerError(ctx, request, response, unexpected, 'a JSON answer', itemIndex);
			}
			response.attempts = attempt;
			return response as ResponseTo<R>;
		}
		if (status >= 300 && status < 400) throw redirectError(ctx, request, response, url, itemIndex);

		const body = request.stream ? await readErrorBody(response.body) : response.body;
		if (uncertainAttempt !== undefined && repeatAnswerMeansDone(request, status)) {
			// An earlier attempt did it; its answer was lost. Done, and said so by the operation.
			return { ...response, body, attempts: attempt, doneByEarlierAttempt: uncertainAttempt } as ResponseTo<R>;
		}
		const outcome = { status, retryAfter: response.headers['retry-after'] };
		const decision = decideRetry(request, outcome, attempt, policy);
		if ('retryAfterMs' in decision) {
			await retrying(outcome, decision);
			continue;
		}
		if (decision.stop === 'waitTooLong' && decision.waitMs !== undefined) {
			throw waitTooLongError(ctx, request, body, decision.waitMs, policy.maxWaitMs, itemIndex);
		}
		if (decision.stop === 'attemptsUsed' && attempt > 1) {
			throw retriesExhaustedError(ctx, request, attempt, Date.now() - started, { status, body }, itemIndex);
		}
		if (status === 429) throw rateLimitError(ctx, body, decision.waitMs, itemIndex);
		const error = apiError(ctx, status, body, itemIndex, request.errorMessages?.[status], AREAS[request.area].unauthorizedHint);
		if (decision.stop === 'mayHaveBeenApplied') error.message += mayHaveBeenApplied(request);
		throw error;
	}
}
