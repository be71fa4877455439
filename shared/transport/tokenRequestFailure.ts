/**
 * A failed bot token request. The Workplace Bot API credential's
 * preAuthentication throws it (through botToken.ts), n8n wraps it in its own
 * error (as `cause`), and the transport finds it again to decide whether to
 * retry. This module imports only errorCauses.ts, which imports nothing, so
 * the credential and the transport both take the class from here, and
 * `instanceof` holds: n8n loads the credential and the node from the same
 * package folder, so they share this module.
 */
import { inCauses } from './errorCauses';

export class TokenRequestFailure extends Error {
	constructor(
		message: string,
		/** The token endpoint's answer: its status and Retry-After header. */
		readonly answer?: { status: number; retryAfter?: unknown },
		/**
		 * The network failure code when no answer came. Under `code`, where n8n's
		 * credential test looks for it; the status is not under `status`, where
		 * NodeApiError would swap the endpoint's message for its generic one.
		 */
		readonly code?: string,
	) {
		super(message);
		this.name = 'TokenRequestFailure';
	}
}

/** The token failure inside an error n8n threw (the error itself or one of its causes), if that is what it is. */
export function tokenFailureIn(error: unknown): TokenRequestFailure | undefined {
	return inCauses(error, (e) => (e instanceof TokenRequestFailure ? e : undefined));
}
