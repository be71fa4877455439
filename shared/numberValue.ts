/**
 * A number given as text (typed into a string field, or an expression's result)
 * as the number it spells; anything else as it is, for the caller to check.
 */
export function numberValue(value: unknown): unknown {
	return typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
}
