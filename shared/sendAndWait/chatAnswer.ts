/**
 * Answers given in the chat (Send and Wait with Answer in Chat): the contract
 * between the waiting Workplace node, which sends postback buttons, and the
 * Workplace Trigger, which receives the taps and relays them to the waiting
 * execution. Pure: the nodes read parameters and send requests, this shapes
 * and checks.
 *
 * A button's postback data is `n8n-answer|<choice>|<path>`: the choice
 * (`approve` or `decline`) and the path and query of the waiting node's resume
 * URL on the n8n instance that sent the question (`/webhook-waiting/<execution>/<node>?…`,
 * signed by n8n where n8n signs it). The trigger POSTs the answer to that path
 * on its own instance, as JSON `{ answer, signature }`, `signature` being the
 * hex HMAC-SHA256 of `JSON.stringify(answer)` with the bot credential's signing
 * secret; the waiting node accepts nothing else as an answer from the chat.
 */
import { createHmac, timingSafeEqual } from 'crypto';

export const ANSWER_PREFIX = 'n8n-answer';
export const CHOICES = ['approve', 'decline'] as const;
export type Choice = (typeof CHOICES)[number];

/** A relayed answer older than this is refused (a copy sent again later answers nothing). */
export const RELAY_MAX_AGE_MS = 10 * 60 * 1000;

/** The postback data of an answer button. */
export function answerPostbackData(choice: Choice, resumeUrl: string): string {
	const url = new URL(resumeUrl);
	return `${ANSWER_PREFIX}|${choice}|${url.pathname}${url.search}`;
}

/** An answer button's data read back; undefined for any other postback. */
export function parseAnswerPostback(data: unknown): { choice: Choice; path: string } | undefined {
	if (typeof data !== 'string') return undefined;
	const [prefix, choice, ...rest] = data.split('|');
	const path = rest.join('|');
	if (prefix !== ANSWER_PREFIX || !(CHOICES as readonly string[]).includes(choice) || path === '') return undefined;
	return { choice: choice as Choice, path };
}

/**
 * Where the trigger relays an answer: the path on the trigger's own instance
 * (the origin of its own webhook URL), or undefined when the path could reach
 * anything else (another host, a scheme, a protocol-relative or backslashed
 * path), does not end in `<execution>/<node>` or lacks the `answer=chat` the
 * waiting node puts in it.
 */
export function relayTarget(path: string, ownWebhookUrl: string): URL | undefined {
	if (!path.startsWith('/') || path.startsWith('//') || /[\\\s]/.test(path)) return undefined;
	let own: URL;
	let target: URL;
	try {
		own = new URL(ownWebhookUrl);
		target = new URL(path, own.origin);
	} catch {
		return undefined;
	}
	if (own.protocol !== 'http:' && own.protocol !== 'https:') return undefined;
	if (target.origin !== own.origin || target.username !== '' || target.password !== '') return undefined;
	if (!/\/[^/]+\/[^/]+$/.test(target.pathname) || target.pathname.includes('/../')) return undefined;
	// Only the address the waiting node made for chat answers (its resume URL with answer=chat).
	if (target.searchParams.get('answer') !== 'chat') return undefined;
	return target;
}

/** What the trigger relays: who tapped what, when, for which waiting node (the resume path). */
export interface RelayedAnswer {
	choice: Choice;
	/** The resume path the button carried: binds the answer to one execution and node. */
	path: string;
	userId: string | number | null;
	username: string | null;
	/** The event's own time (ISO), when it had a readable one. */
	eventTime: string | null;
	/** When the trigger relayed it (epoch milliseconds). */
	relayedAt: number;
}

export function signAnswer(answer: RelayedAnswer, secret: string): string {
	return createHmac('sha256', secret).update(JSON.stringify(answer)).digest('hex');
}

/** The relay's body: the answer and its signature. */
export function relayBody(answer: RelayedAnswer, secret: string): { answer: RelayedAnswer; signature: string } {
	return { answer, signature: signAnswer(answer, secret) };
}

/** The last two segments of a path (`<execution>/<node>`), decoded. */
function waitingTarget(pathname: string): string | undefined {
	const parts = pathname.split('/').filter((p) => p !== '');
	if (parts.length < 2) return undefined;
	try {
		return parts.slice(-2).map(decodeURIComponent).join('/');
	} catch {
		return undefined;
	}
}

/**
 * The relayed answer in a request body, when it is vouched for with `secret`,
 * fresh, and addressed to the path it was sent to (`requestPath`, the waiting
 * node's own execution and node); else why not.
 */
export function verifyRelayedAnswer(
	body: unknown,
	secret: string,
	requestPath: string,
	now: number,
): { answer: RelayedAnswer } | { problem: string } {
	if (!body || typeof body !== 'object') return { problem: 'no answer in the body' };
	const { answer, signature } = body as { answer?: unknown; signature?: unknown };
	if (!answer || typeof answer !== 'object' || typeof signature !== 'string') return { problem: 'no answer in the body' };
	const a = answer as Record<string, unknown>;
	if (!(CHOICES as readonly string[]).includes(a.choice as string) || typeof a.path !== 'string' || typeof a.relayedAt !== 'number') {
		return { problem: 'the answer is incomplete' };
	}
	if (secret === '') return { problem: 'no secret to check the answer with' };
	const expected = Buffer.from(createHmac('sha256', secret).update(JSON.stringify(answer)).digest('hex'));
	const given = Buffer.from(signature.toLowerCase());
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { problem: 'the answer\'s signature does not match' };
	if (Math.abs(now - a.relayedAt) > RELAY_MAX_AGE_MS) return { problem: 'the answer is too old' };
	let answerPath: string;
	try {
		answerPath = new URL(a.path, 'http://localhost').pathname;
	} catch {
		return { problem: 'the answer is for another question' };
	}
	const own = waitingTarget(requestPath);
	if (own === undefined || waitingTarget(answerPath) !== own) return { problem: 'the answer is for another question' };
	return { answer: answer as unknown as RelayedAnswer };
}

/**
 * The bot credential's signing secret: its webhook secret when set, else its
 * client secret, as for the service's own `X-Eko-Signature`; '' when neither.
 */
export function botSigningSecret(credentials: Record<string, unknown>): string {
	for (const value of [credentials.webhookSecret, credentials.clientSecret]) {
		if (typeof value === 'string' && value.trim() !== '') return value;
	}
	return '';
}

/** Whether a user may answer: anyone when no approvers are named. */
export function mayAnswer(approvers: string[], userId: string | number | null): boolean {
	if (approvers.length === 0) return true;
	return userId !== null && approvers.includes(String(userId));
}

/** A comma- or space-separated list of user ids, blanks dropped. */
export function parseApprovers(value: unknown): string[] {
	if (Array.isArray(value)) return value.flatMap(parseApprovers);
	if (typeof value === 'number') return [String(value)];
	if (typeof value !== 'string') return [];
	return value
		.split(/[\s,]+/)
		.map((s) => s.trim())
		.filter((s) => s !== '');
}
