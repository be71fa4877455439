/**
 * Local reading of a JWT's expiry (no verification): what the node and the
 * credential test say before anything is sent. No message may quote the token.
 */
import { issueJwt } from '../../emulator/taskProjects/jwt';
import { bareToken, jwtProblem, readJwtExpiry } from '../../shared/transport/jwt';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const token = (payload: unknown) => `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}.c2ln`;

describe('readJwtExpiry / jwtProblem', () => {
	const now = Date.UTC(2025, 5, 1, 12, 0, 0);

	it('accepts a token that has not expired, and one without exp', () => {
		expect(jwtProblem(token({ exp: now / 1000 + 60 }), now)).toBeUndefined();
		expect(jwtProblem(token({ sub: 'u' }), now)).toBeUndefined();
		expect(readJwtExpiry(token({ exp: 1750000000 }))).toEqual({ ok: true, exp: 1750000000 });
	});

	it('says when the token expired, and how long ago', () => {
		expect(jwtProblem(token({ exp: now / 1000 - 30 }), now)).toBe(
			"The credential's JWT expired at 2025-06-01T11:59:30.000Z (30 s ago); issue a new token and update the credential",
		);
		expect(jwtProblem(token({ exp: now / 1000 }), now)).toMatch(/expired at 2025-06-01T12:00:00.000Z/);
		expect(jwtProblem(token({ exp: now / 1000 - 3 * 86_400 }), now)).toMatch(/\(3 days ago\)/);
	});

	it('reads the emulator\'s real tokens, with or without a pasted "Bearer " prefix', () => {
		const live = issueJwt('s', { expiresInSeconds: 600 });
		const dead = issueJwt('s', { expiresInSeconds: -600 });
		expect(jwtProblem(live)).toBeUndefined();
		expect(jwtProblem(`Bearer ${live}`)).toBeUndefined();
		expect(jwtProblem(` ${dead} `)).toMatch(/expired .* \(10 min ago\)/);
		expect(bareToken(`bearer  ${live}\n`)).toBe(live);
	});

	it.each([
		['', "The credential's JWT is not set"],
		[undefined, "The credential's JWT is not set"],
		['abc', "The credential's JWT is malformed (expected three dot-separated base64url parts)"],
		['a.b.c.d', "The credential's JWT is malformed (expected three dot-separated base64url parts)"],
		['a+b.c/d.e', "The credential's JWT is malformed (expected three dot-separated base64url parts)"],
		[`${b64({ alg: 'HS256' })}.bm90IGpzb24.sig`, "The credential's JWT is malformed (its header or payload is not JSON)"],
		[token({ exp: 'tomorrow' }), 'The credential\'s JWT is malformed (its "exp" claim is not a number)'],
	])('%p → %s, never quoting the token', (value, message) => {
		const problem = jwtProblem(value, now);
		expect(problem).toBe(message);
		if (typeof value === 'string' && value.length > 3) expect(problem).not.toContain(value);
	});
});
