/**
 * The /__emulator admin routes of the server itself (faults, log, reset, tokens,
 * credentials, config). The APIs have their own: knowledge/admin.ts (changes
 * another user of the service would make), bot/admin.ts (messages, playing a person).
 */
import type { FastifyInstance } from 'fastify';
import { type FaultRegistry, ruleFromJson, ruleToJson } from './common/faults';
import type { RequestLog } from './common/requestLog';
import { webhookUrlOf } from './bot/webhook';
import { DELETE_RESPONSES, GROUP_TOPIC_BODIES, PAGINATION_MODES, TEXT_REPLY_JSON, TOKEN_CLIENT_AUTHS, V1_SEND_ANSWERS, type EmulatorConfig } from './types';

/** `"a", "b" or "c"`. */
const quotedChoices = (values: readonly string[]) => `${values.slice(0, -1).map((v) => `"${v}"`).join(', ')} or "${values[values.length - 1]}"`;

/** A check of one setting's new value: undefined when it may be set, else what it must be (after the setting's name). */
type SettingCheck = (value: unknown) => string | undefined;
const isWhole = (value: unknown) => Number.isInteger(value) && (value as number) >= 1;
const oneOf = (values: readonly string[]): SettingCheck => (value) => ((values as readonly unknown[]).includes(value) ? undefined : `must be ${quotedChoices(values)}`);
const whole: SettingCheck = (value) => (isWhole(value) ? undefined : 'must be a whole number of at least 1');
const text: SettingCheck = (value) => (typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string');
const flag: SettingCheck = (value) => (typeof value === 'boolean' ? undefined : 'must be true or false');

/**
 * Every setting PATCH /config may change, with its check. Anything else (a
 * misspelt name, dataDir, which is where stored files already are) is refused
 * with 400 rather than stored: a test that set nothing must not pass as if it had.
 */
const SETTINGS: { [K in keyof EmulatorConfig]?: SettingCheck } = {
	apiKey: text,
	jwtSecret: text,
	clientId: text,
	clientSecret: text,
	tokenTtlSeconds: whole,
	tokenScopes: (value) => (Array.isArray(value) && value.every((scope) => typeof scope === 'string' && /^\S+$/.test(scope)) ? undefined : 'must be a list of scopes, each one word'),
	tokenClientAuth: oneOf(TOKEN_CLIENT_AUTHS),
	maxUploadBytes: whole,
	paginationMode: oneOf(PAGINATION_MODES),
	maxPageSize: whole,
	defaultPageSize: whole,
	pageCap: (value) => (value === null || isWhole(value) ? undefined : 'must be a whole number of at least 1, or null for no cap'),
	deleteResponse: oneOf(DELETE_RESPONSES),
	rateLimit: (value) => {
		if (value === null) return undefined;
		const limit = value as { capacity?: unknown; refillPerSecond?: unknown } | undefined;
		const fine = typeof value === 'object' && !Array.isArray(value) && Object.keys(value).sort().join() === 'capacity,refillPerSecond';
		return fine && isWhole(limit?.capacity) && typeof limit?.refillPerSecond === 'number' && limit.refillPerSecond > 0
			? undefined
			: 'must be {"capacity": a whole number of at least 1, "refillPerSecond": a number above 0}, or null for none';
	},
	replyTokenTtlSeconds: whole,
	maxMessageFileBytes: whole,
	v1SendAnswer: oneOf(V1_SEND_ANSWERS),
	textReplyJson: oneOf(TEXT_REPLY_JSON),
	v2ReplyRoute: flag,
	groupTopicBody: oneOf(GROUP_TOPIC_BODIES),
	fileImageRoute: flag,
	webhookUrl: (value) => (value === null || (typeof value === 'string' && webhookUrlOf(value) instanceof URL) ? undefined : 'must be an http(s) URL, or null for none'),
};

/** Why a PATCH /config body may not be set (the first reason), or undefined when all of it may. */
function configPatchProblem(patch: unknown): string | undefined {
	if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return 'JSON object expected';
	for (const [field, value] of Object.entries(patch)) {
		const check = Object.hasOwn(SETTINGS, field) ? SETTINGS[field as keyof EmulatorConfig] : undefined;
		if (!check) return `${field} is not a setting PATCH /config changes; it changes ${Object.keys(SETTINGS).join(', ')}`;
		const problem = check(value);
		if (problem) return `${field} ${problem}`;
	}
	return undefined;
}

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
		const problem = configPatchProblem(request.body);
		if (problem) return reply.code(400).send(bad(problem));
		deps.setConfig(request.body as Partial<EmulatorConfig>);
		return deps.config;
	});
}
