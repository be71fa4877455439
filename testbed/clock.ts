/**
 * Time passing with nothing happening, as between two runs of a schedule,
 * without waiting for it: `skipAhead(ms)` moves `Date.now()` ahead for the
 * whole process (the node's limiters, the emulator's throttle and the engine
 * alike) until `realClock()`. Timers still wait real time, and `new Date()`
 * is not moved: read times of a skip with `Date.now()`. And time passing with
 * the process unable to do anything, as a client short of CPU: `busyFor(ms)`.
 */
const realNow = Date.now;
let aheadMs = 0;

export function skipAhead(ms: number): void {
	aheadMs += ms;
	Date.now = () => realNow() + aheadMs;
}

export function realClock(): void {
	aheadMs = 0;
	Date.now = realNow;
}

/** Keeps this process from doing anything for `ms` (a busy wait): its timers fire and its sockets are read that much late. */
export function busyFor(ms: number): void {
	const until = Date.now() + ms;
	while (Date.now() < until);
}
