/**
 * How many requests a service is sent at once, and how fast, decided by pure
 * functions of what its answers said. The requests in flight are a congestion
 * window, as in TCP and in the adaptive limits of Netflix's concurrency-limits
 * (AIMD, Vegas, Gradient2) and Envoy's adaptive concurrency filter:
 *
 *   - it starts small and grows while answers come back healthy: by half a
 *     request per answer at first (half as much again every round trip), by one
 *     per round trip once the service has shown a sign of too much;
 *   - it grows only while it is used (half of it in flight at least), so a run
 *     that sends one request at a time never teaches it a number it never tried;
 *   - a refusal (429) cuts it, once per round trip: answers to requests sent
 *     before the cut say nothing new. A refusal at more requests in flight than
 *     the service ever answered is a limit on requests at once: the limit stays
 *     below that level for a while (a ceiling). A refusal at a level the service
 *     answered before is a limit on requests per second: sends are spaced so
 *     that they stay under the rate the service took in its last second;
 *   - a round trip well above the lowest one seen (the service's time when idle,
 *     re-measured every minute) means requests wait in a queue: the limit is cut
 *     by a fifth;
 *   - an overloaded service (503) cuts it too, and teaches nothing more;
 *   - a pause (Retry-After) holds back every send to the service until it ends.
 *
 * Time is passed in (`now`, an answer's times), so the same inputs always give
 * the same decision.
 */

export interface LimitSettings {
	/** The limit a service starts from. */
	initial: number;
	/** The most requests in flight the limit ever allows. */
	max: number;
	/** Growth per healthy answer until the first sign of too much (1 would double the limit every round trip). */
	startGrowth: number;
	/** A smoothed round trip above this many times the lowest one is a queue building up. */
	latencyTolerance: number;
	/** What a cut for latency or for a rate keeps of the limit. */
	cut: number;
	/** How long the lowest round trip stands before it is measured afresh (the service may have become slower). */
	minRttWindowMs: number;
	/** How long a ceiling or a spacing learned from a refusal holds before the limit may grow past it again. */
	learnedForMs: number;
	/** The share of the refused rate that spacing allows. */
	rateMargin: number;
}

export const LIMIT_SETTINGS: LimitSettings = {
	initial: 8,
	max: 100,
	startGrowth: 0.5,
	latencyTolerance: 2.5,
	cut: 0.8,
	minRttWindowMs: 60_000,
	learnedForMs: 60_000,
	rateMargin: 0.9,
};

/** The rate a refusal came at is counted over the last second, in tenths. */
const RATE_BUCKET_MS = 100;
const RATE_BUCKETS = 10;
/** Weight of the newest round trip in the smoothed one. */
const RTT_WEIGHT = 0.2;

export interface ServiceLimit {
	/** Requests allowed in flight (≥ 1); fractional while it grows by less than one per answer. */
	limit: number;
	/** `start` grows the limit by startGrowth per answer; `steady` (after the first sign of too much) by one per round trip. */
	phase: 'start' | 'steady';
	/** The lowest round trip of the current window, and when that window began. */
	minRttMs?: number;
	minRttSince: number;
	/** Round trips, smoothed. */
	rttMs?: number;
	/** When the limit was last cut; answers to requests sent before it do not cut again. */
	cutAt: number;
	/** Most requests in flight at which a request was answered healthy (lowered to a ceiling when one is learned). */
	mostAnswered: number;
	/** A level the service refused requests at: the limit stays at or below `level` until `until`. */
	ceiling?: { level: number; until: number };
	/** Sends spaced `intervalMs` apart until `until`, after a refusal that was about the rate. */
	spacing?: { intervalMs: number; until: number };
	/** Healthy answers of the last second, by when their request was sent: `counts[k]` for the tenth of a second from `start + k × 100 ms`. */
	answered: { start: number; counts: number[] };
	/** No request is sent before then (a Retry-After). */
	pausedUntil: number;
}

/** How a request ended, as far as the limit is concerned. */
export type Signal =
	/** Answered (2xx, 3xx or 4xx other than 429): a round trip of the service. */
	| 'answered'
	/** Refused as too much (429): a limit on requests at once or per second. */
	| 'refused'
	/** Overloaded (503): fewer at once, nothing learned of a limit. */
	| 'overloaded'
	/** Nothing to learn: a network failure, another 5xx. */
	| 'none';

export interface Answer {
	sentAt: number;
	answeredAt: number;
	/** Requests to the service in flight when it was sent, itself included. */
	inFlight: number;
	/** Requests in flight when its answer came, itself included. */
	inFlightAtAnswer: number;
	signal: Signal;
}

/** The signal of an HTTP status, or of a failure without one. */
export function signalOf(status: number | undefined): Signal {
	if (status === undefined) return 'none';
	if (status === 429) return 'refused';
	if (status === 503) return 'overloaded';
	return status < 500 ? 'answered' : 'none';
}

export function startingLimit(now: number, settings: LimitSettings = LIMIT_SETTINGS): ServiceLimit {
	return {
		limit: settings.initial,
		phase: 'start',
		minRttSince: now,
		cutAt: now,
		mostAnswered: 0,
		answered: { start: now - (now % RATE_BUCKET_MS) - (RATE_BUCKETS - 1) * RATE_BUCKET_MS, counts: new Array<number>(RATE_BUCKETS).fill(0) },
		pausedUntil: 0,
	};
}

/** The counts moved on so that the last bucket holds `at`; the ones that fell out of the second are dropped. */
function movedTo(sent: ServiceLimit['answered'], at: number): ServiceLimit['answered'] {
	const lastStart = at - (at % RATE_BUCKET_MS);
	const shift = Math.floor((lastStart - (sent.start + (RATE_BUCKETS - 1) * RATE_BUCKET_MS)) / RATE_BUCKET_MS);
	if (shift <= 0) return sent;
	const counts = shift >= RATE_BUCKETS ? new Array<number>(RATE_BUCKETS).fill(0) : [...sent.counts.slice(shift), ...new Array<number>(shift).fill(0)];
	return { start: sent.start + shift * RATE_BUCKET_MS, counts };
}

/** `sent` with one more healthy answer to a request sent at `sentAt` (older than the second it holds: not counted). */
function counted(sent: ServiceLimit['answered'], sentAt: number): ServiceLimit['answered'] {
	const moved = movedTo(sent, sentAt);
	const k = Math.floor((sentAt - moved.start) / RATE_BUCKET_MS);
	if (k < 0 || k >= RATE_BUCKETS) return moved;
	const counts = [...moved.counts];
	counts[k] += 1;
	return { ...moved, counts };
}

/** Requests sent in the second before `now` that were answered healthy. */
export function answeredInLastSecond(limit: ServiceLimit, now: number): number {
	return movedTo(limit.answered, now).counts.reduce((sum, n) => sum + n, 0);
}

/** The ceiling and spacing that still hold at `now`. */
function learned(limit: ServiceLimit, now: number): Pick<ServiceLimit, 'ceiling' | 'spacing'> {
	return {
		ceiling: limit.ceiling && limit.ceiling.until > now ? limit.ceiling : undefined,
		spacing: limit.spacing && limit.spacing.until > now ? limit.spacing : undefined,
	};
}

/** The limit after one answer: grown, cut, or as it was. */
export function afterAnswer(limit: ServiceLimit, answer: Answer, settings: LimitSettings = LIMIT_SETTINGS): ServiceLimit {
	const now = answer.answeredAt;
	const { ceiling, spacing } = learned(limit, now);
	const current: ServiceLimit = { ...limit, ceiling, spacing };
	if (answer.signal === 'none') return current;
	const newSinceCut = answer.sentAt >= limit.cutAt;
	if (answer.signal === 'refused') return afterRefusal(current, answer, newSinceCut, settings);
	if (answer.signal === 'overloaded') return newSinceCut ? { ...current, limit: Math.max(1, limit.limit * settings.cut), phase: 'steady', cutAt: now } : current;

	const rtt = Math.max(0, answer.answeredAt - answer.sentAt);
	const freshWindow = limit.minRttMs === undefined || now - limit.minRttSince > settings.minRttWindowMs;
	const minRttMs = freshWindow ? rtt : Math.min(limit.minRttMs!, rtt);
	const rttMs = limit.rttMs === undefined ? rtt : limit.rttMs * (1 - RTT_WEIGHT) + rtt * RTT_WEIGHT;
	const next: ServiceLimit = {
		...current,
		minRttMs,
		minRttSince: freshWindow ? now : limit.minRttSince,
		rttMs,
		mostAnswered: Math.max(limit.mostAnswered, answer.inFlight),
		answered: counted(limit.answered, answer.sentAt),
	};
	// A queue at the service: cut, once per round trip, and no growth while it lasts.
	if (rttMs > minRttMs * settings.latencyTolerance) {
		return newSinceCut ? { ...next, limit: Math.max(1, limit.limit * settings.cut), phase: 'steady', cutAt: now } : next;
	}
	// Grown only while used: an answer that came back with less than half the limit in flight proves nothing of it.
	if (Math.max(answer.inFlight, answer.inFlightAtAnswer) * 2 < limit.limit) return next;
	const step = limit.phase === 'start' ? settings.startGrowth : 1 / limit.limit;
	const top = Math.min(settings.max, ceiling?.level ?? settings.max);
	return { ...next, limit: Math.max(Math.min(limit.limit, top), Math.min(limit.limit + step, top)) };
}

function afterRefusal(limit: ServiceLimit, answer: Answer, newSinceCut: boolean, settings: LimitSettings): ServiceLimit {
	const now = answer.answeredAt;
	const cut = newSinceCut ? { phase: 'steady' as const, cutAt: now } : {};
	// More at once than the service ever answered: a limit on requests at once. The limit stays below that level.
	if (answer.inFlight > limit.mostAnswered) {
		const level = Math.max(1, Math.min(answer.inFlight - 1, limit.ceiling?.level ?? Infinity));
		const ceiling = { level, until: now + settings.learnedForMs };
		return { ...limit, ...cut, ceiling, limit: Math.max(1, Math.min(limit.limit, level)), mostAnswered: Math.min(limit.mostAnswered, level) };
	}
	// Refused at a level it answered before: a limit on requests per second. The rate it took in its last
	// second is what it answered of the requests sent then, and what is still in flight now (refusals come
	// back first, so the last refusal of a burst sees only accepted requests in flight): sends are spaced
	// under it, and every refusal of the burst may lower it.
	const took = answeredInLastSecond(limit, now) + answer.inFlightAtAnswer - 1;
	const interval = took > 0 ? 1000 / (took * settings.rateMargin) : 0;
	const spacing = { intervalMs: Math.max(interval, limit.spacing?.intervalMs ?? 0), until: now + settings.learnedForMs };
	return { ...limit, ...cut, spacing, limit: newSinceCut ? Math.max(1, limit.limit * settings.cut) : limit.limit };
}

/** The limit with every send held back until `until` (a Retry-After), unless held back longer already. */
export function pausedUntil(limit: ServiceLimit, until: number): ServiceLimit {
	return until > limit.pausedUntil ? { ...limit, pausedUntil: until } : limit;
}

/** Whether one more item may start, with `admitted` already started: fewer than the limit, counted whole. */
export function admits(limit: ServiceLimit, admitted: number): boolean {
	return admitted < Math.max(1, Math.floor(limit.limit));
}

/** The earliest time the next request may be sent: after a pause, and, when `spaced`, after the previous send by the learned spacing. */
export function nextSendAt(limit: ServiceLimit, previousSendAt: number, now: number, spaced = true): number {
	const spacing = spaced ? learned(limit, now).spacing : undefined;
	return Math.max(now, limit.pausedUntil, spacing ? previousSendAt + spacing.intervalMs : 0);
}
