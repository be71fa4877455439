/**
 * The bot's access token request (OAuth 2.0 client credentials,
 * POST {base}/oauth/token), shared by the Workplace Bot API credential's
 * preAuthentication and its credential test, each sending through its own n8n
 * helper on the one request path (boundedRequest.ts). Failures say what
 * happened with the token endpoint's own message, never anything of the
 * request (which carries the client secret).
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { parseBaseUrl } from './baseUrl';
import { AnswerTooLarge } from './body';
import { boundedRequest, type Answer, type Transmit } from './boundedRequest';
import { TokenRequestFailure } from './tokenRequestFailure';
import { errorCode } from './errors';
import { object, text } from './jsonValues';
import { sizeText } from './limits';
import { firstTokenAttempt, nextTokenAttempt, type TokenAttempt } from './tokenAttempts';
import { tokenLifetime } from './tokenLifetime';
import { networkMessage, redirectRefused, redirectTarget } from './failureMessages';

/** How long a token request may take in all, its whole answer included. */
export const TOKEN_TIMEOUT_MS = 30_000;

const PREFIX = 'Could not obtain a bot access token: ';

/** A token request that got no answer: the network code kept for the transport's retry decision. */
export function tokenNetworkFailure(error: unknown): TokenRequestFailure {
	if (error instanceof AnswerTooLarge) {
		return new TokenRequestFailure(`${PREFIX}the token endpoint's answer ran past ${sizeText(error.limit)} (counted unpacked), far larger than a token; it was not read further`);
	}
	const code = errorCode(error);
	return new TokenRequestFailure(`${PREFIX}${code ? networkMessage(code) : 'the token endpoint could not be reached'}`, undefined, code);
}

/** A token endpoint's non-2xx answer. */
export function tokenRefusal(status: number, body: unknown, headers: Record<string, unknown>, requestUrl: string): TokenRequestFailure {
	if (status >= 300 && status < 400) {
		const told = redirectRefused(PREFIX.replace(/: $/, ''), status, redirectTarget(headers.location, requestUrl));
		return new TokenRequestFailure(told.message, { status });
	}
	const data = object(body) ?? {};
	const said = [text(data.error), text(data.error_description)].filter(Boolean).join(': ');
	const reason = status === 401 ? 'the service rejected the client ID or client secret' : `the token endpoint answered ${status}`;
	return new TokenRequestFailure(`${PREFIX}${reason}${said ? ` (${said})` : ''}`, { status, retryAfter: headers['retry-after'] });
}

/**
 * POST {base}/oauth/token through `transmit` (the n8n helper of whoever asks),
 * the requests tokenAttempts.ts allows after a refusal included, all within
 * `timeoutMs`; what the credential stores of the answer.
 */
export async function requestToken(
	transmit: Transmit,
	credentials: ICredentialDataDecryptedObject,
	timeoutMs = TOKEN_TIMEOUT_MS,
): Promise<Record<string, string>> {
	const base = parseBaseUrl(credentials.baseUrl);
	if ('problem' in base) throw new TokenRequestFailure(`${PREFIX}${base.problem}`);
	const clientId = String(credentials.clientId ?? '');
	const clientSecret = String(credentials.clientSecret ?? '');
	const url = `${base.url}/oauth/token`;
	const deadline = Date.now() + timeoutMs;
	let attempt: TokenAttempt | undefined = firstTokenAttempt(credentials.scope);
	let response: Answer;
	for (;;) {
		const form: Record<string, string> = { grant_type: 'client_credentials', scope: attempt.scope };
		const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
		if (attempt.clientAuth === 'basic') headers.Authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
		else Object.assign(form, { client_id: clientId, client_secret: clientSecret });
		try {
			const request = { method: 'POST' as const, url, headers, body: new URLSearchParams(form).toString() };
			response = await boundedRequest(transmit, request, { timeoutMs: Math.max(1, deadline - Date.now()) });
		} catch (error) {
			throw tokenNetworkFailure(error);
		}
		if (response.statusCode >= 200 && response.statusCode < 300) break;
		attempt = nextTokenAttempt(attempt, response.statusCode, object(response.body)?.error);
		if (!attempt) throw tokenRefusal(response.statusCode, response.body, response.headers, url);
	}
	const answer = object(response.body) ?? {};
	const accessToken = answer.access_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		throw new TokenRequestFailure(`${PREFIX}the token endpoint answered without access_token`);
	}
	const lifetime = tokenLifetime(answer.expires_in);
	// No usable lifetime (none, not positive, or past any date): keep the token until the service answers 401.
	if (!lifetime) return { accessToken, accessTokenExpiresAt: '', accessTokenValid: 'yes' };
	return {
		accessToken,
		accessTokenExpiresAt: lifetime.expiresAt,
		accessTokenValid: `={{ Date.now() < ${lifetime.refreshAt} ? "yes" : "" }}`,
	};
}
