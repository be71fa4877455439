/**
 * What the package takes from the service, bounded: how long an attempt may
 * take, how large an answer may be, how long a list may run. The limits and
 * the pure decisions about them; the request path (boundedRequest.ts) and the
 * paging reader (paging.ts) apply them.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** The Timeout of a run's requests when no item's settings say otherwise (polls, the node's default). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** The Timeout of requests a person waits for in the editor (list searches, credential tests): each is one small read. */
export const EDITOR_TIMEOUT_MS = 15_000;

/**
 * The largest JSON answer read, counted after decompression. The service's
 * largest answers are list pages (at most 100 items are asked for, a few KiB
 * each), so this is far above any answer it gives, and it bounds what a
 * broken or hostile one (a gzip bomb, an endless body) can put in memory.
 */
export const MAX_JSON_BYTES = 16 * MiB;

/** How much of an error answer is read: enough for any message the service writes; the rest is not read. */
export const ERROR_BODY_BYTES = 64 * KiB;

/**
 * Max Download Size's default. The service takes uploads of at most 100 MB
 * (counted as 100 × 1,048,576 bytes, as uploadRules.ts counts it), so no
 * file it keeps is larger.
 */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 100 * MiB;

/**
 * The slowest transfer still taken for progress: a file's bytes (an upload, a
 * download) add one second to the attempt's time for every this many bytes, so
 * a large file over a slow link is not cut at the Timeout, while a body
 * trickled a few bytes a second gains next to nothing.
 */
export const SLOWEST_TRANSFER_BYTES_PER_SECOND = 64 * KiB;

/** Pages read of one list at most (a list that ends only with an empty page could otherwise go on for ever). */
export const MAX_LIST_PAGES = 10_000;

/** Items read of one list at most (the items of a list are held until it is complete). */
export const MAX_LIST_ITEMS = 100_000;

/**
 * How long an attempt may take from sending to the last byte of its answer:
 * its Timeout, plus the time `fileBytes` take at SLOWEST_TRANSFER_BYTES_PER_SECOND
 * (the bytes of a file uploaded, or downloaded so far).
 */
export function attemptTimeMs(timeoutMs: number, fileBytes = 0): number {
	return timeoutMs + Math.ceil((Math.max(0, fileBytes) / SLOWEST_TRANSFER_BYTES_PER_SECOND) * 1000);
}

/**
 * Whether a body is past its limit: `announced` when its Content-Length already
 * says so (nothing is read then), `received` when the bytes that came are more.
 */
export function pastLimit(limit: number, size: { announced?: number; received?: number }): 'announced' | 'received' | undefined {
	if (size.announced !== undefined && size.announced > limit) return 'announced';
	if (size.received !== undefined && size.received > limit) return 'received';
	return undefined;
}

/** Which cap of a list is reached before its page `page` is read, `received` items having come before it. */
export function listCapReached(at: { page: number; received: number }): { pages: number } | { items: number } | undefined {
	if (at.received >= MAX_LIST_ITEMS) return { items: MAX_LIST_ITEMS };
	if (at.page > MAX_LIST_PAGES) return { pages: MAX_LIST_PAGES };
	return undefined;
}

/** The Content-Length of an answer when it is plain digits; undefined otherwise (absent, repeated, malformed). */
export function contentLength(headers: Record<string, unknown>): number | undefined {
	const raw = headers['content-length'];
	const value = Array.isArray(raw) ? (raw.length === 1 ? (raw[0] as unknown) : undefined) : raw;
	const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** Bytes as people read them: "16 MiB", "100 MB" for Max Download Size's unit (1 MB = 1,048,576 bytes), "512 bytes". */
export function sizeText(bytes: number): string {
	if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MB`;
	if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MB`;
	if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KB`;
	return `${bytes.toLocaleString('en-US')} bytes`;
}
