/**
 * POST /oauth/token: OAuth 2.0 client credentials for the bot. Errors use the
 * RFC 6749 shape { error, error_description }, which OAuth clients expect.
 * Strict to one way at a time (config.tokenClientAuth, config.tokenScopes): a
 * service reads the client's ID and secret from one place and grants the
 * scopes it knows, so a client must find what this one takes.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorConfig } from '../types';
import { clientErrorStatus, isPlainObject, mediaType } from '../common/helpers';
import type { BotState } from './state';

/** The part of the bot state the token endpoint works on. */
type TokenStore = Pick<BotState, 'tokens' | 'tokenRequests'>;

/** The scopes the documents ask for, granted by default, and asked for when a request names none. */
export const DOCUMENTED_SCOPES: readonly string[] = ['bot', 'profile'];
const DEFAULT_SCOPE = DOCUMENTED_SCOPES.join(' ');

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
	return reply.code(status).send({ error, error_description: description });
}

function sameSecret(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `id` and `secret` are the bot's client credentials. */
function isClient(id: unknown, secret: unknown, config: EmulatorConfig): boolean {
	return typeof id === 'string' && typeof secret === 'string' && id === config.clientId && sameSecret(secret, config.clientSecret);
}

/** Client id of a valid `Authorization: Basic` header, or undefined. */
function basicClient(request: FastifyRequest, config: EmulatorConfig): string | undefined {
	const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
	if (!match) return undefined;
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	if (colon < 0) return undefined;
	// RFC 6749 §2.3.1 form-encodes id and secret before base64; plain ids read the same either way.
	const unescape = (s: string) => {
		try {
			return decodeURIComponent(s.replace(/\+/g, ' '));
		} catch {
			return s;
		}
	};
	const id = unescape(decoded.slice(0, colon));
	const secret = unescape(decoded.slice(colon + 1));
	return isClient(id, secret, config) ? id : undefined;
}

export function registerOauthRoute(app: FastifyInstance, config: EmulatorConfig, store: TokenStore): void {
	app.post(
		'/oauth/token',
		{
			// Count and authenticate before the body is parsed, so every attempt is seen.
			onRequest: async (request, reply) => {
				store.tokenRequests += 1;
				// The form's client_id and client_secret are read with the body, in the handler.
				if (config.tokenClientAuth === 'basic' && basicClient(request, config) === undefined) {
					reply.header('www-authenticate', 'Basic realm="oauth"');
					return oauthError(reply, 401, 'invalid_client', 'Client authentication failed');
				}
				return undefined;
			},
			errorHandler: (error: FastifyError, _request, reply) => {
				const status = clientErrorStatus(error);
				if (status === undefined) throw error;
				return oauthError(reply, 400, 'invalid_request', 'Body must be application/x-www-form-urlencoded');
			},
		},
		async (request, reply) => {
			reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
			if (mediaType(request) !== 'application/x-www-form-urlencoded' || !isPlainObject(request.body)) {
				return oauthError(reply, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
			}
			const body = request.body;
			if (config.tokenClientAuth === 'form' && !isClient(body.client_id, body.client_secret, config)) {
				return oauthError(reply, 401, 'invalid_client', 'Client authentication failed: client_id and client_secret are read from the form');
			}
			if (body.grant_type === undefined) {
				return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
			}
			if (body.grant_type !== 'client_credentials') {
				return oauthError(reply, 400, 'unsupported_grant_type', 'Only client_credentials is supported');
			}
			const rawScope = body.scope === undefined || body.scope === '' ? DEFAULT_SCOPE : body.scope;
			if (typeof rawScope !== 'string') {
				return oauthError(reply, 400, 'invalid_scope', 'scope must be one space-separated string');
			}
			const scopes = [...new Set(rawScope.split(' ').filter((s) => s !== ''))];
			const unknown = scopes.filter((s) => !config.tokenScopes.includes(s));
			if (scopes.length === 0 || unknown.length > 0) {
				return oauthError(reply, 400, 'invalid_scope', `Unknown scope: ${unknown.join(' ') || '(empty)'}`);
			}
			const accessToken = randomBytes(20).toString('hex');
			store.tokens.set(accessToken, {
				clientId: config.clientId,
				scopes,
				expiresAt: Date.now() + config.tokenTtlSeconds * 1000,
			});
			return reply.code(200).send({
				access_token: accessToken,
				token_type: 'Bearer',
				expires_in: config.tokenTtlSeconds,
				scope: scopes.join(' '),
			});
		},
	);
}
