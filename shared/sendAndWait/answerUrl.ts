/**
 * The address an answer goes to: the waiting node's resume URL with the
 * answer's query, built the way each n8n version the package supports expects.
 *
 * - n8n up to 1.103: `$execution.resumeUrl` is unsigned; the node's waiting
 *   webhook is `<resumeUrl>/<node id>`.
 * - n8n 1.104 on: the context's `getSignedResumeUrl(query)` returns
 *   `<waiting base>/<execution>/<node id>?<query>&signature=<HMAC>`; n8n checks
 *   the signature before the node sees the call.
 * - From n8n 2.14 `$execution.resumeUrl` itself carries `?signature=<token>`
 *   (it is a URL with a query, never a string to append to); n8n reads a
 *   waiting node's path after a slash in that parameter (`signature=<token>/<node id>`).
 *   Used only where `getSignedResumeUrl` is missing.
 */
export interface ResumeSources {
	/** The execute context's getSignedResumeUrl, where n8n has it (1.104 on). */
	signedResumeUrl?: (query: Record<string, string>) => string;
	/** `$execution.resumeUrl` as n8n evaluates it. */
	resumeUrl: string;
	/** The waiting node's id (its webhook path). */
	nodeId: string;
}

export const SIGNATURE_PARAMETER = 'signature';

export function answerUrl(sources: ResumeSources, query: Record<string, string>): string {
	if (sources.signedResumeUrl) return sources.signedResumeUrl(query);
	const url = new URL(sources.resumeUrl);
	const token = url.searchParams.get(SIGNATURE_PARAMETER);
	if (token !== null && token !== '') {
		url.searchParams.set(SIGNATURE_PARAMETER, `${token.split('/')[0]}/${sources.nodeId}`);
	} else {
		url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(sources.nodeId)}`;
	}
	for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
	return url.toString();
}
