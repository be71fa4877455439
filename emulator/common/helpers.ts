/** Small helpers the APIs share: request headers, plain objects, random ids. */
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random [A-Za-z0-9]{length}; 248 = 62 * 4 keeps the modulo unbiased. */
export function randomAlnum(length: number): string {
	let out = '';
	while (out.length < length) {
		for (const byte of randomBytes(length * 2)) {
			if (byte < 248 && out.length < length) out += ALNUM[byte % 62];
		}
	}
	return out;
}

/** Mongo-style 24-hex object id, the shape the bot interface uses for _id. */
export function objectId(): string {
	return randomBytes(12).toString('hex');
}

/** Lower-cased media type of the request without parameters ('' when absent). */
export function mediaType(request: FastifyRequest): string {
	const header = request.headers['content-type'] ?? '';
	return header.split(';')[0].trim().toLowerCase();
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
	const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
	return match?.[1];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fastify's own 4xx errors (body parsing, multipart limits) carry a code and a statusCode. */
export function clientErrorStatus(error: unknown): number | undefined {
	const status = isPlainObject(error) || error instanceof Error ? (error as { statusCode?: unknown }).statusCode : undefined;
	return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}
