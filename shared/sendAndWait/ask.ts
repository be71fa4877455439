/**
 * Sending a question: the operation's parameters read for one item and checked
 * before anything is sent (each refusal names its field), the question made and
 * recorded with the execution (question.ts), and the buttons that answer it:
 * links to the waiting node's resume URL, or postbacks for Answer in Chat.
 * Once the message is sent, waitForAnswer puts the execution to wait until the
 * question's end.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { invalid } from '../invalid';
import { requiredText } from '../validation';
import { answerUrl } from './answerUrl';
import { answerPostbackData, parseApprovers, type Choice } from './chatAnswer';
import { readFormFields } from './form';
import { botSigningSecret } from './keys';
import { labelProblem, readsAs } from './labels';
import { limitEnd, type LimitWaitTime } from './limitWaitTime';
import { newQuestion, QUESTION_PARAMETER, recordQuestion, waitTill, type Question } from './question';

export const RESPONSE_TYPES = ['approval', 'freeText', 'customForm'] as const;

export interface AnswerButton {
	label: string;
	/** A link's address (the waiting node's resume URL with the answer's query). */
	link?: string;
	/** Answer in Chat: the postback data the Workplace Trigger passes on. */
	postback?: string;
}

export interface Asking {
	question: Question;
	/** The question's text (Message). */
	message: string;
	buttons: AnswerButton[];
}

interface Offered {
	label: string;
	choice: Choice;
	field: string;
}

/** A label's text (trimmed, the default when empty), refused with its field named when it cannot be shown. */
function label(ctx: IExecuteFunctions, i: number, value: unknown, fallback: string, field: string, max: number): string {
	const text = typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
	const problem = labelProblem(text, max);
	if (problem) throw invalid(ctx, i, field, problem);
	return text;
}

/** The answers offered: one button for a form, Approve (and Decline) for an approval. */
function offered(ctx: IExecuteFunctions, i: number, responseType: string, labelMax: number): Offered[] {
	if (responseType !== 'approval') {
		const field = 'Message Button Label';
		return [{ label: label(ctx, i, ctx.getNodeParameter('options.messageButtonLabel', i, 'Respond'), 'Respond', field, labelMax), choice: 'approve', field }];
	}
	const values = (ctx.getNodeParameter('approvalOptions.values', i, {}) ?? {}) as IDataObject;
	const approve: Offered = { label: label(ctx, i, values.approveLabel, 'Approve', 'Approve Label', labelMax), choice: 'approve', field: 'Approve Label' };
	if (values.approvalType !== 'double') return [approve];
	const decline: Offered = { label: label(ctx, i, values.disapproveLabel, 'Decline', 'Disapprove Label', labelMax), choice: 'decline', field: 'Disapprove Label' };
	if (readsAs(decline.label) === readsAs(approve.label)) {
		throw invalid(ctx, i, decline.field, `reads the same as the Approve Label ("${approve.label}"): a person could not tell the answers apart`);
	}
	return [approve, decline];
}

/** The execution's resume URL for an answer, on this n8n version (answerUrl.ts). */
function resumeUrl(ctx: IExecuteFunctions, i: number, query: Record<string, string>): string {
	const signed = typeof ctx.getSignedResumeUrl === 'function' ? (q: Record<string, string>) => ctx.getSignedResumeUrl(q) : undefined;
	const unsigned = ctx.evaluateExpression('{{ $execution.resumeUrl }}', i);
	return answerUrl({ signedResumeUrl: signed, resumeUrl: String(unsigned), nodeId: ctx.getNode().id }, query);
}

/**
 * Item i's question, checked, recorded with the execution, with its buttons.
 * `labelMax`: the longest label a button may have; `toUser`: sent to a direct
 * chat, which has no buttons (links only).
 */
export async function askQuestion(ctx: IExecuteFunctions, i: number, options: { labelMax: number; toUser: boolean }): Promise<Asking> {
	const responseType = ctx.getNodeParameter('responseType', i, 'approval');
	if (typeof responseType !== 'string' || !(RESPONSE_TYPES as readonly string[]).includes(responseType)) {
		throw invalid(ctx, i, 'Response Type', `must be Approval, Free Text or Custom Form, got ${JSON.stringify(responseType)}`);
	}
	const message = requiredText(ctx, i, 'message', 'Message');
	const answers = offered(ctx, i, responseType, options.labelMax);
	if (responseType === 'customForm') {
		const fields = readFormFields(ctx.getNodeParameter('formFields.values', i, []));
		if ('problem' in fields) throw invalid(ctx, i, 'Form Fields', fields.problem);
	}
	const limit = limitEnd(ctx.getNodeParameter('options.limitWaitTime.values', i, {}) as LimitWaitTime, Date.now());
	if ('problem' in limit) throw invalid(ctx, i, 'Limit Wait Time', limit.problem);
	const inChat = responseType === 'approval' && ctx.getNodeParameter('options.answerInChat', i, false) === true;
	const approvers = parseApprovers(ctx.getNodeParameter('options.approvers', i, ''));
	if (approvers.length > 0 && !inChat) throw invalid(ctx, i, 'Approvers', 'needs Answer in Chat: a link cannot tell who opened it');
	if (inChat && options.toUser) throw invalid(ctx, i, 'Answer in Chat', 'needs a group or topic: the direct message endpoint sends no buttons');
	const secret = inChat ? botSigningSecret(await ctx.getCredentials('workplaceBotApi', i)) : '';
	if (inChat && secret === '') throw invalid(ctx, i, 'Answer in Chat', 'needs the bot credential\'s client secret (or webhook secret) to sign its buttons');

	const question = newQuestion(limit.endsAt);
	recordQuestion(ctx, i, question);
	const asked = { [QUESTION_PARAMETER]: question.id };
	const buttons = answers.map((answer): AnswerButton =>
		inChat
			? { label: answer.label, postback: answerPostbackData(answer.choice, resumeUrl(ctx, i, { answer: 'chat', ...asked }), secret) }
			: { label: answer.label, link: resumeUrl(ctx, i, { approved: String(answer.choice === 'approve'), ...asked }) },
	);
	return { question, message, buttons };
}

/**
 * Puts the execution to wait for the answer, until the question's end. n8n
 * 1.104 to 2.13 check a signed resume URL's signature only when told to; later
 * versions always do.
 */
export async function waitForAnswer(ctx: IExecuteFunctions, question: Question): Promise<void> {
	const requireSignature = (ctx as unknown as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired;
	if (typeof requireSignature === 'function') requireSignature.call(ctx);
	await ctx.putExecutionToWait(waitTill(question));
}
