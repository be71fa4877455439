/**
 * Answers given in the chat (Send and Wait with Answer in Chat): a postback
 * whose data is an answer (shared/chatAnswer.ts) is not an event for this
 * workflow. The trigger relays it to the waiting execution, on its own n8n
 * instance only (the origin of its own webhook URL; any other address is
 * refused), vouched for with the bot credential's secret, and tells the person
 * in the chat what became of the tap. Runs after the trigger's signature
 * check, on verified events only.
 */
import type { IDataObject, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';

import { botSigningSecret, parseAnswerPostback, relayBody, relayTarget, type Choice, type RelayedAnswer } from '../../shared/sendAndWait/chatAnswer';
import { buildPath, parseBaseUrl } from '../../shared/transport/baseUrl';
import { normaliseEvent } from './events';

/**
 * How long the relay and the reply may take. The waiting node answers at once
 * (before n8n resumes the execution), so this is seconds of slack for a busy
 * n8n, while the service waits for the trigger's own answer meanwhile.
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
	// harmless: after a recorded answer it is told the question was answered already.
	uncertain: 'Your answer may not have been recorded. Tap again if the question is still open.',
} as const;

export type RelayOutcome = 'answered' | 'notAllowed' | 'alreadyAnswered' | 'expired' | 'closed' | 'failed' | 'uncertain';

/**
 * How the waiting node's answer reads: its JSON `outcome` (answered,
 * notAllowed, alreadyAnswered, expired); n8n's own "no action required" page,
 * a 404 or 409 when the execution no longer waits there; anything else is a failure.
 */
export function relayOutcome(status: number, body: unknown): RelayOutcome {
	const outcome = body && typeof body === 'object' ? (body as IDataObject).outcome : undefined;
	if (status === 200 && outcome === 'answered') return 'answered';
	if (status === 403 && outcome === 'notAllowed') return 'notAllowed';
	if (status === 409 && outcome === 'alreadyAnswered') return 'alreadyAnswered';
	if (status === 410 && outcome === 'expired') return 'expired';
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

async function replyInChat(ctx: IWebhookFunctions, replyToken: unknown, text: string): Promise<void> {
	if (typeof replyToken !== 'string' || replyToken === '') return;
	const credentials = await ctx.getCredentials('workplaceBotApi');
	const base = parseBaseUrl(credentials.baseUrl);
	if (!('url' in base)) throw new Error(base.problem);
	const form = new FormData();
	form.append('message', text);
	form.append('replyToken', replyToken);
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: base.url + buildPath('', ['bot', 'v1', 'message', 'text']),
		body: form,
		json: true,
		disableFollowRedirect: true,
		timeout: RELAY_TIMEOUT_MS,
	};
	await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'workplaceBotApi', options);
}

async function relay(ctx: IWebhookFunctions, target: URL, answer: RelayedAnswer, secret: string): Promise<RelayOutcome> {
	try {
		const response = (await ctx.helpers.httpRequest({
			method: 'POST',
			url: target.toString(),
			body: relayBody(answer, secret),
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: RELAY_TIMEOUT_MS,
		})) as { statusCode: number; body: unknown };
		return relayOutcome(response.statusCode, response.body);
	} catch (error) {
		ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" could not pass an answer on: ${(error as Error).message}`);
		return relayErrorOutcome(error);
	}
}

/**
 * Relays the answers among `events` and returns the others (the events that
 * start the workflow). `verified`: the events passed the signature check.
 */
export async function relayAnswers(ctx: IWebhookFunctions, events: IDataObject[], verified: boolean): Promise<IDataObject[]> {
	if (!verified) return events;
	const others: IDataObject[] = [];
	let secret: string | undefined;
	for (const event of events) {
		const item = normaliseEvent(event, true);
		const tapped = item.type === 'postback' ? parseAnswerPostback(item.data) : undefined;
		if (!tapped) {
			others.push(event);
			continue;
		}
		secret ??= botSigningSecret(await ctx.getCredentials('workplaceBotApi'));
		const target = relayTarget(tapped.path, ctx.getNodeWebhookUrl('default') ?? '');
		let outcome: RelayOutcome = 'failed';
		if (target) {
			const answer: RelayedAnswer = {
				choice: tapped.choice,
				path: tapped.path,
				userId: (item.userId as string | number | null) ?? null,
				username: (item.username as string | null) ?? null,
				eventTime: (item.timestamp as string | null) ?? null,
				relayedAt: Date.now(),
			};
			outcome = await relay(ctx, target, answer, secret);
		} else {
			ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" refused to pass on an answer addressed outside this n8n instance`);
		}
		const text = outcome === 'answered' ? CHAT_REPLIES.answered(tapped.choice) : CHAT_REPLIES[outcome];
		try {
			await replyInChat(ctx, item.replyToken, text);
		} catch (error) {
			ctx.logger.warn(`Workplace Trigger "${ctx.getNode().name}" could not reply in the chat: ${(error as Error).message}`);
		}
	}
	return others;
}
