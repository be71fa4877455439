/**
 * The one Base URL rule and the one way a request path is built. The transport,
 * the credential tests and the credentials' own requests all use it, so they
 * accept exactly the same addresses.
 */
import { pathSafeIdProblem } from '../pathSafeId';

/** What parseBaseUrl makes of a credential's Base URL. */
export type BaseUrl =
	| {
			/** Scheme, host and port only: the address every request path is appended to. */
			url: string;
			/** Plain http:// to a host other than this machine: secrets travel unencrypted (the credential tests say so). */
			plainHttp: boolean;
	  }
	| { problem: string };

/**
 * Suffixes people paste from the service's documents ("…/api/v1"): the node adds
 * them itself, so a Base URL ending in one is taken without it.
 */
const INTERFACE_SUFFIXES = ['/api/v1/task-projects', '/api/v1', '/bot/v1'];

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const EXAMPLE = 'e.g. "https://workplace.example.com"';

/**
 * The one Base URL rule, for the node's requests and every credential test:
 * the service's address (scheme, host, optional port) and nothing else. It is
 * trimmed; trailing slashes and a trailing interface suffix (/api/v1, …) are
 * dropped; any other path, a query or a fragment is refused, as is an address
 * without http:// or https://. Refusals never quote the value (it may hold user
 * info), only what to change.
 */
export function parseBaseUrl(value: unknown): BaseUrl {
	const raw = typeof value === 'string' ? value.trim() : '';
	if (raw === '') return { problem: `The credential's Base URL is empty (expected the service's address, ${EXAMPLE})` };
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
		return { problem: `The credential's Base URL has no scheme: start it with https:// (${EXAMPLE})` };
	}
	let parsed: URL;
	try {
		parsed = new URL(raw);
	} catch {
		return { problem: `The credential's Base URL is not a valid address (expected ${EXAMPLE})` };
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
		return { problem: "The credential's Base URL must start with http:// or https://" };
	}
	if (parsed.search || parsed.hash) return { problem: 'The credential\'s Base URL must not contain "?" or "#"' };
	let path = parsed.pathname.replace(/\/+$/, '');
	const suffix = INTERFACE_SUFFIXES.find((s) => path.toLowerCase() === s);
	if (suffix) path = '';
	if (path !== '') {
		const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
		return {
			problem: `The credential's Base URL must be the service's address without a path: remove "${shown}" (${EXAMPLE})`,
		};
	}
	return { url: parsed.origin, plainHttp: parsed.protocol === 'http:' && !LOOPBACK.has(parsed.hostname) };
}

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
