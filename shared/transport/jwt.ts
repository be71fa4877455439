/**
 * Reads a JWT's expiry without verifying it: the node cannot verify the
 * service's signature, but it can see an expired token and say so before a
 * request is sent. No message here ever contains the token or its claims
 * other than the expiry time.
 */

import { LAST_DATE_MS } from './tokenLifetime';

export type JwtExpiry =
	| { ok: true; /** Epoch seconds; undefined when the token carries no exp. */ exp?: number }
	| { ok: false; problem: string };

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function decodeSegment(segment: string): unknown {
	try {
		return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
	} catch {
		return undefined;
	}
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The token without surrounding blanks or a pasted "Bearer " scheme (the credential adds the scheme). */
export function bareToken(token: string): string {
	return token.trim().replace(/^bearer\s+/i, '');
}

/** Decodes header and payload of a compact JWS and returns its `exp`. */
export function readJwtExpiry(token: unknown): JwtExpiry {
	const text = typeof token === 'string' ? bareToken(token) : '';
	if (text === '') return { ok: false, problem: 'JWT is not set' };
	const segments = text.split('.');
	if (segments.length !== 3 || !segments.slice(0, 2).every((s) => BASE64URL.test(s))) {
		return { ok: false, problem: 'JWT is malformed (expected three dot-separated base64url parts)' };
	}
	const header = decodeSegment(segments[0]);
	const payload = decodeSegment(segments[1]);
	if (!isObject(header) || !isObject(payload)) {
		return { ok: false, problem: 'JWT is malformed (its header or payload is not JSON)' };
	}
	if (payload.exp === undefined) return { ok: true };
	if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) {
		return { ok: false, problem: 'JWT is malformed (its "exp" claim is not a number)' };
	}
	// Seconds beyond ±8.64e12 name no date at all (a date holds ±8.64e15 ms).
	if (Math.abs(payload.exp) > LAST_DATE_MS / 1000) {
		return { ok: false, problem: `JWT is malformed (its "exp" claim, ${payload.exp}, is not a time any date can hold)` };
	}
	return { ok: true, exp: payload.exp };
}

function ago(seconds: number): string {
	if (seconds < 120) return `${Math.max(1, Math.round(seconds))} s`;
	if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
	if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
	return `${Math.round(seconds / 86_400)} days`;
}

/**
 * Why the token cannot be used, or undefined when it is usable as far as the
 * client can tell (the service still checks the signature and the role).
 */
export function jwtProblem(token: unknown, nowMs = Date.now()): string | undefined {
	const read = readJwtExpiry(token);
	if (!read.ok) return `The credential's ${read.problem}`;
	if (read.exp === undefined) return undefined;
	const now = nowMs / 1000;
	if (read.exp <= now) {
		const when = new Date(read.exp * 1000).toISOString();
		return `The credential's JWT expired at ${when} (${ago(now - read.exp)} ago); issue a new token and update the credential`;
	}
	return undefined;
}
