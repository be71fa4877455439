/**
 * What the v1 and v2 message routes share: a refusal (status, code, message of
 * the bot error body) thrown by the checks below, and the wrapper that answers it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlainObject, mediaType } from '../../common/helpers';
import { botError } from '../../common/apiErrors';
import type { EmulatorConfig } from '../../types';
import type { ChatLookup, ChatTarget, MessagingState } from '../state';

export interface MessageRouteDeps {
	config: EmulatorConfig;
	messaging: MessagingState;
}

/** A refusal: status, code and message of the bot error body. */
export class Refusal {
	constructor(
		readonly status: number,
		readonly code: string,
		readonly message: string,
	) {}
}

export const invalid = (message: string) => new Refusal(400, 'invalid_request', message);

export function requireJson(request: FastifyRequest): Record<string, unknown> {
	if (mediaType(request) !== 'application/json') throw invalid('Content-Type must be application/json');
	if (!isPlainObject(request.body)) throw invalid('Body must be a JSON object');
	return request.body;
}

/** A non-empty string field (of a JSON body or a form). */
export function requiredText(value: unknown, name: string, max?: number): string {
	if (typeof value !== 'string' || value.trim() === '') throw invalid(`${name} is required (a non-empty string)`);
	if (max !== undefined && [...value].length > max) throw invalid(`${name} must be at most ${max} characters`);
	return value;
}

export function chatOf(lookup: ChatLookup): ChatTarget {
	if ('target' in lookup) return lookup.target;
	throw new Refusal(lookup.status, lookup.code, lookup.message);
}

/** An optional topic id: absent or a string (empty = the group's main chat, as the service takes it). */
export function optionalTid(value: unknown): string | undefined {
	if (value === undefined || typeof value === 'string') return value;
	throw invalid('tid must be a string (empty or absent for the main chat)');
}

/** The chat a reply token leads to; the token is used up by this (see redeemReplyToken). */
export function replyChat(messaging: MessagingState, token: string): ChatTarget {
	const result = messaging.redeemReplyToken(token);
	if ('message' in result) throw new Refusal(400, 'invalid_reply_token', result.message);
	return result.target;
}

/** Wraps a handler so a thrown Refusal becomes the bot error body. */
export function handle(work: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		try {
			return await work(request, reply);
		} catch (err) {
			if (err instanceof Refusal) return botError(reply, err.status, err.code, err.message);
			throw err;
		}
	};
}
