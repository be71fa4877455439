/**
 * Streamed bodies: bytes pass through a ByteCounter that counts, hashes and checks
 * their length (downloads, and uploads read from n8n's binary store); an error
 * body is read only as far as it is shown. Built on async iteration, which
 * Node's streams and the platform's web streams both offer, so the node needs
 * no stream library of its own.
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { createHash } from 'crypto';

import { errorCode } from './errors';
import type { ApiResponse, Context } from './types';

/** The stream type n8n's binary helpers take (a Node Readable), named without importing Node's stream module. */
export type BinaryStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

/** Why a counted body failed: bytes received, bytes announced, and the source's own failure if it broke off. */
export type CountFailure = (received: number, expected: number | undefined, cause?: string) => Error;

/**
 * Counts and hashes (sha256) the bytes of one body as they pass, and fails
 * with `fail` when the body ends before `expected` bytes (a clean early
 * close), runs past it, or its source breaks off (reset, premature close), so
 * whoever consumes it rejects instead of keeping or sending a short file.
 */
export class ByteCounter {
	/** Bytes passed so far. */
	bytes = 0;

	/** sha256 hex of the whole body; set once the body has ended complete. */
	sha256?: string;

	constructor(
		/** Bytes the body must have (Content-Length, or the stored size); undefined when not known. */
		readonly expected: number | undefined,
		private readonly fail: CountFailure,
	) {}

	async *pass(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
		const hash = createHash('sha256');
		const iterator = source[Symbol.asyncIterator]();
		let ended = false;
		try {
			for (;;) {
				let next: IteratorResult<Uint8Array | string>;
				try {
					next = await iterator.next();
				} catch (error) {
					ended = true;
					throw this.brokeOff(error);
				}
				if (next.done) {
					ended = true;
					break;
				}
				const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
				this.bytes += chunk.length;
				if (this.expected !== undefined && this.bytes > this.expected) {
					throw this.fail(this.bytes, this.expected, 'more bytes than announced');
				}
				hash.update(chunk);
				yield chunk;
			}
		} finally {
			// Stopped early (a failure here, or the reader gave up): let go of the source.
			if (!ended) await iterator.return?.();
		}
		if (this.expected !== undefined && this.bytes !== this.expected) throw this.fail(this.bytes, this.expected);
		this.sha256 = hash.digest('hex');
	}

	/** The failure for a body whose source broke off with `error`, after the bytes counted so far. */
	brokeOff(error: unknown): Error {
		return this.fail(this.bytes, this.expected, errorCode(error) ?? (error as Error).message);
	}
}

/**
 * A streamed 2xx answer as the transport hands it on: the response's own
 * stream with the counter composed onto it, so what comes out is still the Node
 * stream n8n's binary store reads (in memory or on disk), and whoever gives up
 * on it (a failed store) also lets go of the connection.
 */
export class CountedBody {
	readonly stream: BinaryStream;

	/** The response stream's own failure (a reset, a premature close), which reaches the reader as it is. */
	private sourceError?: unknown;

	constructor(
		source: BinaryStream,
		readonly counter: ByteCounter,
	) {
		source.once('error', (error: unknown) => {
			this.sourceError ??= error;
		});
		this.stream = source.compose<BinaryStream>(async function* (chunks: AsyncIterable<Uint8Array>) {
			yield* counter.pass(chunks);
		});
		// The failure may come before anyone reads (n8n's store opens its file first); it is kept for the reader.
		this.stream.on('error', () => undefined);
	}

	/** Awaits whatever stores the stream; a body that broke off is reported as the counter says it, not as the socket does. */
	async stored<T>(storing: Promise<T>): Promise<T> {
		try {
			return await storing;
		} catch (error) {
			throw this.sourceError !== undefined && error === this.sourceError ? this.counter.brokeOff(error) : error;
		}
	}
}

function contentLength(headers: ApiResponse['headers']): number | undefined {
	const raw = headers['content-length'];
	const value = Array.isArray(raw) ? raw[0] : raw;
	return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/**
 * Counts a streamed 2xx body against its Content-Length. The request asked for
 * no content coding, so the announced length is the length of the bytes handed
 * on; a body that still says it is encoded is not measured.
 */
export function countedResponseBody(ctx: Context, response: ApiResponse, itemIndex: number | undefined): CountedBody {
	const coding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
	const expected = coding === 'identity' || coding === '' ? contentLength(response.headers) : undefined;
	const counter = new ByteCounter(expected, (received, total, cause) => incompleteBodyError(ctx, received, total, cause, itemIndex));
	return new CountedBody(response.body as BinaryStream, counter);
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
	const stream = body as BinaryStream | undefined;
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
