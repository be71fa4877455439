/**
 * The client's own lateness (shared/transport/clientLateness.ts), measured on
 * this process's real timers: the loop is held up by a busy wait, which the
 * probe must see while a request is out, and must not be looking for after;
 * and a service's limiter told of it (shared/transport/serviceLimiter.ts): a
 * round of answers read late by a busy client is no queue at the service.
 */
import { sleep } from 'n8n-workflow';

import { PROBE_MS, stallsBetween, watchWhileOut } from '../../shared/transport/clientLateness';
import { ServiceLimiter, type Report } from '../../shared/transport/serviceLimiter';
import { busyFor } from '../../testbed/clock';

describe('clientLateness', () => {
	it('a process held up for 60 ms while a request is out was late by about as much: the probe due meanwhile fired that late', async () => {
		const start = Date.now();
		const done = watchWhileOut();
		await sleep(2 * PROBE_MS);
		const from = Date.now();
		busyFor(60);
		await sleep(2 * PROBE_MS);
		const to = Date.now();
		done();
		expect(stallsBetween(from, to, 0).filter((ms) => ms >= 60 - PROBE_MS)).toHaveLength(1);
		// Before the hold-up, within this test's own span, the process read everything about on time: the hold-up is not counted before it happened.
		expect(stallsBetween(start, from - 1, 0).filter((ms) => ms >= 60 - PROBE_MS)).toEqual([]);
	});

	it('held up twice while a request is out, once as it went out and once as its answer came: both stalls, each as long as it lasted after the request went out, and none as short as asked to leave out', async () => {
		const done = watchWhileOut();
		await sleep(2 * PROBE_MS);
		busyFor(100);
		const from = Date.now();
		busyFor(50);
		await sleep(2 * PROBE_MS);
		busyFor(60);
		await sleep(2 * PROBE_MS);
		const to = Date.now();
		done();
		const stalls = stallsBetween(from, to, 40);
		expect(stalls).toHaveLength(2);
		// The first began 100 ms before the request went out: only its 50 ms after count.
		expect(Math.min(...stalls)).toBeGreaterThanOrEqual(50);
		expect(Math.min(...stalls)).toBeLessThan(100);
		expect(Math.max(...stalls)).toBeGreaterThanOrEqual(60 - PROBE_MS);
	});

	it('with no request out the probe stops: a hold-up then counts for nothing', async () => {
		const done = watchWhileOut();
		done();
		done(); // a second call does not count a request out twice
		await sleep(3 * PROBE_MS);
		const from = Date.now();
		busyFor(40);
		await sleep(3 * PROBE_MS);
		expect(stallsBetween(from, Date.now(), 0)).toEqual([]);
	});
});

/** How many items the limiter lets start at once (at most 100): each is done as soon as it is counted. */
async function allowedAtOnce(limiter: ServiceLimiter): Promise<number> {
	const started: Array<() => void> = [];
	let counting = true;
	const items = Array.from({ length: 100 }, () => limiter.admit().then((done) => (counting ? started.push(done) : done())));
	await sleep(1);
	counting = false;
	const allowed = started.length;
	started.forEach((done) => done());
	await Promise.all(items);
	return allowed;
}

/** `count` adaptive requests sent at once (under the limit, none waits). */
const sendAll = (limiter: ServiceLimiter, count: number): Promise<Report[]> => Promise.all(Array.from({ length: count }, () => limiter.send(true)));

describe('ServiceLimiter: a round of answers 10 times as slow as the first', () => {
	/** A limiter that saw a round of answers take 20 ms, then two rounds at its grown limit take about 200 ms each, `busy` (the client held up) or at the service; how many it let start at once before that round and after. */
	async function allowedAroundSlowRound(busy: boolean): Promise<{ before: number; after: number }> {
		const limiter = new ServiceLimiter();
		const first = await sendAll(limiter, await allowedAtOnce(limiter));
		await sleep(20);
		first.forEach((report) => report(200));
		const before = await allowedAtOnce(limiter);
		// Two rounds: the first of them also ends the round the fast answers began (a round is as many answers as the limit).
		for (let slow = 0; slow < 2; slow++) {
			const round = await sendAll(limiter, await allowedAtOnce(limiter));
			if (busy) busyFor(200);
			else await sleep(200);
			// Read after the timers due meanwhile have fired, as a process reads what arrived while it was busy.
			await sleep(1);
			round.forEach((report) => report(200));
		}
		const after = await allowedAtOnce(limiter);
		await sleep(3 * PROBE_MS);
		return { before, after };
	}

	it('read late by a client held up meanwhile: not a queue at the service, the limit grows on', async () => {
		const { before, after } = await allowedAroundSlowRound(true);
		expect(before).toBeGreaterThan(8);
		expect(after).toBeGreaterThan(before);
	});

	it('as slow at the service, the client idle meanwhile: a queue, the limit is cut', async () => {
		const { before, after } = await allowedAroundSlowRound(false);
		expect(before).toBeGreaterThan(8);
		expect(after).toBeLessThan(before);
	});
});
