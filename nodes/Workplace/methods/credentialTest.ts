/**
 * Credential tests that cannot be declarative requests.
 *
 * Task projects: the interface has only POST creates, so any test request that
 * succeeds would create a task. Instead:
 * (a) the JWT's `exp` is read locally (not verified) and an expired or
 *     malformed token fails the test without a request;
 * (b) a create with an empty body (no taskTitle) is sent. The service checks
 *     the token before the body, so 401 means a bad token and 403 a token
 *     without write access, while 400 or 422 mean the token was accepted and
 *     the body refused: nothing could have been created.
 * Messages never contain the token.
 */
import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { parseBaseUrl, read } from '../transport';
import { jwtProblem, bareToken } from '../transport/jwt';

interface LegacyFullResponse {
	statusCode: number;
	body?: unknown;
}

function serviceMessage(body: unknown): string | undefined {
	const message = read.text(read.object(typeof body === 'string' ? safeJson(body) : body)?.message);
	return message?.slice(0, 300);
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

export async function workplaceTaskProjectsApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const problem = jwtProblem(data.token);
	if (problem) return { status: 'Error', message: problem };
	const parsed = parseBaseUrl(data.baseUrl);
	if ('problem' in parsed) return { status: 'Error', message: parsed.problem };
	const baseUrl = parsed.url;

	let response: LegacyFullResponse;
	try {
		// ICredentialTestFunctions offers only this helper (n8n-workflow 2.41); n8n-core
		// runs it on the same axios stack as httpRequest. Redirects of a POST are not followed.
		// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
		response = (await this.helpers.request({
			method: 'POST',
			uri: `${baseUrl}/api/v1/task-projects/tasks`,
			headers: {
				Authorization: `Bearer ${bareToken(String(data.token))}`,
				'Content-Type': 'application/json',
			},
			// Deliberately invalid: no taskTitle, so the service can only refuse it.
			body: {},
			json: true,
			simple: false,
			resolveWithFullResponse: true,
			followRedirect: false,
			followAllRedirects: false,
			timeout: 30_000,
		})) as LegacyFullResponse;
	} catch (error) {
		const code = (error as { code?: unknown }).code;
		return {
			status: 'Error',
			message: `The service could not be reached at the Base URL${typeof code === 'string' ? ` (${code})` : ''}`,
		};
	}

	const status = response.statusCode;
	const said = serviceMessage(response.body);
	const suffix = said ? `: ${said}` : '';
	if (status === 400 || status === 422) {
		return { status: 'OK', message: 'Connection successful: the service accepted the token (nothing was created)' };
	}
	if (status === 401) return { status: 'Error', message: `The service rejected the JWT${suffix}` };
	if (status === 403) {
		return { status: 'Error', message: `The JWT lacks write access to task projects${suffix}` };
	}
	if (status >= 200 && status < 300) {
		// Not expected: the service created something from an empty body. Say so.
		const id = read.object(response.body)?.id;
		return {
			status: 'OK',
			message: `The service accepted the token, but it also accepted an empty task${typeof id === 'string' ? ` (${id})` : ''}; remove it`,
		};
	}
	if (status === 404 || (status >= 300 && status < 400)) {
		return {
			status: 'Error',
			message: `No task-projects interface at this Base URL (the service answered ${status}); check the address`,
		};
	}
	if (status === 429) return { status: 'Error', message: 'The service is rate limiting requests; test again later' };
	return { status: 'Error', message: `The service answered ${status}${suffix}` };
}
