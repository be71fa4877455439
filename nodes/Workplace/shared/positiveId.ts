/**
 * The one positive-id rule (knowledge bases, knowledge files): digits only, no
 * leading zero, at most 16 digits, so an id can never alter a path. The editor's
 * locator validation and the checks before sending use the same pattern.
 */
export const POSITIVE_ID_PATTERN = '^[1-9][0-9]{0,15}$';

const POSITIVE_ID = new RegExp(POSITIVE_ID_PATTERN);

/** The id a parameter value names (a number or its digits, spaces around allowed), or undefined. */
export function positiveId(raw: unknown): number | undefined {
	const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
	return POSITIVE_ID.test(text) ? Number(text) : undefined;
}
