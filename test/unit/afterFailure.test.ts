/**
 * What follows a failed attempt (transport/afterFailure.ts), row by row: the
 * wait before the next attempt, or the message the item fails with. What a
 * request may have done when its fate is unknown follows from its method, or
 * from its declared effect.
 */
import { afterFailure, type Failure, type NextStep } from '../../shared/transport/afterFailure';
import { consequenceOf, effectOf, mayHaveBeenDone } from '../../shared/transport/failureMessages';
import { DEFAULT_RETRY_POLICY } from '../../shared/transport/retry';
import type { ApiRequest } from '../../shared/transport/types';

const NOW = Date.parse('2026-01-05T10:00:00Z');
const POLICY = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, maxWaitMs: 60_000, baseDelayMs: 500 };
// Fixed jitter: the first backoff step is 500 ms, jitter 0.5 gives 250 + 125.
const JITTER = () => 0.5;

const request = (method: ApiRequest['method'], extra: Partial<ApiRequest> = {}): ApiRequest => ({
	api: 'taskProjects',
	method,
	path: ['tasks'],
	subject: 'task',
	operation: 'Do it',
	...extra,
});

const next = (r: ApiRequest, failure: Failure, attempt = 1, hint?: string): NextStep =>
	afterFailure(r, failure, { number: attempt, elapsedMs: 1500, itemIndex: 2, unauthorizedHint: hint }, POLICY, NOW, JITTER);

const message = (step: NextStep): string => ('error' in step ? step.error.message : JSON.stringify(step));

describe('afterFailure', () => {
	const RESET = { network: 'ECONNRESET' };
	const UNAVAILABLE = { status: 503, body: { message: 'Down' } };

	it.each<[string, ApiRequest, Failure, number, NextStep | string]>([
		['GET after a reset: wait and send again', request('GET'), RESET, 1, { retryAfterMs: 375, outcome: RESET }],
		['GET after a 503: wait and send again', request('GET'), UNAVAILABLE, 1, { retryAfterMs: 375, outcome: { status: 503, retryAfter: undefined } }],
		['POST after a refused connection: nothing was sent, so again', request('POST'), { network: 'ECONNREFUSED' }, 1, { retryAfterMs: 375, outcome: { network: 'ECONNREFUSED' } }],
		[
			'POST after a reset: may have been created',
			request('POST'),
			RESET,
			1,
			'The connection to the service was reset; the task may have been created even so. It was not retried automatically, to avoid a duplicate: check before running this item again',
		],
		[
			'POST after a 503: may have been created',
			request('POST'),
			UNAVAILABLE,
			1,
			'The service answered 503: Down; the task may have been created even so. It was not retried automatically, to avoid a duplicate: check before running this item again',
		],
		[
			'a send after a reset: may have been delivered',
			request('POST', { subject: 'message', effect: 'delivered' }),
			RESET,
			1,
			'The connection to the service was reset; the message may have been delivered even so. It was not retried automatically, to avoid a duplicate: check before running this item again',
		],
		[
			'PATCH after a reset: may have been updated, not created',
			request('PATCH'),
			RESET,
			1,
			'The connection to the service was reset; the task may have been updated even so. It was not retried automatically, to avoid doing it twice: check before running this item again',
		],
		[
			'PATCH after a 503: may have been updated',
			request('PATCH'),
			UNAVAILABLE,
			1,
			'The service answered 503: Down; the task may have been updated even so. It was not retried automatically, to avoid doing it twice: check before running this item again',
		],
		['PUT after a reset on the last attempt: gave up, with the count', request('PUT'), RESET, 4, 'Do it (item 2): gave up after 4 attempts over 1.5 s; the last attempt failed: the connection to the service was reset'],
		['DELETE after 503 on the last attempt: gave up, with the service\'s message', request('DELETE'), UNAVAILABLE, 4, 'Do it (item 2): gave up after 4 attempts over 1.5 s; the last answer was 503 (the service said: Down)'],
		['a 404 is final, with the service\'s message', request('GET'), { status: 404, body: { message: 'No such task' } }, 1, 'Not found: No such task'],
		['a 401 says what to check of the credential', request('GET'), { status: 401, body: {} }, 1, 'The service rejected the credentials (check the key)'],
		['a 429 beyond Max Wait: the node stopped', request('GET'), { status: 429, body: {}, retryAfter: '300' }, 1, 'Do it (item 2): the service asked to wait 300 s, until 2026-01-05T10:05:00Z; that is longer than Max Wait (60 s), so the node stopped instead of waiting'],
		['the token request answered 503: wait, this request was not sent', request('POST'), { token: { answer: { status: 503 } } }, 1, { retryAfterMs: 375, outcome: { status: 503 } }],
		['the token request met a refused connection on the last attempt: the network failure\'s message', request('POST'), { token: { code: 'ECONNREFUSED' } }, 4, 'The service refused the connection'],
		['the token request refused the client: the error as thrown', request('POST'), { token: { answer: { status: 401 } } }, 1, { asThrown: true }],
		['anything else: the error as thrown', request('GET'), { other: true }, 1, { asThrown: true }],
	])('%s', (_, r, failure, attempt, expected) => {
		const step = next(r, failure, attempt, 'check the key');
		if (typeof expected === 'string') expect(message(step)).toBe(expected);
		else expect(step).toEqual(expected);
	});

	it('a 429 when Max Attempts is 1: when to retry', () => {
		const once = { ...POLICY, maxAttempts: 1 };
		const step = (retryAfter?: string) =>
			afterFailure(request('GET'), { status: 429, body: {}, retryAfter }, { number: 1, elapsedMs: 0 }, once, NOW, JITTER);
		expect(message(step())).toBe('The service is rate limiting requests; retry later');
		expect(message(step('2'))).toBe('The service is rate limiting requests; retry in 2 s (at 2026-01-05T10:00:02.000Z)');
	});

	it.each<[string, ApiRequest, Failure, number, number, number | undefined]>([
		['a 429 retried after its Retry-After: every request held as long', request('GET'), { status: 429, body: {}, retryAfter: '2' }, 1, 4, 2000],
		['a 429 with no Retry-After: held for the backoff before the retry', request('POST'), { status: 429, body: {} }, 1, 4, 375],
		['a 429 beyond Max Wait: the item stops, every request still held as asked', request('GET'), { status: 429, body: {}, retryAfter: '300' }, 1, 4, 300_000],
		['a 429 at Max Attempts 1: held as asked', request('GET'), { status: 429, body: {}, retryAfter: '2' }, 1, 1, 2000],
		['a 429 at Max Attempts 1 that asked no time: nothing held', request('GET'), { status: 429, body: {} }, 1, 1, undefined],
		['a 429 on the last attempt: held as asked', request('GET'), { status: 429, body: {}, retryAfter: '2' }, 4, 4, 2000],
		["the token request's 429: held for the wait before its retry", request('POST'), { token: { answer: { status: 429, retryAfter: '1' } } }, 1, 4, 1000],
		["a 503's Retry-After: only this request waits", request('GET'), { status: 503, body: {}, retryAfter: '2' }, 1, 4, undefined],
		['a reset: only this request waits', request('GET'), { network: 'ECONNRESET' }, 1, 4, undefined],
	])('%s', (_, r, failure, attempt, maxAttempts, held) => {
		const step = afterFailure(r, failure, { number: attempt, elapsedMs: 0, itemIndex: 2 }, { ...POLICY, maxAttempts }, NOW, JITTER);
		expect('holdsServiceMs' in step ? step.holdsServiceMs : undefined).toBe(held);
	});

	it('keeps what n8n shows beside the message: the status and body, or the network code', () => {
		expect(next(request('GET'), { status: 404, body: { message: 'x' } })).toMatchObject({ details: { status: 404, body: { message: 'x' } } });
		expect(next(request('POST'), RESET)).toMatchObject({ details: { networkCode: 'ECONNRESET' }, error: { description: 'ECONNRESET after 1 attempt' } });
	});

	it('lets an operation say what a refusal means for it', () => {
		const meant = request('GET', { statusMeanings: { 403: 'Not a member', 400: (text) => ({ message: `Refused: ${text.message}` }) } });
		expect(message(next(meant, { status: 403, body: { message: 'Forbidden' } }))).toBe('Not a member (the service said: Forbidden)');
		expect(message(next(meant, { status: 400, body: { message: 'Bad' } }))).toBe('Refused: The service rejected the request: Bad');
	});
});

describe('what a request may have done', () => {
	it.each<[ApiRequest['method'], string | undefined]>([
		['GET', undefined],
		['POST', 'created'],
		['PUT', 'updated'],
		['PATCH', 'updated'],
		['DELETE', 'deleted'],
	])('%s: %s', (method, effect) => {
		expect(effectOf({ method })).toBe(effect);
	});

	it('a declared effect wins over the method', () => {
		expect(effectOf({ method: 'POST', effect: 'delivered' })).toBe('delivered');
	});

	it.each<[string, Parameters<typeof consequenceOf>[0], string]>([
		['a read', { method: 'GET' }, 'it was a read, so nothing was changed'],
		['a create', { method: 'POST', subject: 'task' }, mayHaveBeenDone('task', 'created')],
		['a replace', { method: 'PUT', subject: 'file' }, 'the service reported success, so the change has probably been made; sending it again is safe'],
		['a delete', { method: 'DELETE', subject: 'file' }, 'the service reported success, so the change has probably been made; sending it again is safe'],
		['an update', { method: 'PATCH', subject: 'task' }, 'the service reported success, so the change has probably been made'],
	])('a 2xx that could not be read, for %s', (_, r, expected) => {
		expect(consequenceOf(r)).toBe(expected);
	});

	it('names the subject, or the request when there is none', () => {
		expect(mayHaveBeenDone('file', 'deleted')).toMatch(/^the file may have been deleted even so\. It was not retried automatically, to avoid doing it twice/);
		expect(mayHaveBeenDone(undefined, 'created')).toMatch(/^the request may have been carried out even so/);
	});
});
