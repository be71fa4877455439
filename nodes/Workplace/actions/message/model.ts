/**
 * v2 message objects (the `messages` of a v2 send or reply), checked against the public
 * limits before anything is sent. Pure: the message fields and JSON from earlier
 * nodes both end here, so one set of rules decides what is sent. Fields the
 * node does not know are passed through as given (the service may know them).
 */
import type { IDataObject } from 'n8n-workflow';

import { read } from '../../../../shared/transport';
import { shownValue } from '../../../../shared/validation';
import { checkAction, type UsedIn } from './action';
import { IMAGE_ASPECT_RATIOS, IMAGE_SIZES, MESSAGE_LIMITS, MESSAGE_TYPES } from './rules';
import { numberValue } from '../../../../shared/numberValue';
import { characterCount } from '../../../../shared/characters';

export { MESSAGE_LIMITS };

/** Where in the messages a value sits; positions count from 1, as a user counts entries. */
export interface Position {
	kind: 'message' | 'button' | 'column' | 'action' | 'quick reply';
	position: number;
}

/** A value that breaks a rule: the field (as the editor names it), where it is, and its JSON path. */
export class MessageProblem extends Error {
	constructor(
		readonly field: string,
		readonly problem: string,
		readonly positions: Position[],
		readonly path: string,
	) {
		super(`${field}: ${problem}`);
	}

	/** `Invalid "Label" of button 3 in message 2, item 0: must be at most 20 characters (got 25)` */
	messageFor(item: number): string {
		const [message, ...inner] = this.positions;
		const of = inner
			.reverse()
			.map((p) => ` of ${p.kind} ${p.position}`)
			.join('');
		const where = message ? `${of} in message ${message.position}, item ${item}` : ` in item ${item}`;
		return `Invalid "${this.field}"${where}: ${this.problem}`;
	}
}

/** The walk through one message: where it is, so every problem can say so. */
class At {
	constructor(
		readonly positions: Position[],
		readonly path: string,
	) {}

	into(kind: Position['kind'], index: number, path: string): At {
		return new At([...this.positions, { kind, position: index + 1 }], `${this.path}${path}[${index}]`);
	}

	field(key: string): string {
		return this.path ? `${this.path}.${key}` : key;
	}

	fail(field: string, problem: string, key?: string): never {
		throw new MessageProblem(field, problem, this.positions, key === undefined ? this.path : this.field(key));
	}
}

const chars = characterCount;

const isObject = (value: unknown): value is IDataObject => read.object(value) !== undefined;

function text(at: At, obj: IDataObject, key: string, field: string, rule: { required?: boolean; max?: number }): string | undefined {
	const value = obj[key];
	if (value === undefined || value === null || value === '') {
		if (rule.required) at.fail(field, 'is required', key);
		return undefined;
	}
	if (typeof value !== 'string') at.fail(field, `expected text, got ${shownValue(value)}`, key);
	if (value.trim() === '') {
		if (rule.required) at.fail(field, 'is required and cannot be blank', key);
		return undefined;
	}
	if (rule.max !== undefined && chars(value) > rule.max) {
		at.fail(field, `must be at most ${rule.max} characters (got ${chars(value)})`, key);
	}
	return value;
}

function url(at: At, obj: IDataObject, key: string, field: string, required: boolean): string | undefined {
	const value = text(at, obj, key, field, { required, max: MESSAGE_LIMITS.url });
	if (value === undefined) return undefined;
	let parsed: URL | undefined;
	try {
		parsed = new URL(value);
	} catch {
		parsed = undefined;
	}
	if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || /\s/.test(value)) {
		at.fail(field, `must be an absolute http(s) URL, got ${shownValue(value)}`, key);
	}
	return value;
}

function wholeNumber(at: At, obj: IDataObject, key: string, field: string, min: number): number {
	const value = obj[key];
	const n = numberValue(value);
	if (typeof n !== 'number' || !Number.isInteger(n)) at.fail(field, `must be a whole number, got ${shownValue(value)}`, key);
	if (n < min) at.fail(field, `must be ${min} or more (got ${n})`, key);
	return n;
}

function oneOf<T extends string>(at: At, obj: IDataObject, key: string, field: string, allowed: readonly T[]): T | undefined {
	const value = obj[key];
	if (value === undefined || value === null || value === '') return undefined;
	if (!allowed.includes(value as T)) at.fail(field, `must be one of ${allowed.join(', ')}, got ${shownValue(value)}`, key);
	return value as T;
}

function list(at: At, obj: IDataObject, key: string, field: string, max: number | undefined, noun: string): unknown[] {
	const value = obj[key];
	if (!Array.isArray(value) || value.length === 0) {
		at.fail(field, `at least one ${noun} is required${value === undefined || Array.isArray(value) ? '' : `, got ${shownValue(value)}`}`, key);
	}
	if (max !== undefined && value.length > max) at.fail(field, `at most ${max} ${noun}s are allowed (got ${value.length})`, key);
	return value;
}

/** One action, checked by the one action definition; `uri` is read as `linkUri`, since the service's examples name the link both ways. */
function action(at: At, raw: unknown, usedIn: UsedIn): IDataObject {
	if (!isObject(raw)) at.fail('Action', `expected an action object, got ${shownValue(raw)}`);
	const checked = checkAction({
		type: raw.type,
		usedIn,
		label: raw.label,
		text: raw.text,
		data: raw.data,
		templateId: raw.templateId,
		workflowId: raw.workflowId,
		status: raw.status,
		url: raw.url,
		linkUri: raw.linkUri ?? raw.uri,
		area: isObject(raw.area) ? raw.area : undefined,
	});
	if ('problem' in checked) at.fail(checked.problem.field, checked.problem.problem);
	return checked.action;
}

function actions(at: At, obj: IDataObject, usedIn: UsedIn, kind: Position['kind'], max: number, noun: string): IDataObject[] {
	const field = kind === 'button' ? 'Buttons' : 'Actions';
	return list(at, obj, 'actions', field, max, noun).map((raw, i) => action(at.into(kind, i, '.actions'), raw, usedIn));
}

/** A buttons template or a carousel column: image options, title, text and up to 4 buttons. */
function card(at: At, obj: IDataObject, usedIn: UsedIn): IDataObject {
	const result: IDataObject = { ...obj };
	const thumbnail = url(at, obj, 'thumbnailImageUrl', 'Thumbnail Image URL', false);
	const color = text(at, obj, 'imageBackgroundColor', 'Image Background Color', {});
	if (color !== undefined && !/^#[0-9A-Fa-f]{6}$/.test(color)) {
		at.fail('Image Background Color', `must be a color such as #FFFFFF, got ${shownValue(color)}`, 'imageBackgroundColor');
	}
	const title = text(at, obj, 'title', 'Title', { max: MESSAGE_LIMITS.title });
	const max = thumbnail !== undefined || title !== undefined ? MESSAGE_LIMITS.textWithImageOrTitle : MESSAGE_LIMITS.text;
	const body = text(at, obj, 'text', 'Text', { required: true });
	if (chars(body!) > max) {
		const why = max === MESSAGE_LIMITS.text ? '' : ' with an image or a title';
		at.fail('Text', `must be at most ${max} characters${why} (got ${chars(body!)})`, 'text');
	}
	for (const [key, value] of [['thumbnailImageUrl', thumbnail], ['imageBackgroundColor', color], ['title', title]] as const) {
		if (value === undefined) delete result[key];
	}
	result.actions = actions(at, obj, usedIn, 'button', MESSAGE_LIMITS.actions, 'button');
	return result;
}

function template(at: At, raw: unknown): IDataObject {
	if (!isObject(raw)) at.fail('Template', `expected a template object, got ${shownValue(raw)}`, 'template');
	const inner: At = new At(at.positions, at.field('template'));
	const kind = oneOf(inner, raw, 'type', 'Template Type', ['buttons', 'carousel'] as const);
	if (kind === undefined) inner.fail('Template Type', 'is required (buttons or carousel)', 'type');
	const shared: IDataObject = {};
	for (const [key, field, allowed] of [
		['imageAspectRatio', 'Image Aspect Ratio', IMAGE_ASPECT_RATIOS],
		['imageSize', 'Image Size', IMAGE_SIZES],
	] as const) {
		const value = oneOf<string>(inner, raw, key, field, allowed);
		if (value !== undefined) shared[key] = value;
	}
	if (kind === 'buttons') return { ...card(inner, raw, 'button'), ...shared };
	const columns = list(inner, raw, 'columns', 'Columns', MESSAGE_LIMITS.columns, 'column').map((column, i) => {
		const where: At = inner.into('column', i, '.columns');
		if (!isObject(column)) where.fail('Column', `expected a column object, got ${shownValue(column)}`);
		return card(where, column, 'carousel');
	});
	return { ...raw, ...shared, columns };
}

function quickReply(at: At, raw: unknown): IDataObject {
	if (!isObject(raw)) at.fail('Quick Replies', `expected {"items": [...]}, got ${shownValue(raw)}`, 'quickReply');
	const inner: At = new At(at.positions, at.field('quickReply'));
	const items = list(inner, raw, 'items', 'Quick Replies', undefined, 'quick reply').map((item, i) => {
		const where: At = inner.into('quick reply', i, '.items');
		if (!isObject(item)) where.fail('Quick Reply', `expected a quick-reply item, got ${shownValue(item)}`);
		if (item.type !== undefined && item.type !== 'action') where.fail('Type', `must be "action", got ${shownValue(item.type)}`, 'type');
		const result: IDataObject = { ...item, type: 'action' };
		const icon = url(where, item, 'imageUrl', 'Image URL', false);
		if (icon === undefined) delete result.imageUrl;
		result.action = action(new At(where.positions, where.field('action')), item.action, 'quickReply');
		return result;
	});
	return { ...raw, items };
}

function message(at: At, raw: unknown): IDataObject {
	if (!isObject(raw)) at.fail('Message', `expected a message object, got ${shownValue(raw)}`);
	// One of the service's schema tables names the text type "message"; its push examples send "text", which is what is sent.
	const type = raw.type === 'message' ? 'text' : raw.type;
	if (!MESSAGE_TYPES.includes(type as (typeof MESSAGE_TYPES)[number])) {
		at.fail('Type', `must be one of ${MESSAGE_TYPES.join(', ')}, got ${shownValue(raw.type)}`, 'type');
	}
	const result: IDataObject = { ...raw, type };
	switch (type) {
		case 'text':
			text(at, raw, 'text', 'Text', { required: true });
			break;
		case 'image':
		case 'video':
			url(at, raw, 'originalContentUrl', 'Content URL', true);
			url(at, raw, 'previewImageUrl', 'Preview Image URL', true);
			break;
		case 'audio':
			url(at, raw, 'originalContentUrl', 'Content URL', true);
			result.duration = wholeNumber(at, raw, 'duration', 'Duration (Ms)', 1);
			break;
		case 'imagemap': {
			url(at, raw, 'baseUrl', 'Base URL', true);
			if (!isObject(raw.baseSize)) at.fail('Base Size', `expected {"width", "height"}, got ${shownValue(raw.baseSize)}`, 'baseSize');
			const size: At = new At(at.positions, at.field('baseSize'));
			result.baseSize = {
				...raw.baseSize,
				width: wholeNumber(size, raw.baseSize, 'width', 'Base Width', 1),
				height: wholeNumber(size, raw.baseSize, 'height', 'Base Height', 1),
			};
			result.actions = actions(at, raw, 'imagemap', 'action', MESSAGE_LIMITS.imagemapActions, 'action');
			break;
		}
		case 'template':
			result.template = template(at, raw.template);
			break;
	}
	if (raw.quickReply !== undefined && raw.quickReply !== null) result.quickReply = quickReply(at, raw.quickReply);
	else delete result.quickReply;
	return result;
}

/** JSON text as a value, or why it is not JSON. */
export function parseJson(text: string): { value: unknown } | { problem: string } {
	try {
		return { value: JSON.parse(text) as unknown };
	} catch (error) {
		return { problem: `is not valid JSON (${(error as Error).message})` };
	}
}

/**
 * Messages as the service takes them (`messages[]`), from one message object,
 * a list of them, `{ "messages": [...] }`, or JSON text of any of these.
 * Throws a MessageProblem naming the first value that breaks a rule.
 */
export function checkMessages(raw: unknown): IDataObject[] {
	const top: At = new At([], 'messages');
	let value = raw;
	if (typeof value === 'string') {
		if (value.trim() === '') top.fail('Messages', 'at least one message is required');
		const parsed = parseJson(value);
		if ('problem' in parsed) top.fail('Messages', parsed.problem);
		value = parsed.value;
	}
	if (isObject(value) && value.type === undefined && Array.isArray(value.messages)) value = value.messages;
	const messages = Array.isArray(value) ? value : [value];
	if (messages.length === 0) top.fail('Messages', 'at least one message is required');
	return messages.map((m, i) => message(top.into('message', i, ''), m));
}
