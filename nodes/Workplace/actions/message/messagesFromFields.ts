/**
 * The message builder a no-code user fills in (one entry per message, each
 * with its buttons, columns, areas and quick replies), or JSON from earlier
 * nodes; both become v2 messages and pass the one set of checks in model.ts.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { actionFromParameters, FROM_JSON } from './actionFields';
import { read } from '../../../../shared/transport';
import { checkMessages, MessageProblem, parseJson, type Position } from './model';

const entriesOf = (collection: unknown, key: string): IDataObject[] => read.list(read.object(collection)?.[key]);

const set = (target: IDataObject, key: string, value: unknown) => {
	if (value !== undefined && value !== null && value !== '') target[key] = value as IDataObject[string];
};

/**
 * Actions of one list (buttons, areas, quick replies) in the service's terms,
 * each with the entry it came from. A "From JSON" entry puts its action, or
 * each action of its list, in its place.
 */
function actionsOf(
	values: IDataObject[],
	area: boolean,
	where: { positions: Position[]; path: string; kind: Position['kind'] },
): Array<{ action: unknown; entry: IDataObject }> {
	return values.flatMap((entry, i) => {
		if (entry.type !== FROM_JSON) return [{ action: actionFromParameters(entry, area), entry }];
		let json: unknown = entry.actionJson;
		if (typeof json === 'string' && json.trim() !== '') {
			const parsed = parseJson(json);
			if ('problem' in parsed) {
				const place = { kind: where.kind, position: i + 1 };
				throw new MessageProblem('Action (JSON)', parsed.problem, [...where.positions, place], `${where.path}[${i}]`);
			}
			json = parsed.value;
		}
		return (Array.isArray(json) ? json : [json]).map((action: unknown) => ({ action, entry }));
	});
}

function card(values: IDataObject, positions: Position[], path: string): IDataObject {
	const result: IDataObject = {};
	for (const key of ['thumbnailImageUrl', 'imageBackgroundColor', 'title', 'text']) set(result, key, values[key]);
	result.actions = actionsOf(entriesOf(values.buttons, 'button'), false, { positions, path: `${path}.actions`, kind: 'button' }).map(
		(a) => a.action as IDataObject,
	);
	return result;
}

/** Aspect ratio and size say how pictures show: sent only when a card has one. */
function addImageOptions(template: IDataObject, values: IDataObject, cards: IDataObject[]): void {
	if (!cards.some((c) => c.thumbnailImageUrl !== undefined)) return;
	set(template, 'imageAspectRatio', values.imageAspectRatio);
	set(template, 'imageSize', values.imageSize);
}

/** One builder entry as a v2 message, not yet checked. */
function fromEntry(values: IDataObject, index: number): IDataObject {
	const positions: Position[] = [{ kind: 'message', position: index + 1 }];
	const path = `messages[${index}]`;
	const type = values.type ?? 'text';
	let message: IDataObject;
	switch (type) {
		case 'image':
		case 'video': {
			message = { type };
			set(message, 'originalContentUrl', values.originalContentUrl);
			// An image is its own preview unless another is given (as the vendor's own sender does).
			const preview = values.previewImageUrl || (type === 'image' ? values.originalContentUrl : undefined);
			set(message, 'previewImageUrl', preview);
			break;
		}
		case 'audio':
			message = { type };
			set(message, 'originalContentUrl', values.originalContentUrl);
			set(message, 'duration', values.duration ?? 1000);
			break;
		case 'buttons': {
			const template: IDataObject = { type: 'buttons', ...card(values, positions, `${path}.template`) };
			addImageOptions(template, values, [template]);
			message = { type: 'template', template };
			break;
		}
		case 'carousel': {
			const columns = entriesOf(values.columns, 'column').map((column, c) =>
				card(column, [...positions, { kind: 'column', position: c + 1 }], `${path}.template.columns[${c}]`),
			);
			const template: IDataObject = { type: 'carousel', columns };
			addImageOptions(template, values, columns);
			message = { type: 'template', template };
			break;
		}
		case 'imagemap':
			message = { type };
			set(message, 'baseUrl', values.baseUrl);
			message.baseSize = { width: values.baseWidth ?? 1040, height: values.baseHeight ?? 1040 };
			message.actions = actionsOf(entriesOf(values.imagemapActions, 'action'), true, {
				positions,
				path: `${path}.actions`,
				kind: 'action',
			}).map((a) => a.action as IDataObject);
			break;
		default:
			message = { type };
			set(message, 'text', values.text);
	}
	const quickReplies = entriesOf(values.quickReplies, 'quickReply');
	if (quickReplies.length > 0) {
		const actions = actionsOf(quickReplies, false, { positions, path: `${path}.quickReply.items`, kind: 'quick reply' });
		message.quickReply = {
			items: actions.map(({ action, entry }) => {
				const item: IDataObject = { type: 'action', action: action as IDataObject };
				if (entry.type !== FROM_JSON) set(item, 'imageUrl', entry.imageUrl);
				return item;
			}),
		};
	}
	return message;
}

/** The builder's entries as v2 messages, not yet checked. */
export function messagesFromFields(collection: unknown): IDataObject[] {
	return entriesOf(collection, 'message').map(fromEntry);
}

/**
 * Item i's messages, checked: from the builder or from JSON. Every problem is a
 * NodeOperationError naming item, message, button and field, before anything is sent.
 */
export function readMessages(ctx: IExecuteFunctions, i: number): IDataObject[] {
	const source = ctx.getNodeParameter('messageSource', i, 'panel') as string;
	try {
		const raw =
			source === 'json'
				? (ctx.getNodeParameter('messagesJson', i, '') as unknown)
				: messagesFromFields(ctx.getNodeParameter('messages', i, {}));
		return checkMessages(raw);
	} catch (error) {
		if (!(error instanceof MessageProblem)) throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
		throw new NodeOperationError(ctx.getNode(), error.messageFor(i), { itemIndex: i, description: `At ${error.path}` });
	}
}
