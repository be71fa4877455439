/**
 * The emulator's throttle (emulator/common/throttle.ts), decision by decision:
 * a request arriving at a time, with so many of its credential in flight or
 * taken in the last second, is refused (with its Retry-After) or taken (with
 * its latency); and the admin route's settings are checked.
 */
import { Throttle, throttleFromJson, type Arrival } from '../../emulator/common/throttle';

const T = 5_000_000;
const refusal = (arrival: Arrival | undefined) => (arrival && 'refuse' in arrival ? arrival.refuse : undefined);
const taken = (arrival: Arrival | undefined) => (arrival && 'take' in arrival ? arrival.take : undefined);

describe('Throttle', () => {
	it('is off until set: no decision at all', () => {
		expect(new Throttle().arrive('key:a', T)).toBeUndefined();
	});

	it('refuses a request arriving with maxInFlight of its credential in flight, Retry-After 1 s; takes it once one leaves', () => {
		const throttle = new Throttle();
		throttle.set({ maxInFlight: 2 });
		const first = taken(throttle.arrive('key:a', T))!;
		taken(throttle.arrive('key:a', T));
		expect(refusal(throttle.arrive('key:a', T))).toEqual({ retryAfterSeconds: 1 });
		// Another credential has its own count.
		expect(taken(throttle.arrive('key:b', T))).toBeDefined();
		first.leave();
		first.leave();
		expect(taken(throttle.arrive('key:a', T))).toBeDefined();
		expect(throttle.counts()).toEqual({ taken: 4, refused: 1, mostInFlight: 2 });
	});

	it('refuses a request arriving after maxPerSecond were taken in the last second, until the oldest leaves it', () => {
		const throttle = new Throttle();
		throttle.set({ maxPerSecond: 3 });
		for (const at of [T, T + 100, T + 200]) taken(throttle.arrive('key:a', at))!.leave();
		expect(refusal(throttle.arrive('key:a', T + 300))).toEqual({ retryAfterSeconds: 1 });
		expect(refusal(throttle.arrive('key:a', T + 999))).toEqual({ retryAfterSeconds: 1 });
		expect(taken(throttle.arrive('key:a', T + 1001))).toBeDefined();
		expect(throttle.counts()).toMatchObject({ taken: 4, refused: 2 });
	});

	it.each([
		['fixed latency', { latencyMs: 30 }, 5, 30],
		['up to capacity, the base latency', { latencyMs: 20, capacity: 4 }, 4, 20],
		['beyond capacity, in proportion to the requests in flight', { latencyMs: 20, capacity: 4 }, 8, 40],
		['beyond capacity, growth 2', { latencyMs: 20, capacity: 4, growth: 2 }, 8, 80],
	])('latency: %s', (_, settings, inFlight, delayMs) => {
		const throttle = new Throttle();
		throttle.set(settings);
		for (let k = 1; k < inFlight; k++) throttle.arrive('key:a', T);
		expect(taken(throttle.arrive('key:a', T))!.delayMs).toBe(delayMs);
	});

	it('set() counts afresh; reset() turns it off', () => {
		const throttle = new Throttle();
		throttle.set({ maxInFlight: 1 });
		throttle.arrive('key:a', T);
		throttle.arrive('key:a', T);
		expect(throttle.counts().refused).toBe(1);
		throttle.set({ maxInFlight: 5 });
		expect(throttle.counts()).toEqual({ taken: 0, refused: 0, mostInFlight: 0 });
		throttle.reset();
		expect(throttle.current).toBeNull();
		expect(throttle.arrive('key:a', T)).toBeUndefined();
	});
});

describe('throttleFromJson', () => {
	it('takes the known settings', () => {
		expect(throttleFromJson({ maxInFlight: 4, latencyMs: 20, wayBackMs: 40, retryAfterSeconds: 2 })).toEqual({ maxInFlight: 4, latencyMs: 20, wayBackMs: 40, retryAfterSeconds: 2 });
	});

	it.each([
		[null, 'throttle settings must be a JSON object'],
		[[1], 'throttle settings must be a JSON object'],
		[{ maxInFlight: 0 }, 'maxInFlight must be a number of at least 1'],
		[{ latencyMs: '20' }, 'latencyMs must be a number of at least 0'],
		[{ limit: 4 }, 'unknown throttle setting limit'],
	])('refuses %j', (input, message) => {
		expect(() => throttleFromJson(input)).toThrow(message);
	});
});
