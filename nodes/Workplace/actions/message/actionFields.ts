/**
 * The action fields as the editor shows them (Message Action → Build, buttons,
 * carousel buttons, imagemap areas, quick replies), and their values read back
 * as an action object for action.ts to check.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { LABEL_MAX } from './action';

/** Parameter names of the action fields, shared by Build and the message builder. */
const TYPE_OPTIONS = [
	{ name: 'Library', value: 'library', description: 'Send the user to a Library document' },
	{ name: 'Message', value: 'message', description: 'Send a text as a message from the user' },
	{ name: 'Postback', value: 'postback', description: 'Deliver a postback event carrying data to the bot\'s webhook' },
	{ name: 'URI', value: 'uri', description: 'Open a URI' },
	{ name: 'Workflow', value: 'workflow', description: 'Present a workflow to the user' },
	{ name: 'Workflow Template', value: 'workflowTemplate', description: 'Present a workflow template to the user' },
	{ name: 'Workflows Page', value: 'workflows', description: 'Send the user to the Workflows page, optionally filtered by status' },
];

/** The action type that takes a whole action object (or a list of them) from an earlier node. */
export const FROM_JSON = 'fromJson';

/**
 * Where the fields are shown: `build` (Message Action → Build, with Used In),
 * `labelled` (a button, carousel button or quick reply: label required),
 * `imagemap` (an area required, label optional).
 */
export type ActionFieldsFor = 'build' | 'labelled' | 'imagemap';

const show = (...type: string[]) => ({ show: { type } });

export function actionProperties(where: ActionFieldsFor): INodeProperties[] {
	const typeOptions =
		where === 'build'
			? TYPE_OPTIONS
			: [
					...TYPE_OPTIONS,
					{
						name: 'From JSON',
						value: FROM_JSON,
						description: 'An action object from an earlier node (e.g. Message Action → Build), or a list of them',
					},
				].sort((a, b) => a.name.localeCompare(b.name));
	const labelDescription = {
		build: `Text shown on the action, at most ${LABEL_MAX} characters. Required in button templates, carousel templates and quick replies; optional in imagemaps.`,
		labelled: `Text shown on the button, at most ${LABEL_MAX} characters (required)`,
		imagemap: `Text of the area, at most ${LABEL_MAX} characters (optional)`,
	}[where];
	const areaDisplay = where === 'build' ? { displayOptions: { show: { usedIn: ['imagemap'] } } } : {};
	const properties: INodeProperties[] = [
		{
			displayName: 'Type',
			name: 'type',
			type: 'options',
			default: 'postback',
			options: typeOptions,
			description: 'What happens when the user triggers the action',
		},
	];
	if (where === 'build') {
		properties.push({
			displayName: 'Used In',
			name: 'usedIn',
			type: 'options',
			default: 'button',
			options: [
				{ name: 'Button Template', value: 'button', description: 'A label is required' },
				{ name: 'Carousel Template', value: 'carousel', description: 'A label is required' },
				{ name: 'Imagemap', value: 'imagemap', description: 'A tappable area is required' },
				{ name: 'Other', value: 'other', description: 'Neither label nor area is required' },
				{ name: 'Quick Reply', value: 'quickReply', description: 'A label is required' },
			],
			description: 'Where the action will be placed; decides whether a label or an area is required',
		});
	}
	const notJson = where === 'build' ? {} : { displayOptions: { hide: { type: [FROM_JSON] } } };
	properties.push(
		{
			displayName: 'Label',
			name: 'label',
			type: 'string',
			default: '',
			placeholder: 'e.g. Acknowledge',
			description: labelDescription,
			...notJson,
		},
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			default: '',
			displayOptions: show('message'),
			description: 'Text sent as a message from the user (required)',
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'string',
			default: '',
			displayOptions: show('postback'),
			placeholder: 'e.g. action=ack&incident=4711',
			description: 'String returned in the postback event\'s data (required)',
		},
		{
			displayName: 'Text',
			name: 'postbackText',
			type: 'string',
			default: '',
			displayOptions: show('postback'),
			description: 'Optional text shown in the chat as sent by the user',
		},
		{
			displayName: 'Template ID',
			name: 'templateId',
			type: 'string',
			default: '',
			displayOptions: show('workflowTemplate'),
			description: 'ID of the workflow template (required)',
		},
		{
			displayName: 'Workflow ID',
			name: 'workflowId',
			type: 'string',
			default: '',
			displayOptions: show('workflow'),
			description: 'ID of the workflow (required)',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: '',
			displayOptions: show('workflows'),
			options: [
				{ name: 'Any', value: '' },
				{ name: 'Awaiting', value: 'awaiting' },
				{ name: 'Canceled', value: 'canceled' },
				{ name: 'Completed', value: 'completed' },
				{ name: 'Processing', value: 'processing' },
				{ name: 'Rejected', value: 'rejected' },
			],
			description: 'Show only workflows with this status',
		},
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			displayOptions: show('library'),
			description: 'Address of the Library document',
		},
		{
			displayName: 'Link URI',
			name: 'linkUri',
			type: 'string',
			default: '',
			displayOptions: show('uri'),
			placeholder: 'e.g. https://status.example.com/incidents/4711',
			description: 'URI to open (required)',
		},
	);
	if (where !== 'build') {
		properties.push({
			displayName: 'Action (JSON)',
			name: 'actionJson',
			type: 'json',
			default: '',
			displayOptions: show(FROM_JSON),
			placeholder: 'e.g. {{ $json }} after Message Action → Build',
			description:
				'An action object as the service defines it ({"type": "postback", "label": "Ack", "data": "ack"}), or a list of them, placed here in order',
		});
	}
	if (where !== 'labelled') {
		properties.push(
			{
				displayName: 'Area X',
				name: 'areaX',
				type: 'number',
				default: 0,
				...areaDisplay,
				description: 'Offset of the tappable area from the left edge, 0 or more',
			},
			{
				displayName: 'Area Y',
				name: 'areaY',
				type: 'number',
				default: 0,
				...areaDisplay,
				description: 'Offset of the tappable area from the top, 0 or more',
			},
			{
				displayName: 'Area Width',
				name: 'areaWidth',
				type: 'number',
				default: 0,
				...areaDisplay,
				description: 'Width of the tappable area, more than 0',
			},
			{
				displayName: 'Area Height',
				name: 'areaHeight',
				type: 'number',
				default: 0,
				...areaDisplay,
				description: 'Height of the tappable area, more than 0',
			},
		);
	}
	return properties;
}

/**
 * The action fields' parameter values (as actionProperties names them) as an
 * action object in the service's terms, not yet checked. Missing values are
 * left out: a hidden field may be absent from a stored fixedCollection entry.
 */
export function actionFromParameters(values: IDataObject, area: boolean): IDataObject {
	const type = values.type;
	const action: IDataObject = { type };
	const copy = (from: string, to = from) => {
		if (values[from] !== undefined && values[from] !== null && values[from] !== '') action[to] = values[from];
	};
	copy('label');
	if (type === 'message') copy('text');
	if (type === 'postback') {
		copy('data');
		copy('postbackText', 'text');
	}
	if (type === 'workflowTemplate') copy('templateId');
	if (type === 'workflow') copy('workflowId');
	if (type === 'workflows') copy('status');
	if (type === 'library') copy('url');
	if (type === 'uri') copy('linkUri');
	if (area) {
		action.area = { x: values.areaX ?? 0, y: values.areaY ?? 0, width: values.areaWidth ?? 0, height: values.areaHeight ?? 0 };
	}
	return action;
}
