/**
 * Only a person on the answer's own page can answer by link. Opening a link
 * (GET) shows a page carrying a token; its form posts the token back. The token
 * is an HMAC (keys.ts, purpose `confirmation`) of the execution, the node, the
 * question and the answer, so it answers only that question, only that way.
 * A page of another site can neither read the token (the page is refused to
 * scripts of other sites, and n8n's own CORS header is taken off it) nor post
 * across sites (a browser names the sending site in Sec-Fetch-Site and
 * Origin). Pure.
 */
import { sign, signedBy } from './keys';

/** Request headers as Node's HTTP server gives them (names in lower case). */
type IncomingHttpHeaders = Record<string, string | string[] | undefined>;

/** The form field that carries the token. */
export const TOKEN_FIELD = 'confirmation';

/** What a token is bound to: one answer (approve, decline, form) to one question of one waiting node. */
export interface Bound {
	executionId: string;
	nodeId: string;
	questionId: string;
	answer: 'approve' | 'decline' | 'form';
}

const boundText = (b: Bound) => [b.executionId, b.nodeId, b.questionId, b.answer].join('\n');

export const confirmationToken = (secret: string, bound: Bound): string => sign(secret, 'confirmation', boundText(bound));

export const tokenMatches = (secret: string, bound: Bound, given: unknown): boolean => signedBy(secret, 'confirmation', boundText(bound), given);

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
	const value = headers[name];
	return typeof value === 'string' ? value.trim().toLowerCase() : undefined;
};

/** The origins this n8n is reached at: its resume URL's, and the request's own Host as the proxy passed it on. */
export function ownOrigins(resumeUrl: string, headers: IncomingHttpHeaders): string[] {
	const origins: string[] = [];
	try {
		origins.push(new URL(resumeUrl).origin.toLowerCase());
	} catch {
		// No usable resume URL: only the Host header can say.
	}
	const host = header(headers, 'x-forwarded-host')?.split(',')[0].trim() ?? header(headers, 'host');
	const proto = header(headers, 'x-forwarded-proto')?.split(',')[0].trim();
	if (host) for (const scheme of proto ? [proto] : ['http', 'https']) origins.push(`${scheme}://${host}`);
	return origins;
}

/**
 * Why a request cannot be a person's own on this site, or undefined when it can.
 * A browser says where a request comes from: Sec-Fetch-Site (all current
 * browsers) with Sec-Fetch-Mode; an older one only Origin, on a POST or a
 * script's request. (The pages send a referrer to their own origin only, so a
 * browser names their origin in their form's POST, not "null".)
 * Without them it is no browser's cross-site request (a program that sends a
 * request itself has no victim whose browser it borrows), and the token alone
 * decides. `navigation`: a GET opening the page, which may come from anywhere
 * (a chat app, a mail, another site's link) as long as it is a page being
 * opened, not a script reading it; any other request (a form post) must come
 * from the same origin.
 */
export function crossSite(headers: IncomingHttpHeaders, origins: string[], navigation: boolean): string | undefined {
	const site = header(headers, 'sec-fetch-site');
	const mode = header(headers, 'sec-fetch-mode');
	if (site !== undefined) {
		if (site === 'same-origin') return undefined;
		if (navigation && (site === 'none' || mode === 'navigate')) return undefined;
		return `a ${site} ${mode ?? ''} request`.trim();
	}
	// A browser without Sec-Fetch-Site: its Origin (sent on a POST, and on a script's request).
	const origin = header(headers, 'origin');
	if (origin !== undefined && !origins.includes(origin)) return `a request from ${origin}`;
	return undefined;
}
