/**
 * How late this process reads what arrives while requests are out: the client's own lateness. A process
 * busy with its own work (starting items, reading answers, other executions, a garbage collection) or short
 * of CPU reads every answer late, all of them together, and a round trip measured then looks like a queue at
 * the service. A timer due every PROBE_MS tells it: how long after it was due it fired is how long the
 * process could read nothing. One probe for the process (lateness is the process's, whatever service a
 * request went to), running only while a request is out.
 */
import { sleep } from 'n8n-workflow';

/** How often the probe looks: a stretch of lateness shorter than this may go unseen, which only discounts less. */
export const PROBE_MS = 5;
/** The probe's late firings kept: the newest ones, a few seconds' worth even when every firing is late. */
const KEPT = 1024;

/** Late firings, oldest first: when each fired and how late it was. */
const firings: Array<{ at: number; lateMs: number }> = [];
let requestsOut = 0;
let probing = false;

/** Counts a request out until the returned function is called; the probe runs while any is out. */
export function watchWhileOut(): () => void {
	requestsOut++;
	if (!probing) void probe();
	let done = false;
	return () => {
		if (done) return;
		done = true;
		requestsOut--;
	};
}

async function probe(): Promise<void> {
	probing = true;
	try {
		while (requestsOut > 0) {
			const dueAt = Date.now() + PROBE_MS;
			await sleep(PROBE_MS);
			const at = Date.now();
			// Once no request is out, a lateness concerns no answer: a request sent later counts from after it.
			if (at > dueAt && requestsOut > 0) record(at, at - dueAt);
		}
	} finally {
		probing = false;
	}
}

function record(at: number, lateMs: number): void {
	firings.push({ at, lateMs });
	if (firings.length > KEPT) firings.splice(0, firings.length - KEPT);
}

/**
 * Each stretch the process could read nothing between `from` and `to` that lasted longer than `longerThanMs`
 * (the probe's firings then, each as late as its stretch was long; a stretch begun before `from` counts only
 * from it). A request out then, or its answer, may have waited that long for the client rather than for the
 * service, once for each stretch: one may have held up its sending, another its answer. (A clock set forward
 * reads as a stretch too; the limit never counts a round trip as shorter than the lowest one, so that costs
 * one answer's weight at most.)
 */
export function stallsBetween(from: number, to: number, longerThanMs: number): number[] {
	const stalls: number[] = [];
	for (let i = firings.length - 1; i >= 0 && firings[i].at >= from; i--) {
		const { at, lateMs } = firings[i];
		const ms = Math.min(lateMs, at - from);
		if (at <= to && ms > longerThanMs) stalls.push(ms);
	}
	return stalls;
}
