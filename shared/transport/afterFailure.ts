/**
 * What follows a failed attempt, decided in one place: wait and send again, or
 * give up with the error's message. A pure function of the request, what
 * happened, the attempt and the policy (`now` and `random` passed in): retry.ts
 * decides whether to send again, this says how long to wait or what to tell.
 */
import { parseErrorBody } from './errorBody';
import type { FailureDetails } from './errors';
import {
	effectOf,
	mayHaveBeenDone,
	networkMessage,
	operationAndItem,
	rateLimited,
	retriesExhausted,
	retriesExhaustedByAnswers,
	serviceErrorText,
	waitTooLong,
	type ErrorText,
} from './failureMessages';
import { decideRetry, TOKEN_REQUEST, type Outcome, type RetryPolicy } from './retry';
import type { ApiRequest } from './types';

/** How an attempt failed. */
export type Failure =
	/** The service answered with a status that is not a success (nor a redirect, refused before). */
	| { status: number; body: unknown; retryAfter?: unknown }
	/** No answer: the connection failed (ECONNRESET, a timeout, a TLS code, ...). */
	| { network: string }
	/**
	 * The bot token request that must come first failed, so this request was not
	 * sent: the token endpoint's answer, or the network code it met, if known.
	 */
	| { token: { answer?: { status: number; retryAfter?: unknown }; code?: string } }
	/** Anything else (not the network, not an answer): told as it is. */
	| { other: true };

export type NextStep =
	| { retryAfterMs: number; outcome: Outcome; holdsServiceMs?: number }
	| { error: ErrorText; details: FailureDetails; holdsServiceMs?: number }
	/** Not a failure the transport can say better: the error as thrown. */
	| { asThrown: true };

export interface Attempt {
	/** 1 for the first. */
	number: number;
	/** Since the first attempt started. */
	elapsedMs: number;
	/** Whose failure it is, for the item's errors. */
	itemIndex?: number;
	/** What to check of the API's credential after a 401 (ServiceApi.unauthorizedHint). */
	unauthorizedHint?: string;
}

/** The service's refusal as this request puts it: its own meaning of the status, if it has one. */
function refusalText(request: ApiRequest, status: number, body: unknown, unauthorizedHint: string | undefined): ErrorText {
	const meaning = request.statusMeanings?.[status];
	if (typeof meaning === 'string') return serviceErrorText(status, body, meaning, unauthorizedHint);
	const text = serviceErrorText(status, body, undefined, unauthorizedHint);
	return meaning?.(text) ?? text;
}

/**
 * `step`, and when `outcome` is a rate limit (429) that asked for a time (or is retried after one): every request
 * to the service is held that long (`holdsServiceMs`), whether this one waits it out or stops. Sent meanwhile,
 * the others would be refused too.
 */
function withHold<T extends NextStep>(step: T, outcome: Outcome | undefined, ms: number | undefined): T {
	return outcome && 'status' in outcome && outcome.status === 429 && ms !== undefined ? { ...step, holdsServiceMs: ms } : step;
}

/**
 * The next step after `failure`, for `request` at `attempt` under `policy`:
 * a wait before the next attempt, or the error to give up with.
 */
export function afterFailure(
	request: ApiRequest,
	failure: Failure,
	attempt: Attempt,
	policy: RetryPolicy,
	now = Date.now(),
	random: () => number = Math.random,
): NextStep {
	if ('other' in failure) return { asThrown: true };
	const who = operationAndItem(request.operation, attempt.itemIndex);
	const mayHaveBeen = `; ${mayHaveBeenDone(request.subject, effectOf(request))}`;

	if ('token' in failure) {
		// No token, so this request was not sent: the token request's own decision applies.
		const { answer, code } = failure.token;
		const outcome: Outcome | undefined = answer ?? (code ? { network: code } : undefined);
		const decision = outcome && decideRetry(TOKEN_REQUEST, outcome, attempt.number, policy, now, random);
		if (outcome && decision && 'retryAfterMs' in decision) return withHold({ retryAfterMs: decision.retryAfterMs, outcome }, outcome, decision.retryAfterMs);
		if (!code) return { asThrown: true };
		return { error: networkText(code, attempt.number), details: { networkCode: code } };
	}

	if ('network' in failure) {
		const decision = decideRetry(request, failure, attempt.number, policy, now, random);
		if ('retryAfterMs' in decision) return { retryAfterMs: decision.retryAfterMs, outcome: failure };
		if (decision.stop === 'attemptsUsed' && attempt.number > 1) {
			// The code goes in the description: in a message n8n would swap it for its generic message.
			const message = retriesExhausted(who, attempt.number, attempt.elapsedMs, { what: networkMessage(failure.network) });
			return { error: { message, description: `${failure.network} on the last attempt` }, details: { networkCode: failure.network } };
		}
		const text = networkText(failure.network, attempt.number);
		if (decision.stop === 'mayHaveBeenApplied') text.message += mayHaveBeen;
		return { error: text, details: { networkCode: failure.network } };
	}

	const { status, body } = failure;
	const details = { status, body };
	const outcome: Outcome = { status, retryAfter: failure.retryAfter };
	const decision = decideRetry(request, outcome, attempt.number, policy, now, random);
	if ('retryAfterMs' in decision) return withHold({ retryAfterMs: decision.retryAfterMs, outcome }, outcome, decision.retryAfterMs);
	if (decision.stop === 'waitTooLong' && decision.waitMs !== undefined) {
		return withHold({ error: waitTooLong(who, decision.waitMs, policy.maxWaitMs, parseErrorBody(body).message, now), details }, outcome, decision.waitMs);
	}
	if (decision.stop === 'attemptsUsed' && attempt.number > 1) {
		return withHold({ error: retriesExhaustedByAnswers(who, attempt.number, attempt.elapsedMs, status, body), details }, outcome, decision.waitMs);
	}
	if (status === 429) return withHold({ error: rateLimited(body, decision.waitMs, now), details }, outcome, decision.waitMs);
	const text = refusalText(request, status, body, attempt.unauthorizedHint);
	if (decision.stop === 'mayHaveBeenApplied') text.message += mayHaveBeen;
	return { error: text, details };
}

/** A network failure: what it means, and the code with the attempts made in the description. */
function networkText(code: string, attempts: number): ErrorText {
	return { message: networkMessage(code), description: `${code} after ${attempts} attempt${attempts === 1 ? '' : 's'}` };
}
