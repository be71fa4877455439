/**
 * Time passing with nothing happening, as between two runs of a schedule,
 * without waiting for it: `skipAhead(ms)` moves `Date.now()` ahead for the
 * whole process (the node's limiters, the emulator's throttle and the engine
 * alike) until `realClock()`. Timers still wait real time, and `new Date()`
 * is not moved: read times of a skip with `Date.now()`.
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
