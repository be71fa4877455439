/**
 * The one positive-id rule (knowledge bases, knowledge files): digits only, no
 * leading zero, at most 16 digits, so an id can never alter a path. The editor's
 * locator validation and the checks before sending use the same pattern.
 */
export const POSITIVE_ID_PATTERN = '^[1-9][0-9]{0,15}$';

const POSITIVE_ID = new RegExp(POSITIVE_ID_PATTERN);

/**
 * The id a parameter value names (a number or its digits, spaces around allowed), or undefined.
 * Ids above 2^53 - 1 are refused too: a JavaScript number cannot hold them, so
 * `9007199254740993` would be sent as `…992`, another knowledge base's id.
 */
export function positiveId(raw: unknown): number | undefined {
	if (typeof raw === 'number' && !Number.isSafeInteger(raw)) return undefined;
	const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
	if (!POSITIVE_ID.test(text)) return undefined;
	const id = Number(text);
	return Number.isSafeInteger(id) ? id : undefined;
}

/** Whether `text` spells a whole number too large to be held exactly (above 2^53 - 1). */
export function beyondExactIds(raw: unknown): boolean {
	if (typeof raw === 'number') return Number.isInteger(raw) && raw > Number.MAX_SAFE_INTEGER;
	return typeof raw === 'string' && /^\s*[1-9][0-9]*\s*$/.test(raw) && !Number.isSafeInteger(Number(raw.trim()));
}
