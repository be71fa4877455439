/**
 * Answers given in the chat (Answer in Chat): the contract between the waiting
 * Workplace node, which sends postback buttons, and the Workplace Trigger, which
 * receives the taps and passes them on to the waiting execution. Pure.
 *
 * A button's postback data is `n8n-answer|<choice>|<path>|<signature>`: the
 * choice (`approve` or `decline`), the path and query of the waiting node's
 * resume URL for chat answers (`/webhook-waiting/<execution>/<node>?answer=chat&question=…`,
 * signed by n8n where n8n signs it), and the node's signature of both (keys.ts,
 * purpose `postback`): the trigger passes on only what a Workplace node with the
 * same bot credential made, and only to its own n8n instance. It POSTs
 * `{ answer, signature }`, `signature` being the relay signature (purpose
 * `relay`) of `JSON.stringify(answer)`; the waiting node takes nothing else as
 * an answer from the chat, and checks every field's type once the signature holds.
 */
import { sign, signedBy } from './keys';

export const ANSWER_PREFIX = 'n8n-answer';
export const CHOICES = ['approve', 'decline'] as const;
export type Choice = (typeof CHOICES)[number];
const isChoice = (value: unknown): value is Choice => value === 'approve' || value === 'decline';

/** A relayed answer older than this is refused (a copy sent again later answers nothing). */
export const RELAY_MAX_AGE_MS = 10 * 60 * 1000;
/** The postback signature's length in bytes: 128 bits keeps the data short. */
const POSTBACK_SIGNATURE_BYTES = 16;
/** Longest text a relayed answer's fields may hold (a path, a user id, a name). */
const FIELD_MAX = 2048;

/** The postback data of an answer button: the choice and the resume path, signed. */
export function answerPostbackData(choice: Choice, resumeUrl: string, secret: string): string {
	const url = new URL(resumeUrl);
	const path = `${url.pathname}${url.search}`;
	return `${ANSWER_PREFIX}|${choice}|${path}|${sign(secret, 'postback', `${choice}|${path}`, POSTBACK_SIGNATURE_BYTES)}`;
}

/** An answer button's data read back (not yet checked); undefined for any other postback. */
export function parseAnswerPostback(data: unknown): { choice: Choice; path: string; signature: string } | undefined {
	if (typeof data !== 'string' || data.length > FIELD_MAX) return undefined;
	const parts = data.split('|');
	if (parts[0] !== ANSWER_PREFIX || parts.length < 3 || !isChoice(parts[1])) return undefined;
	const signature = parts.length > 3 ? parts[parts.length - 1] : '';
	const path = parts.slice(2, parts.length > 3 ? -1 : undefined).join('|');
	return path === '' ? undefined : { choice: parts[1], path, signature };
}

/** Whether a Workplace node with this bot secret made the button. */
export const postbackSigned = (tapped: { choice: Choice; path: string; signature: string }, secret: string): boolean =>
	signedBy(secret, 'postback', `${tapped.choice}|${tapped.path}`, tapped.signature, POSTBACK_SIGNATURE_BYTES);

/**
 * Where the trigger relays an answer: the path on the trigger's own instance
 * (the origin of its own webhook URL), only when it is a waiting node's
 * address there (`<waiting base>/<execution>/<node>`, the base read from the
 * instance's own resume URL) made for chat answers (`answer=chat`); undefined
 * for anything else (another host, a scheme, a protocol-relative or backslashed
 * path, a production webhook, a REST path). So even a button whose signature
 * holds reaches nothing the service could not call on n8n itself.
 */
export function relayTarget(path: string, own: { webhookUrl: string; waitingBaseUrl: string }): URL | undefined {
	if (!path.startsWith('/') || path.startsWith('//') || /[\\\s]/.test(path)) return undefined;
	let origin: URL;
	let base: URL;
	let target: URL;
	try {
		origin = new URL(own.webhookUrl);
		base = new URL(own.waitingBaseUrl);
		target = new URL(path, origin.origin);
	} catch {
		return undefined;
	}
	if (origin.protocol !== 'http:' && origin.protocol !== 'https:') return undefined;
	if (target.origin !== origin.origin || target.username !== '' || target.password !== '') return undefined;
	const basePath = base.pathname.replace(/\/+$/, '');
	const rest = target.pathname.startsWith(`${basePath}/`) ? target.pathname.slice(basePath.length + 1) : undefined;
	if (rest === undefined || !/^[^/]+\/[^/]+$/.test(rest) || rest.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
	// Only the address the waiting node made for chat answers (its resume URL with answer=chat).
	if (target.searchParams.get('answer') !== 'chat') return undefined;
	return target;
}

/** What the trigger relays: who tapped what, when, for which waiting node (the resume path). */
export interface RelayedAnswer {
	choice: Choice;
	/** The resume path the button carried: binds the answer to one execution, node and question. */
	path: string;
	userId: string | null;
	username: string | null;
	/** The event's own time (ISO), when it had a readable one. */
	eventTime: string | null;
	/** When the trigger relayed it (epoch milliseconds). */
	relayedAt: number;
}

export const signAnswer = (answer: RelayedAnswer, secret: string): string => sign(secret, 'relay', JSON.stringify(answer));

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

const textOrNull = (value: unknown): value is string | null => value === null || (typeof value === 'string' && value.length <= FIELD_MAX);

/**
 * The relayed answer in a request body, when it is vouched for with `secret`,
 * fresh, well formed, and addressed to the path it was sent to (`requestPath`,
 * the waiting node's own execution and node); else why not.
 */
export function verifyRelayedAnswer(body: unknown, secret: string, requestPath: string, now: number): { answer: RelayedAnswer } | { problem: string } {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return { problem: 'no answer in the body' };
	const { answer, signature } = body as { answer?: unknown; signature?: unknown };
	if (!answer || typeof answer !== 'object' || Array.isArray(answer) || typeof signature !== 'string') return { problem: 'no answer in the body' };
	if (secret === '') return { problem: 'no secret to check the answer with' };
	if (!signedBy(secret, 'relay', JSON.stringify(answer), signature)) return { problem: 'the answer\'s signature does not match' };
	// Signed, but checked field by field all the same: a key that leaked must not buy a shape the node does not expect.
	const a = answer as Record<string, unknown>;
	const fields = Object.keys(a).sort().join(',');
	if (
		fields !== 'choice,eventTime,path,relayedAt,userId,username' ||
		!isChoice(a.choice) ||
		typeof a.path !== 'string' ||
		a.path.length > FIELD_MAX ||
		typeof a.relayedAt !== 'number' ||
		!textOrNull(a.userId) ||
		!textOrNull(a.username) ||
		!textOrNull(a.eventTime)
	) {
		return { problem: 'the answer is not well formed' };
	}
	if (!(Math.abs(now - a.relayedAt) <= RELAY_MAX_AGE_MS)) return { problem: 'the answer is too old' };
	let answerPath: string;
	try {
		answerPath = new URL(a.path, 'http://localhost').pathname;
	} catch {
		return { problem: 'the answer is for another question' };
	}
	const own = waitingTarget(requestPath);
	if (own === undefined || waitingTarget(answerPath) !== own) return { problem: 'the answer is for another question' };
	return { answer: { choice: a.choice, path: a.path, userId: a.userId as string | null, username: a.username as string | null, eventTime: a.eventTime as string | null, relayedAt: a.relayedAt } };
}

/** The question a relayed answer's path names (its `question=`). */
export function questionOfPath(path: string): string | undefined {
	try {
		return new URL(path, 'http://localhost').searchParams.get('question') ?? undefined;
	} catch {
		return undefined;
	}
}

/** Whether a user may answer: anyone when no approvers are named, else exactly one of theirs (an id, never a list of them). */
export function mayAnswer(approvers: string[], userId: unknown): boolean {
	if (approvers.length === 0) return true;
	const id = typeof userId === 'number' && Number.isFinite(userId) ? String(userId) : userId;
	return typeof id === 'string' && approvers.includes(id);
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
