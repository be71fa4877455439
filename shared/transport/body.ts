/**
 * Bodies read within their limits. Streamed bodies pass through a ByteCounter
 * that counts, hashes and checks their length (downloads, and uploads read
 * from n8n's store), and stops a download at its size limit; a JSON answer is
 * read to MAX_JSON_BYTES at most, an error answer only as far as it is shown;
 * every read of an answer ends at the attempt's deadline. Built on async
 * iteration, which Node's streams and the platform's web streams both offer,
 * so the node needs no stream library of its own.
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { createHash } from 'crypto';

import { DeadlinePassed, type Deadline } from './deadline';
import { errorCode } from './errors';
import { downloadLate, downloadTooLarge, operationAndItem, type ErrorText } from './failureMessages';
import { ERROR_BODY_BYTES, MAX_JSON_BYTES } from './limits';
import type { ApiRequest, Context } from './types';

/** The stream type n8n's binary helpers take (a Node Readable), named without importing Node's stream module. */
export type BinaryStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

/** An answer larger than it may be: a JSON answer past MAX_JSON_BYTES, a download past Max Download Size. */
export class AnswerTooLarge extends Error {
	constructor(
		/** The limit it went past, in bytes. */
		readonly limit: number,
		/** The Content-Length that said so before anything was read, when it did. */
		readonly announced?: number,
	) {
		super(announced === undefined ? `The answer ran past ${limit} bytes` : `The answer announced ${announced} bytes, more than ${limit}`);
		this.name = 'AnswerTooLarge';
	}
}

/** Why a counted body failed: bytes received, bytes announced, and the source's own failure if it broke off. */
export type CountFailure = (received: number, expected: number | undefined, cause?: string) => Error;

/** A body's size limit, and the failure of a body that goes past it. */
export interface SizeLimit {
	bytes: number;
	fail: (limit: number) => Error;
}

/**
 * Counts and hashes (sha256) the bytes of one body as they pass, and fails
 * with `fail` when the body ends before `expected` bytes (a clean early
 * close), runs past it, or its source breaks off (reset, premature close), so
 * whoever consumes it rejects instead of keeping or sending a short file; with
 * a `limit`, fails with the limit's failure as soon as the body goes past it.
 */
export class ByteCounter {
	/** Bytes passed so far. */
	bytes = 0;

	/** sha256 hex of the whole body; set once the body has ended complete. */
	sha256?: string;

	/** The failure this counter ended the body with, if it did (it reaches the reader as it is). */
	failure?: Error;

	constructor(
		/** Bytes the body must have (Content-Length, or the stored size); undefined when not known. */
		readonly expected: number | undefined,
		private readonly fail: CountFailure,
		private readonly limit?: SizeLimit,
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
					throw error instanceof DeadlinePassed ? error : this.failed(this.brokeOff(error));
				}
				if (next.done) {
					ended = true;
					break;
				}
				const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
				this.bytes += chunk.length;
				if (this.limit && this.bytes > this.limit.bytes) throw this.failed(this.limit.fail(this.limit.bytes));
				if (this.expected !== undefined && this.bytes > this.expected) {
					throw this.failed(this.fail(this.bytes, this.expected, 'more bytes than announced'));
				}
				hash.update(chunk);
				yield chunk;
			}
		} finally {
			// Stopped early (a failure here, or the reader gave up): let go of the source.
			if (!ended) await iterator.return?.();
		}
		if (this.expected !== undefined && this.bytes !== this.expected) throw this.failed(this.fail(this.bytes, this.expected));
		this.sha256 = hash.digest('hex');
	}

	private failed(error: Error): Error {
		this.failure = error;
		return error;
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
 * on it (a failed store) also lets go of the connection. With a deadline, the
 * body ends when it passes (each byte that arrives moves it on a little, as a
 * transfer's time allows), and `late` says how.
 */
export class CountedBody {
	readonly stream: BinaryStream;

	/** The response stream's own failure (a reset, a premature close, the deadline), which reaches the reader as it is. */
	private sourceError?: unknown;

	/** The failure of a body the deadline ended, and the deadline. */
	private readonly late?: { within: Deadline; fail: (received: number) => Error };

	constructor(
		source: BinaryStream,
		readonly counter: ByteCounter,
		deadline?: { within: Deadline; late: (received: number, timeoutMs: number) => Error },
	) {
		source.once('error', (error: unknown) => {
			this.sourceError ??= error;
		});
		const release = deadline?.within.guard(source);
		this.stream = source.compose<BinaryStream>(async function* (chunks: AsyncIterable<Uint8Array>) {
			try {
				for await (const chunk of counter.pass(chunks)) {
					deadline?.within.moved(chunk.length);
					yield chunk;
				}
			} finally {
				release?.();
				deadline?.within.release();
			}
		});
		// The failure may come before anyone reads (n8n's store opens its file first); it is kept for the reader.
		this.stream.on('error', () => undefined);
		this.late = deadline && { within: deadline.within, fail: (received) => deadline.late(received, deadline.within.timeoutMs) };
	}

	/** Awaits whatever stores the stream; a body that broke off is reported as the counter says it, not as the socket does. */
	async stored<T>(storing: Promise<T>): Promise<T> {
		try {
			return await storing;
		} catch (error) {
			// The deadline's (it ends the source, which the counter would call broken off), then the counter's own, then the connection's.
			if (this.late?.within.passed) throw this.late.fail(this.counter.bytes);
			if (this.counter.failure) throw this.counter.failure;
			throw this.sourceError !== undefined && error === this.sourceError ? this.counter.brokeOff(error) : error;
		}
	}
}

/** How a download's body fails; each builds the error its caller reports. */
export interface DownloadFailures {
	/** Ended short of its Content-Length, ran past it, or broke off. */
	incomplete: CountFailure;
	/** Larger than `limit` bytes: announced so (nothing was read), or counted while it streamed. */
	tooLarge: (limit: number, announced?: number) => Error;
	/** Not complete when the deadline (of `timeoutMs`, moved on by the bytes that came) passed, after `received` bytes. */
	late: (received: number, timeoutMs: number) => Error;
}

/** How a download of `request` for item `itemIndex` fails, as the errors n8n shows. */
export function downloadFailures(ctx: Pick<Context, 'getNode'>, request: Pick<ApiRequest, 'operation'>, itemIndex: number | undefined): DownloadFailures {
	const who = operationAndItem(request.operation, itemIndex);
	const apiError = (text: ErrorText, facts: JsonObject) => new NodeApiError(ctx.getNode(), { message: text.message, ...facts }, { ...text, itemIndex });
	return {
		incomplete: (received, expected, cause) => incompleteBodyError(ctx, received, expected, cause, itemIndex),
		tooLarge: (limit, announced) => apiError(downloadTooLarge(who, limit, announced), { limit, ...(announced === undefined ? {} : { announced }) }),
		late: (received, timeoutMs) => apiError(downloadLate(who, received, timeoutMs), { received }),
	};
}

export function incompleteBodyError(
	ctx: Pick<Context, 'getNode'>,
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

/**
 * Reads a body as bytes before the deadline, and lets go of the source
 * whatever happens. `whole`: to its end, at most `maxBytes` (AnswerTooLarge
 * past them; DeadlinePassed, or the source's failure, when it does not end).
 * `head`: the first `maxBytes` at most, and whatever came when it broke off.
 */
async function readBytes(stream: BinaryStream, deadline: Deadline, maxBytes: number, read: 'whole' | 'head'): Promise<Buffer> {
	const release = deadline.guard(stream);
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of stream) {
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
			size += buffer.length;
			if (size > maxBytes) {
				if (read === 'whole') throw new AnswerTooLarge(maxBytes);
				chunks.push(buffer.subarray(0, buffer.length - (size - maxBytes)));
				break;
			}
			chunks.push(buffer);
		}
	} catch (error) {
		if (read === 'whole') {
			// The deadline ends the stream with DeadlinePassed, or with the client's own abort: either way, late.
			throw deadline.passed && !(error instanceof AnswerTooLarge) ? deadline.failure() : error;
		}
	} finally {
		release();
		stream.destroy();
	}
	return Buffer.concat(chunks);
}

/** Text that is JSON, parsed; anything else as it came (an empty body stays ''). */
function parsedWhenJson(text: string): unknown {
	if (text.trim() === '') return text;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/**
 * A JSON answer's body, read to its end within the deadline and at most
 * MAX_JSON_BYTES after decompression (the client decompresses before the bytes
 * are counted), parsed when it is JSON, else the text as it came.
 */
export async function readJsonBody(stream: BinaryStream, deadline: Deadline): Promise<unknown> {
	return parsedWhenJson((await readBytes(stream, deadline, MAX_JSON_BYTES, 'whole')).toString('utf8'));
}

/**
 * An error answer's body as far as it is shown (ERROR_BODY_BYTES), parsed when
 * it is JSON. A body that breaks off or runs late still leaves its status to
 * report, so what came is kept.
 */
export async function readErrorBody(stream: BinaryStream, deadline: Deadline): Promise<unknown> {
	return parsedWhenJson((await readBytes(stream, deadline, ERROR_BODY_BYTES, 'head')).toString('utf8'));
}
