/**
 * The service's error bodies, read tolerantly: the knowledge base's
 * errors[{type, field, value, message}], task projects' details[{path, message}],
 * OAuth's error/error_description, plain text, and any other shape.
 */
import type { IDataObject, JsonObject } from 'n8n-workflow';

export interface ParsedError {
	message?: string;
	code?: string;
	details: string[];
	/** Field paths the details name, in order, without repeats. */
	paths: string[];
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const entries = (v: unknown): IDataObject[] =>
	Array.isArray(v) ? v.filter((e): e is IDataObject => !!e && typeof e === 'object') : [];

/** Reads every error shape the service uses; tolerant of any other body. */
export function parseErrorBody(body: unknown): ParsedError {
	if (typeof body === 'string') {
		const trimmed = body.trim();
		return {
			message: trimmed && trimmed.length <= 300 && !trimmed.startsWith('<') ? trimmed : undefined,
			details: [],
			paths: [],
		};
	}
	if (!body || typeof body !== 'object') return { details: [], paths: [] };
	const b = body as IDataObject;
	const details: string[] = [];
	const paths: string[] = [];
	// Knowledge base: errors[{type, field, value, message}]; task projects: details[{path, message}].
	const shapes: Array<[IDataObject[], (e: IDataObject) => string | undefined, (e: IDataObject) => string]> = [
		[entries(b.errors), (e) => text(e.field) ?? text(e.path), (e) => text(e.message) ?? text(e.type) ?? 'invalid'],
		[entries(b.details), (e) => text(e.path) ?? text(e.field), (e) => text(e.message) ?? 'invalid'],
	];
	for (const [list, fieldOf, messageOf] of shapes) {
		for (const e of list) {
			const field = fieldOf(e);
			if (field && !paths.includes(field)) paths.push(field);
			const msg = messageOf(e);
			details.push(field ? `${field}: ${msg}` : msg);
		}
	}
	const nested = b.error && typeof b.error === 'object' ? (b.error as IDataObject) : undefined;
	const message = text(b.message) ?? text(nested?.message) ?? text(b.error_description) ?? text(b.error);
	const code = text(b.code) ?? text(nested?.code) ?? (typeof b.error === 'string' ? b.error : undefined) ?? text(b.name);
	return { message, code, details, paths };
}

export function toJsonObject(body: unknown): JsonObject {
	if (body && typeof body === 'object' && !Array.isArray(body)) return body as JsonObject;
	return { body: typeof body === 'string' ? body.slice(0, 1000) : null } as JsonObject;
}
