/**
 * The limit's decisions, row by row (shared/transport/concurrencyLimit.ts):
 * how one answer grows or cuts the limit, what a refusal teaches (a ceiling
 * for requests at once, a spacing for requests per second), when an item may
 * start and a request may be sent; how many items a run sends at once
 * (itemsAtOnce); and which limiters the process forgets. The settings are
 * given, so the rows hold whatever the shipped numbers are tuned to.
 */
import {
	LIMIT_SETTINGS,
	admits,
	afterAnswer,
	afterIdle,
	answeredInLastSecond,
	dueAfter,
	earlyBy,
	levelOf,
	nextSendAt,
	pausedUntil,
	signalOf,
	spacedAt,
	startingLimit,
	turnsOneAtATime,
	type Answer,
	type LimitSettings,
	type Pace,
	type ServiceLimit,
} from '../../shared/transport/concurrencyLimit';
import { FORGET_AFTER_MS, PausedTooLong, ServiceLimiter, forgetServiceLimiters, serviceLimiter, serviceLimiterCount, toForget } from '../../shared/transport/serviceLimiter';
import { AUTO_REQUESTS_IN_PARALLEL, MAX_REQUESTS_IN_PARALLEL, itemsAtOnce, type ItemsAtOnce, type Parallelism } from '../../nodes/Workplace/actions/requestSettings';

const S: LimitSettings = {
	initial: 8,
	max: 100,
	startGrowth: 0.5,
	latencyTolerance: 2.5,
	queuedAtLeast: 4,
	cut: 0.8,
	queueShortens: 0.9,
	minRttWindowMs: 60_000,
	learnedForMs: 60_000,
	spacingDoublesEveryMs: 1000,
	spacingDoublings: 10,
	rateMargin: 0.9,
	rateAtLeast: 0.5,
	sameRate: 0.8,
	unexplainedBelow: 0.5,
	moreInFlight: 1.2,
	fewerPerSecond: 0.85,
	startMoreInFlight: 1.25,
	startFewerPerSecond: 0.8,
	paceMemory: 16,
	paceAnswers: 3,
};
const T = 1_000_000;

/** A limit at time T with `changes`: the service's idle round trip 20 ms, seen at T. */
function limitWith(changes: Partial<ServiceLimit> = {}): ServiceLimit {
	return { ...startingLimit(T - 1000, S), minRttMs: 20, minRttSince: T - 1000, ...changes };
}

/** Healthy answers to requests sent in the second before T + 100: `perTenth` in each tenth but the last. */
function sentInLastSecond(perTenth: number): ServiceLimit['answered'] {
	return { start: T - 900, counts: [0, ...new Array<number>(9).fill(perTenth), 0] };
}

/** An answer at T + 100 to a request sent 20 ms before (healthy unless said). */
function answer(changes: Partial<Answer> = {}): Answer {
	return { sentAt: T + 80, answeredAt: T + 100, inFlight: 8, inFlightAtAnswer: 8, signal: 'answered', ...changes };
}

type Row = [string, ServiceLimit, Answer, Partial<ServiceLimit>];

const TABLE: Row[] = [
	['a healthy answer with the limit in use grows it by startGrowth at first', limitWith(), answer(), { limit: 8.5, phase: 'start' }],
	['a healthy answer with half the limit in flight when it came back still counts as use', limitWith(), answer({ inFlight: 1, inFlightAtAnswer: 4 }), { limit: 8.5 }],
	['a healthy answer with less than half the limit in flight proves nothing of it', limitWith(), answer({ inFlight: 3, inFlightAtAnswer: 3 }), { limit: 8 }],
	['after the first sign of too much, one per round trip (1 / limit per answer)', limitWith({ phase: 'steady', limit: 10 }), answer({ inFlight: 10 }), { limit: 10.1, phase: 'steady' }],
	['never past the most', limitWith({ limit: 100 }), answer({ inFlight: 100 }), { limit: 100 }],
	['never past a ceiling the service taught', limitWith({ limit: 4, ceiling: { level: 4, until: T + 5000 } }), answer({ inFlight: 4 }), { limit: 4 }],
	['past a ceiling once it no longer holds', limitWith({ limit: 4, phase: 'steady', ceiling: { level: 4, until: T + 50 } }), answer({ inFlight: 4 }), { limit: 4.25, ceiling: undefined }],
	[
		'even the fastest answer of a whole round (as many as the limit) well above the lowest round trip: a queue, cut once',
		limitWith({ limit: 40, round: { fastestMs: 60, answers: 39 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40 }),
		{ limit: 32, phase: 'steady', cutAt: T + 100, round: { answers: 0 }, queueCut: { fastestMs: 60, held: 40 } },
	],
	[
		'slow answers before the round is over: no growth, no cut yet',
		limitWith({ limit: 40, round: { fastestMs: 60, answers: 10 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40 }),
		{ limit: 40, cutAt: T - 1000, round: { fastestMs: 60, answers: 11 } },
	],
	[
		'one fast answer in the round: no queue (a stall of the client slows only some), it grows',
		limitWith({ limit: 40, round: { fastestMs: 21, answers: 10 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40 }),
		{ limit: 40.5, round: { fastestMs: 21, answers: 11 } },
	],
	[
		'the last answer of a slow round, as slow only for the client\'s own lateness (short of CPU, it read every answer late): no queue at the service, it grows',
		limitWith({ limit: 40, round: { fastestMs: 90, answers: 39 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [80] }),
		{ limit: 40.5, cutAt: T - 1000, round: { answers: 0 } },
	],
	[
		'a client late by less than the slowness: what is left is a queue still, cut once',
		limitWith({ limit: 40, round: { fastestMs: 60, answers: 39 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [30] }),
		{ limit: 32, phase: 'steady', cutAt: T + 100 },
	],
	[
		'a lateness longer than the round trip counts the service as fast as its lowest round trip, never faster',
		limitWith({ limit: 40, round: { answers: 3 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [500] }),
		{ round: { fastestMs: 20, mostInFlight: 40, answers: 4 } },
	],
	[
		'a lateness no longer than the lowest round trip discounts nothing: it may have passed while the service was at work',
		limitWith({ limit: 40, round: { answers: 3 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [20] }),
		{ round: { fastestMs: 100, mostInFlight: 40, answers: 4 } },
	],
	[
		'two stalls of the client while the request was out (one may have held up its sending, the other its answer): each counts, and a round as slow only for them is no queue',
		limitWith({ limit: 40, round: { fastestMs: 90, answers: 39 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [55, 45] }),
		{ limit: 40.5, cutAt: T - 1000, round: { answers: 0 } },
	],
	[
		'stalls no longer than the lowest round trip discount nothing, however many: each may have passed while the service was at work',
		limitWith({ limit: 40, round: { fastestMs: 90, answers: 39 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 40, clientStallsMs: [20, 20, 20, 20] }),
		{ limit: 32, phase: 'steady', cutAt: T + 100 },
	],
	[
		'the lowest round trip is measured whole, lateness and all: it comes when the client is least late',
		limitWith({ minRttSince: T - 61_000 }),
		answer({ sentAt: T + 70, answeredAt: T + 100, clientStallsMs: [20] }),
		{ minRttMs: 30, minRttSince: T + 100 },
	],
	[
		'a slow round with only a few requests in flight is noise, not a queue: it grows as ever',
		limitWith({ limit: 4, phase: 'steady', round: { fastestMs: 80, answers: 3 } }),
		answer({ sentAt: T, answeredAt: T + 100, inFlight: 4 }),
		{ limit: 4.25, cutAt: T - 1000 },
	],
	[
		'a slow round ended by an answer to a request sent before the last cut cuts nothing more',
		limitWith({ limit: 32, phase: 'steady', cutAt: T + 50, round: { fastestMs: 60, answers: 31 } }),
		answer({ sentAt: T, inFlight: 32 }),
		{ limit: 32, cutAt: T + 50 },
	],
	[
		'the round after a cut for a queue, sent with fewer in flight, about as slow: the cut shortened no queue, the service itself is slower; its lowest round trip is measured afresh from the round, the limit kept',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 40 }, round: { fastestMs: 55, answers: 31 } }),
		answer({ sentAt: T + 20, inFlight: 32 }),
		{ limit: 32, cutAt: T, minRttMs: 55, minRttSince: T + 100, queueCut: undefined },
	],
	[
		'the round after a cut for a queue, sent with fewer in flight, its fastest answer a tenth faster or more: a queue the cut shortened, cut again',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 40 }, round: { fastestMs: 54, answers: 31 } }),
		answer({ sentAt: T + 20, inFlight: 32 }),
		{ limit: 25.6, cutAt: T + 100, minRttMs: 20, queueCut: { fastestMs: 54, held: 32 } },
	],
	[
		'the round after a cut for a queue, about as slow with about as many in flight (the limit was above what was in use): the cut took none out of the queue, cut again',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 36 }, round: { fastestMs: 60, answers: 31 } }),
		answer({ sentAt: T + 20, inFlight: 32 }),
		{ limit: 25.6, cutAt: T + 100, minRttMs: 20 },
	],
	[
		'a refusal after a cut for a queue cuts for itself and forgets the cut for a queue: the round after it is compared with nothing',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 40 } }),
		answer({ sentAt: T + 20, inFlight: 32, signal: 'refused' }),
		{ cutAt: T + 100, queueCut: undefined },
	],
	[
		'an overloaded answer (503) after a cut for a queue cuts for itself and forgets the cut for a queue',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 40 } }),
		answer({ sentAt: T + 20, inFlight: 32, signal: 'overloaded' }),
		{ limit: 25.6, cutAt: T + 100, queueCut: undefined },
	],
	[
		'the round after a cut for a queue that is no longer slow forgets the cut: a queue met later is cut for afresh',
		limitWith({ limit: 32, phase: 'steady', cutAt: T, queueCut: { fastestMs: 60, held: 40 }, round: { fastestMs: 30, answers: 31 } }),
		answer({ sentAt: T + 20, inFlight: 32 }),
		{ limit: 32 + 1 / 32, cutAt: T, queueCut: undefined },
	],
	['the lowest round trip is measured afresh once its window is over', limitWith({ minRttSince: T - 61_000 }), answer({ sentAt: T + 70, answeredAt: T + 100 }), { minRttMs: 30, minRttSince: T + 100 }],
	[
		'refused above any limit a round went through: a limit on requests at once, as many as were still in flight when it came back',
		limitWith({ limit: 8, provenLimit: 4 }),
		answer({ inFlight: 7, inFlightAtAnswer: 6, signal: 'refused' }),
		{ limit: 5, phase: 'steady', cutAt: T + 100, ceiling: { level: 5, until: T + 100 + 60_000 }, provenLimit: 4, round: { answers: 0, refused: true } },
	],
	[
		'refused when fewer were out at its send than at its refusal (the client had not read some answers yet): the ceiling is the others out at its send',
		limitWith({ limit: 29.5, provenLimit: 18 }),
		answer({ inFlight: 17, inFlightAtAnswer: 18, signal: 'refused' }),
		{ limit: 16, ceiling: { level: 16, until: T + 60_100 }, provenLimit: 15, spacing: undefined },
	],
	[
		'refused at a ceiling no round has gone through yet (one too high: counted while answers were unread): requests at once, the ceiling one lower',
		limitWith({ limit: 17, phase: 'steady', provenLimit: 16, cutAt: T, ceiling: { level: 17, until: T + 50_000 } }),
		answer({ inFlight: 17, inFlightAtAnswer: 17, signal: 'refused' }),
		{ limit: 16, cutAt: T + 100, ceiling: { level: 16, until: T + 60_100 }, provenLimit: 15, spacing: undefined },
	],
	[
		'refused at a ceiling a round has gone through since: a limit per second',
		limitWith({ limit: 16, phase: 'steady', provenLimit: 16, cutAt: T, ceiling: { level: 16, until: T + 50_000 }, answered: sentInLastSecond(5) }),
		answer({ inFlight: 16, inFlightAtAnswer: 16, signal: 'refused' }),
		{ ceiling: undefined, spacing: { intervalMs: 1000 / (60 * 0.9), until: T + 60_100 } },
	],
	[
		'refused for a request sent with more in flight than a round went through, after a cut to the ceiling (sent before the cut was read): requests at once again, not a rate',
		limitWith({ limit: 16, phase: 'steady', provenLimit: 16, cutAt: T + 60, ceiling: { level: 16, until: T + 60_060 } }),
		answer({ sentAt: T + 60, inFlight: 18, inFlightAtAnswer: 17, signal: 'refused' }),
		{ limit: 16, cutAt: T + 100, ceiling: { level: 16, until: T + 60_100 }, spacing: undefined },
	],
	[
		'refused at a ceiling a round went through, when the service had taken less than half the most it took in a second of the last minute (a burst after a pause; answers on their way back counted in flight): requests at once, not a rate',
		limitWith({ limit: 31, phase: 'steady', provenLimit: 31, cutAt: T, ceiling: { level: 31, until: T + 50_000 }, mostPerSecond: { answers: 132, at: T - 2000 } }),
		answer({ inFlight: 17, inFlightAtAnswer: 31, signal: 'refused' }),
		{ limit: 16, ceiling: { level: 16, until: T + 60_100 }, provenLimit: 15, spacing: undefined },
	],
	[
		'the same once that most is over a minute old: a limit per second',
		limitWith({ limit: 31, phase: 'steady', provenLimit: 31, cutAt: T, ceiling: { level: 31, until: T + 50_000 }, mostPerSecond: { answers: 132, at: T - 61_000 } }),
		answer({ inFlight: 17, inFlightAtAnswer: 31, signal: 'refused' }),
		{ ceiling: undefined, spacing: { intervalMs: 1000 / (30 * 0.9), until: T + 60_100 } },
	],
	[
		'refused with far fewer others out than a round went through (under half), when not about a rate: no limit the client can see (an agent\'s one call refused while the allowance was used elsewhere): cut, no ceiling, what the round proved counts for half',
		limitWith({ limit: 32.5, provenLimit: 16, mostPerSecond: { answers: 700, at: T - 2000 } }),
		answer({ inFlight: 1, inFlightAtAnswer: 1, signal: 'refused' }),
		{ limit: 26, phase: 'steady', cutAt: T + 100, ceiling: undefined, spacing: undefined, provenLimit: 8, round: { answers: 0, refused: true }, refusedAt: T + 100 },
	],
	[
		'refused with far fewer others out than a round went through, with 40 taken in the last second, and no such refusal before: no limit the client can see yet (one refusal alone may be the service\'s load), cut, no spacing, what the round proved counts for half; the rate it came at kept',
		limitWith({ limit: 16.5, provenLimit: 12, answered: sentInLastSecond(4) }),
		answer({ inFlight: 4, inFlightAtAnswer: 5, signal: 'refused' }),
		{ limit: 16.5 * 0.8, phase: 'steady', cutAt: T + 100, ceiling: undefined, spacing: undefined, provenLimit: 6, refusedAt: T + 100, unexplained: { took: 40, at: T + 100 } },
	],
	[
		'refused in a later burst within a minute at the same rate (40 taken, 36 then): a client short of CPU, its limit grown ahead of the few it keeps in flight, meeting a limit per second: sends spaced under that rate, what the round proved kept',
		limitWith({ limit: 13, phase: 'steady', provenLimit: 6, cutAt: T - 1100, unexplained: { took: 36, at: T - 1100 }, answered: sentInLastSecond(4) }),
		answer({ inFlight: 4, inFlightAtAnswer: 5, signal: 'refused' }),
		{ limit: 13 * 0.8, cutAt: T + 100, ceiling: undefined, spacing: { intervalMs: 1000 / (40 * 0.9), until: T + 60_100 }, provenLimit: 6 },
	],
	[
		'a later refusal of that later burst (sent before its cut) seeing fewer taken (36): the spacing widened to that rate',
		limitWith({ limit: 10.4, phase: 'steady', provenLimit: 6, cutAt: T + 50, unexplained: { took: 36, at: T - 1100 }, spacing: { intervalMs: 1000 / (40 * 0.9), until: T + 60_050 }, answered: sentInLastSecond(4) }),
		answer({ sentAt: T + 40, inFlight: 2, inFlightAtAnswer: 1, signal: 'refused' }),
		{ limit: 10.4, cutAt: T + 50, ceiling: undefined, spacing: { intervalMs: 1000 / (36 * 0.9), until: T + 60_100 }, provenLimit: 6 },
	],
	[
		'the same at a rate far from that one (40 taken, 20 then): no limit the client can see again',
		limitWith({ limit: 13, phase: 'steady', provenLimit: 12, cutAt: T - 1100, unexplained: { took: 20, at: T - 1100 }, answered: sentInLastSecond(4) }),
		answer({ inFlight: 4, inFlightAtAnswer: 5, signal: 'refused' }),
		{ ceiling: undefined, spacing: undefined, provenLimit: 6, unexplained: { took: 40, at: T + 100 } },
	],
	[
		'the same over a minute after that one: no limit the client can see again',
		limitWith({ limit: 13, phase: 'steady', provenLimit: 12, cutAt: T - 61_000, unexplained: { took: 40, at: T - 61_000 }, answered: sentInLastSecond(4) }),
		answer({ inFlight: 4, inFlightAtAnswer: 5, signal: 'refused' }),
		{ ceiling: undefined, spacing: undefined, provenLimit: 6, unexplained: { took: 40, at: T + 100 } },
	],
	[
		'the same in that one\'s burst (sent before its cut): nothing more cut, nothing learned',
		limitWith({ limit: 13, phase: 'steady', provenLimit: 6, cutAt: T + 90, unexplained: { took: 40, at: T + 90 }, answered: sentInLastSecond(4) }),
		answer({ inFlight: 2, inFlightAtAnswer: 2, signal: 'refused' }),
		{ limit: 13, cutAt: T + 90, ceiling: undefined, spacing: undefined, provenLimit: 6, unexplained: { took: 40, at: T + 90 } },
	],
	[
		'a later burst whose first refusal counted its requests still out as taken (44: 36 answered and 8 out, all refused) and so missed the rate of the burst before (35): a later refusal of it (sent before its cut, 36 taken) is compared with that one: the same rate, sends spaced under it',
		limitWith({ limit: 13, phase: 'steady', provenLimit: 6, cutAt: T + 90, unexplained: { took: 44, at: T + 90, before: { took: 35, at: T - 1100 } }, answered: sentInLastSecond(4) }),
		answer({ sentAt: T + 80, inFlight: 2, inFlightAtAnswer: 1, signal: 'refused' }),
		{ limit: 13, cutAt: T + 90, ceiling: undefined, spacing: { intervalMs: 1000 / (36 * 0.9), until: T + 60_100 }, provenLimit: 6 },
	],
	[
		'the same with 3 in flight against a ceiling still in force: the ceiling stays where it was',
		limitWith({ limit: 10, phase: 'steady', provenLimit: 12, ceiling: { level: 12, until: T + 30_000 }, mostPerSecond: { answers: 500, at: T - 2000 } }),
		answer({ inFlight: 3, inFlightAtAnswer: 3, signal: 'refused' }),
		{ limit: 8, ceiling: { level: 12, until: T + 30_000 }, provenLimit: 6, spacing: undefined },
	],
	[
		'such a refusal of a request sent before the last cut: nothing more cut, nothing learned',
		limitWith({ limit: 26, phase: 'steady', provenLimit: 8, cutAt: T + 90 }),
		answer({ inFlight: 2, inFlightAtAnswer: 1, signal: 'refused' }),
		{ limit: 26, cutAt: T + 90, ceiling: undefined, provenLimit: 8, round: { answers: 0, refused: true } },
	],
	[
		'refused again at as few once what was proved counts for half: a limit that did fall, requests at once',
		limitWith({ limit: 26, phase: 'steady', provenLimit: 4, mostPerSecond: { answers: 700, at: T - 2000 } }),
		answer({ inFlight: 3, inFlightAtAnswer: 3, signal: 'refused' }),
		{ limit: 2, ceiling: { level: 2, until: T + 60_100 }, provenLimit: 1 },
	],
	[
		'a healthy answer: the answers of the last second are the most seen, when as many as before',
		limitWith({ answered: sentInLastSecond(5), mostPerSecond: { answers: 40, at: T - 5000 } }),
		answer(),
		{ mostPerSecond: { answers: 46, at: T + 100 } },
	],
	[
		'a healthy answer with fewer answers in the last second keeps a most of the last minute',
		limitWith({ mostPerSecond: { answers: 40, at: T - 5000 } }),
		answer(),
		{ mostPerSecond: { answers: 40, at: T - 5000 } },
	],
	[
		'a later refusal of the same burst with fewer in flight lowers the ceiling, no second cut',
		limitWith({ limit: 5, phase: 'steady', cutAt: T + 90, ceiling: { level: 5, until: T + 60_090 } }),
		answer({ sentAt: T + 80, inFlight: 7, inFlightAtAnswer: 5, signal: 'refused' }),
		{ limit: 4, cutAt: T + 90, ceiling: { level: 4, until: T + 60_100 } },
	],
	[
		'refused with nothing else in flight: at least one at a time',
		limitWith({ limit: 8 }),
		answer({ inFlightAtAnswer: 1, signal: 'refused' }),
		{ limit: 1, ceiling: { level: 1, until: T + 60_100 }, provenLimit: 0, refusedAt: T + 100 },
	],
	[
		'refused at a limit a whole round went through unrefused: a limit per second, sends spaced under the rate it took in its last second, the ceiling given up',
		limitWith({ limit: 10, provenLimit: 10, ceiling: { level: 10, until: T + 30_000 }, answered: sentInLastSecond(5) }),
		answer({ inFlight: 4, inFlightAtAnswer: 5, signal: 'refused' }),
		{ limit: 8, phase: 'steady', cutAt: T + 100, ceiling: undefined, spacing: { intervalMs: 1000 / (49 * 0.9), until: T + 60_100 }, refusedAt: T + 100 },
	],
	[
		'refused while a spacing whose time is over tries a higher rate, the limit grown unused above what a round proved, with as few in flight as were proved: the rate again, sends spaced under it',
		limitWith({ limit: 12, phase: 'steady', provenLimit: 8, cutAt: T - 10_000, spacing: { intervalMs: 25, until: T - 500 }, answered: sentInLastSecond(5) }),
		answer({ inFlight: 1, inFlightAtAnswer: 1, signal: 'refused' }),
		{ ceiling: undefined, spacing: { intervalMs: 1000 / (45 * 0.9), until: T + 60_100 }, provenLimit: 8 },
	],
	[
		'refused while a spacing holds, at a limit grown above what a round proved (a service that also limits requests at once): requests at once, a ceiling, the spacing kept',
		limitWith({ limit: 8.5, phase: 'steady', provenLimit: 5, cutAt: T - 10_000, spacing: { intervalMs: 8.7, until: T + 30_000 }, answered: sentInLastSecond(12) }),
		answer({ inFlight: 5, inFlightAtAnswer: 5, signal: 'refused' }),
		{ ceiling: { level: 4, until: T + 60_100 }, limit: 4, spacing: { intervalMs: 8.7, until: T + 30_000 } },
	],
	[
		'a limit per second with too little seen in the last second to tell a rate: cut, no spacing',
		limitWith({ limit: 10, provenLimit: 12 }),
		answer({ inFlightAtAnswer: 2, signal: 'refused' }),
		{ limit: 8, spacing: undefined, refusedAt: T + 100 },
	],
	[
		'a round of answers without a refusal proves its limit',
		limitWith({ limit: 6, provenLimit: 3, round: { fastestMs: 21, answers: 5 } }),
		answer({ inFlight: 6 }),
		{ provenLimit: 6, round: { answers: 0 } },
	],
	[
		'a round proves what it had in flight, not its limit (a limit grows to twice what is in use)',
		limitWith({ limit: 24, provenLimit: 8, round: { fastestMs: 21, answers: 23, mostInFlight: 12 } }),
		answer({ inFlight: 11 }),
		{ provenLimit: 12, round: { answers: 0 } },
	],
	[
		'a round with a refusal in it proves nothing',
		limitWith({ limit: 6, provenLimit: 3, round: { fastestMs: 21, answers: 5, refused: true } }),
		answer({ inFlight: 6 }),
		{ provenLimit: 3, round: { answers: 0 } },
	],
	['overloaded (503): cut by the cut factor, nothing learned of a limit', limitWith({ limit: 20 }), answer({ signal: 'overloaded' }), { limit: 16, phase: 'steady', cutAt: T + 100, ceiling: undefined, spacing: undefined }],
	['overloaded again for a request sent before that cut: no second cut', limitWith({ limit: 16, cutAt: T + 90, phase: 'steady' }), answer({ signal: 'overloaded' }), { limit: 16, cutAt: T + 90 }],
	['a network failure or a 500 teaches nothing', limitWith({ limit: 12 }), answer({ signal: 'none' }), { limit: 12 }],
];

/** A starting limit after `count` healthy answers 2 ms apart from T, each taking 20 ms with `inFlight` in flight; and when the last came. */
function afterHealthyAnswers(count: number, inFlight: number): { limit: ServiceLimit; at: number } {
	let limit = startingLimit(T, S);
	let at = T;
	for (let k = 0; k < count; k++) {
		at += 2;
		limit = afterAnswer(limit, answer({ sentAt: at - 20, answeredAt: at, inFlight, inFlightAtAnswer: inFlight }), S);
	}
	return { limit, at };
}

describe('afterAnswer', () => {
	it.each(TABLE)('%s', (_, before, seen, expected) => {
		expect(afterAnswer(before, seen, S)).toMatchObject(expected);
	});

	it('a service that takes 12 at once, met by a limit grown to 24 while 12 were in flight: the refusal of the 13th is about requests at once (a ceiling), not a rate (no spacing)', () => {
		// Each with 12 in flight: the limit grows to 24.5 (half of it in use), rounds go through.
		let { limit, at } = afterHealthyAnswers(60, 12);
		expect(limit.limit).toBeGreaterThan(20);
		expect(limit.provenLimit).toBe(12);
		limit = afterAnswer(limit, answer({ sentAt: at, answeredAt: at + 1, inFlight: 13, inFlightAtAnswer: 13, signal: 'refused' }), S);
		expect(limit.spacing).toBeUndefined();
		expect(limit).toMatchObject({ limit: 12, ceiling: { level: 12 } });
		expect(nextSendAt(limit, at, at + 2)).toBe(at + 2);
	});

	it('a service that takes 16 at once, met by a client slow to read its answers (it counts them in flight meanwhile): its refusals teach a ceiling of 16, never a spacing', () => {
		// Rounds "prove" 18 in flight: answers the service gave and the client had not read yet were counted.
		let { limit, at } = afterHealthyAnswers(80, 18);
		expect(limit.provenLimit).toBe(18);
		// The first refusal, sent with 18 in flight (17 others counted, one of them already answered): a ceiling of 17.
		limit = afterAnswer(limit, answer({ sentAt: at, answeredAt: at + 2, inFlight: 18, inFlightAtAnswer: 19, signal: 'refused' }), S);
		expect(limit).toMatchObject({ limit: 17, ceiling: { level: 17 }, provenLimit: 16, spacing: undefined });
		// A request sent before that cut was read, with 19 in flight: refused too, about requests at once again.
		limit = afterAnswer(limit, answer({ sentAt: at + 1, answeredAt: at + 8, inFlight: 19, inFlightAtAnswer: 18, signal: 'refused' }), S);
		expect(limit).toMatchObject({ limit: 17, ceiling: { level: 17 }, spacing: undefined });
		// After the Retry-After (a second with hardly an answer), a refusal at that ceiling, one too high, before a round went through at it.
		at += 1000;
		limit = afterAnswer(limit, answer({ sentAt: at, answeredAt: at + 1, inFlight: 17, inFlightAtAnswer: 17, signal: 'refused' }), S);
		expect(limit).toMatchObject({ limit: 16, ceiling: { level: 16 }, spacing: undefined });
		expect(nextSendAt(limit, at + 1, at + 2)).toBe(at + 2);
	});

	it('counts healthy answers by when they were sent, over the last second', () => {
		let limit = limitWith();
		for (const at of [T - 1500, T - 900, T - 50, T, T + 10]) limit = afterAnswer(limit, answer({ sentAt: at, answeredAt: T + 20, inFlight: 1 }), S);
		expect(answeredInLastSecond(limit, T + 20)).toBe(4);
		// The second after T - 50: of the tenth from T - 100, none (its one answer was sent at T - 50; a tenth keeps its first and last send).
		expect(answeredInLastSecond(limit, T + 950)).toBe(2);
		expect(answeredInLastSecond(limit, T + 949)).toBe(3);
		expect(answeredInLastSecond(limit, T + 1000)).toBe(2);
		expect(answeredInLastSecond(limit, T + 5000)).toBe(0);
	});

	it('sends spread evenly at any rate count as that rate, at any moment of a tenth', () => {
		for (const perSecond of [7, 40, 50, 285]) {
			let limit = limitWith();
			for (let at = T - 3000; at < T; at += 1000 / perSecond) limit = afterAnswer(limit, answer({ sentAt: at, answeredAt: at + 1, inFlight: 1 }), S);
			for (const now of [T, T + 1, T + 37, T + 99]) expect(Math.abs(answeredInLastSecond(limit, now) - perSecond * (1 - (now - T) / 1000))).toBeLessThanOrEqual(1);
		}
	});
});

describe('the pace of each level of requests in flight', () => {
	/** A level of the pace table: `answers` answers with `inFlight` in flight answering `perSecond` a second, the last at `at`. */
	const level = (inFlight: number, perSecond: number, answers = 16, at = T): Pace => ({ answers, inFlightSum: answers * inFlight, rttSumMs: (answers * inFlight * 1000) / perSecond, at });
	/** A pace table holding these levels. */
	function table(...levels: Pace[]): Array<Pace | undefined> {
		const paces: Array<Pace | undefined> = [];
		for (const p of levels) paces[levelOf(p.inFlightSum / p.answers)] = p;
		return paces;
	}
	/** The limit of a steady service at 20, the answer ending a round, the best level 16 in flight answering 400 a second. */
	const steadyAt20 = (paces: Array<Pace | undefined>, changes: Partial<ServiceLimit> = {}) =>
		limitWith({ phase: 'steady', limit: 20, round: { fastestMs: 21, answers: 19 }, paces, ...changes });
	/** An answer with 20 in flight taking as long as its level's answers do at `perSecond`. */
	const at20 = (perSecond: number, changes: Partial<Answer> = {}) => answer({ sentAt: T + 100 - Math.round((20 * 1000) / perSecond), inFlight: 20, inFlightAtAnswer: 20, ...changes });

	it('a healthy answer adds to its level (the older answers there weighing a little less); other signals do not', () => {
		const after = afterAnswer(limitWith(), answer({ sentAt: T + 80, answeredAt: T + 100, inFlight: 8 }), S);
		expect(after.paces[levelOf(8)]).toEqual({ answers: 1, inFlightSum: 8, rttSumMs: 20, at: T + 100 });
		const again = afterAnswer(after, answer({ sentAt: T + 90, answeredAt: T + 130, inFlight: 8 }), S);
		expect(again.paces[levelOf(8)]).toEqual({ answers: 1 * (15 / 16) + 1, inFlightSum: 8 * (15 / 16) + 8, rttSumMs: 20 * (15 / 16) + 40, at: T + 130 });
		expect(afterAnswer(limitWith(), answer({ signal: 'refused' }), S).paces).toEqual([]);
		expect(afterAnswer(limitWith(), answer({ signal: 'none' }), S).paces).toEqual([]);
	});

	it("a level sums what the service took: the round trip less the client's own lateness meanwhile beyond the lowest round trip, never below that", () => {
		expect(afterAnswer(limitWith(), answer({ sentAt: T + 40, answeredAt: T + 100, inFlight: 8, clientStallsMs: [30] }), S).paces[levelOf(8)]).toMatchObject({ rttSumMs: 50 });
		expect(afterAnswer(limitWith(), answer({ sentAt: T + 40, answeredAt: T + 100, inFlight: 8, clientStallsMs: [70] }), S).paces[levelOf(8)]).toMatchObject({ rttSumMs: 20 });
	});

	it('levels are a tenth apart', () => {
		expect([1, 8, 9, 10, 16, 17, 100].map(levelOf)).toEqual([0, 22, 23, 24, 29, 30, 48]);
	});

	const ROWS: Row[] = [
		[
			'a round at 1.25 times the best level answering 0.75 times as many a second: back to a level below the best, steady',
			steadyAt20(table(level(16, 400), level(20, 300))),
			at20(300),
			{ limit: 16 / 1.1, phase: 'steady', cutAt: T + 100 },
		],
		[
			'answering about as many a second with more in flight (a client waiting on its own CPU): no cut, it grows',
			steadyAt20(table(level(16, 400), level(20, 380))),
			at20(380),
			{ limit: 20.05, cutAt: T - 1000 },
		],
		['only a little more in flight than the best level (1.11 times): no cut', steadyAt20(table(level(18, 400), level(20, 300))), at20(300), { limit: 20.05 }],
		['before the round is over: no cut yet', steadyAt20(table(level(16, 400), level(20, 300)), { round: { fastestMs: 21, answers: 5 } }), at20(300), { limit: 20.05 }],
		['an answer to a request sent before the last cut cuts nothing more: it grows', steadyAt20(table(level(16, 400), level(20, 300)), { cutAt: T + 50 }), at20(300), { limit: 20.05, cutAt: T + 50 }],
		['a level with too few answers to tell its pace: no cut', steadyAt20(table(level(16, 400, 2), level(20, 300))), at20(300), { limit: 20.05 }],
		[
			'a best level not measured for a minute is dropped, and judges nothing',
			steadyAt20(table(level(16, 400, 16, T - 61_000), level(20, 300))),
			at20(300),
			{ limit: 20.05 },
		],
		[
			'during the start only a steep fall counts: 1.25 times the best level answering 0.85 times as many a second grows on',
			steadyAt20(table(level(16, 400), level(20, 340)), { phase: 'start' }),
			at20(340),
			{ limit: 20.5, phase: 'start' },
		],
		[
			'during the start, 1.25 times the best level answering 0.75 times as many a second: back below the best, and the start is over',
			steadyAt20(table(level(16, 400), level(20, 300)), { phase: 'start' }),
			at20(300),
			{ limit: 16 / 1.1, phase: 'steady', cutAt: T + 100 },
		],
	];

	it.each(ROWS)('%s', (_, before, seen, expected) => {
		expect(afterAnswer(before, seen, S)).toMatchObject(expected);
	});

	it('the dropped level leaves the table', () => {
		const after = afterAnswer(steadyAt20(table(level(16, 400, 16, T - 61_000), level(20, 300))), at20(300), S);
		expect(after.paces[levelOf(16)]).toBeUndefined();
		expect(after.paces[levelOf(20)]).toBeDefined();
	});

	it('a service whose round trip grows with the square of its load beyond 12 in flight: the limit settles within a level or two of 12 (the round trip alone would hold it near 19, where answers take 2.5 times as long)', () => {
		const rttAt = (inFlight: number) => 20 * Math.max(1, inFlight / 12) ** 2;
		let limit = startingLimit(T, S);
		let at = T;
		const seen: number[] = [];
		// Every answer with the limit in flight (a client with items to spare), one after another.
		for (let k = 0; k < 3000; k++) {
			const inFlight = Math.max(1, Math.floor(limit.limit));
			const rtt = rttAt(inFlight);
			at += rtt / inFlight;
			limit = afterAnswer(limit, { sentAt: at - rtt, answeredAt: at, inFlight, inFlightAtAnswer: inFlight, signal: 'answered' }, S);
			if (k >= 2000) seen.push(limit.limit);
		}
		expect(Math.max(...seen)).toBeLessThanOrEqual(12 * 1.1 ** 2 * 1.15);
		expect(Math.min(...seen)).toBeGreaterThanOrEqual(12 / 1.1 ** 2);
	});
});

describe('signalOf', () => {
	it.each([
		[200, 'answered'],
		[204, 'answered'],
		[404, 'answered'],
		[429, 'refused'],
		[503, 'overloaded'],
		[500, 'none'],
		[502, 'none'],
		[undefined, 'none'],
	])('%s → %s', (status, signal) => {
		expect(signalOf(status)).toBe(signal);
	});
});

describe('admits, pausedUntil, nextSendAt', () => {
	it.each([
		[4.7, 3, true],
		[4.7, 4, false],
		[1, 0, true],
		[1, 1, false],
		[0.6, 0, true],
	])('limit %s with %s started admits one more: %s', (limit, started, expected) => {
		expect(admits(limitWith({ limit }), started)).toBe(expected);
	});

	it('a pause keeps the later end', () => {
		expect(pausedUntil(limitWith({ pausedUntil: T + 500 }), T + 200).pausedUntil).toBe(T + 500);
		expect(pausedUntil(limitWith({ pausedUntil: T + 500 }), T + 900).pausedUntil).toBe(T + 900);
	});

	// S leaves a spacing of 25 ms room to go its whole interval early (earlyBy).
	it.each<[string, Partial<ServiceLimit>, number, boolean, number]>([
		['nothing learned: now', {}, T - 1, true, T],
		['paused: when the pause ends', { pausedUntil: T + 700 }, T - 1, true, T + 700],
		['paused, a request not spaced (versions 1–3) waits too', { pausedUntil: T + 700 }, T - 1, false, T + 700],
		['spaced: its turn on the schedule, as early as earlyBy allows', { spacing: { intervalMs: 25, until: T + 1000 } }, T + 40, true, T + 15],
		['spaced, its turn come already: now', { spacing: { intervalMs: 25, until: T + 1000 } }, T - 10, true, T],
		['a request not spaced (versions 1–3) goes now', { spacing: { intervalMs: 25, until: T + 1000 } }, T + 40, false, T],
		['a spacing whose time is over: its turn at a shorter interval, now once that has come', { spacing: { intervalMs: 25, until: T - 1000 } }, T + 40, true, T + 40 - 12.5],
		['a spacing dropped: now', { spacing: { intervalMs: 25, until: T - 10_000 } }, T + 40, true, T],
	])('%s', (_, changes, dueAt, spaced, expected) => {
		expect(nextSendAt(limitWith(changes), dueAt, T, spaced, S)).toBe(expected);
	});

	it.each<[string, Partial<ServiceLimit>, number, number]>([
		['no spacing: the send itself', {}, T + 40, T],
		['sent before its turn: an interval after the turn, which keeps its step', { spacing: { intervalMs: 25, until: T + 1000 } }, T + 10, T + 35],
		['sent after its turn: an interval after the send (no sends saved up)', { spacing: { intervalMs: 25, until: T + 1000 } }, T - 60, T + 25],
	])('dueAfter: %s', (_, changes, dueAt, expected) => {
		expect(dueAfter(limitWith(changes), dueAt, T)).toBe(expected);
	});

	// At a margin of 0.95 a spacing leaves 1000 × 0.05 / 0.95 ≈ 52.6 ms of a second's schedule to spare.
	const atMargin95: LimitSettings = { ...S, rateMargin: 0.95 };
	it.each([
		['285 a second: the whole interval', 1000 / 285, 1000 / 285],
		['47.5 a second: half of what the margin leaves past one interval', 1000 / 47.5, (1000 / 19 - 1000 / 47.5) / 2],
		['19 a second: none (the one send past the rate uses all the margin leaves)', 1000 / 19, 0],
	])('earlyBy: %s', (_, intervalMs, expected) => {
		expect(earlyBy(intervalMs, atMargin95)).toBeCloseTo(expected, 9);
	});

	/**
	 * Sends through the schedule for `seconds`, always one waiting, each going out a random 0–2 ms after
	 * the time nextSendAt gave (a timer that fires late): what went out when.
	 */
	function spacedSends(perSecond: number, seconds: number): number[] {
		const limit = limitWith({ spacing: { intervalMs: 1000 / (perSecond * atMargin95.rateMargin), until: T + 1000 * seconds + 1 } });
		let seed = 7;
		const lateness = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2;
		const sent: number[] = [];
		let dueAt = 0;
		for (let now = T; now < T + 1000 * seconds; ) {
			now = nextSendAt(limit, dueAt, now, true, atMargin95) + lateness();
			sent.push(now);
			dueAt = dueAfter(limit, dueAt, now);
		}
		return sent;
	}
	const mostInASecond = (sent: number[]) => Math.max(...sent.map((at) => sent.filter((t) => t >= at && t < at + 1000).length));

	it.each([5, 7, 13, 20, 50, 120, 300, 1000])('a service that takes %s a second is never sent more in any second, whatever the lateness', (perSecond) => {
		expect(mostInASecond(spacedSends(perSecond, 5))).toBeLessThanOrEqual(perSecond);
	});

	it.each([50, 120, 300])('at %s a second, late timers cost no sends: the spacing\'s whole rate goes out', (perSecond) => {
		// From the previous send itself, 300 a second spaced for 285 went out at about 223.
		expect(spacedSends(perSecond, 10).length / 10).toBeGreaterThanOrEqual(perSecond * atMargin95.rateMargin * 0.99);
	});
});

describe('a spacing whose time is over', () => {
	const spacing = { intervalMs: 20, until: T };
	it.each<[string, number, number | undefined]>([
		['before its time is over: as learned', T - 1, 20],
		['a second of use after: twice the rate', T + 1000, 10],
		['half a second after: between the two', T + 500, 20 / Math.SQRT2],
		['ten seconds after: dropped', T + 10_000, undefined],
	])('spacedAt: %s', (_, now, expected) => {
		const at = spacedAt(spacing, now, S);
		if (expected === undefined) expect(at).toBeUndefined();
		else expect(at).toBeCloseTo(expected, 9);
	});

	it('holds the spacing in the limit until it is dropped, and an hour unused resumes it where it was', () => {
		expect(afterAnswer(limitWith({ spacing }), answer({ sentAt: T + 4980, answeredAt: T + 5000 }), S).spacing).toEqual(spacing);
		expect(afterAnswer(limitWith({ spacing }), answer({ sentAt: T + 9980, answeredAt: T + 10_000 }), S).spacing).toBeUndefined();
		const rested = afterIdle(limitWith({ spacing }), T + 1000, T + 3_601_000, S);
		expect(spacedAt(rested.spacing, T + 3_601_000, S)).toBeCloseTo(10, 9);
	});

	/**
	 * A client with work always waiting, through the pure decisions alone, against a service that takes
	 * `perSecond` requests in any second (a refusal's Retry-After: when the oldest of them leaves it, in
	 * whole seconds) and answers each after `rttMs`. It starts at a limit of 12 (a round proved it) with a
	 * spacing at that rate whose time is over at T, as a run does a minute into using what an earlier one
	 * learned; the refusals after T.
	 */
	function refusalsAfterTheSpacing(settings: LimitSettings, perSecond: number, rttMs: number): { refused: number; limit: ServiceLimit } {
		let limit = limitWith({ limit: 12, phase: 'steady', provenLimit: 12, cutAt: T - 10_000, spacing: { intervalMs: 1000 / (perSecond * settings.rateMargin), until: T } });
		const taken: number[] = [];
		const out: Array<{ sentAt: number; inFlight: number; retryAfterMs?: number }> = [];
		let dueAt = 0;
		let refused = 0;
		for (let now = T - 5000; now < T + 10_000; ) {
			const sendAt = admits(limit, out.length) ? nextSendAt(limit, dueAt, now, true, settings) : Infinity;
			if (out.length > 0 && out[0].sentAt + rttMs <= sendAt) {
				const sent = out.shift()!;
				now = sent.sentAt + rttMs;
				const signal = sent.retryAfterMs === undefined ? 'answered' : 'refused';
				limit = afterAnswer(limit, { sentAt: sent.sentAt, answeredAt: now, inFlight: sent.inFlight, inFlightAtAnswer: out.length + 1, signal }, settings);
				if (sent.retryAfterMs !== undefined) limit = pausedUntil(limit, now + sent.retryAfterMs);
				continue;
			}
			now = sendAt;
			while (taken.length > 0 && taken[0] <= now - 1000) taken.shift();
			const retryAfterMs = taken.length < perSecond ? undefined : 1000 * Math.max(1, Math.ceil((taken[0] + 1000 - now) / 1000));
			if (retryAfterMs === undefined) taken.push(now);
			else if (now >= T) refused++;
			out.push({ sentAt: now, inFlight: out.length + 1, retryAfterMs });
			dueAt = dueAfter(limit, dueAt, now, settings);
		}
		return { refused, limit };
	}

	it.each([
		[20, 20],
		[50, 20],
		[120, 20],
		[300, 5],
	])('met by a service that still takes %s a second (answers in %s ms): refused twice at most, and the refusal teaches the rate again', (perSecond, rttMs) => {
		const { refused, limit } = refusalsAfterTheSpacing(S, perSecond, rttMs);
		expect(refused).toBeGreaterThan(0);
		expect(refused).toBeLessThanOrEqual(2);
		expect(limit.spacing!.until).toBeGreaterThan(T + 60_000);
		const spacedPerSecond = 1000 / limit.spacing!.intervalMs;
		// About the margin below the service's rate, and under it.
		expect(spacedPerSecond).toBeGreaterThan(perSecond * S.rateMargin * 0.9);
		expect(spacedPerSecond).toBeLessThan(perSecond);
		// Dropped at once, it leaves the limit of 12 to send a burst that the service refuses in part.
		expect(refusalsAfterTheSpacing({ ...S, spacingDoublings: 0 }, perSecond, rttMs).refused).toBeGreaterThan(refused + 2);
	});
});

describe('turnsOneAtATime', () => {
	const ceiling = { level: 12, until: T + 1000 };
	const spacing = { intervalMs: 25, until: T + 1000 };
	const refusedAt = T - 59_000;
	it.each<[string, Partial<ServiceLimit>, boolean, boolean]>([
		['a first run, the limit growing from the start: one at a time', { limit: 24 }, true, true],
		['a first run after a refusal taught a ceiling: one at a time', { limit: 12, phase: 'steady', ceiling, refusedAt }, true, true],
		['a first run after a refusal taught a spacing: one at a time', { limit: 12, phase: 'steady', spacing, refusedAt }, true, true],
		['a first run after a refusal that taught nothing (unexplained): one at a time', { limit: 26, phase: 'steady', refusedAt }, true, true],
		['a first run after a cut for slow answers: all at once', { limit: 80, phase: 'steady' }, true, false],
		['a first run a minute after its last refusal: all at once', { limit: 12, phase: 'steady', refusedAt: T - 60_000 }, true, false],
		['a first run at the most the limit allows: all at once', { limit: 100 }, true, false],
		['a later run: all at once', { limit: 24 }, false, false],
		['a later run with a ceiling in force: all at once', { limit: 12, phase: 'steady', ceiling, refusedAt }, false, false],
	])('%s', (_, changes, firstRun, expected) => {
		expect(turnsOneAtATime(limitWith(changes), firstRun, T, S)).toBe(expected);
	});

	it('a first run refused with few others out (no ceiling, no spacing) goes on one at a time: the burst after the Retry-After is read as it goes', () => {
		const refused = afterAnswer(
			limitWith({ limit: 28, provenLimit: 15, mostPerSecond: { answers: 95, at: T } }),
			answer({ inFlight: 8, inFlightAtAnswer: 8, signal: 'refused' }),
			S,
		);
		expect(refused).toMatchObject({ phase: 'steady', ceiling: undefined, spacing: undefined });
		expect(turnsOneAtATime(refused, true, T + 1100, S)).toBe(true);
	});
});

describe('ServiceLimiter: turns freed together', () => {
	/** With 8 items started and 8 waiting, ends the 8 at once: how many of the waiting start before a timer can run. */
	async function startedBeforeATimer(limiter: ServiceLimiter): Promise<number> {
		const first = await Promise.all(Array.from({ length: 8 }, () => limiter.admit()));
		const started: number[] = [];
		const waiting = Array.from({ length: 8 }, (_, i) => limiter.admit().then((release) => (started.push(i), release)));
		for (const release of first) release();
		// Promises settle before any timer runs.
		for (let k = 0; k < 20; k++) await Promise.resolve();
		const before = started.length;
		for (const release of await Promise.all(waiting)) release();
		expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		return before;
	}

	it('in a first run, one per timer, in the order asked; all at once in the run after it', async () => {
		const limiter = new ServiceLimiter();
		expect(await startedBeforeATimer(limiter)).toBe(1);
		// A request sent, then the service left unused: the next run starts from what this one learned.
		(await limiter.send(true))(200);
		(await limiter.admit())();
		// The last turn handed out one at a time leaves its timer to run out first.
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(await startedBeforeATimer(limiter)).toBe(8);
	});
});

describe('ServiceLimiter: a pause beyond what a request may wait', () => {
	it('sends nothing and says how long the pause lasts; within it, waits', async () => {
		const limiter = new ServiceLimiter();
		limiter.pause(5_000);
		const held = await limiter.send(true, 2_000).catch((thrown: unknown) => thrown);
		expect(held).toBeInstanceOf(PausedTooLong);
		expect((held as PausedTooLong).waitMs).toBeGreaterThan(4_900);
		expect((held as PausedTooLong).waitMs).toBeLessThanOrEqual(5_000);
		// A fixed setting's request (versions 1-3) is held the same way.
		await expect(limiter.send(false, 2_000)).rejects.toBeInstanceOf(PausedTooLong);
		// Nothing was counted in flight: the next request has a place at once once the pause is short enough.
		const short = new ServiceLimiter();
		short.pause(30);
		const before = Date.now();
		(await short.send(true, 2_000))(200);
		expect(Date.now() - before).toBeGreaterThanOrEqual(25);
	});

	it('a request already waiting in line is held once a longer pause begins, and its place goes to the next', async () => {
		const limiter = new ServiceLimiter();
		// The start's limit in flight, so the next two wait in line.
		const out = await Promise.all(Array.from({ length: LIMIT_SETTINGS.initial }, () => limiter.send(true)));
		const patient = limiter.send(true, 60_000);
		const hasty = limiter.send(true, 100).catch((thrown: unknown) => thrown);
		limiter.pause(300);
		out[0](200);
		expect(await hasty).toBeInstanceOf(PausedTooLong);
		// The one that may wait longer waits out the pause in its place, not lost from the line.
		const settled = await Promise.race([patient.then(() => 'sent'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 50))]);
		expect(settled).toBe('waiting');
		(await patient)(200);
		for (const report of out.slice(1)) report(200);
	});
});

describe('afterIdle', () => {
	const HOUR = 3_600_000;
	const ceiling = { level: 4, until: T + 30_000 };
	const spacing = { intervalMs: 25, until: T + 30_000 };
	// Unused from T to T + HOUR.
	it.each<[string, Partial<ServiceLimit>, Partial<ServiceLimit>]>([
		['a ceiling in force when the service went unused holds as much longer', { ceiling }, { ceiling: { level: 4, until: T + 30_000 + HOUR } }],
		['a spacing likewise', { spacing }, { spacing: { intervalMs: 25, until: T + 30_000 + HOUR } }],
		['one that had ended before is not brought back (a spacing: once dropped)', { ceiling: { level: 4, until: T - 1 }, spacing: { intervalMs: 25, until: T - 10_000 } }, { ceiling: undefined, spacing: undefined }],
		['a spacing whose time was over, its rate growing, resumes where it was', { spacing: { intervalMs: 25, until: T - 1 } }, { spacing: { intervalMs: 25, until: T - 1 + HOUR } }],
		['a pause the service asked for ends when it said', { pausedUntil: T + 1000 }, { pausedUntil: T + 1000 }],
		['the limit and what it proved stay', { limit: 37.5, phase: 'steady', provenLimit: 30 }, { limit: 37.5, phase: 'steady', provenLimit: 30 }],
		['a limit cut below the start by 503s or a queue is back at the start', { limit: 1.3, phase: 'steady' }, { limit: S.initial, phase: 'steady' }],
		['...but not past a ceiling still in force', { limit: 2, phase: 'steady', ceiling }, { limit: 4, ceiling: { level: 4, until: T + 30_000 + HOUR } }],
		['...nor when the ceiling is below the limit', { limit: 3.5, phase: 'steady', ceiling: { level: 3, until: T + 30_000 } }, { limit: 3.5 }],
		['the lowest round trip stands for as much longer (its window ages only while used)', { minRttMs: 20, minRttSince: T - 40_000 }, { minRttMs: 20, minRttSince: T - 40_000 + HOUR }],
	])('%s', (_, before, expected) => {
		expect(afterIdle(limitWith(before), T, T + HOUR, S)).toMatchObject(expected);
	});

	it('a cut limit stays cut after less than a minute unused (a pause between two items of one run)', () => {
		expect(afterIdle(limitWith({ limit: 1.3, phase: 'steady' }), T, T + S.minRttWindowMs - 1, S)).toMatchObject({ limit: 1.3 });
		expect(afterIdle(limitWith({ limit: 1.3, phase: 'steady' }), T, T + S.minRttWindowMs, S)).toMatchObject({ limit: S.initial });
	});

	it('nothing changes without time unused', () => {
		const limit = limitWith({ ceiling });
		expect(afterIdle(limit, T, T)).toBe(limit);
	});

	it("the next run's first answer, read late after a burst's starts, does not replace a lowest round trip with less than a minute of use; after a minute of use in all, one is measured afresh", () => {
		// Measured from T − 40 s, unused from T to T + HOUR: 20 s of use left.
		const rested = afterIdle(limitWith({ minRttMs: 20, minRttSince: T - 40_000 }), T, T + HOUR, S);
		const slow = (at: number) => answer({ sentAt: at - 246, answeredAt: at, clientStallsMs: [200] });
		expect(afterAnswer(rested, slow(T + HOUR + 19_000), S)).toMatchObject({ minRttMs: 20 });
		expect(afterAnswer(rested, slow(T + HOUR + 21_000), S)).toMatchObject({ minRttMs: 246, minRttSince: T + HOUR + 21_000 });
	});

	it('a ceiling carried over an hour unused still holds the limit at its level 50 s into the next use, and no longer after a minute of use in all', () => {
		// Learned at T − 10 s, unused from T to T + HOUR: 50 s of use left.
		let limit = afterIdle(limitWith({ limit: 4, phase: 'steady', ceiling: { level: 4, until: T + 50_000 } }), T, T + HOUR);
		const at = (ms: number) => answer({ sentAt: ms - 20, answeredAt: ms, inFlight: 4, inFlightAtAnswer: 4 });
		for (let k = 0; k < 20; k++) limit = afterAnswer(limit, at(T + HOUR + 49_000 + k), S);
		expect(limit.limit).toBe(4);
		for (let k = 0; k < 20; k++) limit = afterAnswer(limit, at(T + HOUR + 51_000 + k), S);
		expect(limit.limit).toBeGreaterThan(4);
	});
});

describe('itemsAtOnce', () => {
	const GET = { method: 'GET' as const };
	const POST = { method: 'POST' as const };
	const TABLE_AT_ONCE: Array<[string, Parallelism, typeof GET | typeof POST, ItemsAtOnce]> = [
		['version 1, 1 unless set', { fixed: 1 }, GET, { width: 1, limited: false }],
		['version 1 or 2 set to 8', { fixed: 8 }, POST, { width: 8, limited: false }],
		['version 2 unset, a read', { byRequest: true }, GET, { width: AUTO_REQUESTS_IN_PARALLEL, limited: false }],
		['version 2 unset, a create', { byRequest: true }, POST, { width: 1, limited: false }],
		['version 4 unset, a read', { adaptive: true }, GET, { width: MAX_REQUESTS_IN_PARALLEL, limited: true }],
		['version 4 unset, a create', { adaptive: true }, POST, { width: 1, limited: true }],
		['version 4 with a ceiling of 6, a read', { adaptive: true, ceiling: 6 }, GET, { width: 6, limited: true }],
		['version 4 with a ceiling of 6, a create', { adaptive: true, ceiling: 6 }, POST, { width: 6, limited: true }],
	];
	it.each(TABLE_AT_ONCE)('%s', (_, parallelism, request, expected) => {
		expect(itemsAtOnce(parallelism, request)).toEqual(expected);
	});
});

describe('the limiters this process keeps', () => {
	afterEach(() => forgetServiceLimiters());

	it.each<[string, Array<{ key: string; idleSince: number | undefined }>, number, string[]]>([
		['none idle too long, room enough: none', [{ key: 'a', idleSince: T - 1000 }, { key: 'b', idleSince: undefined }], 5, []],
		['idle longer than FORGET_AFTER_MS', [{ key: 'a', idleSince: T - FORGET_AFTER_MS - 1 }, { key: 'b', idleSince: T }], 5, ['a']],
		[
			'over the most: the longest idle first, never one in use',
			[
				{ key: 'a', idleSince: undefined },
				{ key: 'b', idleSince: T - 300 },
				{ key: 'c', idleSince: T - 200 },
				{ key: 'd', idleSince: T - 100 },
			],
			2,
			['b', 'c'],
		],
		['over the most with every one in use: none', [{ key: 'a', idleSince: undefined }, { key: 'b', idleSince: undefined }], 1, []],
	])('toForget: %s', (_, limiters, max, expected) => {
		expect(toForget(limiters, T, max)).toEqual(expected);
	});

	it('one limiter per key, the same one while it is used, a fresh one after FORGET_AFTER_MS idle', () => {
		const first = serviceLimiter('service A', T);
		expect(serviceLimiter('service A', T + 1000)).toBe(first);
		expect(serviceLimiter('service B', T + 1000)).not.toBe(first);
		expect(serviceLimiterCount()).toBe(2);
		const idleSince = first.idleSince()!;
		expect(serviceLimiter('service A', idleSince + FORGET_AFTER_MS + 1)).not.toBe(first);
	});

	it('keeps at most MAX_SERVICES, forgetting the longest idle', async () => {
		const { MAX_SERVICES } = await import('../../shared/transport/serviceLimiter');
		for (let k = 0; k < MAX_SERVICES + 20; k++) serviceLimiter(`service ${k}`, T + k);
		expect(serviceLimiterCount()).toBe(MAX_SERVICES);
	});
});
