/**
 * Streamed bodies: a download passes through a MeteredBody that counts, hashes
 * and checks its length; an error body is read only as far as it is shown.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { createHash } from 'crypto';
import { finished, Transform, type Readable, type TransformCallback } from 'stream';

import { errorCode } from './errors';
import type { ApiResponse, Context } from './types';

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
export function meterResponseBody(ctx: Context, response: ApiResponse, itemIndex: number | undefined): MeteredBody {
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
export async function readErrorBody(body: unknown): Promise<unknown> {
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
