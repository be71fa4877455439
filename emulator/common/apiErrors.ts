/**
 * Error bodies in each API's own shape: the ones the APIs answer with, and
 * the ones the server produces on an API's behalf (faults, rate limiting,
 * unknown routes).
 */
import type { FastifyReply } from 'fastify';

export type ApiName = 'knowledge' | 'taskProjects' | 'bot' | 'oauth' | 'other';

export function apiOf(path: string): ApiName {
	if (path.startsWith('/api/v1/task-projects')) return 'taskProjects';
	if (path.startsWith('/api/v1/')) return 'knowledge';
	// Picture downloads (/file/image, /file/view) take the bot token and answer like the bot API.
	if (path.startsWith('/bot/') || path.startsWith('/file/')) return 'bot';
	if (path.startsWith('/oauth/')) return 'oauth';
	return 'other';
}

const knowledgeNames: Record<number, string> = {
	400: 'BadRequestException',
	401: 'UnauthorizedException',
	403: 'ForbiddenException',
	404: 'NotFoundException',
	405: 'MethodNotAllowedException',
	408: 'RequestTimeoutException',
	409: 'ConflictException',
	415: 'UnsupportedMediaTypeException',
	422: 'UnprocessableEntityException',
	429: 'RateLimitExceededException',
	500: 'InternalServerErrorException',
	501: 'NotImplementedException',
	502: 'BadGatewayException',
	503: 'ServiceUnavailableException',
	504: 'GatewayTimeoutException',
};

const snakeNames: Record<number, string> = {
	400: 'bad_request',
	401: 'unauthorized',
	403: 'forbidden',
	404: 'not_found',
	409: 'conflict',
	413: 'payload_too_large',
	422: 'validation_failed',
	429: 'rate_limited',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

const defaultMessages: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	409: 'Conflict',
	413: 'Request Entity Too Large',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

export function defaultMessage(status: number): string {
	return defaultMessages[status] ?? `HTTP ${status}`;
}

export interface KnowledgeError {
	name: string;
	code: number;
	status: number;
	message: string;
	errors: Array<Record<string, unknown>>;
}

/** The knowledge base API's code: the service's 400002 for 400, else status * 1000 + 1 like 401001/404001/422001/429001. */
export function knowledgeCode(status: number): number {
	return status === 400 ? 400002 : status * 1000 + 1;
}

export function knowledgeError(status: number, message?: string, errors: Array<Record<string, unknown>> = []): KnowledgeError {
	return {
		name: knowledgeNames[status] ?? (status >= 500 ? 'InternalServerErrorException' : 'HttpException'),
		code: knowledgeCode(status),
		status,
		message: message ?? defaultMessage(status),
		errors,
	};
}

/**
 * The body (and content type) an API answers with for a bare status.
 * Knowledge 413 is plain text: the service gives no JSON body for it, so clients must cope.
 */
export function apiErrorBody(area: ApiName, status: number, message?: string): { contentType: string; body: string } {
	const msg = message ?? defaultMessage(status);
	if (area === 'knowledge' && status === 413) {
		return { contentType: 'text/plain; charset=utf-8', body: 'Request Entity Too Large' };
	}
	let body: unknown;
	switch (area) {
		case 'knowledge':
		case 'other':
			body = knowledgeError(status, msg);
			break;
		case 'taskProjects':
			body = { error: snakeNames[status] ?? `http_${status}`, message: msg, details: [] };
			break;
		case 'bot':
			body = botErrorBody(snakeNames[status] ?? `http_${status}`, msg);
			break;
		case 'oauth':
			// The token endpoint answers RFC 6749 errors (bot/oauth.ts); keep its faults in that shape.
			body = { error: snakeNames[status] ?? `http_${status}`, error_description: msg };
			break;
	}
	return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}

/** The bot API's error body: { code, message }, code a snake_case word (the service shows no bot error body of its own). */
function botErrorBody(code: string, message: string): { code: string; message: string } {
	return { code, message };
}

export function botError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
	return reply.code(status).send(botErrorBody(code, message));
}
