/**
 * Admin routes of the messaging side (not logged, faulted or rate limited, like
 * every /__emulator route): the records of what each chat received, playing a
 * user towards a webhook, expiring reply tokens, and the play page.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorConfig } from '../types';
import { type BotUser } from '../botSeed';
import type { MessagingState } from './state';
import { PlayError, type PlayRequest, playUser } from './webhook';
import { playPage } from './page';

export interface MessagingAdminDeps {
	config: EmulatorConfig;
	messaging: MessagingState;
	users: () => Iterable<BotUser>;
	groups: () => Iterable<{ _id: string; name: string }>;
}

export function registerMessagingAdminRoutes(app: FastifyInstance, { config, messaging, users, groups }: MessagingAdminDeps): void {
	const P = '/__emulator';

	app.get(`${P}/messages`, async (request) => {
		const q = request.query as Record<string, string | undefined>;
		return { messages: messaging.received({ uid: q.uid, gid: q.gid, tid: q.tid, route: q.route }) };
	});
	app.delete(`${P}/messages`, async (_request, reply) => {
		messaging.records.length = 0;
		return reply.code(204).send();
	});

	app.post(`${P}/events`, async (request, reply) => {
		try {
			const deliveries = await playUser(messaging, config, request.body as PlayRequest);
			const req = request.body as PlayRequest;
			if ((req.count ?? 1) === 1 || req.inOneBody) {
				const [d] = deliveries;
				return { ...d, event: d.events[0], replyToken: d.replyTokens[0] };
			}
			return { deliveries };
		} catch (err) {
			if (err instanceof PlayError) return reply.code(400).send({ error: 'bad_request', message: err.message });
			throw err;
		}
	});

	app.post(`${P}/reply-tokens/expire`, async (_request, reply) => {
		messaging.expireReplyTokens();
		return reply.code(204).send();
	});

	app.get(P, async (_request, reply) => reply.redirect(`${P}/`));
	app.get(`${P}/`, async (_request, reply) => {
		const people = [...users()].filter((u) => !u.deleted).map((u) => ({ id: u._id, name: u.username }));
		const chats = [...groups()].map((g) => ({ id: g._id, name: g.name }));
		return reply.type('text/html; charset=utf-8').send(playPage({ webhookUrl: config.webhookUrl ?? '', users: people, groups: chats }));
	});
}
