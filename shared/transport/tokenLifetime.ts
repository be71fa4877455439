/**
 * When a bot token is due for refresh, from the token answer's `expires_in`
 * (read as seconds: the unit is not published). Pure, so its edges are tested
 * in a table: a lifetime that is not a positive number, or so long that its end
 * is past the last moment a date can name (8.64e15 ms after 1970), gives no
 * time-based refresh; the token is then kept until the service answers 401.
 */

/** Refresh this long before the token's own end, so a request never races its expiry. */
export function refreshMarginMs(lifetimeMs: number): number {
	return Math.min(60_000, lifetimeMs / 10);
}

/** The latest instant a JavaScript date can hold (ECMA-262 time values). */
export const LAST_DATE_MS = 8.64e15;

export interface TokenLifetime {
	/** ISO 8601 end of the token's life. */
	expiresAt: string;
	/** Epoch ms after which a new token is fetched. */
	refreshAt: number;
}

export function tokenLifetime(expiresIn: unknown, nowMs: number = Date.now()): TokenLifetime | undefined {
	const seconds = typeof expiresIn === 'string' && expiresIn.trim() !== '' ? Number(expiresIn) : expiresIn;
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
	const lifetimeMs = seconds * 1000;
	const expiresAtMs = nowMs + lifetimeMs;
	if (!(expiresAtMs <= LAST_DATE_MS)) return undefined;
	return {
		expiresAt: new Date(expiresAtMs).toISOString(),
		refreshAt: Math.floor(expiresAtMs - refreshMarginMs(lifetimeMs)),
	};
}
