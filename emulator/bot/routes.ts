/**
 * Bot area: POST /oauth/token and the /bot/v1, /bot/v2 endpoints (messaging and
 * picture downloads in messages/v1.ts and messages/v2.ts). Every bot error is
 * { code, message } (botError). Auth runs in onRequest, before any body
 * (multipart included) is read.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ApiContext } from '../types';
import { listedUser, type BotTopic } from './seed';
import type { BotState, MessagingState } from './state';
import { botError } from '../common/apiErrors';
import { bearerToken, clientErrorStatus, isPlainObject, mediaType, objectId } from '../common/helpers';
import { registerOauthRoute } from './oauth';
import { createGroupHandler } from './createGroup';
import { registerV1MessageRoutes } from './messages/v1';
import { registerV2MessageRoutes } from './messages/v2';

function authHook(state: BotState) {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		const token = bearerToken(request);
		const entry = token === undefined ? undefined : state.tokens.get(token);
		let message: string | undefined;
		if (!entry) message = 'Invalid access token';
		else if (Date.now() >= entry.expiresAt) message = 'Access token expired';
		else if (!entry.scopes.includes('bot')) message = 'The bot scope is required';
		if (message === undefined) return undefined;
		reply.header('www-authenticate', 'Bearer error="invalid_token"');
		return botError(reply, 401, 'unauthorized', message);
	};
}

/** Parser and multipart-limit failures in the bot error shape. */
function parserErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
	const status = clientErrorStatus(error);
	if (status === undefined) throw error;
	if (status === 415) return botError(reply, 400, 'invalid_request', 'Unsupported Content-Type');
	return botError(reply, status, status === 413 ? 'invalid_file' : 'invalid_request', error.message);
}

const NOT_IN_GROUP_INFO = 'The user and the bot must both be members of the group';

export function registerBotRoutes(
	app: FastifyInstance,
	{ config, state, messaging }: ApiContext & { state: BotState; messaging: MessagingState },
): void {
	registerOauthRoute(app, config, state);

	const opts: RouteShorthandOptions = { onRequest: authHook(state), errorHandler: parserErrorHandler };
	registerV1MessageRoutes(app, opts, { config, messaging });
	registerV2MessageRoutes(app, opts, { config, messaging });

	app.post('/bot/v1/groups', opts, createGroupHandler(state));

	app.post<{ Params: { group_id: string } }>('/bot/v1/groups/:group_id/topics', opts, async (request, reply) => {
		const gid = request.params.group_id;
		const group = state.groups.get(gid);
		if (!group) return botError(reply, 404, 'group_not_found', `Group ${gid} not found`);
		if (!group.members.has(state.botUserId)) {
			return botError(reply, 403, 'not_in_group', 'The bot is not a member of this group');
		}
		// The service declares JSON for this route but form-encodes its own example; a server reads one
		// of them (groupTopicBody), and finds no name in a body of the other.
		const read = mediaType(request) === (config.groupTopicBody === 'json' ? 'application/json' : 'application/x-www-form-urlencoded');
		const name = read && isPlainObject(request.body) ? request.body.name : undefined;
		if (typeof name !== 'string' || name.trim() === '') {
			return botError(reply, 400, 'invalid_request', 'name is required');
		}
		const topic: BotTopic = { _id: objectId(), name, gid };
		state.topics.set(topic._id, topic);
		return reply.code(200).send({ topic });
	});

	app.get('/bot/v1/users', opts, async (request, reply) => {
		const query = request.query as Record<string, unknown>;
		const username = query.username;
		if (typeof username !== 'string' || username.trim() === '') {
			return botError(reply, 400, 'invalid_request', 'username query parameter is required');
		}
		const needle = username.trim().toLowerCase();
		const all = [...state.users.values()];
		const exact = all.filter((u) => u.username.toLowerCase() === needle);
		const partial = all
			.filter((u) => u.username.toLowerCase() !== needle && u.username.toLowerCase().includes(needle))
			.sort((a, b) => a.username.localeCompare(b.username));
		// Deleted accounts are listed too (deleted: true): filtering them is the client's job.
		return reply.code(200).send({ users: [...exact, ...partial].map(listedUser) });
	});

	app.get<{ Params: { gid: string; uid: string } }>('/bot/v2/groups/:gid/users/:uid/info', opts, async (request, reply) => {
		const { gid, uid } = request.params;
		const group = state.groups.get(gid);
		if (!group) return botError(reply, 404, 'group_not_found', `Group ${gid} not found`);
		const user = state.users.get(uid);
		if (!user || user.deleted) return botError(reply, 404, 'user_not_found', `User ${uid} not found`);
		if (!group.members.has(uid) || !group.members.has(state.botUserId)) {
			return botError(reply, 403, 'not_in_group', NOT_IN_GROUP_INFO);
		}
		const { _id, firstname, lastname, avatar, network_admin } = user;
		return reply.code(200).send({ _id, firstname, lastname, avatar, network_admin });
	});
}
