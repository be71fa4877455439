/**
 * Replay protection of the trigger, as pure functions of the event and the
 * clock, and the table of events already let through. An event is refused when
 * its own timestamp is further from the n8n server's clock than the window,
 * either way (clocks drift, so a little of the future is tolerated too), and
 * when an identical event was let through within the window: the service's
 * events carry no id, so an event is known by a hash of all of it (its
 * replyToken, message id, time and content included).
 *
 * The table lives in the memory of the n8n process that receives the webhook,
 * not in the workflow's static data: n8n would write static data to its
 * database on every call, and concurrent calls would overwrite each other's
 * saves (each saves the copy it loaded), losing events and holding database
 * connections under load. In memory, checking and remembering an event happen
 * in one step of the event loop, so copies arriving at the same moment are
 * caught too. What a process does not share: see docs/security.md.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** At most this many events are remembered per trigger; beyond it those ending first are forgotten first. */
export const SEEN_EVENTS_MAX = 5000;

/** An event's key: SHA-256 of its JSON, base64url, 22 characters (128 bits). */
export function eventKey(event: IDataObject): string {
	return createHash('sha256').update(JSON.stringify(event)).digest('base64url').slice(0, 22);
}

export type Freshness = 'fresh' | 'stale' | 'undated';

/** Whether an event dated `eventMs` (null when it has no readable time) is within `windowMs` of `nowMs`. */
export function freshness(eventMs: number | null, nowMs: number, windowMs: number): Freshness {
	if (eventMs === null) return 'undated';
	return Math.abs(nowMs - eventMs) <= windowMs ? 'fresh' : 'stale';
}

/** Events let through, per trigger (workflow and node), each with the time until which it is remembered. */
export class SeenEvents {
	private readonly triggers = new Map<string, Map<string, number>>();

	constructor(private readonly max = SEEN_EVENTS_MAX) {}

	/**
	 * Remembers `key` for `trigger` until `until` and says true, or says false when
	 * it is remembered already. Expired events are forgotten first.
	 */
	firstTime(trigger: string, key: string, nowMs: number, until: number): boolean {
		const seen = this.current(trigger, nowMs);
		if (seen.has(key)) return false;
		seen.set(key, until);
		if (seen.size > this.max) {
			// Entries share one window, so the earliest inserted ends first.
			const oldest = seen.keys().next().value;
			if (oldest !== undefined) seen.delete(oldest);
		}
		return true;
	}

	/** How many events are remembered for `trigger` now. */
	size(trigger: string, nowMs: number): number {
		return this.current(trigger, nowMs).size;
	}

	private current(trigger: string, nowMs: number): Map<string, number> {
		let seen = this.triggers.get(trigger);
		if (!seen) {
			seen = new Map();
			this.triggers.set(trigger, seen);
		}
		for (const [key, until] of seen) if (until <= nowMs) seen.delete(key);
		// Triggers with nothing remembered are dropped, so removed workflows leave nothing behind.
		for (const [name, events] of this.triggers) if (name !== trigger && events.size === 0) this.triggers.delete(name);
		return seen;
	}
}

/** The process's table, shared by every Workplace Trigger this n8n process runs. */
export const seenEvents = new SeenEvents();
