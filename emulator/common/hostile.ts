/**
 * A hostile or broken service, as fault actions (faults.ts applies them): a
 * listing that never ends, a body trickled byte by byte, a download larger
 * than any file the service keeps (with or without Content-Length), a gzip
 * bomb. Nothing here is held in memory in proportion to what it sends: bodies
 * are made as they are written, and each stops when the client goes away.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { FastifyRequest } from 'fastify';

import type { FaultAction } from '../types';

type Hostile<K extends FaultAction['kind']> = Extract<FaultAction, { kind: K }>;

/** The page a list request asks for (`pagination[page]`), 1 when it names none. */
function pageAskedFor(request: FastifyRequest): number {
	const query = request.query as Record<string, unknown>;
	const raw = query['pagination[page]'] ?? (query.pagination as Record<string, unknown> | undefined)?.page;
	const page = Number(raw);
	return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** A knowledge file as the service lists it (about 500 bytes of JSON), with an id no other page repeats. */
function listedFile(id: number): Record<string, unknown> {
	const at = new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString();
	return {
		id,
		name: `endless-${id}.pdf`,
		status: 'active',
		combined: `knowledge-files/endless/${id}.pdf`,
		meta: { originalName: `Endless listing file ${id}.pdf`, mimetype: 'application/pdf', size: 1000 + (id % 997) },
		kmVersion: 1,
		knowledge: { id: 1, name: 'Endless', type: 'internal' },
		createdAt: at,
		updatedAt: at,
	};
}

/**
 * A list page that is never the last: items never seen before on every page,
 * and (meta `endless`) pagination metadata naming a billion pages, or (meta
 * `none`) none, so only an empty page could end it, and none comes.
 */
export function endlessListPage(request: FastifyRequest, action: Hostile<'endlessList'>): { status: number; headers: Record<string, string>; body: string } {
	const page = pageAskedFor(request);
	const size = action.pageSize ?? 100;
	const data = Array.from({ length: size }, (_, k) => listedFile((page - 1) * size + k + 1));
	const meta = (action.meta ?? 'none') === 'endless' ? { meta: { pagination: { page, pageSize: size, pageCount: 1e9, total: 1e9 * size } } } : {};
	return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ data, ...meta }) };
}

/** Bytes of `bytes` in all, made a chunk at a time as the client reads them (no more in memory than a chunk). */
function patternBody(bytes: number): Readable {
	const chunk = Buffer.alloc(64 * 1024, '%PDF-1.7 hostile service body\n');
	let left = bytes;
	return new Readable({
		read() {
			if (left <= 0) {
				this.push(null);
				return;
			}
			const n = Math.min(left, chunk.length);
			left -= n;
			this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
		},
	});
}

/** A download of `bytes`, with its Content-Length or (contentLength false) chunked, as a file the service would never keep. */
export function oversizedDownload(action: Hostile<'oversize'>): { status: number; headers: Record<string, string>; body: Readable } {
	const headers: Record<string, string> = {
		'content-type': action.contentType ?? 'application/pdf',
		'content-disposition': 'attachment; filename="oversized.pdf"',
	};
	if (action.contentLength !== false) headers['content-length'] = String(action.bytes);
	return { status: 200, headers, body: patternBody(action.bytes) };
}

/** Gzip bombs made so far, by inflated size: each is made once, a chunk at a time. */
const bombs = new Map<number, Promise<Buffer>>();

/**
 * A JSON object (`{"data":[],"users":[]` then spaces then `}`, valid JSON
 * however large) of `inflated` bytes, gzip-compressed: about a thousandth of
 * its size on the wire.
 */
export function gzipBombBytes(inflated: number): Promise<Buffer> {
	let made = bombs.get(inflated);
	if (!made) {
		made = (async () => {
			const head = Buffer.from('{"data":[],"users":[]');
			const tail = Buffer.from('}');
			const gzip = createGzip({ level: 9 });
			const out: Buffer[] = [];
			gzip.on('data', (chunk: Buffer) => out.push(chunk));
			const ended = once(gzip, 'end');
			const spaces = Buffer.alloc(1024 * 1024, ' ');
			gzip.write(head);
			for (let left = inflated - head.length - tail.length; left > 0; left -= spaces.length) {
				if (!gzip.write(left >= spaces.length ? spaces : spaces.subarray(0, left))) await once(gzip, 'drain');
			}
			gzip.end(tail);
			await ended;
			return Buffer.concat(out);
		})();
		bombs.set(inflated, made);
	}
	return made;
}

/** The bomb as an answer: JSON, gzip-encoded, with its (small) Content-Length. */
export async function gzipBomb(action: Hostile<'gzipBomb'>): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
	const body = await gzipBombBytes(action.inflatedBytes ?? 256 * 1024 * 1024);
	return {
		status: action.status ?? 200,
		headers: { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip', 'content-length': String(body.length) },
		body,
	};
}

/**
 * Writes `head` (status and headers, Content-Length the body's) at once, then
 * the body `bytesPerStep` bytes every `intervalMs`, until it is all out or the
 * client has gone.
 */
export function trickle(res: ServerResponse, status: number, headers: Record<string, unknown>, body: Buffer, action: Hostile<'trickle'>): void {
	const interval = action.intervalMs ?? 100;
	const step = Math.max(1, action.bytesPerStep ?? 1);
	res.writeHead(status, { ...headers, 'content-length': String(body.length) } as Record<string, string>);
	let sent = 0;
	const timer = setInterval(() => {
		if (res.destroyed || res.writableEnded) {
			clearInterval(timer);
			return;
		}
		const next = body.subarray(sent, sent + step);
		sent += next.length;
		if (sent >= body.length) {
			clearInterval(timer);
			res.end(next);
		} else {
			res.write(next);
		}
	}, interval);
	res.once('close', () => clearInterval(timer));
}
