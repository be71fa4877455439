/**
 * What a bot token request sends, and what it sends next when refused. The
 * service's documents ask for the client ID and secret by HTTP Basic and the
 * scope `bot profile`; its public pages show the scope `bot`, and one
 * integration sends the ID and secret as form fields. So a refusal naming the
 * scope (`invalid_scope`) is asked once more with `bot`, only from the
 * documents' scope (a scope the user typed is theirs), and a 400 or 401 to
 * Basic once more with the form fields: at most three requests, each
 * different, and none sent again as it was.
 */

/** The scope the documents ask for, the credential's default. */
export const DOCUMENTED_SCOPE = 'bot profile';
/** The scope the service's public pages show. */
export const PUBLIC_SCOPE = 'bot';

export interface TokenAttempt {
	/** Where the client ID and secret go: an `Authorization: Basic` header, or the form's `client_id` and `client_secret`. */
	clientAuth: 'basic' | 'form';
	scope: string;
}

/** The credential's scope as sent: spaces collapsed; empty asks for the documents' scope. */
export function firstTokenAttempt(scope: unknown): TokenAttempt {
	const words = String(scope ?? '').trim().split(/\s+/).filter(Boolean);
	return { clientAuth: 'basic', scope: words.length ? words.join(' ') : DOCUMENTED_SCOPE };
}

/** The next request after `attempt` was refused with `status` and the OAuth `error` code of its answer; undefined when none is left to try. */
export function nextTokenAttempt(attempt: TokenAttempt, status: number, error: unknown): TokenAttempt | undefined {
	if (error === 'invalid_scope') return attempt.scope === DOCUMENTED_SCOPE ? { ...attempt, scope: PUBLIC_SCOPE } : undefined;
	if ((status === 400 || status === 401) && attempt.clientAuth === 'basic') return { ...attempt, clientAuth: 'form' };
	return undefined;
}
