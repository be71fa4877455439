/**
 * Failures as the errors n8n shows: the service's own words from either error
 * body shape of the documents, a hint per status, network failures without
 * anything of the request, and "may have been applied" for a POST whose fate is unknown.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { parseErrorBody, toJsonObject } from './errorBody';
import {
	consequenceOf,
	mayHaveBeenCreated,
	notTheJsonExpected,
	redirectRefused,
	redirectTarget,
	retriesExhausted,
	waitTooLong,
	operationAndItem,
	type Unexpected,
} from './failureMessages';
import type { ApiRequest, ApiResponse, Context } from './types';
import { ownEntry } from '../shared/ownEntry';

/** TLS verification failures, as Node names them (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ...). */
const TLS_CODE = /^(?:ERR_TLS_[A-Z_]+|EPROTO|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+)$/;

/** The network failure code (ECONNRESET, a TLS code, ...) of an error or of what caused it. */
export function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && (/^E[A-Z_]+$/.test(code) || TLS_CODE.test(code))) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** An error raised by the HTTP client itself (axios, possibly wrapped by n8n in a NodeApiError). */
export function isHttpFailure(error: unknown): boolean {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		if ((current as { isAxiosError?: unknown }).isAxiosError === true) return true;
		current = (current as { cause?: unknown }).cause;
	}
	return false;
}

/** The HTTP answer inside a thrown error (a status the request let throw, e.g. a 401 after n8n's refresh). */
export function thrownResponse(error: unknown): ApiResponse | undefined {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		const response = (current as { response?: { status?: unknown; data?: unknown; headers?: unknown } }).response;
		if (response && typeof response.status === 'number') {
			return {
				statusCode: response.status,
				headers: (response.headers ?? {}) as ApiResponse['headers'],
				body: response.data,
			};
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/**
 * Said of a POST whose fate is unknown (a 5xx, a timeout or a reset after
 * sending): it may have been carried out, and it was not resent, because
 * resending could do it twice.
 */
export function mayHaveBeenApplied(request: Pick<ApiRequest, 'subject' | 'effect'>): string {
	return `; ${mayHaveBeenCreated(request.subject, request.effect)}`;
}

const NETWORK_MESSAGES: Record<string, string> = {
	ECONNREFUSED: 'The service refused the connection',
	ECONNRESET: 'The connection to the service was reset',
	ETIMEDOUT: 'The service did not answer in time',
	ECONNABORTED: 'The service did not answer in time',
	ENOTFOUND: 'The service\'s host name could not be resolved',
	EAI_AGAIN: 'The service\'s host name could not be resolved',
	EPIPE: 'The connection to the service was closed while sending',
};

/**
 * What a network failure code means, in words; the node's errors and the
 * credential tests both say it this way.
 */
export function networkMessage(code: string): string {
	const known = ownEntry(NETWORK_MESSAGES, code);
	if (known !== undefined) return known;
	if (code === 'EPROTO') {
		return 'The secure (TLS) connection to the service failed (EPROTO); check that the Base URL\'s scheme is what the service speaks (https:// or http://)';
	}
	if (TLS_CODE.test(code)) {
		return `The service's TLS certificate could not be verified (${code}); check the Base URL's host name, or have the certificate fixed (the node never skips the check)`;
	}
	return `The request to the service failed (${code})`;
}

/** A network failure as a NodeApiError carrying nothing of the request (no headers, no keys). */
export function networkError(
	ctx: Context,
	code: string,
	itemIndex: number | undefined,
	attempts: number,
	/** Set when the failed request may have reached the service and was not resent. */
	unsafe?: ApiRequest,
): NodeApiError {
	let message = networkMessage(code);
	if (unsafe) message += mayHaveBeenApplied(unsafe);
	// Not under `code`/`errorCode`: NodeApiError would swap the message for n8n's generic
	// one for that code ("You can retry the request immediately"), wrong for a create.
	return new NodeApiError(
		ctx.getNode(),
		{ networkErrorCode: code, message } as JsonObject,
		{
			message,
			description: `${code} after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
			itemIndex,
		},
	);
}

/** The content type an answer says it has, as sent. */
function contentTypeOf(headers: ApiResponse['headers']): string | undefined {
	const value = headers['content-type'];
	return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/**
 * A 2xx whose body is not the JSON the operation reads: what was expected, the
 * status and content type, and whether the request may have changed something.
 * Nothing of the body is quoted (a sign-in page may echo what was sent).
 */
export function unexpectedAnswerError(
	ctx: Context,
	request: ApiRequest,
	response: ApiResponse,
	unexpected: Unexpected,
	expected: string,
	itemIndex: number | undefined,
): NodeApiError {
	const told = notTheJsonExpected(
		operationAndItem(request.operation, itemIndex),
		response.statusCode,
		contentTypeOf(response.headers),
		unexpected,
		expected,
		consequenceOf(request.method, request.subject, request.effect),
	);
	return new NodeApiError(ctx.getNode(), { message: told.message } as JsonObject, { ...told, itemIndex });
}

/** A redirect, never followed: where it pointed (scheme and host only). Not the service's error, so not a NodeApiError. */
export function redirectError(
	ctx: Context,
	request: ApiRequest,
	response: ApiResponse,
	requestUrl: string,
	itemIndex: number | undefined,
): NodeOperationError {
	const told = redirectRefused(operationAndItem(request.operation, itemIndex), response.statusCode, redirectTarget(response.headers.location, requestUrl));
	return new NodeOperationError(ctx.getNode(), told.message, { description: told.description, itemIndex });
}

/** A 429 whose Retry-After is longer than Max Wait: until when, and that the node stopped instead. */
export function waitTooLongError(
	ctx: Context,
	request: ApiRequest,
	body: unknown,
	waitMs: number,
	maxWaitMs: number,
	itemIndex: number | undefined,
): NodeApiError {
	const told = waitTooLong(operationAndItem(request.operation, itemIndex), waitMs, maxWaitMs, parseErrorBody(body).message);
	return new NodeApiError(ctx.getNode(), toJsonObject(body), { ...told, httpCode: '429', itemIndex });
}

/** Every attempt the policy allows failed: how many, over how long, and the last status with the service's words. */
export function retriesExhaustedError(
	ctx: Context,
	request: ApiRequest,
	attempts: number,
	elapsedMs: number,
	last: { status: number; body: unknown } | { network: string },
	itemIndex: number | undefined,
): NodeApiError {
	const who = operationAndItem(request.operation, itemIndex);
	if ('network' in last) {
		// The code goes in the description: in a message n8n would swap it for its generic words.
		const message = retriesExhausted(who, attempts, elapsedMs, { what: networkMessage(last.network) });
		return new NodeApiError(ctx.getNode(), { networkErrorCode: last.network, message } as JsonObject, {
			message,
			description: `${last.network} on the last attempt`,
			itemIndex,
		});
	}
	const parsed = parseErrorBody(last.body);
	const message = retriesExhausted(who, attempts, elapsedMs, { status: last.status, serviceSaid: parsed.message });
	const description = [...parsed.details, parsed.code ? `Service code: ${parsed.code}` : ''].filter(Boolean).join('\n');
	return new NodeApiError(ctx.getNode(), toJsonObject(last.body), {
		message,
		description: description || undefined,
		httpCode: String(last.status),
		itemIndex,
	});
}

/** A 429 when no retry is allowed (Max Attempts 1): when the service asked to be asked again. */
export function rateLimitError(
	ctx: Context,
	body: unknown,
	waitMs: number | undefined,
	itemIndex: number | undefined,
): NodeApiError {
	const when =
		waitMs === undefined
			? 'later'
			: `in ${Math.ceil(waitMs / 1000)} s (at ${new Date(Date.now() + waitMs).toISOString()})`;
	const parsed = parseErrorBody(body);
	return new NodeApiError(ctx.getNode(), toJsonObject(body), {
		message: `The service is rate limiting requests; retry ${when}`,
		description: parsed.message,
		httpCode: '429',
		itemIndex,
	});
}

const STATUS_HINTS: Record<number, string> = {
	400: 'The service rejected the request',
	401: 'The service rejected the credentials',
	403: 'The credentials lack permission for this operation',
	404: 'Not found',
	409: 'The service refused the request because of a business rule',
	413: 'The upload is larger than the service accepts',
	422: 'The service rejected the values sent',
};

/**
 * The words of a non-2xx answer: the service's own message after a hint for the
 * status, and each field detail on its own line. The node's errors and the
 * credential tests both say it this way.
 */
export function apiErrorWords(status: number, body: unknown, meaning?: string, unauthorizedHint?: string): { message: string; description?: string } {
	const parsed = parseErrorBody(body);
	const hint = meaning ?? STATUS_HINTS[status] ?? `The service answered ${status}`;
	// An operation's own meaning leads; the service's words follow it.
	const said = meaning ? ` (the service said: ${parsed.message})` : `: ${parsed.message}`;
	let message = parsed.message ? `${hint}${said}` : hint;
	// A 404 about a related resource (assigneeId, labelIds[1]) names the fields it is about.
	if (status === 404 && parsed.paths.length > 0) message += ` (${parsed.paths.join(', ')})`;
	if (status === 401 && unauthorizedHint) message += ` (${unauthorizedHint})`;
	const description = [...parsed.details, parsed.code ? `Service code: ${parsed.code}` : ''].filter(Boolean).join('\n');
	return { message, description: description || undefined };
}

/** A non-2xx answer as NodeApiError, in apiErrorWords. */
export function apiError(
	ctx: Context,
	status: number,
	body: unknown,
	itemIndex?: number,
	meaning?: string,
	unauthorizedHint?: string,
): NodeApiError {
	const { message, description } = apiErrorWords(status, body, meaning, unauthorizedHint);
	return new NodeApiError(ctx.getNode(), toJsonObject(body), {
		message,
		description,
		httpCode: String(status),
		itemIndex,
	});
}
