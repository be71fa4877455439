/**
 * Send and Wait's parameters, named as in n8n's own chat nodes (`message`,
 * `responseType`, `approvalOptions`, `formFields`, `options.limitWaitTime`),
 * after the operation's own (where the question goes), and the waiting node's
 * webhooks, as n8n's chat nodes declare them.
 */
import type { INodeProperties, IWebhookDescription } from 'n8n-workflow';

import { FIELD_TYPES, type FieldType } from './form';

const FIELD_TYPE_NAMES: Record<FieldType, string> = { text: 'Text', textarea: 'Textarea', number: 'Number', email: 'Email', date: 'Date', dropdown: 'Dropdown List', checkbox: 'Checkboxes' };
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
					options: FIELD_TYPES.map((value) => ({ name: FIELD_TYPE_NAMES[value], value })),
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

/**
 * The parameters that ask and take the answer. `labelMax`: the longest button
 * label the service shows; `userId`: how the node's user id fields show an id
 * (an example, and where a workflow gets one).
 */
export function sendAndWaitProperties(labelMax: number, userId: { placeholder: string; hint: string }): INodeProperties[] {
	return [
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
						// Shorter than n8n's "Approve Button Label": a fixed collection's labels sit indented, and n8n's wording is cut off in a narrow panel.
						{ displayName: 'Approve Label', name: 'approveLabel', type: 'string', default: 'Approve', description: `The approve button's text, at most ${labelMax} characters` },
						{
							displayName: 'Disapprove Label',
							name: 'disapproveLabel',
							type: 'string',
							default: 'Decline',
							description: `The disapprove button's text, at most ${labelMax} characters`,
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
					description: 'Whether the buttons answer inside the chat instead of opening a link; the output says who answered',
					// n8n gives a node no way to see other workflows, so the panel cannot tell whether such a trigger is active: it says what is needed.
					hint: 'Needs an active Workplace Trigger workflow using this same bot credential: it receives the tap and passes it to this execution. Without one, taps go unanswered and the question waits.',
				},
				{
					displayName: 'Approvers',
					name: 'approvers',
					type: 'string',
					default: '',
					placeholder: userId.placeholder,
					displayOptions: onlyFor(['approval']),
					description:
						'User IDs allowed to answer, separated by commas (needs Answer in Chat). Empty: anyone in the chat. A tap by anyone else is answered in the chat, and the question stays open.',
					hint: userId.hint,
				},
				limitWaitTime,
				{ displayName: 'Message Button Label', name: 'messageButtonLabel', type: 'string', default: 'Respond', displayOptions: onlyFor(['freeText', 'customForm']), description: `The button that opens the form; at most ${labelMax} characters` },
				{ displayName: 'Response Form Button Label', name: 'responseFormButtonLabel', type: 'string', default: 'Submit', displayOptions: onlyFor(['freeText', 'customForm']) },
				{ displayName: 'Response Form Description', name: 'responseFormDescription', type: 'string', default: '', displayOptions: onlyFor(['freeText', 'customForm']), description: 'Shown above the form; the message when empty' },
				{ displayName: 'Response Form Title', name: 'responseFormTitle', type: 'string', default: '', displayOptions: onlyFor(['freeText', 'customForm']) },
			],
		},
	];
}

/**
 * The waiting node's answer address, `<waiting base>/<execution>/<node id>`,
 * for GET (opening a link) and POST (an answer). n8n serves a restart webhook
 * only while an execution waits at this node and registers nothing for it on
 * activation, so there is no webhook lifecycle (webhookMethods) to implement.
 */
const answerWebhook = (httpMethod: 'GET' | 'POST'): IWebhookDescription => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
});
export const sendAndWaitWebhooks: IWebhookDescription[] = [answerWebhook('GET'), answerWebhook('POST')];
