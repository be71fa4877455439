/**
 * The one Base URL rule and the one way a request path is built. The transport,
 * the credential tests and the credentials' own requests all use it, so they
 * accept exactly the same addresses.
 */

/**
 * The service address a credential's Base URL names, or why it cannot be one:
 * an http(s) address without "?" or "#", trailing slashes dropped.
 */
export function parseBaseUrl(value: unknown): { url: string } | { problem: string } {
	let parsed: URL;
	try {
		parsed = new URL(typeof value === 'string' ? value.trim() : '');
	} catch {
		return { problem: 'The credential\'s Base URL is not a valid address (expected e.g. "https://workplace.example.com")' };
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		return { problem: 'The credential\'s Base URL must start with http:// or https://' };
	}
	if (parsed.search || parsed.hash) return { problem: 'The credential\'s Base URL must not contain "?" or "#"' };
	return { url: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}` };
}

/**
 * The same rule as an n8n expression, for the credentials' declarative test
 * requests (n8n evaluates those itself): trimmed, trailing slashes dropped. An
 * address parseBaseUrl refuses fails there as an unreachable URL.
 */
export const BASE_URL_EXPRESSION = '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}';

/** Joins encoded segments: "a/b", "..", "?" or "#" inside an id stay inside that one segment. */
export function buildPath(prefix: string, segments: Array<string | number>): string {
	return `${prefix}/${segments.map((s) => encodeSegment(String(s))).join('/')}`;
}

function encodeSegment(segment: string): string {
	// WHATWG URLs treat ".", ".." and their percent-encoded forms (%2E, %2e%2E, ...) as path
	// steps, so no encoding keeps them in place; operations reject them, and this is the backstop.
	if (segment === '.' || segment === '..' || segment === '') {
		throw new Error(`A path segment cannot be "${segment}": it would change the request path`);
	}
	return encodeURIComponent(segment);
}
