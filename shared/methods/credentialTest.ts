/**
 * The three credentials' tests. n8n runs them from the credential dialog's
 * Test button (the nodes name them in `testedBy`). Each checks the Base URL and
 * the token locally first, then sends one harmless request as the node would,
 * on the one request path (transport/boundedRequest.ts): never following a
 * redirect (the credential's headers would go with it), the whole answer
 * within EDITOR_TIMEOUT_MS and MAX_JSON_BYTES, and saying every failure with
 * the node's own messages (transport/errors.ts, failureMessages.ts,
 * baseUrl.ts), so the dialog and a failed run agree.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { parseBaseUrl } from '../transport/baseUrl';
import { AnswerTooLarge } from '../transport/body';
import { requestToken } from '../transport/botToken';
import { boundedRequest, viaLegacyRequest, type Answer, type OutgoingRequest, type Transmit } from '../transport/boundedRequest';
import { EDITOR_TIMEOUT_MS, sizeText } from '../transport/limits';
import { SERVICE_APIS } from '../transport/serviceApis';
import { TokenRequestFailure } from '../transport/tokenRequestFailure';
import { errorCode } from '../transport/errors';
import { bareToken } from '../transport/jwt';
import type { ServiceApiName } from '../transport/types';
import { consequenceOf, networkMessage, notTheJsonExpected, redirectRefused, redirectTarget, serviceErrorText } from '../transport/failureMessages';

/** Who the redirect and unexpected-answer messages are about. */
const WHO = 'Testing the credential';

/** The test request, as data. */
interface Probe {
	api: ServiceApiName;
	/** What the request proves accepted, for the plain-http warning: "The API key". */
	secret: string;
	request(base: string, credentials: ICredentialDataDecryptedObject, transmit: Transmit): Promise<OutgoingRequest>;
	/** Statuses that prove the credential works. */
	accepted(status: number): boolean;
	/** Whether a 2xx body must be JSON (a read of JSON; a sign-in page answering 200 is not the service). */
	expectsJson: boolean;
	/** A status's meaning, where it says more than the node's message for any request. */
	meaning?: Record<number, string>;
}

const error = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

function contentType(headers: Record<string, unknown>): string | undefined {
	const value = headers['content-type'];
	return typeof value === 'string' ? value : undefined;
}

async function runProbe(ctx: ICredentialTestFunctions, probe: Probe, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	// The node's own checks, with its messages, before anything is sent.
	const base = parseBaseUrl(data.baseUrl);
	if ('problem' in base) return error(base.problem);
	const problem = SERVICE_APIS[probe.api].check?.(data);
	if (problem) return error(`${problem} (nothing was sent)`);

	// n8n's helpers.request, the one helper a credential test has.
	const transmit = viaLegacyRequest(async (options) => (await ctx.helpers.request(options)) as unknown);
	let request: OutgoingRequest;
	let answer: Answer;
	try {
		request = await probe.request(base.url, data, transmit);
		answer = await boundedRequest(transmit, request, { timeoutMs: EDITOR_TIMEOUT_MS });
	} catch (thrown) {
		if (thrown instanceof TokenRequestFailure) return error(thrown.message);
		if (thrown instanceof AnswerTooLarge) {
			return error(`${WHO}: the service's answer ran past ${sizeText(thrown.limit)} (counted unpacked), far larger than any answer the service gives; it was not read further. Check the Base URL`);
		}
		const code = errorCode(thrown);
		return error(code ? networkMessage(code) : `The service could not be reached (${(thrown as Error).message})`);
	}

	const status = answer.statusCode;
	if (status >= 300 && status < 400) {
		return error(redirectRefused(WHO, status, redirectTarget(answer.headers.location, request.url)).message);
	}
	if (probe.accepted(status)) {
		if (probe.expectsJson && typeof answer.body !== 'object') {
			const told = notTheJsonExpected(WHO, status, contentType(answer.headers), 'notJson', 'a JSON answer', consequenceOf({ method: 'GET' }));
			return error(`${told.message}. ${told.description ?? ''}`.trim());
		}
		if (base.plainHttp) {
			return error(
				`${probe.secret} worked, but the Base URL starts with plain http://, so it travels unencrypted to ${new URL(base.url).host}: ` +
					'use https:// if the service offers it (the node works over http:// too; this test fails only to say so)',
			);
		}
		return { status: 'OK', message: 'Connection successful' };
	}
	const meaning = probe.meaning?.[status];
	return error(meaning ?? serviceErrorText(status, answer.body, undefined, SERVICE_APIS[probe.api].unauthorizedHint).message);
}

/** GET one knowledge base: read-only, and proves both the key and the IP whitelist. */
const KNOWLEDGE_BASE: Probe = {
	api: 'knowledgeBase',
	secret: 'The API key',
	expectsJson: true,
	accepted: (status) => status >= 200 && status < 300,
	request: async (base, credentials) => ({
		method: 'GET',
		url: `${base}${SERVICE_APIS.knowledgeBase.prefix}/knowledge`,
		qs: { 'pagination[page]': 1, 'pagination[pageSize]': 1 },
		headers: { 'x-api-key': String(credentials.apiKey ?? ''), Accept: 'application/json' },
	}),
};

const REFUSED_EMPTY_TASK = 'The service accepted the token, but it also accepted an empty task; remove it';

/**
 * The interface has only creates, so the test sends a task without a title:
 * the service checks the token before the body, so 400 or 422 mean the token
 * was accepted and nothing could be created.
 */
const TASK_PROJECTS: Probe = {
	api: 'taskProjects',
	secret: 'The JWT',
	expectsJson: false,
	accepted: (status) => status === 400 || status === 422,
	request: async (base, credentials) => ({
		method: 'POST',
		url: `${base}${SERVICE_APIS.taskProjects.prefix}/tasks`,
		// A pasted "Bearer " prefix is dropped so the header never says it twice.
		headers: { Authorization: `Bearer ${bareToken(String(credentials.token ?? ''))}`, 'Content-Type': 'application/json' },
		// Deliberately invalid: no taskTitle, so the service can only refuse it.
		body: '{}',
	}),
	meaning: {
		200: REFUSED_EMPTY_TASK,
		201: REFUSED_EMPTY_TASK,
		403: 'The JWT lacks write access to task projects',
		404: 'No task-projects interface at this Base URL (the service answered 404); check the address',
		429: 'The service is rate limiting requests; test again later',
	},
};

/** A new token every time (the stored one proves nothing about the secret), then one bot read. */
const BOT: Probe = {
	api: 'bot',
	secret: 'The client ID and secret',
	expectsJson: true,
	accepted: (status) => status >= 200 && status < 300,
	request: async (base, credentials, transmit) => {
		const { accessToken } = await requestToken(transmit, credentials, EDITOR_TIMEOUT_MS);
		return {
			method: 'GET',
			url: `${base}/bot/v1/users`,
			qs: { username: 'n8n-credential-test' },
			headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
		};
	},
};

/** The functions the nodes' `testedBy` names, under `methods.credentialTest`. */
export const credentialTest = {
	async workplaceKnowledgeBaseApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted) {
		return await runProbe(this, KNOWLEDGE_BASE, credential);
	},
	async workplaceTaskProjectsApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted) {
		return await runProbe(this, TASK_PROJECTS, credential);
	},
	async workplaceBotApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted) {
		return await runProbe(this, BOT, credential);
	},
};
