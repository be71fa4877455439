/**
 * A small typed reader of parsed JSON: answers come in as `unknown`, and these
 * give the shapes operations shape output from, without casts.
 */
import type { IDataObject } from 'n8n-workflow';

/** The value as an object (not a list), or undefined. */
export function object(value: unknown): IDataObject | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : undefined;
}

/** The objects in a list; anything else (or a non-list) gives none. */
export function list(value: unknown): IDataObject[] {
	return Array.isArray(value) ? value.filter((entry): entry is IDataObject => object(entry) !== undefined) : [];
}

/** A finite number, or undefined. */
export function number(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A non-empty string, or undefined. */
export function text(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}
