/**
 * Fault injection: rules that make the next N matching requests misbehave the
 * way real networks and services do (error statuses, stalls, resets, cut-off
 * bodies, broken JSON, redirects), so client retry and error paths can be proven.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiErrorBody, apiOf } from './apiErrors';
import { endlessListPage, gzipBomb, oversizedDownload, trickle } from './hostile';
import type { FaultAction, FaultRule, RequestLogEntry } from '../types';

export type { FaultAction, FaultRule } from '../types';

interface ActiveRule {
	rule: FaultRule;
	remaining: number;
	/** Matching requests still to let through before the rule applies. */
	skip: number;
}

/** A fault picked for one request on arrival; applied before the handler or on send. */
export interface PickedFault {
	name: string;
	rule: FaultRule;
	applied: boolean;
}

export function faultName(rule: FaultRule): string {
	if (rule.name) return rule.name;
	return rule.action.kind === 'status' ? `status:${rule.action.status}` : rule.action.kind;
}

function pathMatches(pattern: FaultRule['path'], path: string): boolean {
	if (pattern === undefined) return true;
	if (pattern instanceof RegExp) {
		pattern.lastIndex = 0;
		return pattern.test(path);
	}
	if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
	return path === pattern;
}

export class FaultRegistry {
	private rules: ActiveRule[] = [];

	add(rule: FaultRule): void {
		const times = rule.times ?? 1;
		if (!(times > 0)) throw new Error('fault times must be > 0');
		const skip = rule.skip ?? 0;
		if (!(skip >= 0) || !Number.isInteger(skip)) throw new Error('fault skip must be a whole number >= 0');
		this.rules.push({ rule, remaining: times, skip });
	}

	clear(): void {
		this.rules = [];
	}

	/** Applications still to come, summed over the rules (Infinity for an endless rule). */
	pending(): number {
		return this.rules.reduce((n, r) => n + r.remaining, 0);
	}

	/** Consumes one application of the first rule matching this request, if any. */
	take(method: string, path: string): PickedFault | undefined {
		const m = method.toUpperCase();
		const matching = this.rules.filter(
			(r) => (r.rule.method === undefined || r.rule.method.toUpperCase() === m) && pathMatches(r.rule.path, path),
		);
		const picked = matching.find((r) => r.skip === 0);
		// Every matching rule still skipping counts this request, whichever rule (if any) applies.
		for (const r of matching) if (r.skip > 0) r.skip -= 1;
		if (!picked) return undefined;
		const idx = this.rules.indexOf(picked);
		const active = this.rules[idx];
		active.remaining -= 1;
		if (active.remaining <= 0) this.rules.splice(idx, 1);
		return { name: faultName(active.rule), rule: active.rule, applied: false };
	}
}

/** Builds a rule from the admin route's JSON (path regex as {regex, flags}, times 'Infinity' or null for endless). */
export function ruleFromJson(input: unknown): FaultRule {
	if (!input || typeof input !== 'object') throw new Error('fault rule must be a JSON object');
	const o = input as Record<string, unknown>;
	const action = o.action as FaultAction | undefined;
	if (!action || typeof action !== 'object' || typeof action.kind !== 'string') throw new Error('fault rule needs action.kind');
	const kinds = ['status', 'stall', 'delay', 'reset', 'resetMidBody', 'truncate', 'malformedJson', 'redirect', 'endlessList', 'trickle', 'oversize', 'gzipBomb'];
	if (!kinds.includes(action.kind)) throw new Error(`unknown fault kind ${action.kind}`);
	let path: FaultRule['path'];
	if (typeof o.path === 'string') path = o.path;
	else if (o.path && typeof o.path === 'object' && typeof (o.path as { regex?: unknown }).regex === 'string') {
		const p = o.path as { regex: string; flags?: string };
		path = new RegExp(p.regex, p.flags);
	} else if (o.path !== undefined && o.path !== null) throw new Error('path must be a string or {regex}');
	let times: number | undefined;
	if (o.times === null || o.times === 'Infinity') times = Infinity;
	else if (typeof o.times === 'number') times = o.times;
	if (o.skip !== undefined && typeof o.skip !== 'number') throw new Error('skip must be a number');
	const phase = o.phase === 'after' ? 'after' : o.phase === 'before' || o.phase === undefined ? o.phase : undefined;
	if (o.phase !== undefined && phase === undefined) throw new Error("phase must be 'before' or 'after'");
	return {
		name: typeof o.name === 'string' ? o.name : undefined,
		method: typeof o.method === 'string' ? o.method : undefined,
		path,
		times,
		...(typeof o.skip === 'number' ? { skip: o.skip } : {}),
		phase,
		action,
	};
}

/** JSON-friendly view of a rule, for the admin log. */
export function ruleToJson(rule: FaultRule): Record<string, unknown> {
	const path = rule.path instanceof RegExp ? { regex: rule.path.source, flags: rule.path.flags } : rule.path;
	return { ...rule, path, times: rule.times === Infinity ? 'Infinity' : rule.times };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Never settles: keeps fastify from writing a response we have taken over. */
const forever = () => new Promise<never>(() => undefined);

function isStream(payload: unknown): payload is Readable {
	return !!payload && typeof (payload as Readable).pipe === 'function';
}

function discard(payload: unknown): void {
	if (isStream(payload)) payload.destroy();
}

/** Faults that need the real response to work on. */
function needsRealBody(action: FaultAction): boolean {
	return action.kind === 'truncate' || action.kind === 'resetMidBody' || action.kind === 'trickle';
}

/** Whether the fault runs before the handler (otherwise at send time). */
export function runsBefore(fault: PickedFault): boolean {
	if (fault.rule.action.kind === 'sideEffect') return false;
	return (fault.rule.phase ?? 'before') === 'before' && !needsRealBody(fault.rule.action);
}

interface Canned {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/** Status, headers and body that replace the response for status/malformedJson/redirect. */
function cannedResponse(action: FaultAction, path: string): Canned | undefined {
	switch (action.kind) {
		case 'status': {
			const headers: Record<string, string> = {};
			let body: string;
			if (action.body === undefined) {
				const shaped = apiErrorBody(apiOf(path), action.status);
				headers['content-type'] = shaped.contentType;
				body = shaped.body;
			} else if (typeof action.body === 'string') {
				headers['content-type'] = 'text/plain; charset=utf-8';
				body = action.body;
			} else {
				headers['content-type'] = 'application/json; charset=utf-8';
				body = JSON.stringify(action.body);
			}
			const retryAfter = action.retryAfter ?? (action.status === 429 ? '1' : undefined);
			if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
			for (const [k, v] of Object.entries(action.headers ?? {})) headers[k.toLowerCase()] = v;
			return { status: action.status, headers, body };
		}
		case 'malformedJson':
			return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: action.body ?? '{"data": [' };
		case 'redirect':
			return { status: action.status ?? 302, headers: { location: action.location }, body: '' };
		default:
			return undefined;
	}
}

/** Drops the connection with a TCP reset (what a crashed proxy looks like), falling back to a plain close. */
function dropSocket(socket: Socket | null | undefined): void {
	if (!socket || socket.destroyed) return;
	if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
	else socket.destroy();
}

function dropConnection(request: FastifyRequest): void {
	dropSocket(request.raw.socket);
}

/** reset drops the connection now; stall sends nothing and drops it after `ms` (without `ms`, never: the client gives up first). */
function takeOverConnection(request: FastifyRequest, action: Extract<FaultAction, { kind: 'reset' | 'stall' }>): void {
	if (action.kind === 'reset') dropConnection(request);
	else if (action.ms !== undefined) setTimeout(() => dropConnection(request), action.ms).unref();
}

/** Marks the fault applied; its action, and the canned answer it makes (if it makes one). */
function startApplying(request: FastifyRequest, fault: PickedFault, entry: RequestLogEntry | undefined) {
	const action = fault.rule.action;
	fault.applied = true;
	return { action, canned: cannedResponse(action, entry?.path ?? request.url) };
}

/**
 * Applies a before-phase fault in a preHandler hook. Returns true when the fault
 * answered (or dropped) the request, so the hook must stop the chain.
 */
export async function applyBefore(
	request: FastifyRequest,
	reply: FastifyReply,
	fault: PickedFault,
	entry: RequestLogEntry | undefined,
): Promise<boolean> {
	const { action, canned } = startApplying(request, fault, entry);
	if (canned) {
		reply.code(canned.status).headers(canned.headers).send(canned.body);
		return true;
	}
	switch (action.kind) {
		case 'endlessList':
		case 'gzipBomb': {
			const answer = action.kind === 'endlessList' ? endlessListPage(request, action) : await gzipBomb(action);
			reply.code(answer.status).headers(answer.headers).send(answer.body);
			return true;
		}
		case 'oversize': {
			// Written here, not through fastify: a client that stops reading is the point, and its going away is no error.
			const answer = oversizedDownload(action);
			reply.hijack();
			if (entry) entry.status = answer.status;
			reply.raw.writeHead(answer.status, answer.headers);
			pipeline(answer.body, reply.raw).catch(() => undefined);
			return true;
		}
		case 'delay':
			await sleep(action.ms);
			return false;
		case 'reset':
		case 'stall':
			reply.hijack();
			takeOverConnection(request, action);
			return true;
		default:
			// truncate / resetMidBody never run here (see runsBefore).
			return false;
	}
}

async function readFirst(stream: Readable, n: number): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let got = 0;
	if (n > 0) {
		for await (const chunk of stream) {
			const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			chunks.push(b);
			got += b.length;
			if (got >= n) break;
		}
	}
	stream.destroy();
	return Buffer.concat(chunks).subarray(0, n);
}

/**
 * Applies a fault in an onSend hook and returns the payload to send. For faults
 * that take over the socket the returned promise never settles, so fastify
 * writes nothing more.
 */
export async function applyOnSend(
	request: FastifyRequest,
	reply: FastifyReply,
	fault: PickedFault,
	payload: unknown,
	entry: RequestLogEntry | undefined,
): Promise<unknown> {
	const { action, canned } = startApplying(request, fault, entry);
	if (canned) {
		discard(payload);
		for (const h of ['content-length', 'content-type', 'content-disposition', 'location']) reply.removeHeader(h);
		reply.code(canned.status).headers(canned.headers);
		return canned.body;
	}
	switch (action.kind) {
		case 'delay':
			await sleep(action.ms);
			return payload;
		case 'sideEffect':
			action.run();
			return payload;
		case 'reset':
		case 'stall':
			discard(payload);
			takeOverConnection(request, action);
			return forever();
		case 'trickle': {
			const all = isStream(payload) ? await readFirst(payload, Number.MAX_SAFE_INTEGER) : Buffer.from((payload ?? '') as string | Buffer);
			if (entry) entry.status = reply.statusCode;
			trickle(reply.raw, reply.statusCode, reply.getHeaders(), all, action);
			return forever();
		}
		case 'truncate':
		case 'resetMidBody': {
			const res = reply.raw;
			const status = reply.statusCode;
			let total: number;
			let head: Buffer;
			const want = (t: number) =>
				Math.max(0, Math.min(t, (action.kind === 'truncate' ? action.bytes : action.afterBytes) ?? Math.floor(t / 2)));
			if (isStream(payload)) {
				const declared = Number(reply.getHeader('content-length'));
				if (Number.isFinite(declared)) {
					total = declared;
					head = await readFirst(payload, want(total));
				} else {
					// No declared length: read it all so the header can tell the truth.
					const all = await readFirst(payload, Number.MAX_SAFE_INTEGER);
					total = all.length;
					head = all.subarray(0, want(total));
				}
			} else {
				const all = payload === undefined || payload === null ? Buffer.alloc(0) : Buffer.from(payload as string | Buffer);
				total = all.length;
				head = all.subarray(0, want(total));
			}
			const headers = { ...reply.getHeaders(), 'content-length': String(total) };
			if (entry) entry.status = status;
			res.writeHead(status, headers as Record<string, string | string[] | number>);
			res.write(head, () => {
				// truncate: a clean FIN after a short body; resetMidBody: an abrupt RST.
				if (action.kind === 'truncate') res.socket?.end();
				else dropSocket(res.socket);
			});
			return forever();
		}
		default:
			return payload;
	}
}
