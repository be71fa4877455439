/**
 * The service's three APIs (knowledge base, task projects, bot): the
 * credential and path prefix each uses, and an API's credential read once per
 * node run.
 */
import type { ICredentialDataDecryptedObject, ICredentialsDecrypted } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseBaseUrl } from './baseUrl';
import { jwtProblem } from './jwt';
import type { TokenFields } from './tokenRefresh';
import type { ServiceApiName, Context } from './types';

export interface ServiceApi {
	credential: string;
	prefix: string;
	/**
	 * Where the credential keeps a token it fetches in preAuthentication. A 401
	 * comes back as data like any status, and the transport asks for a new token
	 * itself, one request at a time for the whole run (tokenRefresh.ts).
	 */
	token?: TokenFields;
	/**
	 * Local check of the credential, run once per node run with the base URL
	 * read: returns why it cannot work (never quoting a secret), or undefined.
	 */
	check?(credentials: ICredentialDataDecryptedObject): string | undefined;
	/** Added to a 401's message: what to check of this API's credential. */
	unauthorizedHint?: string;
}

export const SERVICE_APIS: Record<ServiceApiName, ServiceApi> = {
	knowledgeBase: {
		credential: 'workplaceKnowledgeBaseApi',
		prefix: '/api/v1',
		// The service answers 401 both for a wrong key and for a caller whose IP address is not whitelisted.
		unauthorizedHint: "check the API key, and that this machine's IP address is whitelisted",
	},
	taskProjects: {
		credential: 'workplaceTaskProjectsApi',
		prefix: '/api/v1/task-projects',
		// An expired JWT is certain to be refused; say so before anything is sent.
		check: (credentials) => jwtProblem(credentials.token),
	},
	bot: {
		credential: 'workplaceBotApi',
		prefix: '',
		token: { token: 'accessToken', expirable: 'accessTokenValid' },
		// A 401 reaches the error only after the request was sent again with a new token.
		unauthorizedHint: "even with a newly fetched access token; check the client's scope and that the bot is enabled",
	},
};

export interface RunCredential {
	/** The credential as n8n decrypted it for this run; n8n writes a fetched token into it (preAuthentication). */
	decrypted: ICredentialsDecrypted;
	baseUrl: string;
}

const runCredentials = new WeakMap<object, Map<string, Promise<RunCredential>>>();

/**
 * Reads the API's credential, its base URL, and runs its check, once per node
 * run, not once per item or request. The decrypted object is handed to n8n with
 * every request (credentialsDecrypted), so n8n still runs preAuthentication and
 * authenticate on it, and a token it fetches lands in this one object: later
 * items use it without reading the credential again.
 */
export async function credentialFor(ctx: Context, api: ServiceApiName): Promise<RunCredential> {
	const { credential, check } = SERVICE_APIS[api];
	let perRun = runCredentials.get(ctx);
	if (!perRun) {
		perRun = new Map();
		runCredentials.set(ctx, perRun);
	}
	let entry = perRun.get(credential);
	if (!entry) {
		entry = ctx.getCredentials(credential).then((data) => {
			const problem = check?.(data);
			if (problem) throw new NodeOperationError(ctx.getNode(), `${problem} (nothing was sent)`);
			const base = parseBaseUrl(data.baseUrl);
			if ('problem' in base) throw new NodeOperationError(ctx.getNode(), base.problem);
			const details = ctx.getNode().credentials?.[credential];
			return {
				decrypted: { id: details?.id ?? '', name: details?.name ?? '', type: credential, data },
				baseUrl: base.url,
			};
		});
		perRun.set(credential, entry);
	}
	return await entry;
}
