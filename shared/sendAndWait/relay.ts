/**
 * Answers given in the chat, at the Workplace Trigger: a postback whose data
 * is an answer button's (chatAnswer.ts) is not an event for the trigger's
 * workflow. The trigger checks that a Workplace node with the same bot
 * credential made the button, relays the answer to the waiting execution the
 * button names, on its own n8n instance only (the origin of its own webhook
 * URL; any other address is refused), signed for the relay, and tells the
 * person in the chat what became of the tap. Runs after the trigger's
 * signature check, on verified events only.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { apiRequest, boundedRequest, DEFAULT_RETRY_POLICY, multipartBody, viaHttpRequest } from '../transport';
import { keyedTable, ownEntry } from '../ownEntry';
import { parseAnswerPostback, postbackSigned, relayBody, relayTarget, type Choice, type RelayedAnswer } from './chatAnswer';
import { botSigningSecret } from './keys';

/**
 * How long the relay and the reply may take. n8n answers the relay once it has
 * resumed the execution (2.x; 1.x before), so this is seconds of slack for a
 * busy n8n, while the service waits for the trigger's own answer meanwhile.
 */
const RELAY_TIMEOUT_MS = 15_000;

/** What the person reads in the chat after a tap, by what the waiting node answered. */
export const CHAT_REPLIES = {
	answered: (choice: Choice) => `Answer recorded: ${choice === 'approve' ? 'approved' : 'declined'}`,
	notAllowed: 'You are not one of the people who may answer this question.',
	alreadyAnswered: 'This question was answered already: another answer came first and counts.',
	expired: 'This question is no longer open: its time to answer ran out.',
	closed: 'This question is no longer open: it was answered already or its time ran out.',
	failed: 'Your answer could not be recorded. Please try again later.',
	// The answer went out but no reply came in time: it may well have counted. A tap again is
	// harmless: after a recorded answer it is told the question is no longer open.
	uncertain: 'Your answer may not have been recorded. Tap again if the question is still open.',
	// The button's data was not made by a Workplace node with this trigger's bot credential.
	notOurs: 'This button cannot be answered here: it was not sent by a Workplace node with this bot.',
} as const;

export type RelayOutcome = Exclude<keyof typeof CHAT_REPLIES, 'notOurs'>;

/**
 * What the waiting node answers, by the JSON `outcome` and status it sends.
 * Keyed by text from an answer, so it has no prototype (looked up with ownEntry too).
 */
export const NODE_OUTCOMES: Readonly<Record<string, { status: number; outcome: RelayOutcome }>> = keyedTable([
	['answered', { status: 200, outcome: 'answered' }],
	['notAllowed', { status: 403, outcome: 'notAllowed' }],
	['alreadyAnswered', { status: 409, outcome: 'alreadyAnswered' }],
	['expired', { status: 410, outcome: 'expired' }],
	['closed', { status: 410, outcome: 'closed' }],
]);

/**
 * How the waiting node's answer reads: its JSON `outcome` with the status it
 * goes with; n8n's own "no action required" page, a 404 or 409 when the
 * execution no longer waits there; anything else is a failure.
 */
export function relayOutcome(status: number, body: unknown): RelayOutcome {
	const said = body && typeof body === 'object' && !Array.isArray(body) ? (body as IDataObject).outcome : undefined;
	const known = typeof said === 'string' ? ownEntry(NODE_OUTCOMES, said) : undefined;
	if (known && known.status === status) return known.outcome;
	if (status === 403) return 'failed';
	if ((status >= 200 && status < 300) || status === 404 || status === 409) return 'closed';
	return 'failed';
}

/** Error codes meaning the relay never reached n8n, so the answer certainly did not count. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/**
 * A relay that threw: failed when it never reached n8n; else (timed out,
 * connection dropped) uncertain, since the waiting node may have taken the
 * answer before its reply was lost.
 */
export function relayErrorOutcome(error: unknown): RelayOutcome {
	const codes = [error, (error as { cause?: unknown } | undefined)?.cause].map((e) => (e && typeof e === 'object' ? (e as { code?: unknown }).code : undefined));
	return codes.some((code) => typeof code === 'string' && NOT_SENT_CODES.has(code)) ? 'failed' : 'uncertain';
}

/**
 * The reply in the chat, to the service's bot API on the request path every
 * request to the service takes (its deadline, size cap, retry decision: a POST
 * is sent again only when it cannot have reached the service).
 */
async function replyInChat(ctx: IWebhookFunctions, replyToken: unknown, text: string): Promise<void> {
	if (typeof replyToken !== 'string' || replyToken === '') return;
	await apiRequest(
		ctx,
		{
			api: 'bot',
			method: 'POST',
			path: ['bot', 'v1', 'message', 'text'],
			body: async () => multipartBody([['message', text], ['replyToken', replyToken]]),
			operation: 'Reply in the chat',
			subject: 'reply',
			effect: 'delivered',
		},
		{ settings: { policy: DEFAULT_RETRY_POLICY, timeoutMs: RELAY_TIMEOUT_MS } },
	);
}

/**
 * The relay to n8n's own waiting webhook, outside the service's APIs, on the
 * one request path: the whole answer, headers and body, within
 * RELAY_TIMEOUT_MS (a waiting webhook that trickles its answer or never ends
 * it is let go of then), a JSON answer of bounded size, no redirect followed.
 */
async function relay(ctx: IWebhookFunctions, target: URL, answer: RelayedAnswer, secret: string): Promise<RelayOutcome> {
	try {
		const response = await boundedRequest(
			viaHttpRequest(async (options) => await ctx.helpers.httpRequest(options)),
			{ method: 'POST', url: target.toString(), body: relayBody(answer, secret) },
			{ timeoutMs: RELAY_TIMEOUT_MS },
		);
		return relayOutcome(response.statusCode, response.body);
	} catch (error) {
		ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" could not pass an answer on: ${(error as Error).message}`);
		return relayErrorOutcome(error);
	}
}

/**
 * This instance's addresses: the trigger's own webhook URL (its origin), and
 * the base of its waiting webhooks, read from its resume URL (whatever
 * execution id n8n puts there, the base is the same).
 */
function ownAddresses(ctx: IWebhookFunctions): { webhookUrl: string; waitingBaseUrl: string } {
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}') ?? '');
	let waitingBaseUrl = '';
	try {
		const url = new URL(resumeUrl);
		waitingBaseUrl = `${url.origin}${url.pathname.replace(/\/[^/]*\/?$/, '')}`;
	} catch {
		// No resume URL: nothing is relayed.
	}
	return { webhookUrl: ctx.getNodeWebhookUrl('default') ?? '', waitingBaseUrl };
}

/** What the trigger reads of an event to relay it (its own reading of the service's event shapes). */
export interface Tap {
	type?: unknown;
	data?: unknown;
	userId?: unknown;
	username?: unknown;
	/** The event's time, ISO, when readable. */
	timestamp?: unknown;
	replyToken?: unknown;
}

const idText = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null);
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * Relays the answers among `events` (verified ones: the trigger checked their
 * signature) and returns the others, the events that start the workflow.
 */
export async function relayAnswers(ctx: IWebhookFunctions, events: IDataObject[], tapOf: (event: IDataObject) => Tap): Promise<IDataObject[]> {
	const others: IDataObject[] = [];
	let secret: string | undefined;
	for (const event of events) {
		const tap = tapOf(event);
		const tapped = tap.type === 'postback' ? parseAnswerPostback(tap.data) : undefined;
		if (!tapped) {
			others.push(event);
			continue;
		}
		secret ??= botSigningSecret(await ctx.getCredentials('workplaceBotApi'));
		let reply: string;
		if (!postbackSigned(tapped, secret)) {
			ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" refused to pass on an answer whose button no Workplace node with this bot credential made`);
			reply = CHAT_REPLIES.notOurs;
		} else {
			const target = relayTarget(tapped.path, ownAddresses(ctx));
			let outcome: RelayOutcome = 'failed';
			if (target) {
				const answer: RelayedAnswer = {
					choice: tapped.choice,
					path: tapped.path,
					userId: idText(tap.userId),
					username: textOrNull(tap.username),
					eventTime: textOrNull(tap.timestamp),
					relayedAt: Date.now(),
				};
				outcome = await relay(ctx, target, answer, secret);
			} else {
				ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" refused to pass on an answer addressed outside this n8n instance`);
			}
			reply = outcome === 'answered' ? CHAT_REPLIES.answered(tapped.choice) : CHAT_REPLIES[outcome];
		}
		try {
			await replyInChat(ctx, tap.replyToken, reply);
		} catch (error) {
			ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" could not reply in the chat: ${(error as Error).message}`);
		}
	}
	return others;
}
