/**
 * Replay protection of the trigger, as pure functions of the event, the clock
 * and what was seen before (the trigger keeps that in the workflow's static
 * data). An event is refused when its own timestamp is further from the n8n
 * server's clock than the window, either way (clocks drift, so a little of the
 * future is tolerated too), and when an identical event was received within the
 * window: the service's events carry no id, so an event is known by a hash of
 * all of it (its replyToken, message id, time and content included).
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** At most this many events are remembered; beyond it the oldest are forgotten first. */
export const SEEN_EVENTS_MAX = 5000;

/** Epoch ms until which each seen event's key is remembered. */
export type SeenEvents = Record<string, number>;

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

/** The seen events still within their window, as a new table (the stored one may hold anything). */
export function currentSeen(stored: unknown, nowMs: number): SeenEvents {
	const seen: SeenEvents = {};
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return seen;
	for (const [key, until] of Object.entries(stored as Record<string, unknown>)) {
		if (typeof until === 'number' && until > nowMs) seen[key] = until;
	}
	return seen;
}

/** Whether `key` is in `seen` as its own entry (never an inherited name). */
export function wasSeen(seen: SeenEvents, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(seen, key);
}

/** `seen` with `keys` added until `until`, keeping at most `max` entries (those remembered longest win). */
export function remember(seen: SeenEvents, keys: string[], until: number, max = SEEN_EVENTS_MAX): SeenEvents {
	const next: SeenEvents = { ...seen };
	for (const key of keys) next[key] = until;
	const entries = Object.entries(next);
	if (entries.length <= max) return next;
	entries.sort((a, b) => b[1] - a[1]);
	return Object.fromEntries(entries.slice(0, max));
}
