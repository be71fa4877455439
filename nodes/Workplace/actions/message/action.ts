/**
 * Action objects of bot messages, exactly as the document defines them: the
 * one definition used by Message Action → Build and by every button, carousel
 * column, imagemap area and quick reply of a message. Pure: callers read
 * parameters, this checks and shapes them.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

export const ACTION_TYPES = ['message', 'postback', 'workflowTemplate', 'workflow', 'workflows', 'library', 'uri'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const WORKFLOW_STATUSES = ['awaiting', 'processing', 'completed', 'rejected', 'canceled'] as const;

/** Where the action goes: a label is required on buttons, carousels and quick replies; an area on imagemaps. */
export const USED_IN = ['button', 'carousel', 'quickReply', 'imagemap', 'other'] as const;
export type UsedIn = (typeof USED_IN)[number];

export const LABEL_MAX = 20;
/** The messaging pages' limit for every URL of a message, applied to the addresses actions open too. */
export const URL_MAX = 1000;

function withinUrlLimit(value: string, field: string): string {
	if (length(value) > URL_MAX) throw new ActionProblem(field, `must be at most ${URL_MAX} characters (got ${length(value)})`);
	return value;
}

export interface ActionInput {
	type: unknown;
	usedIn: unknown;
	label?: unknown;
	text?: unknown;
	data?: unknown;
	templateId?: unknown;
	workflowId?: unknown;
	status?: unknown;
	url?: unknown;
	linkUri?: unknown;
	area?: { x?: unknown; y?: unknown; width?: unknown; height?: unknown };
}

/** A field that fails the document's rules; `field` is the parameter's display name. */
export class ActionProblem extends Error {
	constructor(
		readonly field: string,
		readonly problem: string,
	) {
		super(`${field}: ${problem}`);
	}
}

const length = (s: string) => [...s].length;

function optionalText(value: unknown, field: string): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string') throw new ActionProblem(field, `expected text, got ${typeof value}`);
	return value.trim() === '' ? undefined : value;
}

function requiredText(value: unknown, field: string, type: string): string {
	const text = optionalText(value, field);
	if (text === undefined) throw new ActionProblem(field, `is required for a ${type} action`);
	return text;
}

function wholeNumber(value: unknown, field: string, min: number): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n)) {
		throw new ActionProblem(field, `must be a whole number, got ${value === '' || value === undefined ? 'nothing' : JSON.stringify(value)}`);
	}
	if (n < min) throw new ActionProblem(field, min === 0 ? `must be 0 or more, got ${n}` : `must be more than 0, got ${n}`);
	return n;
}

function isAbsoluteUri(value: string): boolean {
	if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return false;
	try {
		new URL(value);
		return true;
	} catch {
		return false;
	}
}

export function buildAction(input: ActionInput): IDataObject {
	const type = input.type as ActionType;
	if (!ACTION_TYPES.includes(type)) {
		throw new ActionProblem('Type', `must be one of ${ACTION_TYPES.join(', ')}, got ${JSON.stringify(input.type)}`);
	}
	const usedIn = input.usedIn as UsedIn;
	if (!USED_IN.includes(usedIn)) {
		throw new ActionProblem('Used In', `must be one of ${USED_IN.join(', ')}, got ${JSON.stringify(input.usedIn)}`);
	}

	const action: IDataObject = { type };
	const label = optionalText(input.label, 'Label');
	if (label === undefined && (usedIn === 'button' || usedIn === 'carousel' || usedIn === 'quickReply')) {
		const where = { button: 'a button template', carousel: 'a carousel', quickReply: 'a quick reply' }[usedIn];
		throw new ActionProblem('Label', `is required for an action used in ${where}`);
	}
	if (label !== undefined) {
		if (length(label) > LABEL_MAX) {
			throw new ActionProblem('Label', `must be at most ${LABEL_MAX} characters (got ${length(label)})`);
		}
		action.label = label;
	}

	switch (type) {
		case 'message':
			action.text = requiredText(input.text, 'Text', type);
			break;
		case 'postback': {
			action.data = requiredText(input.data, 'Data', type);
			const text = optionalText(input.text, 'Text');
			if (text !== undefined) action.text = text;
			break;
		}
		case 'workflowTemplate':
			action.templateId = requiredText(input.templateId, 'Template ID', type);
			break;
		case 'workflow':
			action.workflowId = requiredText(input.workflowId, 'Workflow ID', type);
			break;
		case 'workflows': {
			const status = optionalText(input.status, 'Status');
			if (status !== undefined) {
				if (!(WORKFLOW_STATUSES as readonly string[]).includes(status)) {
					throw new ActionProblem('Status', `must be one of ${WORKFLOW_STATUSES.join(', ')}, got "${status}"`);
				}
				action.status = status;
			}
			break;
		}
		case 'library': {
			// The document lists url without marking it required.
			const url = optionalText(input.url, 'URL');
			if (url !== undefined) {
				if (!isAbsoluteUri(url)) throw new ActionProblem('URL', `must be an absolute URL, got "${url}"`);
				action.url = withinUrlLimit(url, 'URL');
			}
			break;
		}
		case 'uri': {
			const linkUri = requiredText(input.linkUri, 'Link URI', type);
			if (!isAbsoluteUri(linkUri)) {
				throw new ActionProblem('Link URI', `must be an absolute URI such as https://…, tel:… or mailto:…, got "${linkUri}"`);
			}
			action.linkUri = withinUrlLimit(linkUri, 'Link URI');
			break;
		}
	}

	if (usedIn === 'imagemap') {
		const area = input.area ?? {};
		action.area = {
			x: wholeNumber(area.x, 'Area X', 0),
			y: wholeNumber(area.y, 'Area Y', 0),
			width: wholeNumber(area.width, 'Area Width', 1),
			height: wholeNumber(area.height, 'Area Height', 1),
		};
	}
	return action;
}

/** buildAction's answer as a value: the action, or the problem with it. */
export function checkAction(input: ActionInput): { action: IDataObject } | { problem: ActionProblem } {
	try {
		return { action: buildAction(input) };
	} catch (error) {
		return { problem: error instanceof ActionProblem ? error : new ActionProblem('Action', (error as Error).message) };
	}
}

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
				'An action object as the document defines it ({"type": "postback", "label": "Ack", "data": "ack"}), or a list of them, placed here in order',
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
 * action object in the document's terms, not yet checked. Missing values are
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
