/**
 * Action objects of bot messages, exactly as the service defines them: the
 * one definition used by Message Action → Build and by every button, carousel
 * column, imagemap area and quick reply of a message. Pure: callers read
 * parameters, this checks and shapes them.
 */
import type { IDataObject } from 'n8n-workflow';
import { characterCount } from '../../../../shared/characters';
import { numberValue } from '../../../../shared/numberValue';
import { ACTION_TYPES, LABEL_MAX, URL_MAX, WORKFLOW_STATUSES } from './rules';

export type ActionType = (typeof ACTION_TYPES)[number];

/** Where the action goes: a label is required on buttons, carousels and quick replies; an area on imagemaps. */
export const USED_IN = ['button', 'carousel', 'quickReply', 'imagemap', 'other'] as const;
export type UsedIn = (typeof USED_IN)[number];

export { LABEL_MAX };

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

/** A field that fails the service's rules for actions; `field` is the parameter's display name. */
export class ActionProblem extends Error {
	constructor(
		readonly field: string,
		readonly problem: string,
	) {
		super(`${field}: ${problem}`);
	}
}

const length = characterCount;

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
	const n = numberValue(value);
	if (typeof n !== 'number' || !Number.isInteger(n)) {
		throw new ActionProblem(field, `must be a whole number, got ${value === '' || value === undefined ? 'nothing' : JSON.stringify(value)}`);
	}
	if (n < min) throw new ActionProblem(field, min === 0 ? `must be 0 or more, got ${n}` : `must be more than 0, got ${n}`);
	return n;
}

/**
 * Whether a chat client may be asked to open `value`: an absolute http or https
 * URL. Other schemes (javascript:, data:, file:, an app's own) are refused: the
 * public pages show no app links of the service, and a tap on a button must not
 * run script or open local files.
 */
function isWebUrl(value: string): boolean {
	if (!/^https?:\/\/\S+$/i.test(value)) return false;
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
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
			// A library action's url is optional: the service does not require it.
			const url = optionalText(input.url, 'URL');
			if (url !== undefined) {
				if (!isWebUrl(url)) throw new ActionProblem('URL', `must be an absolute http(s) URL, got "${url}"`);
				action.url = withinUrlLimit(url, 'URL');
			}
			break;
		}
		case 'uri': {
			const linkUri = requiredText(input.linkUri, 'Link URI', type);
			if (!isWebUrl(linkUri)) {
				throw new ActionProblem('Link URI', `must be an absolute http(s) URL such as https://…; other schemes are refused, got "${linkUri.slice(0, 40)}"`);
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
