/**
 * When a failed request is sent again, decided by one pure function of the
 * request, what happened, the attempt and the policy. Whether a request is safe
 * to repeat follows from the request itself: GET, PUT and DELETE leave the same
 * result when repeated; a POST makes or sends something, so once it may have
 * reached the service it is never repeated. The bot token request is a POST
 * that makes nothing (each answer is a fresh token), so it may be repeated.
 */
import type { IHttpRequestMethods } from 'n8n-workflow';

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	/** Longest single wait; a Retry-After beyond it fails the item with the time to retry. */
	maxWaitMs: number;
	/** First backoff step; doubles each attempt, with jitter. */
	baseDelayMs: number;
	/**
	 * Longest wait the bot token request accepts from a Retry-After. The token
	 * serves the whole run, not one item, so the item's Max Wait does not bound it.
	 */
	tokenMaxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, maxWaitMs: 60_000, baseDelayMs: 500, tokenMaxWaitMs: 30_000 };

/** What the decision needs to know of a request. */
export interface RetryRequest {
	method: IHttpRequestMethods;
	/** Set only on the bot token request: a POST that makes nothing. */
	token?: true;
}

/** The bot token request (POST /oauth/token), as the decision sees it. */
export const TOKEN_REQUEST: RetryRequest = { method: 'POST', token: true };

/** What came back: an HTTP status (with its Retry-After header), or a network failure code. */
export type Outcome = { status: number; retryAfter?: unknown } | { network: string };

export type StopReason =
	/** Asking again gets the same answer (4xx, a 500, an unknown failure). */
	| 'final'
	/** Worth asking again, but the policy's attempts are used up. */
	| 'attemptsUsed'
	/** The service asks to wait longer than the policy allows. */
	| 'waitTooLong'
	/** A POST that may have reached the service: repeating it could do it twice. */
	| 'mayHaveBeenApplied';

export type RetryDecision = { retryAfterMs: number } | { stop: StopReason; waitMs?: number };

/** Statuses that say "try again later" without anything being done. */
const TRANSIENT_STATUS = new Set([502, 503, 504]);
/** Failures where the request cannot have reached the service, so even a POST may be resent. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether sending the request twice leaves the same result as sending it once. */
export function safeToRepeat(request: RetryRequest): boolean {
	if (request.token) return true;
	return request.method === 'GET' || request.method === 'HEAD' || request.method === 'PUT' || request.method === 'DELETE';
}

/** Whether a network failure code means the request never left this machine. */
export function neverSent(code: string): boolean {
	return NEVER_SENT_CODES.has(code);
}

/**
 * The decision for one failed attempt (1 = the first). `now` and `random` are
 * passed in so the same inputs always give the same answer.
 */
export function decideRetry(
	request: RetryRequest,
	outcome: Outcome,
	attempt: number,
	policy: RetryPolicy,
	now: number = Date.now(),
	random: () => number = Math.random,
): RetryDecision {
	const attemptsLeft = attempt < policy.maxAttempts;
	if ('network' in outcome) {
		// Refused or unresolved: nothing was sent. Reset, timeout, closed: it may have arrived.
		if (!neverSent(outcome.network) && !safeToRepeat(request)) return { stop: 'mayHaveBeenApplied' };
		return attemptsLeft ? { retryAfterMs: backoffDelay(attempt, policy, random) } : { stop: 'attemptsUsed' };
	}
	const { status } = outcome;
	// A 429 was refused before processing: safe to resend, POSTs included. A 5xx may have been passed on.
	if (status >= 500 && !safeToRepeat(request)) return { stop: 'mayHaveBeenApplied' };
	if (status !== 429 && !TRANSIENT_STATUS.has(status)) return { stop: 'final' };
	// The service's own Retry-After, where it gave one (a 503 says so for how long it expects to be
	// unavailable), rules over the backoff: sooner would be refused again and use up the attempts.
	const asked = parseRetryAfter(outcome.retryAfter, now);
	if (!attemptsLeft) return { stop: 'attemptsUsed', waitMs: asked };
	const maxWait = request.token ? policy.tokenMaxWaitMs : policy.maxWaitMs;
	if (asked !== undefined && asked > maxWait) return { stop: 'waitTooLong', waitMs: asked };
	return { retryAfterMs: asked ?? backoffDelay(attempt, policy, random) };
}

/**
 * Whether a failed attempt may have been carried out by the service all the
 * same: its answer was lost on the way (a reset, a timeout), or a gateway
 * answered 502/503/504 and may have passed the request on before giving up.
 * Refused connections and unresolved names never reached it; a 429 was refused before processing.
 */
export function mayHaveReachedService(outcome: Outcome): boolean {
	if ('network' in outcome) return !neverSent(outcome.network);
	return TRANSIENT_STATUS.has(outcome.status);
}

/**
 * What a repeat's answer means when an earlier attempt may have been carried
 * out: for a DELETE, 404 or 410 says the thing is gone, which is what the first
 * attempt was asked to do, so the request is done. GET and PUT answer a repeat
 * as they answered the first; a POST is never repeated after such a failure.
 */
export function repeatAnswerMeansDone(request: RetryRequest, status: number): boolean {
	return request.method === 'DELETE' && (status === 404 || status === 410);
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const header = Array.isArray(value) ? (value[0] as unknown) : value;
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	const trimmed = header.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential from the policy's first step, capped by its longest wait, with jitter (half to all of the step). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
	const ceiling = Math.min(policy.maxWaitMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
