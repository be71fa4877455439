/**
 * The emulator's HTTP app: one fastify server carrying the service's knowledge,
 * task-projects and bot APIs (each a folder with its own state and routes),
 * with a request log, fault injection, a rate limiter and admin routes under
 * /__emulator for out-of-process control. Beside them, apart, what is not the
 * service: a scripted OpenAI-compatible chat model for the AI Agent suites
 * (openAiCompatibleModel/).
 */
import type { AddressInfo } from 'node:net';
import fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import formbody from '@fastify/formbody';
import { randomBytes } from 'node:crypto';
import { apiErrorBody, apiOf } from './common/apiErrors';
import { FaultRegistry, applyBefore, applyOnSend, runsBefore, type PickedFault } from './common/faults';
import { registerAdminRoutes } from './admin';
import { registerKnowledgeAdminRoutes } from './knowledge/admin';
import { issueJwt as signJwt, type IssueJwtOptions } from './taskProjects/jwt';
import { KnowledgeState } from './knowledge/state';
import { RateLimiter, credentialOf } from './common/rateLimit';
import { Throttle, registerThrottle } from './common/throttle';
import { makeTempFolder, removeTempFolder } from './common/tempFolders';
import { RequestLog, isAdminPath, parseQuery, splitUrl } from './common/requestLog';
import { registerBotRoutes } from './bot/routes';
import { DOCUMENTED_SCOPES } from './bot/oauth';
import { activeSeedUserIds } from './bot/seed';
import { registerKnowledgeRoutes } from './knowledge/routes';
import { type BotState, MessagingState, type MessageRecord, createBotState } from './bot/state';
import { registerMessagingAdminRoutes } from './bot/admin';
import { type Delivery, type PlayRequest, playUser } from './bot/webhook';
import { type TapRequest, type TapResult, tap } from './bot/tap';
import { createOpenAiState, registerOpenAiRoutes, type OpenAiState } from './openAiCompatibleModel/chatCompletions';
import { registerTaskProjectsRoutes } from './taskProjects/routes';
import { type TaskProjectsState, createTaskProjectsState } from './taskProjects/state';
import type { EmulatorConfig, FaultRule, RequestLogEntry } from './types';
import { MAX_UPLOAD_BYTES } from './knowledge/limits';

export type { MessageRecord, ChatTarget } from './bot/state';
export type { Delivery, PlayRequest } from './bot/webhook';
export type { TapRequest, TapResult } from './bot/tap';
export type { EmulatorConfig, FaultAction, FaultRule, LoggedPart, RequestLogEntry } from './types';

export interface StartOptions extends Partial<EmulatorConfig> {
	/** 0 (default) picks a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
}

export interface EmulatorCredentials {
	apiKey: string;
	/** A valid task-projects JWT (30 days, role member). */
	jwt: string;
	clientId: string;
	clientSecret: string;
}

export interface Emulator {
	/** http://127.0.0.1:PORT, no trailing slash. */
	url: string;
	port: number;
	/** Live config object shared with every API; change it through setConfig(). */
	config: EmulatorConfig;
	credentials: EmulatorCredentials;
	/** Live request log (admin routes excluded). */
	log: RequestLogEntry[];
	clearLog(): void;
	/** Entries for a method ('*' for any) and a path prefix or RegExp. */
	logFor(method: string, path: string | RegExp): RequestLogEntry[];
	/** Entries for a method ('*' for any) and exactly a path, or a RegExp. */
	requestsTo(method: string, path: string | RegExp): RequestLogEntry[];
	faults: { add(rule: FaultRule): void; clear(): void; pending(): number };
	knowledge: KnowledgeState;
	taskProjects: TaskProjectsState;
	bot: BotState;
	/** Bot messaging: records, reply tokens, pictures. */
	messaging: MessagingState;
	/** What the bot sent, in order; filter by uid (direct chat), gid, tid ('' = main chat) or route suffix. */
	messages(filter?: { uid?: string; gid?: string; tid?: string; route?: string }): MessageRecord[];
	/** Plays a user: delivers signed webhook events (as POST /__emulator/events does), one Delivery per POST. */
	playUser(request: PlayRequest): Promise<Delivery[]>;
	/** A person taps a button of a recorded message, as POST /__emulator/tap does (throws TapError on a refusal). */
	tap(request: TapRequest): Promise<TapResult>;
	/** Marks every reply token handed out so far as expired. */
	expireReplyTokens(): void;
	/** The scripted OpenAI-compatible chat endpoint (/v1): set its script, read its requests. */
	openAi: OpenAiState;
	issueJwt(opts: IssueJwtOptions): string;
	expireBotTokens(): void;
	setConfig(patch: Partial<EmulatorConfig>): void;
	/** A service that throttles (429 above requests at once or per second) and slows down with load; off until set (common/throttle.ts). */
	throttle: Throttle;
	/** Re-seeds every area, restores the starting config, clears log, faults and rate buckets, turns the throttle off. */
	reset(): void;
	/** Stops the server (dropping open connections) and removes a dataDir it created (an interrupted process: removeTempFolders). */
	close(): Promise<void>;
	/** The underlying fastify instance, for tests that need to look deeper. */
	app: FastifyInstance;
}

const JWT_DAYS = 30;
const random = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

function buildConfig(options: StartOptions): EmulatorConfig {
	return {
		apiKey: options.apiKey ?? random('kb_'),
		jwtSecret: options.jwtSecret ?? random(''),
		clientId: options.clientId ?? random('client_'),
		clientSecret: options.clientSecret ?? random('secret_'),
		tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
		tokenScopes: options.tokenScopes ?? [...DOCUMENTED_SCOPES],
		tokenClientAuth: options.tokenClientAuth ?? 'basic',
		dataDir: options.dataDir ?? makeTempFolder('workplace-emulator-'),
		maxUploadBytes: options.maxUploadBytes ?? MAX_UPLOAD_BYTES,
		paginationMode: options.paginationMode ?? 'strapi',
		maxPageSize: options.maxPageSize ?? 100,
		defaultPageSize: options.defaultPageSize ?? 25,
		pageCap: options.pageCap ?? null,
		deleteResponse: options.deleteResponse ?? 'empty',
		rateLimit: options.rateLimit ?? null,
		replyTokenTtlSeconds: options.replyTokenTtlSeconds ?? 60,
		maxMessageFileBytes: options.maxMessageFileBytes ?? 10 * 1024 * 1024,
		v1SendAnswer: options.v1SendAnswer ?? 'message',
		textReplyJson: options.textReplyJson ?? 'refuse',
		v2ReplyRoute: options.v2ReplyRoute ?? true,
		fileImageRoute: options.fileImageRoute ?? true,
		groupTopicBody: options.groupTopicBody ?? 'form',
		webhookUrl: options.webhookUrl ?? null,
	};
}

/** Refreshes a state object in place (route handlers hold the original reference). */
function refill<T extends object>(target: T, fresh: T): void {
	for (const [key, value] of Object.entries(fresh)) {
		// Methods close over their own object; keep the target's.
		if (typeof value !== 'function') (target as Record<string, unknown>)[key] = value;
	}
}

const kFault = Symbol('emulatorFault');
type WithFault = FastifyRequest & { [kFault]?: PickedFault };

export async function startEmulator(options: StartOptions = {}): Promise<Emulator> {
	const config = buildConfig(options);
	// A folder it was given is the caller's; the one it made goes when it closes (read now: setConfig may change config.dataDir).
	const dataDir = config.dataDir;
	const removeData = () => {
		if (options.dataDir === undefined) removeTempFolder(dataDir);
	};
	try {
		return await serve(options, config, removeData);
	} catch (error) {
		// A start that failed (a port in use) leaves no folder behind.
		removeData();
		throw error;
	}
}

/** The emulator on `config`, listening; `removeData` removes its data folder when it closes. */
async function serve(options: StartOptions, config: EmulatorConfig, removeData: () => void): Promise<Emulator> {
	const initialConfig: EmulatorConfig = { ...config };
	const log = new RequestLog();
	const faults = new FaultRegistry();
	const limiter = new RateLimiter(config);
	const throttle = new Throttle();
	const knowledge = new KnowledgeState(config);
	const taskProjects = createTaskProjectsState(activeSeedUserIds());
	const bot = createBotState();
	// Reads bot.users/groups/topics at call time, so it follows reset()'s in-place refill.
	const messaging = new MessagingState(config, bot);
	const openAi = createOpenAiState();
	const credentials: EmulatorCredentials = {
		apiKey: config.apiKey,
		jwt: signJwt(config.jwtSecret, { expiresInSeconds: JWT_DAYS * 24 * 3600 }),
		clientId: config.clientId,
		clientSecret: config.clientSecret,
	};

	const app = fastify({
		logger: false,
		// Clients reuse connections; stay above common client idle timeouts.
		keepAliveTimeout: 65_000,
		forceCloseConnections: true,
		bodyLimit: 16 * 1024 * 1024,
		// Flat parsing keeps `pagination[page]` a literal key for handlers and the log.
		routerOptions: { querystringParser: (qs: string) => parseQuery(qs) },
	});

	await app.register(multipart, { limits: { fileSize: config.maxUploadBytes } });
	await app.register(formbody);

	const faultOf = (request: FastifyRequest) => (request as WithFault)[kFault];

	app.addHook('onRequest', async (request, reply) => {
		if (isAdminPath(request.url)) return;
		const entry = log.begin(request);
		log.track(request, reply.raw);
		const fault = faults.take(entry.method, entry.path);
		if (fault) {
			entry.fault = fault.name;
			(request as WithFault)[kFault] = fault;
		}
	});

	app.addHook('preHandler', async (request, reply) => {
		if (isAdminPath(request.url)) return undefined;
		log.syncBody(request);
		const fault = faultOf(request);
		if (fault && runsBefore(fault) && (await applyBefore(request, reply, fault, log.entryOf(request)))) return reply;
		const decision = limiter.take(credentialOf(request));
		if (!decision.allowed) {
			const { contentType, body } = apiErrorBody(apiOf(splitUrl(request.url).path), 429, 'Rate limit exceeded');
			reply.code(429).header('retry-after', String(decision.retryAfterSeconds)).type(contentType).send(body);
			return reply;
		}
		return undefined;
	});
	registerThrottle(app, throttle);

	app.addHook('onSend', async (request, reply, payload) => {
		if (isAdminPath(request.url)) return payload;
		log.syncBody(request);
		const fault = faultOf(request);
		// After-phase faults, and before-phase ones whose request never reached preHandler.
		if (fault && !fault.applied) return applyOnSend(request, reply, fault, payload, log.entryOf(request));
		return payload;
	});

	app.setNotFoundHandler((request, reply) => {
		const { path } = splitUrl(request.url);
		const { contentType, body } = apiErrorBody(apiOf(path), 404, `Cannot ${request.method} ${path}`);
		return reply.code(404).type(contentType).send(body);
	});

	// Each API of the service in its own scope, so its hooks and error handler stay its own.
	await app.register(async (scope) => registerKnowledgeRoutes(scope, { config, state: knowledge }));
	await app.register(async (scope) => registerTaskProjectsRoutes(scope, { config, state: taskProjects }));
	await app.register(async (scope) => registerBotRoutes(scope, { config, state: bot, messaging }));
	// Not the service: the chat model a user connects to the AI Agent beside it (openAiCompatibleModel/).
	await app.register(async (scope) => registerOpenAiRoutes(scope, { config, state: openAi }));

	const setConfig = (patch: Partial<EmulatorConfig>) => {
		Object.assign(config, patch);
	};
	const reset = () => {
		Object.assign(config, initialConfig);
		knowledge.reset();
		refill(taskProjects, createTaskProjectsState(activeSeedUserIds()));
		refill(bot, createBotState());
		messaging.reset();
		Object.assign(openAi, createOpenAiState(), { script: undefined });
		log.clear();
		faults.clear();
		limiter.reset();
		throttle.reset();
	};
	const issueJwt = (opts: IssueJwtOptions) => signJwt(config.jwtSecret, opts);

	registerAdminRoutes(app, {
		log,
		faults,
		reset,
		setConfig,
		config,
		expireBotTokens: () => bot.expireAllTokens(),
		credentials: () => ({ baseUrl: url, ...credentials }),
	});
	registerKnowledgeAdminRoutes(app, knowledge);
	registerMessagingAdminRoutes(app, {
		config,
		messaging,
		users: () => bot.users.values(),
		groups: () => bot.groups.values(),
		topics: () => bot.topics.values(),
	});

	const host = options.host ?? '127.0.0.1';
	await app.listen({ port: options.port ?? 0, host });
	const port = (app.server.address() as AddressInfo).port;
	const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
	const url = `http://${urlHost}:${port}`;

	return {
		url,
		port,
		config,
		credentials,
		log: log.entries,
		clearLog: () => log.clear(),
		logFor: (method, path) => log.filter(method, path),
		requestsTo: (method, path) => log.to(method, path),
		faults: { add: (rule) => faults.add(rule), clear: () => faults.clear(), pending: () => faults.pending() },
		knowledge,
		taskProjects,
		bot,
		messaging,
		messages: (filter) => messaging.received(filter),
		playUser: (request) => playUser(messaging, config, request),
		tap: (request) => tap(messaging, config, request),
		expireReplyTokens: () => messaging.expireReplyTokens(),
		openAi,
		issueJwt,
		expireBotTokens: () => bot.expireAllTokens(),
		setConfig,
		throttle,
		reset,
		close: async () => {
			await app.close();
			removeData();
		},
		app,
	};
}
