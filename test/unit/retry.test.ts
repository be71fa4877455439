/**
 * The retry decision, row by row: every outcome the transport meets, for every
 * kind of request. Safe to repeat: GET, PUT, DELETE and the bot token request
 * (a POST that makes nothing). A POST that creates is repeated only when it
 * cannot have reached the service (429, connection refused).
 */
import {
	decideRetry,
	DEFAULT_RETRY_POLICY,
	TOKEN_REQUEST,
	type Outcome,
	type RetryDecision,
	type RetryRequest,
} from '../../shared/transport/retry';

const NOW = Date.parse('2026-01-05T10:00:00Z');
const POLICY = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, maxWaitMs: 60_000, baseDelayMs: 500, tokenMaxWaitMs: 30_000 };
// Fixed jitter: the first backoff step is 500 ms, jitter 0.5 gives 250 + 125.
const JITTER = () => 0.5;
const BACKOFF_1 = 375;

const REQUESTS: Record<string, RetryRequest> = {
	GET: { method: 'GET' },
	PUT: { method: 'PUT' },
	DELETE: { method: 'DELETE' },
	'POST (creates)': { method: 'POST' },
	'POST /oauth/token': TOKEN_REQUEST,
};

const retry = (ms: number): RetryDecision => ({ retryAfterMs: ms });
const stop = (reason: 'final' | 'mayHaveBeenApplied'): RetryDecision => ({ stop: reason });
const sameForAll = (decision: RetryDecision) => [decision, decision, decision, decision, decision];

const used = (waitMs?: number): RetryDecision => (waitMs === undefined ? { stop: 'attemptsUsed' } : { stop: 'attemptsUsed', waitMs });
const safeOnly = (first: RetryDecision): RetryDecision[] => [first, first, first, stop('mayHaveBeenApplied'), first];

/**
 * Outcome, then the decision for GET, PUT, DELETE, POST (creates), token request:
 * on the first of four attempts, and on the last (no attempts left).
 */
const TABLE: Array<[string, Outcome, RetryDecision[], RetryDecision[]]> = [
	['429, Retry-After 2 (seconds)', { status: 429, retryAfter: '2' }, sameForAll(retry(2000)), sameForAll(used(2000))],
	['429, Retry-After as an HTTP date 3 s ahead', { status: 429, retryAfter: new Date(NOW + 3000).toUTCString() }, sameForAll(retry(3000)), sameForAll(used(3000))],
	// The token serves the whole run: its own bound (30 s), not the item's Max Wait.
	['429, Retry-After 45 (past the token bound, within Max Wait)', { status: 429, retryAfter: '45' }, [retry(45_000), retry(45_000), retry(45_000), retry(45_000), { stop: 'waitTooLong', waitMs: 45_000 }], sameForAll(used(45_000))],
	['429, Retry-After 120 (longer than Max Wait)', { status: 429, retryAfter: '120' }, sameForAll({ stop: 'waitTooLong', waitMs: 120_000 }), sameForAll(used(120_000))],
	['429 without Retry-After', { status: 429 }, sameForAll(retry(BACKOFF_1)), sameForAll(used())],
	['500', { status: 500 }, [stop('final'), stop('final'), stop('final'), stop('mayHaveBeenApplied'), stop('final')], [stop('final'), stop('final'), stop('final'), stop('mayHaveBeenApplied'), stop('final')]],
	['502', { status: 502 }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	['503', { status: 503 }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	// The service says how long it expects to be unavailable: that, not the backoff, and the same bounds as a 429's.
	['503, Retry-After 2 (seconds)', { status: 503, retryAfter: '2' }, safeOnly(retry(2000)), safeOnly(used(2000))],
	['503, Retry-After 120 (longer than Max Wait)', { status: 503, retryAfter: '120' }, safeOnly({ stop: 'waitTooLong', waitMs: 120_000 }), safeOnly(used(120_000))],
	['502, Retry-After as an HTTP date 3 s ahead', { status: 502, retryAfter: new Date(NOW + 3000).toUTCString() }, safeOnly(retry(3000)), safeOnly(used(3000))],
	['503, Retry-After unreadable: the backoff', { status: 503, retryAfter: 'soon' }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	['500 with Retry-After 2: asking again gets the same answer', { status: 500, retryAfter: '2' }, [stop('final'), stop('final'), stop('final'), stop('mayHaveBeenApplied'), stop('final')], [stop('final'), stop('final'), stop('final'), stop('mayHaveBeenApplied'), stop('final')]],
	['404 with Retry-After 2', { status: 404, retryAfter: '2' }, sameForAll(stop('final')), sameForAll(stop('final'))],
	['504', { status: 504 }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	['400', { status: 400 }, sameForAll(stop('final')), sameForAll(stop('final'))],
	['401', { status: 401 }, sameForAll(stop('final')), sameForAll(stop('final'))],
	['connection refused before sending (ECONNREFUSED)', { network: 'ECONNREFUSED' }, sameForAll(retry(BACKOFF_1)), sameForAll(used())],
	['host not found before sending (ENOTFOUND)', { network: 'ENOTFOUND' }, sameForAll(retry(BACKOFF_1)), sameForAll(used())],
	['connection reset after sending (ECONNRESET)', { network: 'ECONNRESET' }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	['timeout (ETIMEDOUT)', { network: 'ETIMEDOUT' }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
	['timeout (ECONNABORTED)', { network: 'ECONNABORTED' }, safeOnly(retry(BACKOFF_1)), safeOnly(used())],
];

const rows = TABLE.flatMap(([label, outcome, first, last]) =>
	Object.entries(REQUESTS).map(([kind, request], n) => ({ label, kind, request, outcome, first: first[n], last: last[n] })),
);

describe('decideRetry', () => {
	it.each(rows)('$label, $kind', ({ request, outcome, first, last }) => {
		expect(decideRetry(request, outcome, 1, POLICY, NOW, JITTER)).toEqual(first);
		expect(decideRetry(request, outcome, POLICY.maxAttempts, POLICY, NOW, JITTER)).toEqual(last);
	});
});

describe('backoff', () => {
	it('doubles per attempt and is capped by Max Wait', () => {
		const read = (attempt: number, policy = POLICY) => decideRetry({ method: 'GET' }, { status: 503 }, attempt, { ...policy, maxAttempts: 10 }, NOW, () => 1);
		expect([1, 2, 3].map((n) => read(n))).toEqual([retry(500), retry(1000), retry(2000)]);
		expect(read(9, { ...POLICY, maxWaitMs: 3000 })).toEqual(retry(3000));
	});

	it("a backoff past the token request's bound is the node's own wait, not the service asking for longer", () => {
		expect(decideRetry(TOKEN_REQUEST, { status: 429 }, 7, { ...POLICY, maxAttempts: 10 }, NOW, () => 1)).toEqual(retry(32_000));
	});

	it('a Retry-After of 0 or in the past retries at once', () => {
		expect(decideRetry({ method: 'POST' }, { status: 429, retryAfter: '0' }, 1, POLICY, NOW, JITTER)).toEqual(retry(0));
		expect(decideRetry({ method: 'POST' }, { status: 429, retryAfter: new Date(NOW - 5000).toUTCString() }, 1, POLICY, NOW, JITTER)).toEqual(retry(0));
	});
});
