import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { createHash } from 'crypto';

import { authenticateWithHeaders, baseUrlProperty, CREDENTIAL_ICON } from '../shared/credentialParts';
import { requestToken } from '../shared/transport/botToken';
import { viaHttpRequest } from '../shared/transport/boundedRequest';
import { DOCUMENTED_SCOPE } from '../shared/transport/tokenAttempts';

/**
 * Token requests in flight in this process, by credential identity. Executions
 * that start together (a queue-mode worker takes several jobs at once) all find
 * no token stored yet; they share one request instead of each asking for a
 * token. A settled request is dropped at once: a stored token is n8n's to keep.
 */
const tokensInFlight = new Map<string, Promise<Record<string, string>>>();

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
 *
 * Its test is the nodes' (testedBy: methods/credentialTest.ts): it must not
 * follow a redirect, and must say failures with the node's messages.
 */
export class WorkplaceBotApi implements ICredentialType {
	name = 'workplaceBotApi';

	displayName = 'Workplace Bot API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty(),
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Client ID generated for the bot profile in the admin panel',
			hint: 'In the admin panel, on the bot profile: BOT INTEGRATION > Add Integration > Webhook API; saving it issues the client ID and secret',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Client secret generated with the client ID (same place)',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			// The token request falls back from this scope only (tokenAttempts.ts): one constant for both.
			default: DOCUMENTED_SCOPE,
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
			// n8n's httpRequest on the package's one request path: no redirect followed, the whole answer bounded in time and size.
			pending = requestToken(viaHttpRequest(async (options) => await this.helpers.httpRequest(options)), credentials);
			tokensInFlight.set(key, pending);
			const settled = () => {
				if (tokensInFlight.get(key) === pending) tokensInFlight.delete(key);
			};
			pending.then(settled, settled);
		}
		return await pending;
	}

	authenticate = authenticateWithHeaders((credentials) => ({ Authorization: `Bearer ${String(credentials.accessToken ?? '')}` }));
}
