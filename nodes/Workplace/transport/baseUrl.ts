/**
 * The one Base URL rule and the one way a request path is built. The transport,
 * the credential tests and the credentials' own requests all use it, so they
 * accept exactly the same addresses.
 */
import { pathSafeIdProblem } from '../shared/pathSafeId';

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

/**
 * Joins percent-encoded segments. Text segments follow the path-safe id rule
 * (operations check ids with it first, naming the field; this is the backstop),
 * so nothing a service or proxy might decode back into path syntax is ever sent.
 */
export function buildPath(prefix: string, segments: Array<string | number>): string {
	return `${prefix}/${segments.map(encodeSegment).join('/')}`;
}

function encodeSegment(segment: string | number): string {
	const problem = typeof segment === 'number' ? undefined : pathSafeIdProblem(segment);
	if (problem) throw new Error(`A path segment ${problem}; nothing was sent`);
	return encodeURIComponent(String(segment));
}
