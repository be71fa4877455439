/**
 * Admin routes of the bot API (not logged, faulted or rate limited, like
 * every /__emulator route): the records of what each chat received, playing a
 * user towards a webhook, expiring reply tokens, and the play page.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorConfig } from '../types';
import { type BotUser } from './seed';
import type { MessagingState } from './state';
import { PlayError, type PlayRequest, playUser } from './webhook';
import { playPage } from './playPage';
import { buttonsOf } from './buttons';
import { type ChatNames, renderChat } from './chatView';
import { TapError, tap } from './tap';

export interface MessagingAdminDeps {
	config: EmulatorConfig;
	messaging: MessagingState;
	users: () => Iterable<BotUser>;
	groups: () => Iterable<{ _id: string; name: string }>;
	topics: () => Iterable<{ _id: string; name: string }>;
}

const TAP_ERRORS: Record<number, string> = { 403: 'forbidden', 404: 'not_found', 502: 'bad_gateway' };

const chatFilter = (q: Record<string, string | undefined>) => ({ uid: q.uid, gid: q.gid, tid: q.tid });

export function registerMessagingAdminRoutes(app: FastifyInstance, { config, messaging, users, groups, topics }: MessagingAdminDeps): void {
	const P = '/__emulator';
	const find = <T extends { _id: string }>(list: Iterable<T>, id: string): T | undefined => {
		for (const x of list) if (x._id === id) return x;
		return undefined;
	};
	const names: ChatNames = {
		user: (id) => find(users(), id)?.username,
		group: (id) => find(groups(), id)?.name,
		topic: (id) => find(topics(), id)?.name,
	};

	app.get(`${P}/messages`, async (request) => {
		const q = request.query as Record<string, string | undefined>;
		// Each record with its tappable things, so a test can name the one to tap.
		const messages = messaging.received({ ...chatFilter(q), route: q.route }).map((r) => ({
			...r,
			buttons: buttonsOf(r).map((b) => ({ id: b.id, label: b.label, kind: b.kind, ...b.action })),
		}));
		return { messages, taps: messaging.tapsIn(chatFilter(q)) };
	});
	app.delete(`${P}/messages`, async (_request, reply) => {
		messaging.records.length = 0;
		messaging.taps.length = 0;
		return reply.code(204).send();
	});

	// A person taps a button of a recorded message (see tap.ts).
	app.post(`${P}/tap`, async (request, reply) => {
		try {
			return await tap(messaging, config, request.body);
		} catch (err) {
			if (err instanceof TapError) return reply.code(err.status).send({ error: TAP_ERRORS[err.status] ?? 'bad_request', message: err.message });
			throw err;
		}
	});

	// The chat as HTML (the play page shows it); same filter as /messages.
	app.get(`${P}/chat`, async (request, reply) => {
		const filter = chatFilter(request.query as Record<string, string | undefined>);
		return reply.type('text/html; charset=utf-8').send(renderChat(messaging.received(filter), messaging.tapsIn(filter), names));
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
