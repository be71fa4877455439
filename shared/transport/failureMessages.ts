/**
 * The messages of every failure the transport reports: the service's error
 * answers, network failures, and what happened to which operation and item and
 * what it means for the data. Pure functions of the facts, so every message can
 * be read in one place; errors.ts and afterFailure.ts only put them into n8n's
 * errors.
 */
import type { IHttpRequestMethods } from 'n8n-workflow';

import { parseErrorBody, type ParsedError } from './errorBody';
import { ownEntry } from '../ownEntry';
import { SLOWEST_TRANSFER_BYTES_PER_SECOND, sizeText } from './limits';
import type { PageSize } from './pageRules';

export interface ErrorText {
	message: string;
	description?: string;
}

/** Who the message is about: "Get a knowledge base (item 3)", "Search knowledge bases". */
export function operationAndItem(operation: string | undefined, itemIndex: number | undefined): string {
	const what = operation ?? 'The request';
	return itemIndex === undefined ? what : `${what} (item ${itemIndex})`;
}

/** Seconds as people write them: "2 s", "0.2 s", "1.4 s". */
export function seconds(ms: number): string {
	const s = ms / 1000;
	return `${Number.isInteger(s) ? s : Number(s.toFixed(1))} s`;
}

/** A moment as an ISO date to the second (a Retry-After date has no finer resolution). */
export function isoSecond(ms: number): string {
	return new Date(Math.round(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** What a request that changes something does to its subject. */
export type Effect = 'created' | 'updated' | 'deleted' | 'delivered';

/** What a request does to its subject: declared (a message is `delivered`), else what its method does; undefined for a read. */
export function effectOf(request: { method: IHttpRequestMethods; effect?: Effect }): Effect | undefined {
	if (request.effect) return request.effect;
	switch (request.method) {
		case 'POST':
			return 'created';
		case 'PUT':
		case 'PATCH':
			return 'updated';
		case 'DELETE':
			return 'deleted';
		default:
			return undefined;
	}
}

/**
 * Said of a request whose fate is unknown (a 5xx, a timeout or a reset after
 * sending) and that was not sent again, because sending it again could do it twice.
 */
export function mayHaveBeenDone(subject: string | undefined, effect: Effect | undefined): string {
	const what = subject && effect ? `the ${subject} may have been ${effect}` : 'the request may have been carried out';
	const twice = effect === 'created' || effect === 'delivered' ? 'to avoid a duplicate' : 'to avoid doing it twice';
	return `${what} even so. It was not retried automatically, ${twice}: check before running this item again`;
}

/** Whether a request that succeeded at the service, but whose answer could not be read, may have changed something. */
export function consequenceOf(request: { method: IHttpRequestMethods; subject?: string; effect?: Effect }): string {
	const effect = effectOf(request);
	if (!effect) return 'it was a read, so nothing was changed';
	if (effect === 'created' || effect === 'delivered') return mayHaveBeenDone(request.subject, effect);
	// PUT and DELETE leave the same result when sent twice; a PATCH need not.
	const again = request.method === 'PATCH' ? '' : '; sending it again is safe';
	return `the service reported success, so the change has probably been made${again}`;
}

/** TLS verification failures, as Node names them (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ...). */
export const TLS_CODE = /^(?:ERR_TLS_[A-Z_]+|EPROTO|[A-Z_]*CERT[A-Z_]*|UNABLE_TO_[A-Z_]+)$/;

const NETWORK_MESSAGES: Record<string, string> = {
	ECONNREFUSED: 'The service refused the connection',
	ECONNRESET: 'The connection to the service was reset',
	ETIMEDOUT: 'The service did not answer in time',
	ECONNABORTED: 'The service did not answer in time',
	ENOTFOUND: "The service's host name could not be resolved",
	EAI_AGAIN: "The service's host name could not be resolved",
	EPIPE: 'The connection to the service was closed while sending',
};

/** What a network failure code means, in plain language; the node's errors and the credential tests both say it this way. */
export function networkMessage(code: string): string {
	const known = ownEntry(NETWORK_MESSAGES, code);
	if (known !== undefined) return known;
	if (code === 'EPROTO') {
		return "The secure (TLS) connection to the service failed (EPROTO); check that the Base URL's scheme is what the service speaks (https:// or http://)";
	}
	if (TLS_CODE.test(code)) {
		return `The service's TLS certificate could not be verified (${code}); check the Base URL's host name, or have the certificate fixed (the node never skips the check)`;
	}
	return `The request to the service failed (${code})`;
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

/** The field details and the service's code of an error body, one a line. */
function detailsOf(parsed: ParsedError): string | undefined {
	return [...parsed.details, parsed.code ? `Service code: ${parsed.code}` : ''].filter(Boolean).join('\n') || undefined;
}

/**
 * The message of a non-2xx answer: a hint for the status (or the operation's own
 * `meaning` of it), then the service's own message, and each field detail on its
 * own line. `unauthorizedHint` says what to check of the API's credential after
 * a 401. The node's errors and the credential tests both say it this way.
 */
export function serviceErrorText(status: number, body: unknown, meaning?: string, unauthorizedHint?: string): ErrorText {
	const parsed = parseErrorBody(body);
	const hint = meaning ?? STATUS_HINTS[status] ?? `The service answered ${status}`;
	// An operation's own meaning leads; the service's own message follows it.
	const said = meaning ? ` (the service said: ${parsed.message})` : `: ${parsed.message}`;
	let message = parsed.message ? `${hint}${said}` : hint;
	// A 404 about a related resource (assigneeId, labelIds[1]) names the fields it is about.
	if (status === 404 && parsed.paths.length > 0) message += ` (${parsed.paths.join(', ')})`;
	if (status === 401 && unauthorizedHint) message += ` (${unauthorizedHint})`;
	return { message, description: detailsOf(parsed) };
}

/** A 429 when no retry is allowed (Max Attempts 1): when the service asked to be asked again. */
export function rateLimited(body: unknown, waitMs: number | undefined, now = Date.now()): ErrorText {
	const when = waitMs === undefined ? 'later' : `in ${Math.ceil(waitMs / 1000)} s (at ${new Date(now + waitMs).toISOString()})`;
	return { message: `The service is rate limiting requests; retry ${when}`, description: parseErrorBody(body).message };
}

/** A 429 whose Retry-After asks for longer than Max Wait: the node did not wait. */
export function waitTooLong(who: string, waitMs: number, maxWaitMs: number, serviceSaid: string | undefined, now = Date.now()): ErrorText {
	const until = isoSecond(now + waitMs);
	return {
		message: `${who}: the service asked to wait ${Math.ceil(waitMs / 1000)} s, until ${until}; that is longer than Max Wait (${seconds(maxWaitMs)}), so the node stopped instead of waiting`,
		description: [`Run this item again after ${until}, or raise Max Wait (Seconds) in Retry and Timeout.`, serviceSaid ? `The service said: ${serviceSaid}` : '']
			.filter(Boolean)
			.join('\n'),
	};
}

/** A request not sent: the service had refused another with the same credential (429) and asked for none until past Max Wait. */
export function heldTooLong(who: string, waitMs: number, maxWaitMs: number, now = Date.now()): ErrorText {
	const text = waitTooLong(who, waitMs, maxWaitMs, undefined, now);
	return { ...text, description: `Not sent: the service refused an earlier request with this credential (429) and asked for none until then.\n${text.description}` };
}

/** The last thing that went wrong when the attempts ran out. */
export type LastFailure = { status: number; serviceSaid?: string } | { what: string };

/** Every attempt the policy allows was made and failed. */
export function retriesExhausted(who: string, attempts: number, elapsedMs: number, last: LastFailure): string {
	const lastly =
		'status' in last
			? `the last answer was ${last.status}${last.serviceSaid ? ` (the service said: ${last.serviceSaid})` : ''}`
			: `the last attempt failed: ${last.what.charAt(0).toLowerCase()}${last.what.slice(1)}`;
	return `${who}: gave up after ${attempts} attempts over ${seconds(elapsedMs)}; ${lastly}`;
}

/** Every attempt ended in an error answer: the last status with the service's message, and its details. */
export function retriesExhaustedByAnswers(who: string, attempts: number, elapsedMs: number, status: number, body: unknown): ErrorText {
	const parsed = parseErrorBody(body);
	return { message: retriesExhausted(who, attempts, elapsedMs, { status, serviceSaid: parsed.message }), description: detailsOf(parsed) };
}

/** Scheme and host (with port) of where a redirect points, resolved against the request's address; never its path or query. */
export function redirectTarget(location: unknown, requestUrl: string): string | undefined {
	const value = Array.isArray(location) ? (location[0] as unknown) : location;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	try {
		const url = new URL(value.trim(), requestUrl);
		return url.origin === 'null' ? `${url.protocol}` : url.origin;
	} catch {
		return undefined;
	}
}

/** A 3xx: the node never follows one, since the credential's headers would go with it. */
export function redirectRefused(who: string, status: number, target: string | undefined): ErrorText {
	const where = target ? `to another address, ${target}` : 'to another address it did not name readably';
	return {
		message:
			`${who}: the service answered with a redirect (${status}) ${where}; ` +
			'the node does not follow redirects, so the credentials are sent only to the Base URL. This is not an error of the service',
		description:
			"Nothing was read or changed at the redirect's address. If the service has moved (for example from http to https, or to a new host), put its new address in the credential's Base URL.",
	};
}

export type Unexpected =
	/** Said to be JSON, but does not parse. */
	| 'invalid'
	/** Not JSON at all (an HTML page, plain text). */
	| 'notJson'
	/** JSON, but not of the shape the operation reads. */
	| 'shape';

const UNEXPECTED: Record<Unexpected, string> = {
	invalid: 'a body that is not valid JSON',
	notJson: 'a body that is not JSON',
	shape: 'JSON of another shape',
};

const LIKELY_CAUSE: Record<Unexpected, string> = {
	invalid: 'Nothing from the answer was used; it may have been cut off on the way.',
	notJson: 'Nothing from the answer was used. A sign-in page or a proxy in front of the service answers like this: check the Base URL.',
	shape: 'Nothing from the answer was used.',
};

/** A 2xx whose body is not the JSON the operation expects; `consequence` says whether anything may have changed. */
export function notTheJsonExpected(
	who: string,
	status: number,
	contentType: string | undefined,
	unexpected: Unexpected,
	expected: string,
	consequence: string,
): ErrorText {
	return {
		message: `${who}: the service answered ${status} (${contentType || 'no content type'}) with ${UNEXPECTED[unexpected]}, where ${expected} was expected; ${consequence}`,
		description: LIKELY_CAUSE[unexpected],
	};
}

/** A delete whose answer was lost and whose repeat found the thing gone. */
export function goneOnRepeat(earlier: string, status: number): string {
	const lost = /^\d+$/.test(earlier) ? `was answered ${earlier} by a gateway that may have passed it on` : `lost its answer (${earlier})`;
	return `Deleted: the first attempt ${lost}, and the repeat found it already gone (${status}), so the first attempt deleted it`;
}

/** A list that changed while it was read (page numbers shift: items would be skipped or read twice). */
export function listChanged(who: string, page: number, change: string): string {
	return `${who}: the list changed while it was read (on page ${page}, ${change}); items may have moved between pages, so the node stopped rather than return a list that could miss items or hold some twice. Run it again`;
}

/** The sizes a list's first page was asked with, every one refused (paging.ts). */
export function pageSizesRefused(sizes: PageSize[]): string {
	const said = sizes.map((size) => (size === 'serviceDefault' ? 'no size (the service’s own)' : `${size} items a page`));
	return `The first page was asked for with ${said.join(', then ')}; the service refused each.`;
}

/** A list page identical to the one before it. */
export function repeatedPage(who: string, page: number, previous: number, length: number): string {
	return `${who}: page ${page} repeats page ${previous} (the same ${length} item${length === 1 ? '' : 's'}), as if the service ignored the page asked for; the node stopped instead of reading the same items again`;
}

/** A 2xx JSON answer past its size limit (MAX_JSON_BYTES, counted after decompression). */
export function answerTooLarge(who: string, limit: number, consequence: string): ErrorText {
	return {
		message: `${who}: the service's answer ran past ${sizeText(limit)} (counted unpacked), far larger than any answer the service gives, so the node stopped reading it; ${consequence}`,
		description: 'Nothing from the answer was used. A broken service or a proxy in front of it answers like this; check the Base URL, or try again later.',
	};
}

/** A download larger than Max Download Size: announced so by its Content-Length (nothing read), or counted while it streamed. */
export function downloadTooLarge(who: string, limit: number, announced?: number): ErrorText {
	return {
		message:
			announced === undefined
				? `${who}: the download ran past Max Download Size (${sizeText(limit)}); it was stopped there and nothing was stored`
				: `${who}: the file is ${sizeText(announced)}, larger than Max Download Size (${sizeText(limit)}); nothing was downloaded`,
		description:
			'The service accepts uploads of at most 100 MB, so none of its files should be larger. If this file is expected, raise Max Download Size in the options.',
	};
}

/** A download not complete at its deadline. */
export function downloadLate(who: string, received: number, timeoutMs: number): ErrorText {
	return {
		message: `${who}: the download was not complete within the Timeout (${seconds(timeoutMs)}, and a second more for every ${sizeText(SLOWEST_TRANSFER_BYTES_PER_SECOND)} that arrived) after ${received.toLocaleString('en-US')} bytes; nothing was stored`,
		description: 'The service sent the file too slowly to finish in time. Run the node again, or raise Timeout in the options for a slow link.',
	};
}

/** A list that went past the most pages or items a list is read to. */
export function listTooLong(who: string, cap: { pages: number } | { items: number }): string {
	const past = 'pages' in cap ? `${cap.pages.toLocaleString('en-US')} pages` : `${cap.items.toLocaleString('en-US')} items`;
	return `${who}: the list went on past ${past}, the most the node reads of one list, and the service still offered more; the node stopped reading rather than hold a list without end`;
}
