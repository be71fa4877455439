/**
 * Limits on what one webhook call may hand the workflow, checked after the
 * signature and before any item is made, whether signatures are verified or not.
 */

/** Events one call may carry (the service sends one per call in every public sample). */
export const MAX_EVENTS_PER_CALL = 100;

/**
 * Nesting deeper than this is refused: n8n copies items recursively when it runs
 * a workflow, and a body nested some thousands deep would crash the execution.
 */
export const MAX_NESTING = 32;

/** Whether `value` nests objects or arrays more than `max` deep; iterative, so any depth is safe to check. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
	const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	while (stack.length > 0) {
		const { value: current, depth } = stack.pop()!;
		if (current === null || typeof current !== 'object') continue;
		if (depth + 1 > max) return true;
		for (const child of Object.values(current as object)) {
			if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
		}
	}
	return false;
}
