/**
 * Bot v2 push and reply (messages checked by schema.ts) and the picture
 * download routes. Two switches make routes vanish
 * as the live service may: `v2ReplyRoute` and `fileImageRoute` (config).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions, onRequestHookHandler } from 'fastify';
import { messagesProblem } from './schema';
import { PICTURE_SIZES, type PictureSize } from '../pictures';
import { botError } from '../../common/apiErrors';
import { type MessageRouteDeps, Refusal, chatOf, handle, invalid, optionalTid, replyChat, requireJson, requiredText } from './refusal';

/** Answers as the not-found handler does for a route that does not exist. */
function vanishesUnless(enabled: () => boolean): onRequestHookHandler {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		if (enabled()) return undefined;
		return botError(reply, 404, 'not_found', `Cannot ${request.method} ${request.url.split('?')[0]}`);
	};
}

/** The route options with an extra onRequest hook in front of the API's auth. */
function withSwitch(opts: RouteShorthandOptions, enabled: () => boolean): RouteShorthandOptions {
	const auth = opts.onRequest;
	const hooks = [vanishesUnless(enabled), ...(auth === undefined ? [] : Array.isArray(auth) ? auth : [auth])];
	return { ...opts, onRequest: hooks as onRequestHookHandler[] };
}

function checkedMessages(body: Record<string, unknown>): unknown[] {
	const problem = messagesProblem(body.messages);
	if (problem) throw new Refusal(400, 'invalid_message', problem);
	return body.messages as unknown[];
}

export function registerV2MessageRoutes(app: FastifyInstance, opts: RouteShorthandOptions, { config, messaging }: MessageRouteDeps): void {
	app.post('/bot/v2/message/push', opts, handle(async (request, reply) => {
		const body = requireJson(request);
		const gid = requiredText(body.gid, 'gid');
		const tid = optionalTid(body.tid);
		const messages = checkedMessages(body);
		const target = chatOf(messaging.groupChat(gid, tid));
		messaging.record({ route: 'POST /bot/v2/message/push', target, messages });
		return reply.code(200).send({ status: 'success' });
	}));

	app.post('/bot/v2/message/reply', withSwitch(opts, () => config.v2ReplyRoute), handle(async (request, reply) => {
		const body = requireJson(request);
		const token = requiredText(body.replyToken, 'replyToken');
		const messages = checkedMessages(body);
		const target = replyChat(messaging, token);
		messaging.record({ route: 'POST /bot/v2/message/reply', target: { ...target, replyToken: token }, messages });
		return reply.code(200).send();
	}));

	const download = handle(async (request, reply) => {
		const { pictureId } = request.params as { pictureId: string };
		const size = (request.query as Record<string, unknown>).size ?? 'medium';
		if (typeof size !== 'string' || !(PICTURE_SIZES as readonly string[]).includes(size)) {
			throw invalid(`size must be one of ${PICTURE_SIZES.join(', ')}`);
		}
		const png = messaging.pictures.png(pictureId, size as PictureSize);
		if (!png) throw new Refusal(404, 'picture_not_found', `Picture ${pictureId} not found`);
		return reply.code(200).type('image/png').header('content-length', png.length).send(png);
	});
	app.get('/file/image/:pictureId', withSwitch(opts, () => config.fileImageRoute), download);
	app.get('/file/view/:pictureId', opts, download);
}
