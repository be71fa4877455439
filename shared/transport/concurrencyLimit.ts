/**
 * How many requests a service is sent at once, and how fast, decided by pure
 * functions of what its answers said. The requests in flight are a congestion
 * window, as in TCP and in the adaptive limits of Netflix's concurrency-limits
 * (AIMD, Vegas, Gradient2) and Envoy's adaptive concurrency filter.
 *
 * Growth (afterAnswer):
 *   - the limit starts small and grows by half a request per healthy answer
 *     (half as much again every round trip) until the first sign of too much,
 *     then by one per round trip;
 *   - it grows only while used (half of it in flight at least), so a run that
 *     sends one request at a time never teaches it a number it never tried.
 *
 * What a refusal (429) teaches (afterRefusal), read from the requests out when
 * the refused one was sent, against the most a whole round of answers had in
 * flight unrefused (provenLimit: what was in flight, not the limit, which may
 * have grown to twice that):
 *   - refused above that: a limit on requests at once. The limit stays at as
 *     many as the service still held (a ceiling) for a while, lowered by every
 *     such refusal;
 *   - refused at a limit no higher than that (or while a spacing whose time is
 *     over tries a higher rate), for a request sent with no more out, when the
 *     service had taken at least half the most it took in a second of the last
 *     minute: a limit on requests per second. The limit is cut by a fifth and
 *     sends are spaced, each on its turn of a schedule (nextSendAt), under the
 *     rate the service took in its last second. So too a refusal in a later
 *     burst, within a minute, at the same rate as one that taught nothing
 *     (below): a client short of CPU keeps fewer in flight than its limit,
 *     which grows ahead of them;
 *   - refused with fewer than half as many others out as a round went through,
 *     and not about a rate: no limit the client can see (the service's own
 *     load, another client using the same allowance). The limit is cut by a
 *     fifth and what the round proved counts for half; no ceiling.
 *
 * What else cuts it (afterAnswer), each at most once per round trip: answers
 * to requests sent before a cut say nothing new:
 *   - a queue at the service: even the fastest answer of a round (as many
 *     answers as the limit) took well above the lowest round trip seen (the
 *     service's time when idle, measured afresh every minute of use), with
 *     more than a few requests' worth of it (Vegas's estimate of the queue):
 *     cut by a fifth. A stall of the client's own slows only some answers of
 *     a round, and a client late to read all of them (short of CPU) is no
 *     queue: a round trip counts less each of the client's own stalls
 *     meanwhile, beyond the lowest round trip (Answer.clientStallsMs), here and
 *     in the pace below. A queue shortens with the requests in flight: when
 *     the round after such a cut, with fewer in flight, is about as slow, the service
 *     itself became slower, and its lowest round trip is measured afresh;
 *   - a service past its best: more requests in flight answering clearly fewer
 *     per second than fewer did (the pace by Little's law, in flight ÷ round
 *     trip, kept per level of requests in flight). The limit goes back to one
 *     level below the best. A client waiting on its own CPU answers about as
 *     many per second however many it sends, so its slower answers do not
 *     cut; during the start, when each level holds only the few answers of a
 *     pipeline still filling, only a steep fall does;
 *   - an overloaded service (503): cut by a fifth, nothing more learned.
 *
 * Over time:
 *   - a pause (Retry-After) holds back every send to the service until it ends;
 *   - a ceiling or spacing ages only while the service is used (so does the
 *     lowest round trip), and lapses gently: past a ceiling the limit grows
 *     by one per round trip, and a spacing's rate doubles every second
 *     (spacedAt); a limit cut below the starting one (by load, a 503 or a
 *     rate's refusal) rises back to it, under a ceiling still in force, after
 *     a minute unused (afterIdle);
 *   - in a first run, while the limit is unknown (the start, and a while after
 *     any refusal), turns freed together go out one at a time, so that a
 *     refusal is read before more requests follow it (turnsOneAtATime).
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
	/** When even the fastest answer of a round took this many times the lowest round trip, a queue is building up... */
	latencyTolerance: number;
	/** ...if it holds at least this many requests (the limit × (1 − lowest / that round trip), as Vegas estimates a queue). */
	queuedAtLeast: number;
	/** What a cut for latency or for a rate keeps of the limit. */
	cut: number;
	/**
	 * The round after a cut for a queue, sent with the cut's share of the requests in flight or fewer, whose
	 * fastest answer took more than this share of the one that made the cut: no queue was cut, the service
	 * itself is slower.
	 */
	queueShortens: number;
	/** How long the lowest round trip stands, while the service is used, before it is measured afresh (the service may have become slower). */
	minRttWindowMs: number;
	/** How long a ceiling or a spacing learned from a refusal holds, while the service is used, before the limit may grow past it again. */
	learnedForMs: number;
	/** Once a spacing's time is over, the rate it allows doubles every this long while the service is used... */
	spacingDoublesEveryMs: number;
	/** ...and it is dropped once it has doubled this many times. */
	spacingDoublings: number;
	/** The share of the refused rate that spacing allows. */
	rateMargin: number;
	/** A refusal that came when the service had taken less than this share of the most it took in a second of the last minute is not about a rate. */
	rateAtLeast: number;
	/** Two refusals when the service had taken in its last second numbers within this share of each other came at the same rate. */
	sameRate: number;
	/**
	 * A refusal not about a rate, of a request sent with fewer others in flight than this share of the most a
	 * round had in flight unrefused, is about no limit the client can see; what that round proved then counts
	 * for this share of it.
	 */
	unexplainedBelow: number;
	/** Requests in flight this many times those of the level that answered most per second... */
	moreInFlight: number;
	/** ...answering less than this share of its pace send the limit back below that level. */
	fewerPerSecond: number;
	/** The same two during the start: only a steep fall counts while each level holds a few answers of a pipeline still filling. */
	startMoreInFlight: number;
	startFewerPerSecond: number;
	/** How many answers a level of the pace table remembers, about: each new one weighs 1 / paceMemory of its sums. */
	paceMemory: number;
	/** A level's pace counts once it holds this many answers' weight. */
	paceAnswers: number;
}

export const LIMIT_SETTINGS: LimitSettings = {
	initial: 8,
	max: 100,
	startGrowth: 0.5,
	latencyTolerance: 4,
	queuedAtLeast: 4,
	cut: 0.8,
	queueShortens: 0.9,
	minRttWindowMs: 60_000,
	learnedForMs: 60_000,
	spacingDoublesEveryMs: 1000,
	spacingDoublings: 10,
	rateMargin: 0.95,
	rateAtLeast: 0.5,
	sameRate: 0.8,
	unexplainedBelow: 0.5,
	moreInFlight: 1.15,
	fewerPerSecond: 0.9,
	startMoreInFlight: 1.25,
	startFewerPerSecond: 0.8,
	paceMemory: 32,
	paceAnswers: 4,
};

/** The rate a refusal came at is counted over the last second, in tenths: the ten it ends in, and the tenth it begins in. */
const RATE_BUCKET_MS = 100;
const RATE_BUCKETS = 11;

export interface ServiceLimit {
	/** Requests allowed in flight (≥ 1); fractional while it grows by less than one per answer. */
	limit: number;
	/** `start` grows the limit by startGrowth per answer; `steady` (after the first sign of too much) by one per round trip. */
	phase: 'start' | 'steady';
	/** The lowest round trip of the current window, and when that window began. */
	minRttMs?: number;
	minRttSince: number;
	/** The round of answers under way (as many as the limit: about one round trip's worth): its fastest answer, how many it holds, the most requests in flight when one of them was sent, whether a request was refused during it. */
	round: { fastestMs?: number; answers: number; mostInFlight?: number; refused?: boolean };
	/**
	 * The healthy answers of the last minute by the requests in flight when they were sent, in levels a
	 * tenth apart (`paces[k]` for about 1.1^k in flight), the latest weighing most: the pace of each level.
	 */
	paces: Array<Pace | undefined>;
	/**
	 * The most requests a round without a refusal had in flight at once (never more than its limit), and
	 * below a ceiling until a round goes through at it: a refusal of a request sent with no more in flight,
	 * at a limit at or below it, is not about requests at once. What was in flight, not the limit: a limit
	 * grows to twice what is in use, and a refusal at the first request past what the service ever held is
	 * about requests at once, however high the limit had grown.
	 */
	provenLimit: number;
	/** When the limit was last cut; answers to requests sent before it do not cut again. */
	cutAt: number;
	/**
	 * The last cut, when it was for a queue, until the round after it is done: the fastest answer of the round
	 * that made it, and the requests that round held in flight. Any other cut forgets it.
	 */
	queueCut?: { fastestMs: number; held: number };
	/** A level the service refused requests at: the limit stays at or below `level` until `until`. */
	ceiling?: { level: number; until: number };
	/** Sends spaced `intervalMs` apart until `until`, after a refusal that was about the rate. */
	spacing?: { intervalMs: number; until: number };
	/**
	 * Healthy answers of the last second, by when their request was sent: `counts[k]` for the tenth of a second
	 * from `start + k × 100 ms`, and `spans[k]` the first and last of those sends (none known: spread evenly).
	 */
	answered: { start: number; counts: number[]; spans?: Array<[number, number] | undefined> };
	/** The most healthy answers of the last second seen at an answer, and when; it stands for a minute (minRttWindowMs). */
	mostPerSecond?: { answers: number; at: number };
	/** No request is sent before then (a Retry-After). */
	pausedUntil: number;
	/** When the service last refused a request (429), whatever the refusal taught. */
	refusedAt?: number;
	/**
	 * The last refusal that taught no limit (with far fewer others out than a round went through): when, and
	 * what the service took in its last second then; and the one before it, which the rest of its burst is
	 * compared with.
	 */
	unexplained?: { took: number; at: number; before?: { took: number; at: number } };
}

/** Answers at one level of requests in flight: their weight, the requests in flight and round trips they summed, and when the last came. */
export interface Pace {
	answers: number;
	inFlightSum: number;
	rttSumMs: number;
	at: number;
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
	/** Each stretch longer than the lowest round trip that the client itself could read nothing while the request was out (clientLateness.ts): up to that much of the round trip, for each, may not have been the service's. */
	clientStallsMs?: readonly number[];
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
		round: { answers: 0 },
		provenLimit: 0,
		cutAt: now,
		paces: [],
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
	const spans = shift >= RATE_BUCKETS ? [] : (sent.spans ?? []).slice(shift);
	return { start: sent.start + shift * RATE_BUCKET_MS, counts, spans };
}

/** `sent` with one more healthy answer to a request sent at `sentAt` (older than the second it holds: not counted). */
function counted(sent: ServiceLimit['answered'], sentAt: number): ServiceLimit['answered'] {
	const moved = movedTo(sent, sentAt);
	const k = Math.floor((sentAt - moved.start) / RATE_BUCKET_MS);
	if (k < 0 || k >= RATE_BUCKETS) return moved;
	const counts = [...moved.counts];
	counts[k] += 1;
	const spans = [...(moved.spans ?? [])];
	const span = spans[k];
	spans[k] = span ? [Math.min(span[0], sentAt), Math.max(span[1], sentAt)] : [sentAt, sentAt];
	return { ...moved, counts, spans };
}

/** Requests sent in the second before `now` that were answered healthy. */
export function answeredInLastSecond(limit: ServiceLimit, now: number): number {
	return inLastSecond(limit.answered, now);
}

/**
 * The answers counted in the second before `now`: the ten tenths it ends in, and of the tenth it begins in the
 * share within it, its answers taken as spread evenly between the first and last of their sends (all or none of
 * them when sent at one moment, as a burst of items started together is). Counted in the ten tenths alone, the
 * second would be 900–1,000 ms long, and sends spaced evenly under it would be spaced up to a tenth below the
 * service's rate; counted as spread over the whole tenth, a burst at its start, already out of the second, would
 * count in part, and sends spaced under it would go faster than the service takes them.
 */
function inLastSecond(answered: ServiceLimit['answered'], now: number): number {
	const moved = movedTo(answered, now);
	const [first, ...rest] = moved.counts;
	const secondFrom = now - 1000;
	const span = moved.spans?.[0] ?? [moved.start, moved.start + RATE_BUCKET_MS];
	const share = span[1] === span[0] ? Number(span[0] > secondFrom) : Math.min(1, Math.max(0, (span[1] - secondFrom) / (span[1] - span[0])));
	return first * share + rest.reduce((sum, n) => sum + n, 0);
}

/** The most answers in a second that still stands at `now` (for a minute after it was seen). */
function standingMost(most: ServiceLimit['mostPerSecond'], now: number, settings: LimitSettings): ServiceLimit['mostPerSecond'] {
	return most && now - most.at <= settings.minRttWindowMs ? most : undefined;
}

/** The most with the healthy answers of the last second at `now` counted, when they are as many as the most still standing. */
function mostPerSecondWith(most: ServiceLimit['mostPerSecond'], answered: ServiceLimit['answered'], now: number, settings: LimitSettings): ServiceLimit['mostPerSecond'] {
	const answers = inLastSecond(answered, now);
	const standing = standingMost(most, now, settings);
	return standing && answers < standing.answers ? standing : { answers, at: now };
}

/** The ceiling and spacing that still hold at `now` (a spacing as learned: spacedAt gives its interval then). */
function learned(limit: ServiceLimit, now: number, settings: LimitSettings): Pick<ServiceLimit, 'ceiling' | 'spacing'> {
	return {
		ceiling: limit.ceiling && limit.ceiling.until > now ? limit.ceiling : undefined,
		spacing: spacedAt(limit.spacing, now, settings) !== undefined ? limit.spacing : undefined,
	};
}

/**
 * How far apart sends go at `now` under a spacing: its interval until its time is over, then one that
 * halves every spacingDoublesEveryMs, and none once it has halved spacingDoublings times. Dropped at
 * once, the spacing would leave the limit, unused while sends were spaced, to send a burst at a service
 * whose rate may not have changed, and every request of it past that rate would be refused; a rate
 * that grows by a little at a time is refused once or twice, and the refusal teaches the rate again.
 */
export function spacedAt(spacing: ServiceLimit['spacing'], now: number, settings: LimitSettings = LIMIT_SETTINGS): number | undefined {
	if (!spacing) return undefined;
	if (spacing.until > now) return spacing.intervalMs;
	const doublings = (now - spacing.until) / settings.spacingDoublesEveryMs;
	return doublings < settings.spacingDoublings ? spacing.intervalMs / 2 ** doublings : undefined;
}

/**
 * The limit when the service is used again after sending nothing since `idleSince`: a ceiling or a spacing
 * still in force then holds for as much longer as the service went unused. What was learned is tried
 * again after a minute of sending; a spell without requests taught nothing new, and a schedule's next
 * run would otherwise meet the limit it learned with a refusal and its Retry-After. A pause the service
 * asked for ends when it said.
 *
 * So too the lowest round trip: it is measured afresh after a minute of use, not of time. Measured afresh
 * at the next run's first answer, it would be the first answer of a burst, which a busy client reads late
 * (246 ms in a real n8n where the run before had seen 65, the service taking 20): every later answer would
 * then be discounted too little for the client's lateness, and a level read as slower than it was. A
 * service that became slower while unused is taken for a queue at first; the round after the one cut
 * that brings tells it apart (afterAnswer).
 *
 * A limit cut below the starting one (by a slow or overloaded service, 503s, a queue, or a refusal about a
 * rate, whose spacing still holds) is raised back to it, under any ceiling still in force, after as long
 * unused as a lowest round trip is kept (a minute): those cuts were about the service's load then, and a
 * schedule's run after an outage would otherwise start one request at a time and grow by one per round trip.
 */
export function afterIdle(limit: ServiceLimit, idleSince: number, now: number, settings: LimitSettings = LIMIT_SETTINGS): ServiceLimit {
	const idleMs = now - idleSince;
	if (idleMs <= 0) return limit;
	const { ceiling, spacing } = learned(limit, idleSince, settings);
	const rested = idleMs >= settings.minRttWindowMs ? Math.min(settings.initial, ceiling?.level ?? settings.initial) : 0;
	return {
		...limit,
		limit: Math.max(limit.limit, rested),
		minRttSince: limit.minRttSince + idleMs,
		ceiling: ceiling && { ...ceiling, until: ceiling.until + idleMs },
		spacing: spacing && { ...spacing, until: spacing.until + idleMs },
	};
}

/** How much of a round trip was the client's own: what of each of its stalls lasted past the lowest round trip. */
function clientDelayMs(stallsMs: readonly number[] = [], minRttMs: number): number {
	let delayMs = 0;
	for (const stallMs of stallsMs) delayMs += Math.max(0, stallMs - minRttMs);
	return delayMs;
}

/** The limit after one answer: grown, cut, or as it was. */
export function afterAnswer(limit: ServiceLimit, answer: Answer, settings: LimitSettings = LIMIT_SETTINGS): ServiceLimit {
	const now = answer.answeredAt;
	const { ceiling, spacing } = learned(limit, now, settings);
	const current: ServiceLimit = { ...limit, ceiling, spacing };
	if (answer.signal === 'none') return current;
	const newSinceCut = answer.sentAt >= limit.cutAt;
	if (answer.signal === 'refused') return afterRefusal(current, answer, newSinceCut, settings);
	if (answer.signal === 'overloaded') return newSinceCut ? { ...current, ...cutLimit(limit, now, settings) } : current;

	const rtt = Math.max(0, answer.answeredAt - answer.sentAt);
	const freshWindow = limit.minRttMs === undefined || now - limit.minRttSince > settings.minRttWindowMs;
	const minRttMs = freshWindow ? rtt : Math.min(limit.minRttMs!, rtt);
	// What the service took: the round trip less the client's own stalls meanwhile, never below the lowest
	// round trip. A stall may have begun as the request went out, while the service was still at work, so only
	// what of each lasted past the lowest round trip is left out (the short stalls of reading a round's
	// answers, which grow with the requests in flight, not at all). Each stall counts: one may have held up
	// the request's sending and another its answer. The lowest round trip itself is measured whole: it comes
	// when the client is least late (over a minute of use; afterIdle).
	const serviceMs = Math.max(minRttMs, rtt - clientDelayMs(answer.clientStallsMs, minRttMs));
	const fastestMs = Math.min(limit.round.fastestMs ?? serviceMs, serviceMs);
	// A round is as many answers as the limit allows at once: about one round trip's worth.
	const roundDone = limit.round.answers + 1 >= Math.max(1, Math.floor(limit.limit));
	const mostInFlight = Math.max(limit.round.mostInFlight ?? 0, answer.inFlight);
	const held = Math.min(Math.floor(limit.limit), mostInFlight);
	const paces = withAnswer(limit.paces, answer.inFlight, serviceMs, now, now - settings.minRttWindowMs, settings.paceMemory);
	const answered = counted(limit.answered, answer.sentAt);
	const next: ServiceLimit = {
		...current,
		minRttMs,
		minRttSince: freshWindow ? now : limit.minRttSince,
		round: roundDone ? { answers: 0 } : { ...limit.round, fastestMs, mostInFlight, answers: limit.round.answers + 1 },
		provenLimit: roundDone && !limit.round.refused ? Math.max(limit.provenLimit, held) : limit.provenLimit,
		answered,
		mostPerSecond: mostPerSecondWith(limit.mostPerSecond, answered, now, settings),
		paces,
		// The round after a cut for a queue tells whether it was one (below), once.
		queueCut: roundDone && newSinceCut ? undefined : limit.queueCut,
	};
	// More in flight answering fewer per second: the service slows with its load past its best. Back to
	// one level below the best (the level below is measured too, so the best can move down), once a round.
	const best = roundDone && newSinceCut ? pastItsBest(paces, answer.inFlight, limit.phase, settings) : undefined;
	if (best) return { ...next, limit: Math.max(1, Math.min(limit.limit, inFlightOf(best) / LEVEL_STEP)), phase: 'steady', cutAt: now };
	// A queue at the service slows every answer of a round, where a pause of the client's own (its CPU,
	// a garbage collection) slows only those it came back during; and a few requests' worth of waiting is
	// noise, not a queue. While even the fastest answer of the round so far is that slow, no growth;
	// once the whole round was, a cut (once per round trip).
	if (fastestMs > minRttMs * settings.latencyTolerance && limit.limit * (1 - minRttMs / fastestMs) >= settings.queuedAtLeast) {
		if (!roundDone || !newSinceCut) return next;
		// A queue shortens with the requests in flight: a cut for one, after which fewer in flight were answered
		// about as slowly, cut none. The service itself is slower than when its lowest round trip was measured
		// (after a spell unused, or since, during use): that is measured afresh from this round, which would
		// otherwise cut the limit by a fifth every round trip until it is, after a minute of use.
		const last = limit.queueCut;
		if (last && answer.inFlight <= Math.floor(last.held * settings.cut) && fastestMs > last.fastestMs * settings.queueShortens) {
			return { ...next, minRttMs: fastestMs, minRttSince: now };
		}
		return { ...next, ...cutLimit(limit, now, settings), queueCut: { fastestMs, held } };
	}
	// Grown only while used: an answer that came back with less than half the limit in flight proves nothing of it.
	if (Math.max(answer.inFlight, answer.inFlightAtAnswer) * 2 < limit.limit) return next;
	const step = limit.phase === 'start' ? settings.startGrowth : 1 / limit.limit;
	const top = Math.min(settings.max, ceiling?.level ?? settings.max);
	return { ...next, limit: Math.max(Math.min(limit.limit, top), Math.min(limit.limit + step, top)) };
}

/** Levels of the pace table are a tenth apart. */
const LEVEL_STEP = 1.1;

/** The level of the pace table a number of requests in flight falls in. */
export function levelOf(inFlight: number): number {
	return Math.max(0, Math.round(Math.log(inFlight) / Math.log(LEVEL_STEP)));
}

/** A level's mean requests in flight, and its answers per second by Little's law (in flight ÷ round trip). */
const inFlightOf = (p: Pace): number => p.inFlightSum / p.answers;
const perSecondOf = (p: Pace): number => (1000 * p.inFlightSum) / Math.max(1, p.rttSumMs);

/** The table with a healthy answer (sent with `inFlight` in flight, answered `at` after `rttMs`) added to its level, the older ones there weighing less, and the levels older than `since` dropped. */
function withAnswer(paces: Array<Pace | undefined>, inFlight: number, rttMs: number, at: number, since: number, memory: number): Array<Pace | undefined> {
	const next = paces.map((p) => (p && p.at >= since ? p : undefined));
	const k = levelOf(inFlight);
	const kept = 1 - 1 / memory;
	const before = next[k] ?? { answers: 0, inFlightSum: 0, rttSumMs: 0, at: 0 };
	next[k] = { answers: before.answers * kept + 1, inFlightSum: before.inFlightSum * kept + inFlight, rttSumMs: before.rttSumMs * kept + rttMs, at };
	return next;
}

/** The best level, when the level of `inFlight` has clearly more in flight than it and answers clearly fewer per second. */
function pastItsBest(paces: Array<Pace | undefined>, inFlight: number, phase: ServiceLimit['phase'], settings: LimitSettings): Pace | undefined {
	const best = bestOf(paces, settings.paceAnswers);
	const level = paces[levelOf(inFlight)];
	if (!best || !level || level.answers < settings.paceAnswers) return undefined;
	const [more, fewer] = phase === 'start' ? [settings.startMoreInFlight, settings.startFewerPerSecond] : [settings.moreInFlight, settings.fewerPerSecond];
	return inFlightOf(level) >= inFlightOf(best) * more && perSecondOf(level) < perSecondOf(best) * fewer ? best : undefined;
}

/** The level that answered most per second, of those holding enough answers (the fewest in flight of equals). */
function bestOf(paces: Array<Pace | undefined>, least: number): Pace | undefined {
	let best: Pace | undefined;
	for (const p of paces) if (p && p.answers >= least && (!best || perSecondOf(p) > perSecondOf(best))) best = p;
	return best;
}

function afterRefusal(limit: ServiceLimit, answer: Answer, newSinceCut: boolean, settings: LimitSettings): ServiceLimit {
	const now = answer.answeredAt;
	// Once per round trip: answers to requests sent before the last cut say nothing new.
	const cut = newSinceCut ? cutLimit(limit, now, settings) : {};
	// What every refusal changes, whatever it teaches besides.
	const refused: ServiceLimit = { ...limit, ...cut, round: { ...limit.round, refused: true }, refusedAt: now };
	// Refused at a limit a whole round already had in flight unrefused, for a request sent with no more in
	// flight than that: a limit on requests per second. A request sent with more in flight was sent before a
	// cut to the limit was read (a client slow to read its answers counts them in flight meanwhile): its
	// refusal is about requests at once, as the cut's was. The rate the service took in its last second is
	// what it answered of the requests sent then and what it still holds (refusals come back first, so the
	// last refusal of a burst sees only requests it took); sends are spaced under it, every refusal of the
	// burst may slow them more, and a ceiling learned before (a wave of refusals looks like one at first)
	// gives way to the spacing. A service that took twice that in a second of the last minute unrefused has
	// no such limit: the requests it held at once were more than the client counted in flight (answers on
	// their way back are counted, and a burst after a pause has none), so the refusal is about requests at once.
	// So is a refusal in a later burst at the same rate as one that taught nothing (below) within the last
	// minute: a client short of CPU keeps fewer in flight than its limit, which grows ahead of them, so a
	// limit per second refuses it with far fewer out than a round had unrefused, never at a level a round
	// proved. One such refusal alone may have been the service's load or another client's use of the allowance.
	const took = answeredInLastSecond(limit, now) + Math.max(0, answer.inFlightAtAnswer - 1);
	const most = standingMost(limit.mostPerSecond, now, settings);
	const tookLess = most !== undefined && took < most.answers * settings.rateAtLeast;
	// A spacing whose time is over tries a rate a little higher at a time, with the few in flight it holds
	// while the limit grew unused: refused then, only what was in flight counts. While the spacing holds,
	// the limit counts as ever: a service with a limit on requests at once as well refuses past it. (A spacing
	// here is one still in force at `now`: afterAnswer dropped it otherwise.)
	const tryingRate = limit.spacing !== undefined && limit.spacing.until <= now;
	const atProvenLevel = (tryingRate || Math.floor(limit.limit) <= limit.provenLimit) && answer.inFlight <= limit.provenLimit;
	const last = limit.unexplained;
	// In a later burst: the first refusal sent since the cut of that one's, or any refusal sent before a cut made since.
	// A refusal in that one's own burst (sent before its cut) is compared with the burst before it: the first
	// refusal of a burst counts the burst's requests still out as taken, and all of them may be refused, so it
	// may see more taken than the service took and miss the same rate that the burst's later refusals show.
	const laterBurst = last !== undefined && (newSinceCut || last.at < limit.cutAt);
	const earlier = laterBurst ? last : last?.before;
	const sameRateAgain =
		earlier !== undefined &&
		took >= 2 &&
		now - earlier.at < settings.learnedForMs &&
		Math.min(took, earlier.took) >= Math.max(took, earlier.took) * settings.sameRate;
	if (!tookLess && (atProvenLevel || sameRateAgain)) {
		const interval = took >= 2 ? 1000 / (took * settings.rateMargin) : 0;
		const spacing = interval > 0 ? { intervalMs: Math.max(interval, spacedAt(limit.spacing, now, settings) ?? 0), until: now + settings.learnedForMs } : limit.spacing;
		return { ...refused, spacing, ceiling: undefined };
	}
	// Refused with far fewer others out than a round had unrefused, and not about a rate: no limit on
	// requests at once or per second the client can see, but the service's own load or another client's use
	// of the same allowance (an agent's single call refused would otherwise hold the next minute of sends to
	// one at a time). The limit is cut and what the round proved counts for less, once per round trip
	// (refusals of requests sent before the cut say nothing new), so that a service whose limit did fall is
	// learned at its next refusal or the one after; what the service took in its last second is kept, so that
	// a later burst refused at that rate is read as one (above).
	const othersOut = Math.min(answer.inFlight, answer.inFlightAtAnswer) - 1;
	if (othersOut < limit.provenLimit * settings.unexplainedBelow) {
		if (!newSinceCut) return refused;
		const before = last && { took: last.took, at: last.at };
		return { ...refused, provenLimit: Math.floor(limit.provenLimit * settings.unexplainedBelow), unexplained: { took, at: now, before } };
	}
	// Refused above anything a round went through: a limit on requests at once. The service held no more
	// than the others out when the refused request was sent, and about as many as were still out when its
	// refusal came back (the last refusal of a burst sees only the requests it took); a client slow to read
	// its answers counts them in flight meanwhile, so either count can be more than the service held. The
	// limit stays at the lower (never below one) for a while. That level is a bound, not a proof: until a
	// round goes through at it, a refusal there is about requests at once too (the ceiling one too high).
	const others = Math.max(1, othersOut);
	const level = Math.min(others, limit.ceiling?.level ?? others);
	return {
		...refused,
		ceiling: { level, until: now + settings.learnedForMs },
		provenLimit: Math.min(limit.provenLimit, level - 1),
		limit: Math.max(1, Math.min(limit.limit, level)),
	};
}

/**
 * The limit cut by the cut factor (never below one) at `now`, and the sign of too much that ends the start.
 * A cut for a queue notes itself afresh (afterAnswer); any cut forgets the note of the one before.
 */
function cutLimit(limit: ServiceLimit, now: number, settings: LimitSettings): Pick<ServiceLimit, 'limit' | 'phase' | 'cutAt' | 'queueCut'> {
	return { limit: Math.max(1, limit.limit * settings.cut), phase: 'steady', cutAt: now, queueCut: undefined };
}

/** The limit with every send held back until `until` (a Retry-After), unless held back longer already. */
export function pausedUntil(limit: ServiceLimit, until: number): ServiceLimit {
	return until > limit.pausedUntil ? { ...limit, pausedUntil: until } : limit;
}

/**
 * Whether turns freed together go to waiting items one at a time, each after the client has read the answers
 * that came meanwhile (a timer between two), rather than all at once. Starting an item costs the client about a
 * millisecond of its own CPU, and answers are read only between such stretches: handed out all at once, a dozen
 * items start before a refusal that came meanwhile is read, and a limit per second refuses each of them. So in a
 * limiter's first run (nothing learned before it), below the most the limit allows, while the service's limit is
 * unknown: during the start, and for as long as a refusal's lesson holds after any refusal (learnedForMs), whether
 * it taught a ceiling, a spacing or, unexplained, nothing (a limit per second's first refusal looks like one on
 * requests at once, or like none: the burst after its Retry-After, handed out at once, was refused 15–32 times).
 * Not after a cut for slow answers: there the client's own CPU is often what is slow, and holding starts back
 * would slow it more. A later run starts from what the first learned.
 */
export function turnsOneAtATime(limit: ServiceLimit, firstRun: boolean, now: number, settings: LimitSettings = LIMIT_SETTINGS): boolean {
	if (!firstRun || limit.limit >= settings.max) return false;
	return limit.phase === 'start' || (limit.refusedAt !== undefined && now - limit.refusedAt < settings.learnedForMs);
}

/** Whether one more item may start, with `admitted` already started: fewer than the limit, counted whole. */
export function admits(limit: ServiceLimit, admitted: number): boolean {
	return admitted < Math.max(1, Math.floor(limit.limit));
}

/**
 * The earliest time the next request may be sent: after a pause, and, when `spaced`, at its turn on the learned
 * spacing's schedule (`dueAt`, dueAfter), up to earlyBy before it. A wait ends later than asked (a timer fires
 * when the client is free, often a millisecond or two late); spaced from the previous send itself, every send
 * would add that lateness, and sends 3.5 ms apart went out at 4.9 (205 a second where 285 were allowed). Aimed
 * a little early at a schedule that keeps its step, a late send leaves the next one's turn where it was.
 */
export function nextSendAt(limit: ServiceLimit, dueAt: number, now: number, spaced = true, settings: LimitSettings = LIMIT_SETTINGS): number {
	const intervalMs = spaced ? spacedAt(limit.spacing, now, settings) : undefined;
	return Math.max(now, limit.pausedUntil, intervalMs !== undefined ? dueAt - earlyBy(intervalMs, settings) : 0);
}

/**
 * When the send after one at `sentAt` is due on the spacing's schedule: an interval after this one's turn, or
 * after the send itself if it went out after its turn (a schedule saves up no sends for later); with no
 * spacing, the send itself.
 */
export function dueAfter(limit: ServiceLimit, dueAt: number, sentAt: number, settings: LimitSettings = LIMIT_SETTINGS): number {
	const intervalMs = spacedAt(limit.spacing, sentAt, settings);
	return intervalMs !== undefined ? Math.max(dueAt, sentAt) + intervalMs : sentAt;
}

/**
 * How much before its turn a spaced send may go: at most one interval (never more than two sends together),
 * and at most half of what the spacing's margin leaves in a second after the one send a second may hold past
 * the rate (sends k intervals apart fit k + 1 in a span of k intervals). A spacing of 1 / (took × rateMargin)
 * leaves took × (1 − rateMargin) sends' room a second, 1000 × (1 − rateMargin) / rateMargin ms of schedule;
 * a low rate has none to spare, and its sends wait for their turn.
 */
export function earlyBy(intervalMs: number, settings: LimitSettings = LIMIT_SETTINGS): number {
	const room = (1000 * (1 - settings.rateMargin)) / settings.rateMargin - intervalMs;
	return Math.max(0, Math.min(intervalMs, room / 2));
}
