/**
 * The chain of causes of an error: n8n wraps the HTTP client's error, and the
 * credential's token failure, in errors of its own (as `cause`). Imports
 * nothing, so the token failure's module can use it and stay a leaf.
 */

/** Walks an error and the errors that caused it, returning the first thing `pick` finds. */
export function inCauses<T>(error: unknown, pick: (error: object) => T | undefined): T | undefined {
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
		const found = pick(current);
		if (found !== undefined) return found;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}
