/**
 * The one place that talks to the service: base URL and credentials, path
 * safety, retries, error mapping and paging. Operations describe requests as
 * data (ApiRequest); this module executes them.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { createHash } from 'crypto';
import { finished, Stream, Transform, type Readable, type TransformCallback } from 'stream';

import { invalid } from '../actions/validation';
import { jwtProblem } from './jwt';

export type ApiArea = 'knowledgeBase' | 'taskProjects' | 'bot';

export interface AreaDefinition {
	credential: string;
	prefix: string;
	/**
	 * The credential fetches its token in preAuthentication and n8n fetches a new one
	 * after a 401. n8n does that only for a 401 it sees thrown, so such areas let 401
	 * throw (every other status still comes back as data for the transport to map).
	 */
	refreshesOn401?: boolean;
	/**
	 * Local check of the credential, run once per node run with the base URL
	 * read: returns why it cannot work (never quoting a secret), or undefined.
	 */
	check?(credentials: ICredentialDataDecryptedObject): string | undefined;
}

export const AREAS: Record<ApiArea, AreaDefinition> = {
	knowledgeBase: { credential: 'workplaceKnowledgeBaseApi', prefix: '/api/v1' },
	taskProjects: {
		credential: 'workplaceTaskProjectsApi',
		prefix: '/api/v1/task-projects',
		// An expired JWT is certain to be refused; say so before anything is sent.
		check: (credentials) => jwtProblem(credentials.token),
	},
	bot: { credential: 'workplaceBotApi', prefix: '', refreshesOn401: true },
};

export type Context = IExecuteFunctions | ILoadOptionsFunctions;

export interface ApiRequest {
	area: ApiArea;
	method: IHttpRequestMethods;
	/** Segments after the area prefix. Each is percent-encoded, so no id can change the path. */
	path: Array<string | number>;
	qs?: IDataObject;
	/** JSON body, or a factory for bodies that can be sent only once (streams, multipart). */
	body?: IDataObject | (() => Promise<BodyPart>);
	/** Form-encoded body (application/x-www-form-urlencoded), instead of `body`. */
	form?: Record<string, string>;
	/** Safe to send again after it may have reached the service (GET, PUT replace, DELETE). */
	idempotent: boolean;
	/** What a create makes ("task"), named when its outcome is unknown after a failure. */
	creates?: string;
	/**
	 * Hand back the response body as a stream (downloads): a MeteredBody that counts
	 * and hashes the bytes as they pass and fails when the body ends short of its
	 * Content-Length.
	 */
	stream?: boolean;
	timeoutMs?: number;
	/**
	 * Messages that say what a status means for this operation (e.g. 403 on a group
	 * look-up: not a member). The service's own message and details stay in the error.
	 */
	errorMessages?: Partial<Record<number, string>>;
}

export interface BodyPart {
	body: unknown;
	headers?: Record<string, string>;
}

export interface ApiResponse<T = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
}

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	/** Longest single wait; a Retry-After beyond it fails the item with the time to retry. */
	maxWaitMs: number;
	/** First backoff step; doubles each attempt, with full jitter. */
	baseDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, maxWaitMs: 60_000, baseDelayMs: 500 };

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Name of the node's "Retry and Timeout" collection (actions/resources.ts adds it to every resource that sends requests). */
export const RETRY_OPTIONS = 'retryOptions';

/** Name of the node's "Requests in Parallel" option (read by actions/router.ts), and its largest value. */
export const REQUESTS_IN_PARALLEL = 'requestsInParallel';
export const MAX_REQUESTS_IN_PARALLEL = 50;

export interface RequestSettings {
	policy: RetryPolicy;
	timeoutMs: number;
}

/**
 * The retry policy and timeout item i asked for in "Retry and Timeout", checked
 * locally; the defaults where it asked for nothing. Load-options calls (no items) use the defaults.
 */
export function requestSettings(ctx: Context, itemIndex: number | undefined): RequestSettings {
	const defaults = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };
	if (itemIndex === undefined || !('getInputData' in ctx)) return defaults;
	const raw = ctx.getNodeParameter(RETRY_OPTIONS, itemIndex, {}) as unknown;
	if (!raw || typeof raw !== 'object') return defaults;
	const options = raw as IDataObject;
	const number = (key: string, field: string, min: number, max: number, whole: boolean): number | undefined => {
		const value = options[key];
		if (value === undefined || value === null || value === '') return undefined;
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isFinite(n) || (whole && !Number.isInteger(n))) {
			throw invalid(ctx, itemIndex, field, `expected ${whole ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`);
		}
		if (n < min || n > max) throw invalid(ctx, itemIndex, field, `must be between ${min} and ${max} (got ${n})`);
		return n;
	};
	const maxAttempts = number('maxAttempts', 'Max Attempts', 1, 10, true);
	const maxWait = number('maxWaitSeconds', 'Max Wait (Seconds)', 0, 3600, false);
	const timeout = number('timeoutSeconds', 'Timeout (Seconds)', 1, 3600, false);
	return {
		policy: {
			...DEFAULT_RETRY_POLICY,
			...(maxAttempts === undefined ? {} : { maxAttempts }),
			...(maxWait === undefined ? {} : { maxWaitMs: Math.round(maxWait * 1000) }),
		},
		timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.round(timeout * 1000),
	};
}
const RETRYABLE_STATUS = new Set([502, 503, 504]);
/** Failures where the request cannot have reached the service, so even a create may be resent. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

interface RunCredential {
	/** The credential as n8n decrypted it for this run; n8n writes a fetched token into it (preAuthentication). */
	decrypted: ICredentialsDecrypted;
	baseUrl: string;
}

const runCredentials = new WeakMap<object, Map<string, Promise<RunCredential>>>();

/**
 * Reads the area's credential, its base URL, and runs its check, once per node
 * run, not once per item or request. The decrypted object is handed to n8n with
 * every request (credentialsDecrypted), so n8n still runs preAuthentication,
 * authenticate and the 401 refresh on it, and a token it fetches lands in this
 * one object: later items use it without reading the credential again.
 */
async function credentialFor(ctx: Context, area: ApiArea): Promise<RunCredential> {
	const { credential, check } = AREAS[area];
	let perRun = runCredentials.get(ctx);
	if (!perRun) {
		perRun = new Map();
		runCredentials.set(ctx, perRun);
	}
	let entry = perRun.get(credential);
	if (!entry) {
		entry = ctx.getCredentials(credential).then((data) => {
			const problem = check?.(data);
			if (problem) throw new NodeOperationError(ctx.getNode(), `${problem} (nothing was sent)`);
			const details = ctx.getNode().credentials?.[credential];
			return {
				decrypted: { id: details?.id ?? '', name: details?.name ?? '', type: credential, data },
				baseUrl: normaliseBaseUrl(ctx, data.baseUrl),
			};
		});
		perRun.set(credential, entry);
	}
	return await entry;
}

/**
 * One pause shared by every request of a node run: a 429 with Retry-After holds
 * back all of the run's requests (every worker of "Requests in Parallel"), not
 * only the one that was refused.
 */
const rateLimitPauses = new WeakMap<object, { until: number }>();

function pauseRun(ctx: Context, waitMs: number): void {
	const until = Date.now() + waitMs;
	const pause = rateLimitPauses.get(ctx);
	if (!pause) rateLimitPauses.set(ctx, { until });
	else if (until > pause.until) pause.until = until;
}

/** Waits out the run's pause, if any (it may be extended while waiting). */
async function afterPause(ctx: Context): Promise<void> {
	const pause = rateLimitPauses.get(ctx);
	for (let left = pause ? pause.until - Date.now() : 0; left > 0; left = pause!.until - Date.now()) {
		await sleep(left);
	}
}

/**
 * The service address a credential's Base URL names, or why it cannot be one:
 * an http(s) address without "?" or "#", trailing slashes dropped. Used by the
 * transport and by credential tests, so both accept exactly the same addresses.
 */
export function parseBaseUrl(value: unknown): { url: string } | { problem: string } {
	let parsed: URL;
	try {
		parsed = new URL(typeof value === 'string' ? value.trim() : '');
	} catch {
		return { problem: 'The credential\'s Base URL is not a valid address (expected e.g. "https://workplace.example.com")' };
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		return { problem: 'The credential\'s Base URL must start with http:// or https://' };
	}
	if (parsed.search || parsed.hash) return { problem: 'The credential\'s Base URL must not contain "?" or "#"' };
	return { url: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}` };
}

export function normaliseBaseUrl(ctx: Context, value: unknown): string {
	const parsed = parseBaseUrl(value);
	if ('problem' in parsed) throw new NodeOperationError(ctx.getNode(), parsed.problem);
	return parsed.url;
}

/** Joins encoded segments: "a/b", "..", "?" or "#" inside an id stay inside that one segment. */
export function buildPath(prefix: string, segments: Array<string | number>): string {
	return `${prefix}/${segments.map((s) => encodeSegment(String(s))).join('/')}`;
}

function encodeSegment(segment: string): string {
	// WHATWG URLs treat ".", ".." and their percent-encoded forms (%2E, %2e%2E, ...) as path
	// steps, so no encoding keeps them in place; operations reject them, and this is the backstop.
	if (segment === '.' || segment === '..' || segment === '') {
		throw new Error(`A path segment cannot be "${segment}": it would change the request path`);
	}
	return encodeURIComponent(segment);
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	const header = Array.isArray(value) ? value[0] : value;
	if (typeof header !== 'string' || header.trim() === '') return undefined;
	const trimmed = header.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

export function backoffDelay(attempt: number, policy: RetryPolicy): number {
	const ceiling = Math.min(policy.maxWaitMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** An error raised by the HTTP client itself (axios, possibly wrapped by n8n in a NodeApiError). */
function isHttpFailure(error: unknown): boolean {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		if ((current as { isAxiosError?: unknown }).isAxiosError === true) return true;
		current = (current as { cause?: unknown }).cause;
	}
	return false;
}

/** The HTTP answer inside a thrown error (a status the request let throw, e.g. a 401 after n8n's refresh). */
function thrownResponse(error: unknown): ApiResponse | undefined {
	let current: unknown = error;
	for (let depth = 0; current && depth < 4; depth++) {
		const response = (current as { response?: { status?: unknown; data?: unknown; headers?: unknown } }).response;
		if (response && typeof response.status === 'number') {
			return {
				statusCode: response.status,
				headers: (response.headers ?? {}) as ApiResponse['headers'],
				body: response.data,
			};
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

const NETWORK_MESSAGES: Record<string, string> = {
	ECONNREFUSED: 'The service refused the connection',
	ECONNRESET: 'The connection to the service was reset',
	ETIMEDOUT: 'The service did not answer in time',
	ECONNABORTED: 'The service did not answer in time',
	ENOTFOUND: 'The service\'s host name could not be resolved',
	EAI_AGAIN: 'The service\'s host name could not be resolved',
	EPIPE: 'The connection to the service was closed while sending',
};

/** A network failure as a NodeApiError carrying nothing of the request (no headers, no keys). */
function networkError(
	ctx: Context,
	error: unknown,
	itemIndex: number | undefined,
	attempts: number,
	/** Set when the failed request may have reached the service and is not safe to resend. */
	unsafe?: ApiRequest,
): NodeApiError {
	const code = errorCode(error) ?? 'ECONNRESET';
	let message = NETWORK_MESSAGES[code] ?? `The request to the service failed (${code})`;
	if (unsafe) message += mayHaveBeenApplied(unsafe);
	// Not under `code`/`errorCode`: NodeApiError would swap the message for n8n's generic
	// one for that code ("You can retry the request immediately"), wrong for a create.
	return new NodeApiError(
		ctx.getNode(),
		{ networkErrorCode: code, message } as JsonObject,
		{
			message,
			description: `${code} after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
			itemIndex,
		},
	);
}

/** Executes one request with the transport's retry policy. Non-2xx answers become NodeApiError. */
export async function apiRequest<T = unknown>(
	ctx: Context,
	request: ApiRequest,
	itemIndex?: number,
	policyOverride?: RetryPolicy,
): Promise<ApiResponse<T>> {
	const { credential, prefix, refreshesOn401 } = AREAS[request.area];
	// Checked before the credential is read, so a bad setting sends nothing.
	const settings = requestSettings(ctx, itemIndex);
	const policy = policyOverride ?? settings.policy;
	let run: RunCredential;
	try {
		run = await credentialFor(ctx, request.area);
	} catch (error) {
		// The cached failure is shared by the run's items; each item gets its own error.
		const { message, description } = error as NodeOperationError;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description: description ?? undefined });
	}
	const url = run.baseUrl + buildPath(prefix, request.path);
	let resentAfterRefresh = false;

	for (let attempt = 1; ; attempt++) {
		const options: IHttpRequestOptions = {
			method: request.method,
			url,
			qs: request.qs,
			json: !request.stream,
			returnFullResponse: true,
			// Statuses come back as data and are mapped below, except a 401 where the
			// credential refreshes its token: n8n refreshes and resends only on a thrown 401.
			ignoreHttpStatusErrors: refreshesOn401 ? { ignore: true, except: [401] } : true,
			// A redirect could carry the credential's headers to another host; never follow one.
			disableFollowRedirect: true,
			timeout: request.timeoutMs ?? settings.timeoutMs,
		};
		if (request.stream) {
			options.encoding = 'stream';
			// An encoded body's Content-Length is not the length of the bytes handed on; ask for none.
			options.headers = { 'accept-encoding': 'identity' };
		}
		if (typeof request.body === 'function') {
			const part = await request.body();
			options.body = part.body as IHttpRequestOptions['body'];
			if (part.headers) options.headers = { ...options.headers, ...part.headers };
		} else if (request.body !== undefined) {
			options.body = request.body;
		} else if (request.form !== undefined) {
			options.body = new URLSearchParams(request.form);
			options.headers = { 'content-type': 'application/x-www-form-urlencoded' };
		}

		let response: ApiResponse;
		await afterPause(ctx);
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, credential, options, {
				credentialsDecrypted: run.decrypted,
			})) as ApiResponse;
		} catch (error) {
			const answered = thrownResponse(error);
			if (answered) {
				// n8n has already fetched a new token and resent the request once, except
				// when the body could be read only once (multipart, streams): it refreshes
				// but does not resend. Build that body again and send it once more here.
				const singleUse = options.body instanceof Stream;
				if (answered.statusCode === 401 && refreshesOn401 && singleUse && !resentAfterRefresh) {
					resentAfterRefresh = true;
					attempt--;
					continue;
				}
				response = answered;
			} else {
				const code = errorCode(error);
				if (!code && !isHttpFailure(error)) {
					// Not a network failure (e.g. no token could be obtained): say so as it is.
					throw error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
				}
				const neverSent = NEVER_SENT_CODES.has(code ?? '');
				if (attempt < policy.maxAttempts && (neverSent || request.idempotent)) {
					await sleep(backoffDelay(attempt, policy));
					continue;
				}
				throw networkError(ctx, error, itemIndex, attempt, neverSent || request.idempotent ? undefined : request);
			}
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			if (request.stream) response.body = meterResponseBody(ctx, response, itemIndex);
			else if (unreadableJson(response)) throw malformedAnswerError(ctx, request, itemIndex);
			return response as ApiResponse<T>;
		}

		const body = request.stream ? await readErrorBody(response.body) : response.body;

		if (status === 429 && attempt < policy.maxAttempts) {
			// Refused before processing: safe to resend, creates included.
			const wait = parseRetryAfter(response.headers['retry-after']) ?? backoffDelay(attempt, policy);
			if (wait > policy.maxWaitMs) throw rateLimitError(ctx, body, wait, itemIndex);
			// The whole run waits; the next attempt starts once the pause is over.
			pauseRun(ctx, wait);
			continue;
		}
		if (RETRYABLE_STATUS.has(status) && request.idempotent && attempt < policy.maxAttempts) {
			await sleep(backoffDelay(attempt, policy));
			continue;
		}
		if (status === 429) {
			const wait = parseRetryAfter(response.headers['retry-after']);
			throw rateLimitError(ctx, body, wait, itemIndex);
		}
		const error = apiError(ctx, request.area, status, body, itemIndex, response.headers, request.errorMessages?.[status]);
		if (status >= 500 && !request.idempotent) error.message += mayHaveBeenApplied(request);
		throw error;
	}
}

/** A 2xx that says it is JSON but does not parse: the HTTP client hands it on as text. */
function unreadableJson(response: ApiResponse): boolean {
	if (typeof response.body !== 'string' || response.body.trim() === '') return false;
	const type = String(response.headers['content-type'] ?? '').toLowerCase();
	if (!type.includes('json')) return false;
	try {
		JSON.parse(response.body);
		return false;
	} catch {
		return true;
	}
}

function malformedAnswerError(ctx: Context, request: ApiRequest, itemIndex: number | undefined): NodeApiError {
	let message = 'The service\'s answer could not be read (malformed JSON)';
	if (!request.idempotent) message += mayHaveBeenApplied(request);
	return new NodeApiError(ctx.getNode(), { message } as JsonObject, {
		message,
		description: 'The service answered with a success status but a body that is not valid JSON; nothing from it was used.',
		itemIndex,
	});
}

/**
 * Said of a non-idempotent request whose fate is unknown (a 5xx, a timeout or
 * a reset after sending): it may have been carried out, and it was not resent,
 * because resending could do it twice.
 */
export function mayHaveBeenApplied(request: Pick<ApiRequest, 'creates'>): string {
	const what = request.creates ? `the ${request.creates} may have been created` : 'the request may have been carried out';
	return `; ${what} even so. It was not retried automatically, to avoid a duplicate: check before running this item again`;
}

/**
 * A body passing through: counts and hashes (sha256) every byte, and fails with
 * a NodeApiError when it ends before `expected` bytes (a clean early close) or
 * its source breaks off (reset, premature close), so whoever consumes it (n8n's
 * binary store) rejects instead of keeping a short file.
 */
export class MeteredBody extends Transform {
	/** Bytes passed so far. */
	bytes = 0;

	private readonly hash = createHash('sha256');

	private digest?: string;

	constructor(
		/** Bytes the body must have (Content-Length); undefined when not announced. */
		readonly expected: number | undefined,
		private readonly fail: (received: number, expected: number | undefined, cause?: string) => Error,
	) {
		super();
	}

	/** sha256 hex of the whole body; available once the body has ended. */
	get sha256(): string | undefined {
		return this.digest;
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
		this.bytes += chunk.length;
		if (this.expected !== undefined && this.bytes > this.expected) {
			callback(this.fail(this.bytes, this.expected, 'more bytes than announced'));
			return;
		}
		this.hash.update(chunk);
		callback(null, chunk);
	}

	_flush(callback: TransformCallback): void {
		if (this.expected !== undefined && this.bytes !== this.expected) {
			callback(this.fail(this.bytes, this.expected));
			return;
		}
		this.digest = this.hash.digest('hex');
		callback();
	}

	/** Pipes `source` through this meter; a source that errors or closes early fails the meter. */
	from(source: Readable): this {
		finished(source, (error) => {
			if (error && !this.destroyed) {
				this.destroy(this.fail(this.bytes, this.expected, errorCode(error) ?? error.message));
			}
		});
		// Whoever gives up on the meter (a failed store) also lets go of the connection.
		this.once('close', () => {
			if (!source.readableEnded) source.destroy();
		});
		source.pipe(this);
		return this;
	}
}

function contentLength(headers: ApiResponse['headers']): number | undefined {
	const raw = headers['content-length'];
	const value = Array.isArray(raw) ? raw[0] : raw;
	return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/**
 * Wraps a streamed 2xx body in a MeteredBody that knows its Content-Length. The
 * request asked for no content coding, so the announced length is the length of
 * the bytes handed on; a body that still says it is encoded is not measured.
 */
function meterResponseBody(ctx: Context, response: ApiResponse, itemIndex: number | undefined): MeteredBody {
	const source = response.body as Readable;
	const coding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
	const expected = coding === 'identity' || coding === '' ? contentLength(response.headers) : undefined;
	const meter = new MeteredBody(expected, (received, total, cause) => incompleteBodyError(ctx, received, total, cause, itemIndex));
	// The failure may come before anyone reads (n8n's store opens its file first); it is kept for the reader.
	meter.on('error', () => undefined);
	return meter.from(source);
}

export function incompleteBodyError(
	ctx: Context,
	received: number,
	expected: number | undefined,
	cause: string | undefined,
	itemIndex: number | undefined,
): NodeApiError {
	const of = expected === undefined ? '' : ` of ${expected}`;
	const message =
		expected !== undefined && received > expected
			? `The service sent more than the ${expected} bytes it announced; the download was discarded`
			: `The download broke off after ${received}${of} bytes; nothing was stored`;
	return new NodeApiError(ctx.getNode(), { message, received, ...(expected === undefined ? {} : { expected }) } as JsonObject, {
		message,
		description: cause
			? `The connection ended early (${cause}). Run the node again; the file on the service is unchanged.`
			: 'The connection closed before the whole body arrived. Run the node again; the file on the service is unchanged.',
		itemIndex,
	});
}

/** Reads at most 64 KiB of a streamed error body, so an error page is shown, not piped. */
async function readErrorBody(body: unknown): Promise<unknown> {
	const stream = body as Readable | undefined;
	if (!stream || typeof stream.on !== 'function') return body;
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of stream) {
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			chunks.push(buffer);
			size += buffer.length;
			if (size > 65_536) break;
		}
	} catch {
		// A broken error body still leaves the status to report.
	} finally {
		stream.destroy();
	}
	const text = Buffer.concat(chunks).toString('utf8');
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

function rateLimitError(
	ctx: Context,
	body: unknown,
	waitMs: number | undefined,
	itemIndex: number | undefined,
): NodeApiError {
	const when =
		waitMs === undefined
			? 'later'
			: `in ${Math.ceil(waitMs / 1000)} s (at ${new Date(Date.now() + waitMs).toISOString()})`;
	const parsed = parseErrorBody(body);
	return new NodeApiError(ctx.getNode(), toJsonObject(body), {
		message: `The service is rate limiting requests; retry ${when}`,
		description: parsed.message,
		httpCode: '429',
		itemIndex,
	});
}

interface ParsedError {
	message?: string;
	code?: string;
	details: string[];
	/** Field paths the details name, in order, without repeats. */
	paths: string[];
}

/** Reads every error shape the service uses; tolerant of bodies the documents do not show. */
export function parseErrorBody(body: unknown): ParsedError {
	if (typeof body === 'string') {
		const text = body.trim();
		return {
			message: text && text.length <= 300 && !text.startsWith('<') ? text : undefined,
			details: [],
			paths: [],
		};
	}
	if (!body || typeof body !== 'object') return { details: [], paths: [] };
	const b = body as IDataObject;
	const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
	const details: string[] = [];
	const paths: string[] = [];
	const addPath = (p: string | undefined) => {
		if (p && !paths.includes(p)) paths.push(p);
	};
	// Knowledge base: errors[{type, field, value, message}]
	if (Array.isArray(b.errors)) {
		for (const e of b.errors as IDataObject[]) {
			if (!e || typeof e !== 'object') continue;
			const field = str(e.field) ?? str(e.path);
			addPath(field);
			const msg = str(e.message) ?? str(e.type) ?? 'invalid';
			details.push(field ? `${field}: ${msg}` : msg);
		}
	}
	// Task projects: details[{path, message}]
	if (Array.isArray(b.details)) {
		for (const d of b.details as IDataObject[]) {
			if (!d || typeof d !== 'object') continue;
			const path = str(d.path) ?? str(d.field);
			addPath(path);
			const msg = str(d.message) ?? 'invalid';
			details.push(path ? `${path}: ${msg}` : msg);
		}
	}
	const nested = b.error && typeof b.error === 'object' ? (b.error as IDataObject) : undefined;
	const message =
		str(b.message) ?? str(nested?.message) ?? str(b.error_description) ?? str(b.error) ?? undefined;
	const code = str(b.code) ?? str(nested?.code) ?? (typeof b.error === 'string' ? b.error : undefined) ?? str(b.name);
	return { message, code, details, paths };
}

function toJsonObject(body: unknown): JsonObject {
	if (body && typeof body === 'object' && !Array.isArray(body)) return body as JsonObject;
	return { body: typeof body === 'string' ? body.slice(0, 1000) : null } as JsonObject;
}

const STATUS_HINTS: Record<number, string> = {
	400: 'The service rejected the request',
	401: 'The service rejected the credentials',
	403: 'The credentials lack permission for this operation',
	404: 'Not found',
	409: 'The service refused the request because of a business rule',
	413: 'The upload is larger than the service accepts',
	422: 'The service rejected the values sent',
};

/** A non-2xx answer as NodeApiError: the service's own message, and each field detail on its own line. */
export function apiError(
	ctx: Context,
	area: ApiArea,
	status: number,
	body: unknown,
	itemIndex?: number,
	headers?: ApiResponse['headers'],
	meaning?: string,
): NodeApiError {
	const parsed = parseErrorBody(body);
	const hint = meaning ?? STATUS_HINTS[status] ?? `The service answered ${status}`;
	// An operation's own meaning leads; the service's words follow it.
	const said = meaning ? ` (the service said: ${parsed.message})` : `: ${parsed.message}`;
	let message = parsed.message ? `${hint}${said}` : hint;
	// A 404 about a related resource (assigneeId, labelIds[1]) names the fields it is about.
	if (status === 404 && parsed.paths.length > 0) message += ` (${parsed.paths.join(', ')})`;
	if (status >= 300 && status < 400) {
		const location = headers?.location;
		message = `The service redirected the request${location ? ` to ${String(location)}` : ''}; redirects are not followed so that credentials stay with the configured Base URL`;
	}
	if (status === 401 && area === 'knowledgeBase') {
		message += ' (check the API key, and that this machine\'s IP address is whitelisted)';
	}
	if (status === 401 && AREAS[area].refreshesOn401) {
		message += ' (even with a newly fetched access token; check the client\'s scope and that the bot is enabled)';
	}
	const description = [
		...parsed.details,
		parsed.code ? `Service code: ${parsed.code}` : '',
	]
		.filter(Boolean)
		.join('\n');
	return new NodeApiError(ctx.getNode(), toJsonObject(body), {
		message,
		description: description || undefined,
		httpCode: String(status),
		itemIndex,
	});
}

export interface PageOptions {
	/** Most items to return; undefined returns all. */
	limit?: number;
	pageSize: number;
	/** Keeps only the items that match, applied while paging so Limit counts matches. */
	filter?: (item: IDataObject) => boolean;
	/** Upper bound of pages, a guard against a service that never ends a list. */
	maxPages?: number;
}

interface PaginationMeta {
	page?: number;
	pageCount?: number;
	total?: number;
}

function readPaginationMeta(body: IDataObject): PaginationMeta | undefined {
	const meta = body.meta as IDataObject | undefined;
	const p = (meta?.pagination ?? meta ?? body.pagination) as IDataObject | undefined;
	if (!p || typeof p !== 'object') return undefined;
	const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
	const result = { page: num(p.page), pageCount: num(p.pageCount), total: num(p.total) };
	return result.pageCount === undefined && result.total === undefined ? undefined : result;
}

/**
 * Pages a knowledge-base list (`pagination[page]`, `pagination[pageSize]`).
 * Stops on the first of: enough items, a short or empty page, the last page by
 * the metadata, a page that repeats the previous one, or maxPages. Metadata is
 * trusted only to end a list early, never to keep asking past an empty page.
 */
export async function paginate(
	ctx: Context,
	request: ApiRequest,
	options: PageOptions,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	const maxPages = options.maxPages ?? 100_000;
	let previousFirstId: unknown;
	for (let page = 1; page <= maxPages; page++) {
		const response = await apiRequest<IDataObject>(
			ctx,
			{
				...request,
				qs: { ...request.qs, 'pagination[page]': page, 'pagination[pageSize]': options.pageSize },
			},
			itemIndex,
		);
		const body = response.body && typeof response.body === 'object' ? response.body : {};
		const data = Array.isArray(body.data) ? (body.data as IDataObject[]) : [];
		if (data.length === 0) break;
		const firstId = data[0]?.id;
		if (page > 1 && firstId !== undefined && firstId === previousFirstId) break;
		previousFirstId = firstId;

		for (const item of data) {
			if (options.filter && !options.filter(item)) continue;
			results.push(item);
			if (options.limit !== undefined && results.length >= options.limit) return results;
		}
		const meta = readPaginationMeta(body);
		if (data.length < options.pageSize) break;
		if (meta?.pageCount !== undefined && page >= meta.pageCount) break;
		if (meta?.total !== undefined && page * options.pageSize >= meta.total) break;
	}
	return results;
}
