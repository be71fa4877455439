/**
 * A throttling service, to prove that a client finds limits nobody told it:
 * it answers 429 with Retry-After to a request that arrives while
 * `maxInFlight` requests of the same credential are in flight, or after
 * `maxPerSecond` of them were taken in the last second; and it answers later
 * the more requests are in flight (every request takes `latencyMs`, multiplied
 * beyond `capacity` in flight by (in flight / capacity) to the power `growth`);
 * and, with `wayBackMs`, its answers take that long on their way back, the
 * request's slot freed as the service is done with it, so the client counts
 * more requests in flight than the service holds, as a client too busy to read
 * its answers on time does.
 * Nothing of the settings shows in an answer but the 429s and the time taken.
 *
 * Off until set (`PUT /__emulator/throttle`, or `emulator.throttle.set()` in
 * process); a reset turns it off. Wired into the server in one place
 * (registerThrottle); its admin routes, like every /__emulator route, are never
 * throttled themselves.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { apiErrorBody, apiOf } from './apiErrors';
import { credentialOf } from './rateLimit';
import { isAdminPath, splitUrl } from './requestLog';

export interface ThrottleSettings {
	/** Refuse a request arriving while this many of its credential are in flight. */
	maxInFlight?: number;
	/** Refuse a request arriving when this many of its credential were taken in the last second. */
	maxPerSecond?: number;
	/** Every request taken waits this long before it is handled (ms). */
	latencyMs?: number;
	/** Beyond this many in flight, latency grows: latencyMs × (in flight / capacity) ^ growth. */
	capacity?: number;
	/** How steeply latency grows beyond capacity (1: in proportion to the requests in flight). */
	growth?: number;
	/** Every answer, a refusal too, reaches the client this long after the service is done with its request, whose slot is free meanwhile (ms). */
	wayBackMs?: number;
	/** Retry-After of a refusal for requests at once (default 1 s); a per-second refusal says when the oldest request leaves the second, rounded up. */
	retryAfterSeconds?: number;
}

export interface ThrottleCounts {
	/** Requests taken (not refused). */
	taken: number;
	/** Requests answered 429. */
	refused: number;
	/** Most requests of one credential in flight at once. */
	mostInFlight: number;
}

/** What the throttle does with a request on arrival. */
export type Arrival = { refuse: { retryAfterSeconds: number } } | { take: { delayMs: number; leave: () => void } };

const WINDOW_MS = 1000;

export class Throttle {
	private settings: ThrottleSettings | null = null;
	private readonly inFlight = new Map<string, number>();
	private readonly takenAt = new Map<string, number[]>();
	private counted: ThrottleCounts = { taken: 0, refused: 0, mostInFlight: 0 };

	get current(): ThrottleSettings | null {
		return this.settings;
	}

	/** Sets the throttle (null turns it off) and starts counting afresh. */
	set(settings: ThrottleSettings | null): void {
		this.settings = settings && { ...settings };
		this.counted = { taken: 0, refused: 0, mostInFlight: 0 };
		this.takenAt.clear();
	}

	reset(): void {
		this.set(null);
	}

	counts(): ThrottleCounts {
		return { ...this.counted };
	}

	/** The decision for a request of `credential` arriving at `now`; undefined when the throttle is off. */
	arrive(credential: string, now: number): Arrival | undefined {
		const settings = this.settings;
		if (!settings) return undefined;
		const inFlight = this.inFlight.get(credential) ?? 0;
		if (settings.maxInFlight !== undefined && inFlight >= settings.maxInFlight) {
			this.counted.refused += 1;
			return { refuse: { retryAfterSeconds: settings.retryAfterSeconds ?? 1 } };
		}
		const taken = (this.takenAt.get(credential) ?? []).filter((at) => at > now - WINDOW_MS);
		this.takenAt.set(credential, taken);
		if (settings.maxPerSecond !== undefined && taken.length >= settings.maxPerSecond) {
			this.counted.refused += 1;
			return { refuse: { retryAfterSeconds: Math.max(1, Math.ceil((taken[0] + WINDOW_MS - now) / 1000)) } };
		}
		taken.push(now);
		const inFlightNow = inFlight + 1;
		this.inFlight.set(credential, inFlightNow);
		this.counted.taken += 1;
		this.counted.mostInFlight = Math.max(this.counted.mostInFlight, inFlightNow);
		const beyond = settings.capacity ? Math.max(1, inFlightNow / settings.capacity) ** (settings.growth ?? 1) : 1;
		let left = false;
		const leave = () => {
			if (left) return;
			left = true;
			const remaining = (this.inFlight.get(credential) ?? 1) - 1;
			if (remaining > 0) this.inFlight.set(credential, remaining);
			else this.inFlight.delete(credential);
		};
		return { take: { delayMs: (settings.latencyMs ?? 0) * beyond, leave } };
	}
}

const NUMBERS: Array<keyof ThrottleSettings> = ['maxInFlight', 'maxPerSecond', 'latencyMs', 'capacity', 'growth', 'wayBackMs', 'retryAfterSeconds'];

/** Settings from the admin route's JSON: known keys only, each a number ≥ 0 (maxInFlight, maxPerSecond and capacity ≥ 1). */
export function throttleFromJson(input: unknown): ThrottleSettings {
	if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('throttle settings must be a JSON object');
	const settings: ThrottleSettings = {};
	for (const [key, value] of Object.entries(input)) {
		if (!NUMBERS.includes(key as keyof ThrottleSettings)) throw new Error(`unknown throttle setting ${key}`);
		const least = key === 'maxInFlight' || key === 'maxPerSecond' || key === 'capacity' ? 1 : 0;
		if (typeof value !== 'number' || !Number.isFinite(value) || value < least) throw new Error(`${key} must be a number of at least ${least}`);
		settings[key as keyof ThrottleSettings] = value;
	}
	return settings;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The throttle's hook on every request of the service, and its admin routes (`/__emulator/throttle`). */
export function registerThrottle(app: FastifyInstance, throttle: Throttle): void {
	const leaveOf = new WeakMap<FastifyRequest, () => void>();
	app.addHook('preHandler', async (request, reply) => {
		if (isAdminPath(request.url)) return undefined;
		const arrival = throttle.arrive(credentialOf(request), Date.now());
		if (!arrival) return undefined;
		if ('refuse' in arrival) {
			const { contentType, body } = apiErrorBody(apiOf(splitUrl(request.url).path), 429, 'Too many requests');
			reply.code(429).header('retry-after', String(arrival.refuse.retryAfterSeconds)).type(contentType).send(body);
			return reply;
		}
		// In flight until its answer is sent or its connection is gone.
		reply.raw.once('close', arrival.take.leave);
		leaveOf.set(request, arrival.take.leave);
		if (arrival.take.delayMs > 0) await sleep(arrival.take.delayMs);
		return undefined;
	});
	app.addHook('onSend', async (request, _reply, payload) => {
		const wayBackMs = isAdminPath(request.url) ? 0 : (throttle.current?.wayBackMs ?? 0);
		if (wayBackMs > 0) {
			leaveOf.get(request)?.();
			await sleep(wayBackMs);
		}
		return payload;
	});

	const P = '/__emulator/throttle';
	const state = () => ({ settings: throttle.current, ...throttle.counts() });
	app.get(P, async () => state());
	app.put(P, async (request, reply) => {
		try {
			throttle.set(throttleFromJson(request.body));
		} catch (error) {
			return reply.code(400).send({ error: 'bad_request', message: (error as Error).message });
		}
		return state();
	});
	app.delete(P, async (_request, reply) => {
		throttle.reset();
		return reply.code(204).send();
	});
}
