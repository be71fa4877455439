/**
 * The waiting node's webhook: where an answer to Send and Wait arrives. n8n
 * routes `<waiting base>/<execution>/<node id>` here while the execution waits
 * (and, where it signs resume URLs, only with a valid signature).
 *
 * A link never answers on a GET: it shows a page (confirmation or form) whose
 * POST answers, so a link preview or a mail scanner decides nothing. With
 * Answer in Chat, only a POST relayed by a Workplace Trigger and vouched for
 * with the bot credential's secret answers (shared/chatAnswer.ts); a link
 * shows a page asking to answer in the chat. Whatever goes wrong is answered
 * here and never thrown: n8n would resume the execution with an empty item.
 *
 * Only the first answer this process takes for an execution's node resumes it
 * (answered.ts); a later one is told the question was answered already. A
 * relayed answer is answered in JSON, `outcome` being answered, alreadyAnswered
 * (409), notAllowed (403), expired (410) or refused (403), so the trigger tells
 * the person in the chat what became of their tap.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { botSigningSecret, mayAnswer, parseApprovers, verifyRelayedAnswer } from '../../../../../shared/sendAndWait/chatAnswer';
import { answeredWaits, QUESTION_PARAMETER, waitKey } from './answered';
import { FREE_TEXT_FIELD, readFormFields, readSubmission, type FormField } from './form';
import { alreadyAnsweredPage, answeredPage, answerInChatPage, confirmPage, expiredPage, formPage, page } from './pages';
import { timeRanOut, type LimitWaitTime } from './waitTill';

type ServerResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

const PAGE_HEADERS = {
	'content-type': 'text/html; charset=utf-8',
	// The page's address carries the answer's signature: never passed on, cached or framed.
	'referrer-policy': 'no-referrer',
	'cache-control': 'no-store',
	'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	'x-robots-tag': 'noindex',
};

function sendPage(res: ServerResponse, status: number, html: string): void {
	res.writeHead(status, PAGE_HEADERS);
	res.end(html);
}

function sendJson(res: ServerResponse, status: number, body: IDataObject): void {
	res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
	res.end(JSON.stringify(body));
}

const respondedAt = () => new Date().toISOString();

/** This wait's key in answeredWaits (n8n runs the waiting webhook with the waiting execution's id). */
function keyOf(ctx: IWebhookFunctions): string | undefined {
	const executionId = ctx.getExecutionId();
	const query = ctx.getRequestObject().query as IDataObject;
	return executionId ? waitKey(executionId, ctx.getNode().id, query[QUESTION_PARAMETER]) : undefined;
}

/** Takes this answer as the one that resumes the execution; false when another came first. */
function claimAnswer(ctx: IWebhookFunctions): boolean {
	const key = keyOf(ctx);
	return key === undefined || answeredWaits.claim(key, Date.now());
}

function answeredAlready(ctx: IWebhookFunctions): boolean {
	const key = keyOf(ctx);
	return key !== undefined && answeredWaits.has(key, Date.now());
}

/** A limit set as a date has passed, before n8n ended the wait. */
function expired(ctx: IWebhookFunctions): boolean {
	return timeRanOut(ctx.getNodeParameter('options.limitWaitTime.values', {}) as LimitWaitTime, Date.now());
}

/**
 * The page for a link's answer (a POST) that cannot count: answered already,
 * or time ran out; undefined when it may. Opening a page (a GET) is not an
 * answer: a page opened before another answer came still shows its form.
 */
function closedPage(ctx: IWebhookFunctions, res: ServerResponse): IWebhookResponseData | undefined {
	if (ctx.getRequestObject().method !== 'POST') return undefined;
	if (answeredAlready(ctx)) sendPage(res, 409, alreadyAnsweredPage());
	else if (expired(ctx)) sendPage(res, 410, expiredPage());
	else return undefined;
	return { noWebhookResponse: true };
}

/** A relayed chat answer: accepted only when vouched for, from an approver. */
async function chatAnswer(ctx: IWebhookFunctions, res: ServerResponse): Promise<IWebhookResponseData> {
	const req = ctx.getRequestObject();
	const credentials = await ctx.getCredentials('workplaceBotApi');
	const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
	const check = verifyRelayedAnswer(ctx.getBodyData(), botSigningSecret(credentials), path, Date.now());
	if ('problem' in check) {
		ctx.logger.warn(`Workplace "${ctx.getNode().name}" refused an answer relayed from the chat: ${check.problem}`);
		sendJson(res, 403, { outcome: 'refused', reason: check.problem });
		return { noWebhookResponse: true };
	}
	const { answer } = check;
	const approvers = parseApprovers(ctx.getNodeParameter('options.approvers', ''));
	if (!mayAnswer(approvers, answer.userId)) {
		sendJson(res, 403, { outcome: 'notAllowed' });
		return { noWebhookResponse: true };
	}
	if (expired(ctx)) {
		sendJson(res, 410, { outcome: 'expired' });
		return { noWebhookResponse: true };
	}
	if (!claimAnswer(ctx)) {
		sendJson(res, 409, { outcome: 'alreadyAnswered' });
		return { noWebhookResponse: true };
	}
	sendJson(res, 200, { outcome: 'answered' });
	const data: IDataObject = {
		approved: answer.choice === 'approve',
		respondedAt: respondedAt(),
		answeredIn: 'chat',
		answeredBy: { userId: answer.userId, username: answer.username },
		answeredAt: answer.eventTime,
	};
	return { noWebhookResponse: true, workflowData: [[{ json: { data } }]] };
}

function formOptions(ctx: IWebhookFunctions) {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const text = (value: unknown) => (typeof value === 'string' ? value : '');
	return {
		title: text(options.responseFormTitle),
		description: text(options.responseFormDescription) || text(ctx.getNodeParameter('message', '')),
		buttonLabel: text(options.responseFormButtonLabel) || 'Submit',
	};
}

/** What the form's fields were given (to refill it after a refused submission). */
function givenValues(body: IDataObject): Record<string, string[]> {
	const given: Record<string, string[]> = {};
	for (const [name, value] of Object.entries(body)) given[name] = (Array.isArray(value) ? value : [value]).map(String);
	return given;
}

async function formAnswer(ctx: IWebhookFunctions, res: ServerResponse, responseType: string): Promise<IWebhookResponseData> {
	let fields: FormField[] = [FREE_TEXT_FIELD];
	if (responseType === 'customForm') {
		const read = readFormFields(ctx.getNodeParameter('formFields.values', []));
		if ('problem' in read) {
			sendPage(res, 500, page('Form not available', `<h1>This form cannot be shown</h1><p class="message">Its fields are not set up correctly. Please tell the person who sent it.</p>`));
			return { noWebhookResponse: true };
		}
		fields = read.fields;
	}
	const options = formOptions(ctx);
	const closed = closedPage(ctx, res);
	if (closed) return closed;
	if (ctx.getRequestObject().method !== 'POST') {
		sendPage(res, 200, formPage(options, fields));
		return { noWebhookResponse: true };
	}
	// n8n puts a multipart form's fields under `data`; a url-encoded form's are the body itself.
	const parsed = (ctx.getBodyData() ?? {}) as IDataObject;
	const body = parsed.data && typeof parsed.data === 'object' && !Array.isArray(parsed.data) ? (parsed.data as IDataObject) : parsed;
	const submission = readSubmission(fields, body);
	if ('problems' in submission) {
		sendPage(res, 400, formPage(options, fields, givenValues(body), submission.problems));
		return { noWebhookResponse: true };
	}
	if (!claimAnswer(ctx)) {
		sendPage(res, 409, alreadyAnsweredPage());
		return { noWebhookResponse: true };
	}
	sendPage(res, 200, answeredPage());
	const data = responseType === 'freeText' ? { text: submission.data[FREE_TEXT_FIELD.label] } : submission.data;
	return { noWebhookResponse: true, workflowData: [[{ json: { data: { ...data, respondedAt: respondedAt() } } }]] };
}

function approvalAnswer(ctx: IWebhookFunctions, res: ServerResponse): IWebhookResponseData {
	const req = ctx.getRequestObject();
	const approved = (req.query as IDataObject).approved === 'true';
	const closed = closedPage(ctx, res);
	if (closed) return closed;
	if (req.method !== 'POST') {
		const values = ctx.getNodeParameter('approvalOptions.values', {}) as IDataObject;
		const labelOf = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);
		const label = approved ? labelOf(values.approveLabel, 'Approve') : labelOf(values.disapproveLabel, 'Decline');
		sendPage(res, 200, confirmPage(String(ctx.getNodeParameter('message', '')), label, approved));
		return { noWebhookResponse: true };
	}
	if (!claimAnswer(ctx)) {
		sendPage(res, 409, alreadyAnsweredPage());
		return { noWebhookResponse: true };
	}
	sendPage(res, 200, answeredPage());
	return { noWebhookResponse: true, workflowData: [[{ json: { data: { approved, respondedAt: respondedAt() } } }]] };
}

async function answer(ctx: IWebhookFunctions, res: ServerResponse): Promise<IWebhookResponseData> {
	const responseType = ctx.getNodeParameter('responseType', 'approval') as string;
	const inChat = responseType === 'approval' && (ctx.getNodeParameter('options.answerInChat', false) as boolean);
	if (inChat) {
		if (ctx.getRequestObject().method === 'POST' && (ctx.getRequestObject().query as IDataObject).answer === 'chat') {
			return await chatAnswer(ctx, res);
		}
		sendPage(res, 403, answerInChatPage());
		return { noWebhookResponse: true };
	}
	if (responseType === 'freeText' || responseType === 'customForm') return await formAnswer(ctx, res, responseType);
	return approvalAnswer(ctx, res);
}

export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	try {
		return await answer(this, res);
	} catch (error) {
		this.logger.error(`Workplace "${this.getNode().name}" could not take an answer: ${(error as Error).message}`);
		if (!res.headersSent) sendPage(res, 500, page('Not recorded', '<h1>Your answer could not be recorded</h1><p class="message">Please try again later.</p>'));
		return { noWebhookResponse: true };
	}
}
