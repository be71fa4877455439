/**
 * The /__emulator admin routes of the server itself (faults, log, reset, tokens,
 * credentials, config). The APIs have their own: knowledge/admin.ts (changes
 * another user of the service would make), bot/admin.ts (messages, playing a person).
 */
import type { FastifyInstance } from 'fastify';
import { type FaultRegistry, ruleFromJson, ruleToJson } from './common/faults';
import type { RequestLog } from './common/requestLog';
import { GROUP_TOPIC_BODIES, PAGINATION_MODES, TOKEN_CLIENT_AUTHS, type EmulatorConfig } from './types';

/** The settings PATCH /config takes as one of a few values, with those values. */
const CHOICES = { paginationMode: PAGINATION_MODES, groupTopicBody: GROUP_TOPIC_BODIES, tokenClientAuth: TOKEN_CLIENT_AUTHS } as const;

/** `"a", "b" or "c"`. */
const quotedChoices = (values: readonly string[]) => `${values.slice(0, -1).map((v) => `"${v}"`).join(', ')} or "${values[values.length - 1]}"`;

export interface AdminDeps {
	log: RequestLog;
	faults: FaultRegistry;
	reset(): void;
	setConfig(patch: Partial<EmulatorConfig>): void;
	config: EmulatorConfig;
	expireBotTokens(): void;
	credentials(): Record<string, string>;
}

/** /__emulator routes: not logged, faulted or rate limited (the hooks skip them). */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
	const P = '/__emulator';
	const bad = (message: string) => ({ error: 'bad_request', message });
	// JSON has no Infinity; endless rules show as the string.
	const pending = () => (Number.isFinite(deps.faults.pending()) ? deps.faults.pending() : 'Infinity');

	app.post(`${P}/faults`, async (request, reply) => {
		const rules = Array.isArray(request.body) ? request.body : [request.body];
		try {
			const parsed = rules.map(ruleFromJson);
			parsed.forEach((r) => deps.faults.add(r));
			return reply.code(201).send({ added: parsed.map(ruleToJson), pending: pending() });
		} catch (err) {
			return reply.code(400).send(bad((err as Error).message));
		}
	});
	app.get(`${P}/faults`, async () => ({ pending: pending() }));
	app.delete(`${P}/faults`, async (_request, reply) => {
		deps.faults.clear();
		return reply.code(204).send();
	});

	app.get(`${P}/log`, async (request) => {
		const q = request.query as Record<string, string | undefined>;
		const entries = q.method || q.path ? deps.log.filter(q.method ?? '*', q.path ?? '') : deps.log.entries;
		return { entries };
	});
	app.delete(`${P}/log`, async (_request, reply) => {
		deps.log.clear();
		return reply.code(204).send();
	});

	app.post(`${P}/reset`, async (_request, reply) => {
		deps.reset();
		return reply.code(204).send();
	});
	app.post(`${P}/tokens/expire`, async (_request, reply) => {
		deps.expireBotTokens();
		return reply.code(204).send();
	});
	app.get(`${P}/credentials`, async () => deps.credentials());

	app.get(`${P}/config`, async () => deps.config);
	app.patch(`${P}/config`, async (request, reply) => {
		if (!request.body || typeof request.body !== 'object') return reply.code(400).send(bad('JSON object expected'));
		const patch = request.body as Partial<EmulatorConfig>;
		const cap = patch.pageCap;
		if (cap !== undefined && cap !== null && !(Number.isInteger(cap) && cap >= 1)) {
			return reply.code(400).send(bad('pageCap must be a whole number of at least 1, or null for no cap'));
		}
		for (const [field, values] of Object.entries(CHOICES)) {
			const value = patch[field as keyof typeof CHOICES];
			if (value !== undefined && !(values as readonly unknown[]).includes(value)) return reply.code(400).send(bad(`${field} must be ${quotedChoices(values)}`));
		}
		for (const field of ['maxPageSize', 'defaultPageSize'] as const) {
			const size = patch[field];
			if (size !== undefined && !(Number.isInteger(size) && size >= 1)) return reply.code(400).send(bad(`${field} must be a whole number of at least 1`));
		}
		const scopes = patch.tokenScopes as unknown;
		if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string' && /^\S+$/.test(scope)))) {
			return reply.code(400).send(bad('tokenScopes must be a list of scopes, each one word'));
		}
		deps.setConfig(patch);
		return deps.config;
	});
}
