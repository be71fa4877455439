import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { answerPostbackData, parseApprovers, type Choice } from '../../../../shared/sendAndWait/chatAnswer';
import type { OperationDefinition } from '../types';
import { invalid, requiredText, textId } from '../../../../shared/validation';
import { LABEL_MAX } from './action';
import { chat, groupLocator, messageRequest, sentOutput, topicLocator, userLocator } from './common';
import { newQuestionId, QUESTION_PARAMETER } from './sendAndWait/answered';
import { answerUrl } from './sendAndWait/answerUrl';
import { FIELD_TYPES, readFormFields } from './sendAndWait/form';
import { limitDate, type LimitWaitTime } from './sendAndWait/waitTill';

/** A buttons template's text: at most 160 characters without image and title. */
const BUTTONS_TEXT_MAX = 160;
const onlyFor = (responseType: string[]) => ({ show: { '/responseType': responseType } });

const formFields: INodeProperties = {
	displayName: 'Form Fields',
	name: 'formFields',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	default: {},
	placeholder: 'Add Form Element',
	displayOptions: { show: { responseType: ['customForm'] } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Element Type',
					name: 'fieldType',
					type: 'options',
					default: 'text',
					options: FIELD_TYPES.map((value) => ({ name: { text: 'Text', textarea: 'Textarea', number: 'Number', email: 'Email', date: 'Date', dropdown: 'Dropdown List', checkbox: 'Checkboxes' }[value], value })),
				},
				{ displayName: 'Field Label', name: 'fieldLabel', type: 'string', default: '', placeholder: 'e.g. What is your name?', description: 'Label shown above the field; the answer comes back under this name', required: true },
				{
					displayName: 'Field Options',
					name: 'fieldOptions',
					placeholder: 'Add Field Option',
					type: 'fixedCollection',
					default: { values: [{ option: '' }] },
					required: true,
					displayOptions: { show: { fieldType: ['dropdown', 'checkbox'] } },
					typeOptions: { multipleValues: true, sortable: true },
					options: [{ displayName: 'Values', name: 'values', values: [{ displayName: 'Option', name: 'option', type: 'string', default: '' }] }],
				},
				{ displayName: 'Placeholder', name: 'placeholder', type: 'string', default: '', displayOptions: { show: { fieldType: ['text', 'textarea', 'number', 'email'] } } },
				{ displayName: 'Required Field', name: 'requiredField', type: 'boolean', default: false, description: 'Whether the form can be sent without this field' },
			],
		},
	],
};

const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description: 'Whether to stop waiting for an answer after a while; the workflow then goes on with the input item, without an answer',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until a date and time' },
					],
				},
				{ displayName: 'Amount', name: 'resumeAmount', type: 'number', default: 1, typeOptions: { minValue: 0, numberPrecision: 2 }, displayOptions: { show: { limitType: ['afterTimeInterval'] } } },
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'hours',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
				},
				{ displayName: 'Max Date and Time', name: 'maxDateAndTime', type: 'dateTime', default: '', displayOptions: { show: { limitType: ['atSpecifiedTime'] } } },
			],
		},
	],
};

const properties: INodeProperties[] = [
	{
		displayName: 'Send To',
		name: 'sendTo',
		type: 'options',
		default: 'group',
		options: [
			{ name: 'Group or Topic', value: 'group', description: 'Buttons in the chat (answered by link or, with Answer in Chat, in the chat itself)' },
			{ name: 'User', value: 'user', description: 'A direct message with answer links (the direct message endpoint sends no buttons)' },
		],
	},
	{ ...groupLocator, displayOptions: { show: { sendTo: ['group'] } } },
	{ ...topicLocator, displayOptions: { show: { sendTo: ['group'] } } },
	{ ...userLocator, displayOptions: { show: { sendTo: ['user'] } } },
	{ displayName: 'Message', name: 'message', type: 'string', default: '', required: true, typeOptions: { rows: 4 }, description: 'The question' },
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		options: [
			{ name: 'Approval', value: 'approval', description: 'Approve (and Decline) buttons' },
			{ name: 'Free Text', value: 'freeText', description: 'A button opens a page where the person types the answer' },
			{ name: 'Custom Form', value: 'customForm', description: 'A button opens a form to fill in' },
		],
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Disapprove', value: 'double' },
						],
					},
					{ displayName: 'Approve Button Label', name: 'approveLabel', type: 'string', default: 'Approve', description: `At most ${LABEL_MAX} characters` },
					{
						displayName: 'Disapprove Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						description: `At most ${LABEL_MAX} characters`,
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	formFields,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Answer in Chat',
				name: 'answerInChat',
				type: 'boolean',
				default: false,
				displayOptions: onlyFor(['approval']),
				description:
					'Whether the buttons answer inside the chat (postback actions) instead of opening a link. The tap reaches an active Workplace Trigger with the same bot credential, which passes it to this execution; the output says who answered.',
			},
			{
				displayName: 'Approvers',
				name: 'approvers',
				type: 'string',
				default: '',
				placeholder: 'e.g. 1001, 1002',
				displayOptions: onlyFor(['approval']),
				description: 'User IDs allowed to answer, separated by commas (needs Answer in Chat). Empty: anyone in the chat. A tap by anyone else is answered in the chat, and the question stays open.',
			},
			limitWaitTime,
			{ displayName: 'Message Button Label', name: 'messageButtonLabel', type: 'string', default: 'Respond', displayOptions: onlyFor(['freeText', 'customForm']), description: `The button that opens the form; at most ${LABEL_MAX} characters` },
			{ displayName: 'Response Form Button Label', name: 'responseFormButtonLabel', type: 'string', default: 'Submit', displayOptions: onlyFor(['freeText', 'customForm']) },
			{ displayName: 'Response Form Description', name: 'responseFormDescription', type: 'string', default: '', displayOptions: onlyFor(['freeText', 'customForm']), description: 'Shown above the form; the message when empty' },
			{ displayName: 'Response Form Title', name: 'responseFormTitle', type: 'string', default: '', displayOptions: onlyFor(['freeText', 'customForm']) },
		],
	},
];

type Option = { label: string; query: Record<string, string>; choice: Choice };

function label(ctx: IExecuteFunctions, i: number, value: unknown, fallback: string, field: string): string {
	const text = typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
	if ([...text].length > LABEL_MAX) throw invalid(ctx, i, field, `must be at most ${LABEL_MAX} characters (got ${[...text].length})`);
	return text;
}

/** The answers offered, each with the query its link carries (n8n's `approved=true|false`). */
function answerOptions(ctx: IExecuteFunctions, i: number, responseType: string): Option[] {
	if (responseType === 'freeText' || responseType === 'customForm') {
		const text = label(ctx, i, ctx.getNodeParameter('options.messageButtonLabel', i, 'Respond'), 'Respond', 'Message Button Label');
		return [{ label: text, query: { approved: 'true' }, choice: 'approve' }];
	}
	const values = ctx.getNodeParameter('approvalOptions.values', i, {}) as IDataObject;
	const approve: Option = { label: label(ctx, i, values.approveLabel, 'Approve', 'Approve Button Label'), query: { approved: 'true' }, choice: 'approve' };
	if (values.approvalType !== 'double') return [approve];
	return [approve, { label: label(ctx, i, values.disapproveLabel, 'Decline', 'Disapprove Button Label'), query: { approved: 'false' }, choice: 'decline' }];
}

/** The wait's end (Limit Wait Time), checked before anything is sent; undefined waits until answered. */
export function waitTill(ctx: IExecuteFunctions, i: number): Date | undefined {
	const limit = ctx.getNodeParameter('options.limitWaitTime.values', i, {}) as LimitWaitTime;
	const result = limitDate(limit, Date.now());
	if ('problem' in result) throw invalid(ctx, i, 'Limit Wait Time', result.problem);
	return result.date;
}

/** The execution's resume URL for an answer, on this n8n version (answerUrl.ts). */
function resumeUrl(ctx: IExecuteFunctions, i: number, query: Record<string, string>): string {
	const signed = typeof ctx.getSignedResumeUrl === 'function' ? (q: Record<string, string>) => ctx.getSignedResumeUrl(q) : undefined;
	const unsigned = ctx.evaluateExpression('{{ $execution.resumeUrl }}', i);
	return answerUrl({ signedResumeUrl: signed, resumeUrl: String(unsigned), nodeId: ctx.getNode().id }, query);
}

export const sendAndWait: OperationDefinition = {
	value: 'sendAndWait',
	name: 'Send and Wait for Response',
	action: 'Send a message and wait for response',
	description: 'Ask a question with buttons and wait for the answer: approval, free text or a form; answered by link or, in a group, in the chat by named people',
	properties,
	waits: true,
	request(i) {
		const responseType = this.getNodeParameter('responseType', i, 'approval') as string;
		const message = requiredText(this, i, 'message', 'Message');
		const options = answerOptions(this, i, responseType);
		if (responseType === 'customForm') {
			const fields = readFormFields(this.getNodeParameter('formFields.values', i, []));
			if ('problem' in fields) throw invalid(this, i, 'Form Fields', fields.problem);
		}
		waitTill(this, i);
		const inChat = responseType === 'approval' && (this.getNodeParameter('options.answerInChat', i, false) as boolean);
		const approvers = parseApprovers(this.getNodeParameter('options.approvers', i, ''));
		if (approvers.length > 0 && !inChat) throw invalid(this, i, 'Approvers', 'needs Answer in Chat: a link cannot tell who opened it');
		const sendTo = this.getNodeParameter('sendTo', i, 'group') as string;
		// Names this question in its answers' addresses: one execution can wait at this node more than
		// once (a loop, an AI Agent calling a reviewed tool again), and each wait takes its own first answer.
		const question = { [QUESTION_PARAMETER]: newQuestionId() };

		if (sendTo === 'user') {
			if (inChat) throw invalid(this, i, 'Answer in Chat', 'needs a group or topic: the direct message endpoint sends no buttons');
			const uid = textId(this, i, 'userId', 'User');
			const links = options.map((o) => `${o.label}: ${resumeUrl(this, i, { ...o.query, ...question })}`).join('\n');
			return messageRequest(['bot', 'v1', 'direct', 'message'], { uid, message: { type: 'text', data: `${message}\n\n${links}` } });
		}

		const actions = options.map((o) =>
			inChat
				? // The tap comes back to the Workplace Trigger as a postback (shared/chatAnswer.ts).
					{ type: 'postback', label: o.label, text: o.label, data: answerPostbackData(o.choice, resumeUrl(this, i, { answer: 'chat', ...question })) }
				: { type: 'uri', label: o.label, linkUri: resumeUrl(this, i, { ...o.query, ...question }) },
		);
		const short = [...message].length <= BUTTONS_TEXT_MAX;
		const buttons = { type: 'template', template: { type: 'buttons', text: short ? message : 'Your answer:', actions } };
		const messages = short ? [buttons] : [{ type: 'text', text: message }, buttons];
		return messageRequest(['bot', 'v2', 'message', 'push'], { ...chat(this, i), messages });
	},
	async output(response, i, request) {
		const until = waitTill(this, i);
		// n8n 1.104 to 2.13 check a signed resume URL's signature only when told to; later versions always do.
		const requireSignature = (this as unknown as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired;
		if (typeof requireSignature === 'function') requireSignature.call(this);
		await this.putExecutionToWait(until ?? WAIT_INDEFINITELY);
		const body = request.body as IDataObject;
		return [{ json: sentOutput(request, response, { waitingForAnswer: true, groupId: body.gid ?? null, userId: body.uid ?? null }) }];
	},
};
