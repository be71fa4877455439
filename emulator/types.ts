/**
 * Contract between the emulator's parts. The server (server.ts) owns the HTTP
 * app, the request log, fault injection and the rate limiter; each API's
 * folder (knowledge/, taskProjects/, bot/) owns its own state, auth and error shape.
 */
import type { FastifyInstance } from 'fastify';

/** The values of the settings that are one of a few, each list the one place its values are named. */
export const PAGINATION_MODES = ['strapi', 'nestjs', 'none', 'inconsistent'] as const;
export const TOKEN_CLIENT_AUTHS = ['basic', 'form'] as const;
export const GROUP_TOPIC_BODIES = ['form', 'json'] as const;
export const DELETE_RESPONSES = ['empty', 'json'] as const;
export const V1_SEND_ANSWERS = ['message', 'status'] as const;
export const TEXT_REPLY_JSON = ['refuse', 'accept'] as const;

export interface EmulatorConfig {
	/** x-api-key accepted by the knowledge base API. */
	apiKey: string;
	/** HMAC secret for the task-projects JWTs the emulator issues (HS256). */
	jwtSecret: string;
	/** Bot client credentials accepted by POST /oauth/token. */
	clientId: string;
	clientSecret: string;
	/** Lifetime of bot access tokens, seconds (expires_in). */
	tokenTtlSeconds: number;
	/** The scopes POST /oauth/token grants; any other asked for answers 400 invalid_scope (the documents' `bot profile`, or `bot` alone as the public pages show). */
	tokenScopes: string[];
	/** Where POST /oauth/token reads the client ID and secret: `basic` = the Authorization header only (the documents); `form` = the form's client_id and client_secret only (one integration's way). */
	tokenClientAuth: (typeof TOKEN_CLIENT_AUTHS)[number];
	/** Directory where knowledge-file contents are kept (streamed, never held in memory). */
	dataDir: string;
	/** Largest accepted upload, bytes (default: the service's 100 MB, MAX_UPLOAD_BYTES of knowledge/limits.ts). */
	maxUploadBytes: number;
	/** Knowledge-base list pages: `strapi` = meta.pagination{page,pageSize,pageCount,total}; `nestjs` = meta{totalItems,itemCount,itemsPerPage,totalPages,currentPage}; `none` = no meta; `inconsistent` = meta whose pageCount/total lie. */
	paginationMode: (typeof PAGINATION_MODES)[number];
	/** Largest pagination[pageSize] accepted; larger answers 422001. */
	maxPageSize: number;
	/** Default pagination[pageSize] when none is sent. */
	defaultPageSize: number;
	/**
	 * The service's own largest page, below what it accepts (null: none). A capped
	 * service takes pagination[pageSize] up to maxPageSize but serves at most this
	 * many items a page, and its meta.pagination says so (pageSize = the cap).
	 */
	pageCap: number | null;
	/** Body of a successful DELETE: `empty` = 204 no body, `json` = 200 with a JSON confirmation. */
	deleteResponse: (typeof DELETE_RESPONSES)[number];
	/** Token bucket per credential; null turns the limiter off. 429 carries Retry-After (seconds). */
	rateLimit: { capacity: number; refillPerSecond: number } | null;
	/** Lifetime of the reply tokens handed out inside delivered webhook events, seconds. */
	replyTokenTtlSeconds: number;
	/** Largest picture or file a bot may send (v1 multipart routes), bytes; one byte more answers 400. */
	maxMessageFileBytes: number;
	/** v1 push answer, a switch because a client must read either shape: `message` = status plus the message {id,type,groupId,threadId}; `status` = only {"status":"success"}. */
	v1SendAnswer: (typeof V1_SEND_ANSWERS)[number];
	/** POST /bot/v1/message/text with a JSON body, which bots in use send though the service declares multipart: `refuse` answers 415; `accept` takes it. */
	textReplyJson: (typeof TEXT_REPLY_JSON)[number];
	/** false: POST /bot/v2/message/reply answers 404 as an unknown route would (the live service may have no such route). */
	v2ReplyRoute: boolean;
	/**
	 * The one body POST /bot/v1/groups/:group_id/topics reads (the documents declare JSON and
	 * form-encode their sample): `form` = its sample's application/x-www-form-urlencoded; `json` = the
	 * declared JSON. Either refuses the other as a server reading only its own would: 400, name is required.
	 */
	groupTopicBody: (typeof GROUP_TOPIC_BODIES)[number];
	/** false: GET /file/image/:pictureId answers 404, as on a service without that route, so a client's fallback to /file/view/ can be proven. */
	fileImageRoute: boolean;
	/** Default webhook URL of the play page at GET /__emulator/ (null: none prefilled). */
	webhookUrl: string | null;
}

/** One part of a multipart body, as the request log records it (file contents are hashed, not kept). */
export interface LoggedPart {
	name: string;
	filename?: string;
	contentType?: string;
	/** Bytes of the part's content. */
	size: number;
	/** sha256 hex of a file part's content. */
	sha256?: string;
	/** Value of a plain field part. */
	value?: string;
}

declare module 'fastify' {
	interface FastifyRequest {
		/** Set by handlers that consume multipart bodies, so the request log can show every part. */
		logParts?: LoggedPart[];
	}
}

/** What every API's route module receives. */
export interface ApiContext {
	config: EmulatorConfig;
}

export type ApiRegistrar<State> = (app: FastifyInstance, ctx: ApiContext & { state: State }) => void;

/** One request as the emulator saw it (admin routes under /__emulator are not logged). */
export interface RequestLogEntry {
	/** Arrival order, starting at 1 (keeps counting across clearLog()). */
	seq: number;
	/** Arrival time, ISO. */
	time: string;
	method: string;
	/** Path without the query string. */
	path: string;
	/** Parsed query, keys kept verbatim (`pagination[page]`); repeated keys become arrays. */
	query: Record<string, string | string[]>;
	rawUrl: string;
	/** Lower-cased header names; credential values (authorization, x-api-key) as redactedHeader() shows them. */
	headers: Record<string, string | string[] | undefined>;
	contentType?: string;
	/** Parsed JSON or form body; undefined for multipart and bodiless requests. */
	body?: unknown;
	/** Parts of a multipart body, filled in by the handler that consumed them. */
	parts?: LoggedPart[];
	/** Final status sent; undefined while pending or when no response was sent (reset, stall). */
	status?: number;
	/** Name of the fault applied to this request, if any. */
	fault?: string;
	/** True when the connection closed before a complete response was sent. */
	aborted?: boolean;
	/** Milliseconds from arrival to the end of the response (or the connection closing). */
	durationMs?: number;
	/** The TCP connection it came on: 1, 2, … in order of first use, so reuse (keep-alive) shows as a repeated number. */
	connection: number;
	/** The client's port of that connection. */
	remotePort?: number;
}

export type FaultAction =
	| { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string>; retryAfter?: number | string }
	/** Send nothing for ms (then drop the connection); without ms, until the client gives up. */
	| { kind: 'stall'; ms?: number }
	/** Latency, then normal processing. */
	| { kind: 'delay'; ms: number }
	/** Destroy the socket without any response. */
	| { kind: 'reset' }
	/** Real headers (with the real Content-Length) and afterBytes of the real body (default half), then destroy. */
	| { kind: 'resetMidBody'; afterBytes?: number }
	/** Real headers (with the full Content-Length) and `bytes` of the body (default half), then close cleanly. */
	| { kind: 'truncate'; bytes?: number }
	/** 200, application/json, a body that is not valid JSON. */
	| { kind: 'malformedJson'; body?: string }
	| { kind: 'redirect'; status?: number; location: string }
	/** A hostile service (common/hostile.ts): a list page that is never the last, new items on every page; `meta` endless names a billion pages, none names none. */
	| { kind: 'endlessList'; pageSize?: number; meta?: 'none' | 'endless' }
	/** The real answer's headers at once, then its body `bytesPerStep` bytes (default 1) every `intervalMs` (default 100). */
	| { kind: 'trickle'; intervalMs?: number; bytesPerStep?: number }
	/** A 200 download of `bytes`, made as it is sent, with its Content-Length or (contentLength false) without. */
	| { kind: 'oversize'; bytes: number; contentLength?: boolean; contentType?: string }
	/** A JSON answer (status default 200) of `inflatedBytes` (default 256 MiB) gzip-encoded to about a thousandth of that. */
	| { kind: 'gzipBomb'; inflatedBytes?: number; status?: number }
	/**
	 * In-process only (not from the admin route): the handler answers as usual, then
	 * `run` changes the state (e.g. deletes an item between two list pages), and the
	 * answer is sent unchanged.
	 */
	| { kind: 'sideEffect'; run: () => void };

export interface FaultRule {
	/** Label recorded in the request log; defaults to the action kind (`status:503`, `reset`, ...). */
	name?: string;
	/** HTTP method to match (any when absent). */
	method?: string;
	/** Exact path, a prefix ending in `*`, or a RegExp tested against the path (any when absent). */
	path?: string | RegExp;
	/** How many matching requests the rule applies to; default 1, Infinity allowed. */
	times?: number;
	/** Matching requests to let through untouched before the rule applies (default 0), to aim a fault at the Nth request. */
	skip?: number;
	/**
	 * `before` (default): answer instead of running the handler. `after`: run the handler
	 * (state changes happen), then replace the response. truncate and resetMidBody always
	 * work on the real response, so they behave as `after`.
	 */
	phase?: 'before' | 'after';
	action: FaultAction;
}
