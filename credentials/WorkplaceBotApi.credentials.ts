import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { createHash } from 'crypto';

import { baseUrlProperty, CREDENTIAL_ICON } from '../nodes/Workplace/shared/credentialParts';
import { BASE_URL_EXPRESSION, parseBaseUrl } from '../nodes/Workplace/transport/baseUrl';
import { TokenRequestFailure } from '../nodes/Workplace/transport/credentials';
import { object, text } from '../nodes/Workplace/transport/read';
import { tokenLifetime } from '../nodes/Workplace/transport/tokenLifetime';

const TOKEN_TIMEOUT_MS = 30_000;

/**
 * The token endpoint's own words, never the request (which carries the client
 * secret). Retrying is the node transport's policy: it reads the status,
 * Retry-After or network code kept here.
 */
function tokenFailure(error: unknown): TokenRequestFailure {
	type Thrown = { code?: unknown; response?: { status?: unknown; data?: unknown; headers?: Record<string, unknown> } };
	const e = error as Thrown & { cause?: Thrown };
	const response = e.response ?? e.cause?.response;
	if (response && typeof response.status === 'number') return refusal(response.status, response.data, response.headers?.['retry-after']);
	const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
	return new TokenRequestFailure(
		`Could not obtain a bot access token: the token endpoint could not be reached${code ? ` (${code})` : ''}`,
		undefined,
		code,
	);
}

function refusal(status: number, body: unknown, retryAfter: unknown): TokenRequestFailure {
	const data = object(body) ?? {};
	const said = [text(data.error), text(data.error_description)].filter(Boolean).join(': ');
	const reason = status === 401 ? 'the service rejected the client ID or client secret' : `the token endpoint answered ${status}`;
	return new TokenRequestFailure(`Could not obtain a bot access token: ${reason}${said ? ` (${said})` : ''}`, { status, retryAfter });
}

/**
 * Token requests in flight in this process, by credential identity. Executions
 * that start together (a queue-mode worker takes several jobs at once) all find
 * no token stored yet; they share one request instead of each asking for a
 * token. A settled request is dropped at once: a stored token is n8n's to keep.
 */
const tokensInFlight = new Map<string, Promise<Record<string, string>>>();

/** POST {base}/oauth/token (client credentials); what the credential stores of the answer. */
async function requestToken(helper: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject): Promise<Record<string, string>> {
	const base = parseBaseUrl(credentials.baseUrl);
	if ('problem' in base) throw new TokenRequestFailure(`Could not obtain a bot access token: ${base.problem}`);
	const basic = Buffer.from(`${String(credentials.clientId ?? '')}:${String(credentials.clientSecret ?? '')}`).toString('base64');
	const scope = String(credentials.scope ?? '').trim() || 'bot profile';
	let response: { statusCode: number; headers: Record<string, unknown>; body: unknown };
	try {
		response = (await helper.helpers.httpRequest({
			method: 'POST',
			url: `${base.url}/oauth/token`,
			headers: {
				Authorization: `Basic ${basic}`,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
			body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
			json: true,
			disableFollowRedirect: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: TOKEN_TIMEOUT_MS,
		})) as typeof response;
	} catch (error) {
		throw tokenFailure(error);
	}
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw refusal(response.statusCode, response.body, response.headers['retry-after']);
	}
	const answer = object(response.body) ?? {};
	const accessToken = answer.access_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		throw new Error('Could not obtain a bot access token: the token endpoint answered without access_token');
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

/**
 * Bot interface: OAuth 2.0 client credentials. The token comes from
 * POST {base}/oauth/token in preAuthentication; n8n stores what that returns in
 * the credential itself (so every worker of a queue-mode setup shares it through
 * the database) and calls it again after a 401.
 *
 * n8n fetches a token only when the `expirable` field is empty, or after a 401.
 * To also refresh by time (expires_in, read as seconds), that field holds an
 * expression fixed at fetch time which turns empty once the token's lifetime is
 * over; n8n resolves credential expressions whenever it reads a credential.
 */
export class WorkplaceBotApi implements ICredentialType {
	name = 'workplaceBotApi';

	displayName = 'Workplace Bot API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty('Address of the service, without any path'),
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Client ID generated for the bot profile in the admin panel',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Client secret generated with the client ID',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: 'bot profile',
			description: 'Space-separated scopes to ask for; the bot endpoints need "bot"',
		},
		{
			// The Workplace Trigger's key for X-Eko-Signature; the service's pages say it signs
			// with the client secret, this covers a service that signs with another one.
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional. The Workplace Trigger verifies X-Eko-Signature with this secret instead of the client secret when it is set.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Access Token Expires At',
			name: 'accessTokenExpiresAt',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			// Empty means "fetch a token"; see the class comment.
			displayName: 'Access Token Valid',
			name: 'accessTokenValid',
			type: 'hidden',
			typeOptions: { expirable: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const key = createHash('sha256')
			.update(JSON.stringify([credentials.baseUrl, credentials.clientId, credentials.clientSecret, credentials.scope]))
			.digest('hex');
		let pending = tokensInFlight.get(key);
		if (!pending) {
			pending = requestToken(this, credentials);
			tokensInFlight.set(key, pending);
			const settled = () => {
				if (tokensInFlight.get(key) === pending) tokensInFlight.delete(key);
			};
			pending.then(settled, settled);
		}
		return await pending;
	}

	/** A function rather than a template: n8n runs it for every request, and a template is an expression evaluation each time. */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.accessToken ?? '')}` };
		return requestOptions;
	}

	// Any bot call proves the token works; preAuthentication has already fetched one.
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_EXPRESSION,
			url: '/bot/v1/users',
			method: 'GET',
			qs: { username: 'n8n-credential-test' },
		},
	};
}
