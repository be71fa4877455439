/**
 * The request log: one entry per request, appended on arrival and completed when
 * the response ends (or the connection drops), so tests can see requests that a
 * fault answered with a reset or a stall.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { RequestLogEntry } from '../types';

export const ADMIN_PREFIX = '/__emulator';

export function isAdminPath(url: string): boolean {
	return url === ADMIN_PREFIX || url.startsWith(ADMIN_PREFIX + '/');
}

/** Flat query parsing so `pagination[page]` stays a literal key; repeated keys become arrays. */
export function parseQuery(qs: string): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = Object.create(null);
	for (const [key, value] of new URLSearchParams(qs)) {
		const prev = out[key];
		if (prev === undefined) out[key] = value;
		else if (Array.isArray(prev)) prev.push(value);
		else out[key] = [prev, value];
	}
	// A plain prototype keeps the object friendly to JSON and to Jest's equality.
	return { ...out };
}

/** Headers and body fields that carry a credential (API key, JWT, access token, client id and secret). */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key']);
const SECRET_FIELDS = new Set(['client_secret', 'access_token', 'refresh_token']);

const fingerprint = (secret: string) => `[redacted sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}]`;

/**
 * How the log shows a header value: credentials become a short fingerprint (the
 * auth scheme kept), so a test can tell which credential was sent without the
 * log ever holding it. Compare with redactedHeader(name, expectedValue).
 */
export function redactedHeader(name: string, value: string): string {
	if (!SECRET_HEADERS.has(name.toLowerCase())) return value;
	const scheme = /^(Bearer|Basic)\s+(.*)$/i.exec(value);
	return scheme ? `${scheme[1]} ${fingerprint(scheme[2])}` : fingerprint(value);
}

function redactBody(body: unknown): unknown {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
	const entries = Object.entries(body as Record<string, unknown>);
	if (!entries.some(([k]) => SECRET_FIELDS.has(k))) return body;
	return Object.fromEntries(entries.map(([k, v]) => [k, SECRET_FIELDS.has(k) && typeof v === 'string' ? fingerprint(v) : v]));
}

export function splitUrl(url: string): { path: string; query: string } {
	const q = url.indexOf('?');
	return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

const kEntry = Symbol('emulatorLogEntry');
type WithEntry = FastifyRequest & { [kEntry]?: RequestLogEntry };

export class RequestLog {
	readonly entries: RequestLogEntry[] = [];
	private seq = 0;
	/** Numbers the sockets requests arrive on; a socket forgotten by the server is forgotten here. */
	private readonly connections = new WeakMap<object, number>();
	private connectionSeq = 0;

	/** Starts an entry for a request that just arrived. */
	begin(request: FastifyRequest): RequestLogEntry {
		const raw = request.raw;
		const { path, query } = splitUrl(raw.url ?? '/');
		const started = Date.now();
		const headers: RequestLogEntry['headers'] = {};
		for (const [k, v] of Object.entries(raw.headers)) {
			const name = k.toLowerCase();
			headers[name] = Array.isArray(v) ? v.map((x) => redactedHeader(name, x)) : v === undefined ? v : redactedHeader(name, v);
		}
		const entry: RequestLogEntry = {
			seq: ++this.seq,
			time: new Date(started).toISOString(),
			method: raw.method ?? 'GET',
			path,
			query: parseQuery(query),
			rawUrl: raw.url ?? '/',
			headers,
			contentType: typeof raw.headers['content-type'] === 'string' ? raw.headers['content-type'] : undefined,
			connection: this.connectionOf(raw.socket),
			remotePort: raw.socket?.remotePort,
		};
		this.entries.push(entry);
		(request as WithEntry)[kEntry] = entry;
		return entry;
	}

	private connectionOf(socket: object | null | undefined): number {
		if (!socket) return 0;
		let id = this.connections.get(socket);
		if (id === undefined) {
			id = ++this.connectionSeq;
			this.connections.set(socket, id);
		}
		return id;
	}

	/** Wires completion to the raw response; call once per request after begin(). */
	track(request: FastifyRequest, res: ServerResponse): void {
		const entry = this.entryOf(request);
		if (!entry) return;
		const started = Date.parse(entry.time);
		res.once('finish', () => {
			entry.status ??= res.statusCode;
			entry.durationMs = Date.now() - started;
			this.syncParts(request, entry);
		});
		res.once('close', () => {
			if (!res.writableFinished) entry.aborted = true;
			entry.durationMs ??= Date.now() - started;
			this.syncParts(request, entry);
		});
	}

	entryOf(request: FastifyRequest): RequestLogEntry | undefined {
		return (request as WithEntry)[kEntry];
	}

	/** Copies what the body parser or a multipart handler produced into the entry. */
	syncBody(request: FastifyRequest): void {
		const entry = this.entryOf(request);
		if (!entry) return;
		if (request.body !== undefined && entry.body === undefined) entry.body = redactBody(request.body);
		this.syncParts(request, entry);
	}

	private syncParts(request: FastifyRequest, entry: RequestLogEntry): void {
		if (request.logParts) entry.parts = request.logParts;
	}

	clear(): void {
		this.entries.length = 0;
	}

	/** Entries for a method ('*' for any) and a path prefix (string) or pattern (RegExp). */
	filter(method: string, path: string | RegExp): RequestLogEntry[] {
		return this.matching(method, (p) => (typeof path === 'string' ? p.startsWith(path) : path.test(p)));
	}

	/** Entries for a method ('*' for any) and exactly a path (string), or a pattern (RegExp). */
	to(method: string, path: string | RegExp): RequestLogEntry[] {
		return this.matching(method, (p) => (typeof path === 'string' ? p === path : path.test(p)));
	}

	private matching(method: string, pathMatches: (path: string) => boolean): RequestLogEntry[] {
		const m = method.toUpperCase();
		return this.entries.filter((e) => (m === '*' || e.method === m) && pathMatches(e.path));
	}
}
