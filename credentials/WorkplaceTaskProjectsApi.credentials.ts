import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { baseUrlProperty, CREDENTIAL_ICON } from '../nodes/Workplace/shared/credentialParts';
import { BASE_URL_EXPRESSION, parseBaseUrl } from '../nodes/Workplace/transport/baseUrl';
import { bareToken, jwtProblem } from '../nodes/Workplace/transport/jwt';

/** Every HTTP status but 400 and 422: the only answers that say the token was accepted and the empty body refused. */
const NOT_ACCEPTED = Array.from({ length: 500 }, (_, i) => 100 + i).filter((status) => status !== 400 && status !== 422);

const REDIRECTED = 'No task-projects interface at this Base URL (the service redirects); check the address';

/**
 * Task-projects interface: every request carries `Authorization: Bearer <JWT>`.
 *
 * The interface has only POST creates, so the test sends a create without a
 * title: the service checks the token before the body, so 400 or 422 mean the
 * token was accepted and nothing could be created, while 401 means a bad token
 * and 403 one without write access. Before anything is sent, the Base URL and
 * the token's expiry are checked locally (authenticate), as the node does.
 */
export class WorkplaceTaskProjectsApi implements ICredentialType {
	name = 'workplaceTaskProjectsApi';

	displayName = 'Workplace Task Projects API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty('Address of the service, without the /api/v1 suffix'),
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'JSON Web Token with write access to task projects, sent as "Authorization: Bearer …". Its expiry is checked before each run.',
		},
	];

	/** The Bearer header; an address or a token that cannot work stops the request before it is sent (never quoting the token). */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const address = parseBaseUrl(credentials.baseUrl);
		if ('problem' in address) throw new UserError(address.problem);
		const problem = jwtProblem(credentials.token);
		if (problem) throw new UserError(problem);
		// A pasted "Bearer " prefix is dropped so the header never says it twice.
		requestOptions.headers = { ...requestOptions.headers, Authorization: `Bearer ${bareToken(String(credentials.token))}` };
		return requestOptions;
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: `${BASE_URL_EXPRESSION}/api/v1/task-projects`,
			url: '/tasks',
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			// Deliberately invalid: no taskTitle, so the service can only refuse it.
			body: '{}',
			ignoreHttpStatusErrors: { ignore: true, except: NOT_ACCEPTED },
			disableFollowRedirect: true,
			timeout: 30_000,
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: 'The service rejected the JWT' } },
			{ type: 'responseCode', properties: { value: 403, message: 'The JWT lacks write access to task projects' } },
			{ type: 'responseCode', properties: { value: 404, message: 'No task-projects interface at this Base URL (the service answered 404); check the address' } },
			{ type: 'responseCode', properties: { value: 429, message: 'The service is rate limiting requests; test again later' } },
			{ type: 'responseCode', properties: { value: 200, message: 'The service accepted the token, but it also accepted an empty task; remove it' } },
			{ type: 'responseCode', properties: { value: 201, message: 'The service accepted the token, but it also accepted an empty task; remove it' } },
			...[301, 302, 303, 307, 308].map((value) => ({ type: 'responseCode' as const, properties: { value, message: REDIRECTED } })),
		],
	};
}
