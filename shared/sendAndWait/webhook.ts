/**
 * The waiting node's webhook: where an answer to Send and Wait arrives. n8n
 * routes `<waiting base>/<execution>/<node id>` here while the execution waits
 * (and, where it signs resume URLs, only with a valid signature).
 *
 * An answer counts only for the question the execution waits on now, before
 * its end (question.ts). A link never answers on a GET: it shows a page
 * (confirmation or form) whose POST answers with the page's token, from the
 * page's own site (confirmation.ts), so a link preview, a mail scanner or a
 * page of another site decides nothing. With Answer in Chat only a POST
 * relayed by a Workplace Trigger and signed for the relay answers
 * (chatAnswer.ts); a link shows a page asking to answer in the chat. Whatever
 * goes wrong is answered here and never thrown: n8n would resume the execution
 * with an empty item.
 *
 * An answer that counts is handed to n8n with the page (or, for a relay, the
 * JSON `outcome: answered`) as its response. n8n 2.x sends that response only
 * once it has resumed the execution, after its own check, in the database,
 * that the execution still waits: a person reads "recorded" only when their
 * answer resumed it. (n8n 1.x sends it first.) Refusals are answered here:
 * relayed answers in JSON, `outcome` being notAllowed (403), closed or
 * expired (410), alreadyAnswered (409) or refused (403), so the trigger tells
 * the person in the chat what became of their tap.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { keyedTable } from '../ownEntry';
import { mayAnswer, parseApprovers, questionOfPath, verifyRelayedAnswer } from './chatAnswer';
import { confirmationToken, crossSite, ownOrigins, tokenMatches, TOKEN_FIELD, type Bound } from './confirmation';
import { fieldName, FREE_TEXT_FIELD, readFormFields, readSubmission, submitted, TEXTAREA_MAX, type FormField } from './form';
import { botSigningSecret } from './keys';
import {
	alreadyAnsweredPage,
	answeredPage,
	answerInChatPage,
	closedPage,
	confirmPage,
	expiredPage,
	formPage,
	formUnavailablePage,
	notConfirmedPage,
	notRecordedPage,
} from './pages';
import { answerFits, openQuestion, QUESTION_PARAMETER, type Question } from './question';
import { takenNow } from './takenNow';

type ServerResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

const PAGE_HEADERS = {
	'content-type': 'text/html; charset=utf-8',
	// The page's address carries the answer's signature: passed on to no other site, never cached or framed.
	// (With no referrer at all, a browser would send its own form's POST with Origin: null.)
	'referrer-policy': 'same-origin',
	'cache-control': 'no-store',
	'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	'x-robots-tag': 'noindex',
};
const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };
const NO_RESPONSE: IWebhookResponseData = { noWebhookResponse: true };

/** n8n's waiting webhooks allow every origin's scripts to read their answers; no page here is for them. */
function forThisSiteOnly(res: ServerResponse): void {
	res.removeHeader('access-control-allow-origin');
	res.removeHeader('access-control-allow-credentials');
}

function writePage(res: ServerResponse, status: number, html: string): IWebhookResponseData {
	forThisSiteOnly(res);
	res.writeHead(status, PAGE_HEADERS);
	res.end(html);
	return NO_RESPONSE;
}

function writeJson(res: ServerResponse, status: number, body: IDataObject): IWebhookResponseData {
	forThisSiteOnly(res);
	res.writeHead(status, JSON_HEADERS);
	res.end(JSON.stringify(body));
	return NO_RESPONSE;
}

/** An answer that counts: n8n resumes the execution with `data`, and then sends `response`. */
function resumeWith(res: ServerResponse, response: string | IDataObject, data: IDataObject): IWebhookResponseData {
	forThisSiteOnly(res);
	for (const [name, value] of Object.entries(typeof response === 'string' ? PAGE_HEADERS : JSON_HEADERS)) res.setHeader(name, value);
	return { webhookResponse: response, workflowData: [[{ json: { data: { ...data, respondedAt: new Date().toISOString() } } }]] };
}

/** One call to the waiting node: the request, and the question the execution waits on. */
interface Call {
	ctx: IWebhookFunctions;
	res: ServerResponse;
	query: IDataObject;
	post: boolean;
	/** Open and not past its end (checked before a Call is made). */
	question: Question;
}

async function signingSecret(ctx: IWebhookFunctions): Promise<string> {
	const secret = botSigningSecret(await ctx.getCredentials('workplaceBotApi'));
	if (secret === '') throw new Error('the Workplace Bot API credential has no client secret to sign with');
	return secret;
}

const bound = (call: Call, answer: Bound['answer']): Bound => ({
	executionId: call.ctx.getExecutionId(),
	nodeId: call.ctx.getNode().id,
	questionId: call.question.id,
	answer,
});

/** Takes this answer as the one that resumes the execution, in this process; false when another came first. */
const take = (call: Call) => takenNow.take(`${call.ctx.getExecutionId()}/${call.ctx.getNode().id}/${call.question.id}`, Date.now());

function approvalAnswer(call: Call, secret: string, body: IDataObject): IWebhookResponseData {
	const { ctx, res } = call;
	const approved = call.query.approved === 'true';
	const answer = bound(call, approved ? 'approve' : 'decline');
	if (!call.post) {
		const values = ctx.getNodeParameter('approvalOptions.values', {}) as IDataObject;
		const labelOf = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);
		const label = approved ? labelOf(values.approveLabel, 'Approve') : labelOf(values.disapproveLabel, 'Decline');
		return writePage(res, 200, confirmPage(String(ctx.getNodeParameter('message', '')), label, approved, confirmationToken(secret, answer)));
	}
	if (!tokenMatches(secret, answer, body[TOKEN_FIELD])) return writePage(res, 403, notConfirmedPage());
	if (!take(call)) return writePage(res, 409, alreadyAnsweredPage());
	return resumeWith(res, answeredPage(), { approved });
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

/** What the form's fields were given, to refill it after a refused submission (never more than a field takes). */
function givenValues(fields: FormField[], body: IDataObject): Record<string, string[]> {
	const given = keyedTable<string[]>();
	fields.forEach((_, n) => (given[fieldName(n)] = submitted(body, n).map((v) => v.slice(0, TEXTAREA_MAX))));
	return given;
}

function formAnswer(call: Call, secret: string, body: IDataObject, responseType: string): IWebhookResponseData {
	const { ctx, res } = call;
	let fields: FormField[] = [FREE_TEXT_FIELD];
	if (responseType === 'customForm') {
		const read = readFormFields(ctx.getNodeParameter('formFields.values', []));
		if ('problem' in read) return writePage(res, 500, formUnavailablePage());
		fields = read.fields;
	}
	const answer = bound(call, 'form');
	const token = confirmationToken(secret, answer);
	if (!call.post) return writePage(res, 200, formPage(formOptions(ctx), fields, token));
	if (!tokenMatches(secret, answer, body[TOKEN_FIELD])) return writePage(res, 403, notConfirmedPage());
	const submission = readSubmission(fields, body);
	if ('problems' in submission) return writePage(res, 400, formPage(formOptions(ctx), fields, token, givenValues(fields, body), submission.problems));
	if (!take(call)) return writePage(res, 409, alreadyAnsweredPage());
	return resumeWith(res, answeredPage(), responseType === 'freeText' ? { text: submission.data[FREE_TEXT_FIELD.label] } : submission.data);
}

/** A relayed chat answer: accepted only when signed for the relay, for the open question, from an approver. */
async function chatAnswer(ctx: IWebhookFunctions, res: ServerResponse, query: IDataObject): Promise<IWebhookResponseData> {
	const req = ctx.getRequestObject();
	const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
	const now = Date.now();
	const check = verifyRelayedAnswer(ctx.getBodyData(), await signingSecret(ctx), path, now);
	if ('problem' in check) {
		ctx.logger.warn(`Workplace "${ctx.getNode().name}" refused an answer relayed from the chat: ${check.problem}`);
		return writeJson(res, 403, { outcome: 'refused', reason: check.problem });
	}
	const { answer } = check;
	if (!mayAnswer(parseApprovers(ctx.getNodeParameter('options.approvers', '')), answer.userId)) return writeJson(res, 403, { outcome: 'notAllowed' });
	const asked = questionOfPath(answer.path);
	const question = openQuestion(ctx);
	const fit = asked === query[QUESTION_PARAMETER] ? answerFits(question, asked, now) : 'closed';
	if (fit !== 'open') return writeJson(res, 410, { outcome: fit });
	const call: Call = { ctx, res, query, post: true, question: question as Question };
	if (!take(call)) return writeJson(res, 409, { outcome: 'alreadyAnswered' });
	return resumeWith(res, { outcome: 'answered' }, {
		approved: answer.choice === 'approve',
		answeredIn: 'chat',
		answeredBy: { userId: answer.userId, username: answer.username },
		answeredAt: answer.eventTime,
	});
}

/** The fields a form sent: n8n puts a multipart form's under `data`; a url-encoded form's are the body itself. */
function formBody(ctx: IWebhookFunctions): IDataObject {
	const parsed = ctx.getBodyData();
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
	const data = parsed.data;
	return data && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : parsed;
}

async function answer(ctx: IWebhookFunctions, res: ServerResponse): Promise<IWebhookResponseData> {
	const req = ctx.getRequestObject();
	const query = (req.query ?? {}) as IDataObject;
	const post = req.method === 'POST';
	const responseType = ctx.getNodeParameter('responseType', 'approval') as string;
	if (responseType === 'approval' && ctx.getNodeParameter('options.answerInChat', false) === true) {
		return post && query.answer === 'chat' ? await chatAnswer(ctx, res, query) : writePage(res, 403, answerInChatPage());
	}
	const refusal = crossSite(req.headers, ownOrigins(String(ctx.evaluateExpression('{{ $execution.resumeUrl }}')), req.headers), !post);
	if (refusal) {
		ctx.logger.warn(`Workplace "${ctx.getNode().name}" refused ${refusal} to a question's page`);
		return writePage(res, 403, notConfirmedPage());
	}
	const question = openQuestion(ctx);
	const fit = answerFits(question, query[QUESTION_PARAMETER], Date.now());
	if (fit !== 'open') return writePage(res, 410, fit === 'expired' ? expiredPage() : closedPage());
	const call: Call = { ctx, res, query, post, question: question as Question };
	const body = post ? formBody(ctx) : {};
	const secret = await signingSecret(ctx);
	if (responseType === 'freeText' || responseType === 'customForm') return formAnswer(call, secret, body, responseType);
	return approvalAnswer(call, secret, body);
}

export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	try {
		return await answer(this, res);
	} catch (error) {
		this.logger.error(`Workplace "${this.getNode().name}" could not take an answer: ${(error as Error).message}`);
		return res.headersSent ? NO_RESPONSE : writePage(res, 500, notRecordedPage());
	}
}
