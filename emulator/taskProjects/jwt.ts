/**
 * Minimal HS256 JWTs for the task-projects API. node:crypto only, so the
 * emulator adds no dependency; good enough to issue and check its own tokens.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type JwtRole = 'member' | 'viewer';

export interface JwtClaims {
	sub: string;
	role: JwtRole;
	/** Issued at, epoch seconds. */
	iat: number;
	/** Expiry, epoch seconds. */
	exp: number;
}

export interface IssueJwtOptions {
	/** Lifetime in seconds; zero or negative issues an already expired token (for tests). */
	expiresInSeconds: number;
	/** `viewer` lacks write access to task projects. Default `member`. */
	role?: JwtRole;
	sub?: string;
}

export type VerifyJwtResult =
	| { ok: true; claims: JwtClaims }
	| { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const DEFAULT_SUB = 'usr_emulator';

function encodeJson(value: unknown): string {
	return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function sign(secret: string, signingInput: string): Buffer {
	return createHmac('sha256', secret).update(signingInput).digest();
}

export function issueJwt(secret: string, opts: IssueJwtOptions): string {
	const now = Math.floor(Date.now() / 1000);
	const claims: JwtClaims = {
		sub: opts.sub ?? DEFAULT_SUB,
		role: opts.role ?? 'member',
		iat: now,
		exp: now + Math.trunc(opts.expiresInSeconds),
	};
	const signingInput = `${encodeJson({ alg: 'HS256', typ: 'JWT' })}.${encodeJson(claims)}`;
	return `${signingInput}.${sign(secret, signingInput).toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodeJson(segment: string): unknown {
	try {
		return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function verifyJwt(secret: string, token: string): VerifyJwtResult {
	const segments = token.split('.');
	if (segments.length !== 3 || !segments.every((s) => BASE64URL.test(s))) {
		return { ok: false, reason: 'malformed' };
	}
	const [headerSeg, payloadSeg, signatureSeg] = segments;
	const header = decodeJson(headerSeg);
	const payload = decodeJson(payloadSeg);
	if (!isObject(header) || !isObject(payload) || typeof payload.exp !== 'number') {
		return { ok: false, reason: 'malformed' };
	}
	// Only HS256 is accepted: an `alg: none` or RS256 token never verifies here.
	const expected = sign(secret, `${headerSeg}.${payloadSeg}`);
	const given = Buffer.from(signatureSeg, 'base64url');
	if (header.alg !== 'HS256' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
		return { ok: false, reason: 'signature' };
	}
	if (payload.exp <= Date.now() / 1000) {
		return { ok: false, reason: 'expired' };
	}
	return {
		ok: true,
		claims: {
			sub: typeof payload.sub === 'string' ? payload.sub : DEFAULT_SUB,
			role: payload.role === 'viewer' ? 'viewer' : 'member',
			iat: typeof payload.iat === 'number' ? payload.iat : 0,
			exp: payload.exp,
		},
	};
}
