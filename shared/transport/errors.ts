/**
 * Failures as the errors n8n shows (their messages are written in failureMessages.ts), and
 * what the transport reads of an error the HTTP client threw: its network code,
 * whether the client itself failed, the answer inside it.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { toJsonObject } from './errorBody';
import { inCauses } from './errorCauses';
import { answerTooLarge, consequenceOf, notTheJsonExpected, operationAndItem, TLS_CODE, type ErrorText, type Unexpected } from './failureMessages';
import type { ApiRequest, ApiResponse, Context } from './types';

/** The network failure code (ECONNRESET, a TLS code, ...) of an error or of what caused it. */
export function errorCode(error: unknown): string | undefined {
	return inCauses(error, (e) => {
		const code = (e as { code?: unknown }).code;
		return typeof code === 'string' && (/^E[A-Z_]+$/.test(code) || TLS_CODE.test(code)) ? code : undefined;
	});
}

/** An error raised by the HTTP client itself (axios, possibly wrapped by n8n in a NodeApiError). */
export function isHttpFailure(error: unknown): boolean {
	return inCauses(error, (e) => ((e as { isAxiosError?: unknown }).isAxiosError === true ? true : undefined)) ?? false;
}

/** The HTTP answer inside a thrown error (a status the request let throw, e.g. a 401 after n8n's refresh). */
export function thrownResponse(error: unknown): ApiResponse | undefined {
	return inCauses(error, (e) => {
		const response = (e as { response?: { status?: unknown; data?: unknown; headers?: unknown } }).response;
		if (!response || typeof response.status !== 'number') return undefined;
		return { statusCode: response.status, headers: (response.headers ?? {}) as ApiResponse['headers'], body: response.data };
	});
}

/** Adds a sentence to an error's description, after what it says already. */
export function addToDescription<E extends NodeApiError | NodeOperationError>(error: E, sentence: string): E {
	error.description = error.description ? `${error.description} ${sentence}` : sentence;
	return error;
}

/** An error as it is when it is a node error already, else wrapped as one for item `itemIndex`. */
export function asNodeError(ctx: Pick<Context, 'getNode'>, error: unknown, itemIndex: number | undefined): NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * What n8n keeps of a failure beside its message: the service's answer (its body
 * and status), or the network code. Never anything of the request (headers, keys).
 */
export type FailureDetails = { body: unknown; status: number } | { networkCode: string };

/** A failure with its message as a NodeApiError. */
export function failureError(ctx: Context, text: ErrorText, details: FailureDetails, itemIndex: number | undefined): NodeApiError {
	// A network code goes under `networkErrorCode`, not `code`: NodeApiError would swap the
	// message for n8n's generic one for that code ("You can retry the request immediately").
	const response = 'networkCode' in details ? ({ networkErrorCode: details.networkCode, message: text.message } as JsonObject) : toJsonObject(details.body);
	const httpCode = 'status' in details ? String(details.status) : undefined;
	return new NodeApiError(ctx.getNode(), response, { message: text.message, description: text.description, httpCode, itemIndex });
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
	const who = operationAndItem(request.operation, itemIndex);
	const text = notTheJsonExpected(who, response.statusCode, contentTypeOf(response.headers), unexpected, expected, consequenceOf(request));
	return new NodeApiError(ctx.getNode(), { message: text.message } as JsonObject, { ...text, itemIndex });
}

/** A 2xx JSON answer past MAX_JSON_BYTES: nothing of it is used; whether the request may have changed something is said. */
export function answerTooLargeError(
	ctx: Context,
	request: ApiRequest,
	response: Pick<ApiResponse, 'statusCode'>,
	limit: number,
	itemIndex: number | undefined,
): NodeApiError {
	const text = answerTooLarge(operationAndItem(request.operation, itemIndex), limit, consequenceOf(request));
	return new NodeApiError(ctx.getNode(), { message: text.message } as JsonObject, { ...text, httpCode: String(response.statusCode), itemIndex });
}
