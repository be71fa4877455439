/**
 * Local checks of item parameters. Each failure is a NodeOperationError that
 * names the field and the item, thrown before any request is sent.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { invalid } from './invalid';
import { nameN8nDrops } from './ownEntry';
import { pathSafeIdProblem } from './pathSafeId';
import { beyondExactIds, positiveId } from './positiveId';

export { invalid, pathSafeIdProblem };

/** A value as an error message shows it: quoted and cut at 40 characters, or its kind. */
export function shownValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'string') return value.length > 40 ? `"${value.slice(0, 40)}…"` : `"${value}"`;
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : String(value);
}

/** A required, non-blank string of at most `max` characters. */
export function requiredText(
	ctx: IExecuteFunctions,
	i: number,
	parameter: string,
	field: string,
	max?: number,
): string {
	const value = ctx.getNodeParameter(parameter, i, '') as unknown;
	if (typeof value !== 'string') throw invalid(ctx, i, field, `expected text, got ${shownValue(value)}`);
	if (value.trim() === '') throw invalid(ctx, i, field, 'is required and cannot be empty');
	if (max !== undefined && [...value].length > max) {
		throw invalid(ctx, i, field, `must be at most ${max} characters (got ${[...value].length})`);
	}
	return value;
}

/** The name of the binary field an output goes in: required, and one n8n keeps when it passes the item on. */
export function outputBinaryField(ctx: IExecuteFunctions, i: number, parameter: string, field: string): string {
	const name = requiredText(ctx, i, parameter, field);
	const problem = nameN8nDrops(name);
	if (problem) throw invalid(ctx, i, field, problem);
	return name;
}

/** A numeric service id (knowledge bases, knowledge files): digits only, so it can never alter a path. */
export function numericId(ctx: IExecuteFunctions, i: number, parameter: string, field: string): number {
	const raw = ctx.getNodeParameter(parameter, i, '', { extractValue: true }) as unknown;
	const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : undefined;
	if (text === undefined || text === '') throw invalid(ctx, i, field, 'is required');
	const id = positiveId(text);
	if (id === undefined && beyondExactIds(raw)) {
		throw invalid(ctx, i, field, `${shownValue(text)} is above ${Number.MAX_SAFE_INTEGER}, the largest ID the node can send exactly; no other ID is sent in its place`);
	}
	if (id === undefined) throw invalid(ctx, i, field, `must be a positive whole number, got ${shownValue(raw)}`);
	return id;
}

/** Values of a multi-option parameter, each one of `allowed`, at least one. */
export function oneOrMoreOf<T extends string>(
	ctx: IExecuteFunctions,
	i: number,
	parameter: string,
	field: string,
	allowed: readonly T[],
): T[] {
	const raw = ctx.getNodeParameter(parameter, i, []) as unknown;
	const values = typeof raw === 'string' ? raw.split(',').map((v) => v.trim()).filter(Boolean) : raw;
	if (!Array.isArray(values) || values.length === 0) {
		throw invalid(ctx, i, field, `choose at least one of ${allowed.join(', ')}`);
	}
	for (const v of values) {
		if (!allowed.includes(v as T)) {
			throw invalid(ctx, i, field, `${shownValue(v)} is not one of ${allowed.join(', ')}`);
		}
	}
	return [...new Set(values as T[])];
}

/**
 * A text service id of item i (group, user, topic ids): outer spaces trimmed,
 * then pathSafeIdProblem, so it can go into a URL path as one segment.
 */
export function textId(ctx: IExecuteFunctions, i: number, parameter: string, field: string): string {
	const raw = ctx.getNodeParameter(parameter, i, '', { extractValue: true }) as unknown;
	const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : raw === undefined || raw === null ? '' : undefined;
	if (text === undefined) throw invalid(ctx, i, field, `expected an ID, got ${shownValue(raw)}`);
	const problem = pathSafeIdProblem(text);
	if (problem) throw invalid(ctx, i, field, problem);
	return text;
}

/** One or more ids: a comma-separated text or a list from an expression; duplicates dropped. */
export function idList(ctx: IExecuteFunctions, i: number, parameter: string, field: string): string[] {
	const raw = ctx.getNodeParameter(parameter, i, '') as unknown;
	const values: unknown[] = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
	const ids: string[] = [];
	for (const value of values) {
		const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
		if (text === undefined) throw invalid(ctx, i, field, `expected user IDs, got ${shownValue(value)} in the list`);
		if (text === '') continue;
		if (/\s/.test(text)) throw invalid(ctx, i, field, `${shownValue(text)} is not one ID (separate IDs with commas)`);
		ids.push(text);
	}
	if (ids.length === 0) throw invalid(ctx, i, field, 'at least one user ID is required');
	return [...new Set(ids)];
}

/** Like textId, for an id that may be left empty (then undefined). */
export function optionalTextId(ctx: IExecuteFunctions, i: number, parameter: string, field: string): string | undefined {
	const raw = ctx.getNodeParameter(parameter, i, '', { extractValue: true }) as unknown;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
	return textId(ctx, i, parameter, field);
}
