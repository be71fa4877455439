import type {
	IAuthenticateGeneric,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHash } from 'crypto';

/** Refresh this long before the token's own end, so a request never races its expiry. */
function refreshMarginMs(lifetimeMs: number): number {
	return Math.min(60_000, lifetimeMs / 10);
}

const TOKEN_MAX_ATTEMPTS = 4;
/** Longest wait before asking again; a longer Retry-After fails at once (the node's own run is waiting). */
const TOKEN_MAX_WAIT_MS = 30_000;
const TOKEN_TIMEOUT_MS = 30_000;
const RETRYABLE_STATUS = new Set([502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'EAI_AGAIN']);

type TokenData = Record<string, string>;

/**
 * Token requests in flight in this process, by credential identity. Executions
 * that start together (a queue-mode worker takes several jobs at once) all find
 * no token stored yet; they share one request instead of each asking for a token.
 * Settled requests are dropped at once: a stored token is n8n's to keep.
 */
const tokensInFlight = new Map<string, Promise<TokenData>>();

function identity(base: string, clientId: string, clientSecret: string, scope: string): string {
	return createHash('sha256').update(JSON.stringify([base, clientId, clientSecret, scope])).digest('hex');
}

/** Exponential from 0.5 s, with jitter (the transport's backoff). */
function tokenBackoff(attempt: number): number {
	const ceiling = Math.min(TOKEN_MAX_WAIT_MS, 500 * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Retry-After in seconds or as an HTTP date. */
function retryAfterMs(value: unknown): number | undefined {
	const header = Array.isArray(value) ? (value[0] as unknown) : value;
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(header.trim())) return Math.ceil(Number(header.trim()) * 1000);
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The token endpoint's own words, never the request (which carries the client secret). */
function tokenError(error: unknown): Error {
	const e = error as {
		code?: unknown;
		response?: { status?: unknown; data?: unknown };
		cause?: { code?: unknown; response?: { status?: unknown; data?: unknown } };
	};
	const response = e.response ?? e.cause?.response;
	const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
	if (response && typeof response.status === 'number') {
		const data = (response.data ?? {}) as IDataObject;
		const said = [data.error, data.error_description].filter((v) => typeof v === 'string' && v !== '').join(': ');
		const reason =
			response.status === 401
				? 'the service rejected the client ID or client secret'
				: `the token endpoint answered ${response.status}`;
		return new Error(`Could not obtain a bot access token: ${reason}${said ? ` (${said})` : ''}`);
	}
	const failure = new Error(`Could not obtain a bot access token: the token endpoint could not be reached${code ? ` (${code})` : ''}`);
	// Kept so the caller can tell a connection that never reached the service from other failures.
	if (code) Object.assign(failure, { code });
	return failure;
}

/** POST {base}/oauth/token (client credentials) and what the credential stores of the answer. */
async function fetchToken(helper: IHttpRequestHelper, base: string, basic: string, scope: string): Promise<TokenData> {
	let answer: IDataObject | undefined;
	// Asking for a token is idempotent (each answer is a fresh token, nothing else changes), so it
	// follows the transport's policy for reads: 429 after Retry-After, 502/503/504 and broken
	// connections with backoff; bounded in attempts and in each wait.
	for (let attempt = 1; answer === undefined; attempt++) {
		let response: { statusCode: number; headers: IDataObject; body: unknown };
		try {
			response = (await helper.helpers.httpRequest({
				method: 'POST',
				url: `${base}/oauth/token`,
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
			const failure = tokenError(error);
			const code = (failure as { code?: unknown }).code;
			if (attempt < TOKEN_MAX_ATTEMPTS && typeof code === 'string' && RETRYABLE_CODES.has(code)) {
				await sleep(tokenBackoff(attempt));
				continue;
			}
			throw failure;
		}
		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			answer = (response.body && typeof response.body === 'object' ? response.body : {}) as IDataObject;
			break;
		}
		if (attempt < TOKEN_MAX_ATTEMPTS && (status === 429 || RETRYABLE_STATUS.has(status))) {
			const wait = status === 429 ? retryAfterMs(response.headers['retry-after']) : undefined;
			if (wait === undefined || wait <= TOKEN_MAX_WAIT_MS) {
				await sleep(wait ?? tokenBackoff(attempt));
				continue;
			}
		}
		throw tokenError({ response: { status, data: response.body } });
	}
	const accessToken = answer?.access_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		throw new Error('Could not obtain a bot access token: the token endpoint answered without access_token');
	}
	const lifetimeSeconds = Number(answer.expires_in);
	if (!Number.isFinite(lifetimeSeconds) || lifetimeSeconds <= 0) {
		// No usable lifetime: keep the token until the service answers 401.
		return { accessToken, accessTokenExpiresAt: '', accessTokenValid: 'yes' };
	}
	const lifetimeMs = lifetimeSeconds * 1000;
	const expiresAt = Date.now() + lifetimeMs;
	const refreshAt = Math.floor(expiresAt - refreshMarginMs(lifetimeMs));
	return {
		accessToken,
		accessTokenExpiresAt: new Date(expiresAt).toISOString(),
		accessTokenValid: `={{ Date.now() < ${refreshAt} ? "yes" : "" }}`,
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

	icon: Icon = {
		light: 'file:../nodes/Workplace/workplace.svg',
		dark: 'file:../nodes/Workplace/workplace.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://workplace.example.com',
			description: 'Address of the service, without any path',
		},
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
		const base = String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '');
		const clientId = String(credentials.clientId ?? '');
		const clientSecret = String(credentials.clientSecret ?? '');
		const scope = String(credentials.scope ?? '').trim() || 'bot profile';
		const key = identity(base, clientId, clientSecret, scope);
		let pending = tokensInFlight.get(key);
		if (!pending) {
			pending = fetchToken(this, base, Buffer.from(`${clientId}:${clientSecret}`).toString('base64'), scope);
			tokensInFlight.set(key, pending);
			const settled = () => {
				if (tokensInFlight.get(key) === pending) tokensInFlight.delete(key);
			};
			pending.then(settled, settled);
		}
		return await pending;
	}
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	// Any bot call proves the token works; preAuthentication has already fetched one.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/bot/v1/users',
			method: 'GET',
			qs: { username: 'n8n-credential-test' },
		},
	};
}
