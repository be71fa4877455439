/**
 * The words of failures that are not plainly a service's error answer: each
 * says what happened, to which operation and item, and what it means for the
 * data. Pure functions of the facts, so every message can be read in one place.
 */

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

export interface ErrorText {
	message: string;
	description?: string;
}

/** A 429 whose Retry-After asks for longer than Max Wait: the node did not wait. */
export function waitTooLong(who: string, waitMs: number, maxWaitMs: number, serviceSaid: string | undefined, now = Date.now()): ErrorText {
	const until = isoSecond(now + waitMs);
	return {
		message: `${who}: the service asked to wait ${Math.ceil(waitMs / 1000)} s, until ${until}; that is longer than Max Wait (${seconds(maxWaitMs)}), so the node stopped instead of waiting`,
		description: [
			`Run this item again after ${until}, or raise Max Wait (Seconds) in Retry and Timeout.`,
			serviceSaid ? `The service said: ${serviceSaid}` : '',
		]
			.filter(Boolean)
			.join('\n'),
	};
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

/** Said of a POST whose fate is unknown: it may have been carried out, and it was not resent, because resending could do it twice. */
export function mayHaveBeenCreated(subject: string | undefined, effect: 'created' | 'delivered' = 'created'): string {
	const what = subject ? `the ${subject} may have been ${effect}` : 'the request may have been carried out';
	return `${what} even so. It was not retried automatically, to avoid a duplicate: check before running this item again`;
}

/** Whether a request that succeeded at the service but could not be read may have changed something. */
export function consequenceOf(method: string, subject: string | undefined, effect?: 'created' | 'delivered'): string {
	if (method === 'GET' || method === 'HEAD') return 'it was a read, so nothing was changed';
	if (method === 'POST') return mayHaveBeenCreated(subject, effect);
	return 'the service reported success, so the change has probably been made; sending it again is safe';
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

/** A list page identical to the one before it. */
export function repeatedPage(who: string, page: number, previous: number, length: number): string {
	return `${who}: page ${page} repeats page ${previous} (the same ${length} item${length === 1 ? '' : 's'}), as if the service ignored the page asked for; the node stopped instead of reading the same items again`;
}
