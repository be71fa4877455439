/**
 * One limiter per service and credential, shared by every item of a run and by
 * every run of this n8n process (a queue-mode worker runs several executions at
 * once). The decisions are concurrencyLimit.ts's; this keeps the count of items
 * started and of requests in flight, makes items wait their turn (in the order
 * they asked; in its first run one turn per timer while the decisions say so),
 * holds every send back while the service asked to wait
 * (Retry-After), keeps adaptive sends (version 4) under the limit and spaces
 * them while a rate is learned, and reports each answer of an adaptive send
 * with how late the client itself was meanwhile (clientLateness.ts).
 *
 * The limiters live in this module, one per service and credential: at most
 * MAX_SERVICES (more only while more than that are in use at once: a limiter
 * in use is never forgotten), and a service unused for FORGET_AFTER_MS (a day and an hour, so
 * that a daily schedule's run starts from what the last one learned) starts
 * afresh: what was learned of it may no longer be true.
 */
import { sleep } from 'n8n-workflow';

import { stallsBetween, watchWhileOut } from './clientLateness';
import { admits, afterAnswer, afterIdle, dueAfter, nextSendAt, pausedUntil, signalOf, startingLimit, turnsOneAtATime, type ServiceLimit } from './concurrencyLimit';
import { credentialFor, type RunCredential } from './serviceApis';
import type { Context, ServiceApiName } from './types';

export const MAX_SERVICES = 100;
export const FORGET_AFTER_MS = 25 * 3_600_000;

/** Ends an item's turn. */
export type Release = () => void;

/**
 * A pause the service asked for (a 429's Retry-After, to this request or another with the same credential)
 * ends later than this request may wait: it was not sent.
 */
export class PausedTooLong extends Error {
	constructor(
		/** How much longer the pause lasts. */
		readonly waitMs: number,
	) {
		super(`Every request to the service is held for ${waitMs} ms more`);
		this.name = 'PausedTooLong';
	}
}

/** Reports how an attempt ended: its HTTP status, or undefined when it got none (a network failure). */
export type Report = (status: number | undefined) => void;

export class ServiceLimiter {
	private limit: ServiceLimit;
	/** Items started and not yet done (admit). */
	private admitted = 0;
	/** Requests sent and not yet answered (send). */
	private inFlight = 0;
	/** When the next send is due on a learned spacing's schedule (dueAfter). */
	private dueAt = 0;
	/** Items waiting for their turn, first come first served. */
	private readonly waiting: Array<() => void> = [];
	/** Adaptive requests of items already started, waiting for the requests in flight to fall below the limit (send). */
	private readonly sendsWaiting: Array<{ go: () => void; held: (error: PausedTooLong) => void; maxWaitMs: number }> = [];
	private usedAt: number;
	/** True until the service is left unused after a request sent adaptively: the first run, which meets the service knowing nothing of it. */
	private firstRun = true;
	/** Whether an answer to a request sent adaptively was heard. A fixed setting's requests (versions 1–3) wait out pauses and count in flight, but teach the limit nothing: sent regardless of it, their refusals would only lower a ceiling further at every burst. */
	private taught = false;
	/** A turn handed out one at a time: the next waits for this timer. */
	private handingOut = false;

	constructor(now = Date.now()) {
		this.limit = startingLimit(now);
		this.usedAt = now;
	}

	/** Since when nothing has been started, sent or waited for; undefined while in use. */
	idleSince(): number | undefined {
		return this.admitted === 0 && this.inFlight === 0 && this.waiting.length === 0 && this.sendsWaiting.length === 0 ? this.usedAt : undefined;
	}

	/** Marks the service used at `now`; after a spell unused, what was learned holds as much longer (afterIdle). */
	private use(now: number): void {
		const idleSince = this.idleSince();
		if (idleSince !== undefined) {
			this.limit = afterIdle(this.limit, idleSince, now);
			if (this.taught) this.firstRun = false;
		}
		this.usedAt = now;
	}

	/** Resolves when one more item may start, in the order asked; the item calls the Release when it is done. */
	async admit(): Promise<Release> {
		this.use(Date.now());
		if (this.waiting.length === 0 && admits(this.limit, this.admitted)) {
			this.admitted++;
		} else {
			// Counted as admitted by wake(), which hands the turn over.
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		}
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.admitted--;
			this.usedAt = Date.now();
			this.wake();
		};
	}

	/** Starts waiting items while the limit allows: all at once, or one per timer (turnsOneAtATime). */
	private wake(): void {
		if (this.handingOut) return;
		// Asked once: an item handed its turn starts later (its promise settles after this), so nothing here changes the limit.
		const oneAtATime = turnsOneAtATime(this.limit, this.firstRun, Date.now());
		while (this.waiting.length > 0 && admits(this.limit, this.admitted)) {
			this.admitted++;
			this.waiting.shift()!();
			if (oneAtATime) {
				this.handingOut = true;
				void sleep(0).then(() => {
					this.handingOut = false;
					this.wake();
				});
				return;
			}
		}
	}

	/**
	 * Waits until a request may be sent: after a pause the service asked for
	 * (Retry-After), and, for a request sent `adaptive`ly (node version 4), the
	 * learned spacing and a place under the limit. Counts it in flight and
	 * returns what reports its end. Throws PausedTooLong, sending nothing, when
	 * the pause outlasts `maxWaitMs` (its item's Max Wait), now or once it begins.
	 *
	 * The limit holds requests, not only items: items started before a cut (a
	 * burst met by a limit that fell) would otherwise send their retries all at
	 * once after the pause, be refused again, and fail once their attempts ran out.
	 */
	async send(adaptive: boolean, maxWaitMs = Infinity): Promise<Report> {
		this.use(Date.now());
		/** Whether it waited in line: it goes back to the front if it still has no place (one that came since may have taken it). */
		let waited = false;
		for (;;) {
			const now = Date.now();
			const held = this.heldPast(maxWaitMs, now);
			if (held) {
				// Its place in line, if it was woken for one, goes to the next.
				this.wakeSends();
				throw held;
			}
			// Asked again after every wait: a pause may have begun or grown meanwhile.
			const at = nextSendAt(this.limit, this.dueAt, now, adaptive);
			if (at > now) {
				await sleep(at - now);
			} else if (adaptive && ((!waited && this.sendsWaiting.length > 0) || !admits(this.limit, this.inFlight))) {
				await new Promise<void>((go, held) => {
					const waiter = { go, held, maxWaitMs };
					if (waited) this.sendsWaiting.unshift(waiter);
					else this.sendsWaiting.push(waiter);
				});
				waited = true;
			} else {
				break;
			}
		}
		const sentAt = Date.now();
		this.dueAt = dueAfter(this.limit, this.dueAt, sentAt);
		this.usedAt = sentAt;
		const inFlight = ++this.inFlight;
		const stopWatching = adaptive ? watchWhileOut() : undefined;
		let reported = false;
		return (status) => {
			if (reported) return;
			reported = true;
			const answeredAt = Date.now();
			const inFlightAtAnswer = this.inFlight--;
			this.usedAt = answeredAt;
			if (stopWatching) {
				stopWatching();
				// Only stalls longer than the lowest round trip discount anything (afterAnswer); a round trip that becomes the lowest is measured whole.
				const clientStallsMs = stallsBetween(sentAt, answeredAt, this.limit.minRttMs ?? Infinity);
				this.limit = afterAnswer(this.limit, { sentAt, answeredAt, inFlight, inFlightAtAnswer, signal: signalOf(status), clientStallsMs });
				this.taught = true;
			}
			this.wakeSends();
			this.wake();
		};
	}

	/** Lets as many requests waiting in line go as the limit has room for, first come first served; each looks again (a pause may hold it). */
	private wakeSends(): void {
		for (let woken = 0; this.sendsWaiting.length > 0 && admits(this.limit, this.inFlight + woken); woken++) this.sendsWaiting.shift()!.go();
	}

	/** Holds back every send to the service for `waitMs` (a Retry-After), unless held back longer already; a request waiting in line that may not wait that long is held (PausedTooLong). */
	pause(waitMs: number): void {
		const now = Date.now();
		this.limit = pausedUntil(this.limit, now + waitMs);
		// Requests waiting in line that may not wait that long are held now, not when their turn comes.
		for (let k = this.sendsWaiting.length - 1; k >= 0; k--) {
			const held = this.heldPast(this.sendsWaiting[k].maxWaitMs, now);
			if (held) this.sendsWaiting.splice(k, 1)[0].held(held);
		}
	}

	/** The pause as PausedTooLong when it lasts more than `maxWaitMs` from `now`. */
	private heldPast(maxWaitMs: number, now: number): PausedTooLong | undefined {
		const left = this.limit.pausedUntil - now;
		return left > maxWaitMs ? new PausedTooLong(left) : undefined;
	}
}

/**
 * Which limiters to forget at `now`: every one idle for longer than
 * `forgetAfterMs`, and, while more than `max` would remain, the longest idle
 * ones. A limiter in use is never forgotten (its items hold it).
 */
export function toForget(
	limiters: Array<{ key: string; idleSince: number | undefined }>,
	now: number,
	max = MAX_SERVICES,
	forgetAfterMs = FORGET_AFTER_MS,
): string[] {
	const stale = limiters.filter((l) => l.idleSince !== undefined && now - l.idleSince > forgetAfterMs).map((l) => l.key);
	const staying = limiters.filter((l) => !stale.includes(l.key));
	const idle = staying.filter((l) => l.idleSince !== undefined).sort((a, b) => a.idleSince! - b.idleSince!);
	const over = Math.max(0, staying.length - max);
	return [...stale, ...idle.slice(0, over).map((l) => l.key)];
}

const limiters = new Map<string, ServiceLimiter>();

/** The limiter of one service (base URL) and credential; a new one when it has none, or was idle too long. */
export function serviceLimiter(key: string, now = Date.now()): ServiceLimiter {
	const found = limiters.get(key);
	const idleSince = found?.idleSince();
	if (found && (idleSince === undefined || now - idleSince <= FORGET_AFTER_MS)) return found;
	// Room for one more: below MAX_SERVICES once it is added.
	const others = [...limiters].filter(([k]) => k !== key).map(([k, l]) => ({ key: k, idleSince: l.idleSince() }));
	for (const gone of toForget(others, now, MAX_SERVICES - 1)) limiters.delete(gone);
	const limiter = new ServiceLimiter(now);
	limiters.set(key, limiter);
	return limiter;
}

/** How many services this process keeps a limiter for. */
export function serviceLimiterCount(): number {
	return limiters.size;
}

/** Forgets every service's limiter (a test bed starting each test afresh). */
export function forgetServiceLimiters(): void {
	limiters.clear();
}

/** The limiter key of a run's credential: its type and id (its name when it has none) and the service's base URL. */
function keyOf(run: RunCredential): string {
	const { type, id, name } = run.decrypted;
	return JSON.stringify([type, id || name, run.baseUrl]);
}

/** The limiter a run's requests to `api` share with every other run using the same credential. */
export function limiterOf(run: RunCredential): ServiceLimiter {
	return serviceLimiter(keyOf(run));
}

/** The limiter of the credential `api` uses in this run (read once per run, as apiRequest reads it). */
export async function limiterFor(ctx: Context, api: ServiceApiName): Promise<ServiceLimiter> {
	return limiterOf(await credentialFor(ctx, api));
}
