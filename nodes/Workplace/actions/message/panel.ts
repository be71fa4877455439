/**
 * The message builder a no-code user fills in (one entry per message, each
 * with its buttons, columns, areas and quick replies), or JSON from earlier
 * nodes; both become v2 messages and pass the one set of checks in model.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { actionFromParameters, actionProperties, FROM_JSON, LABEL_MAX } from './action';
import { read } from '../../transport';
import { entries } from './common';
import { checkMessages, MESSAGE_LIMITS, MessageProblem, parseJson, type Place } from './model';

const forTypes = (...type: string[]) => ({ show: { type } });

const imageOptions: INodeProperties[] = [
	{
		displayName: 'Thumbnail Image URL',
		name: 'thumbnailImageUrl',
		type: 'string',
		default: '',
		placeholder: 'e.g. https://example.com/incident.png',
		description: `Optional picture above the text, an http(s) URL of at most ${MESSAGE_LIMITS.url} characters`,
	},
	{
		displayName: 'Image Background Color',
		name: 'imageBackgroundColor',
		type: 'color',
		default: '',
		description: 'Background behind the picture; the service\'s default is #FFFFFF',
	},
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: `Optional bold title, at most ${MESSAGE_LIMITS.title} characters`,
	},
];

const cardText: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	typeOptions: { rows: 2 },
	default: '',
	description: `Required: at most ${MESSAGE_LIMITS.text} characters, or ${MESSAGE_LIMITS.textWithImageOrTitle} with a picture or a title`,
};

const buttons: INodeProperties = entries('Buttons', 'buttons', ['Button', 'button'], actionProperties('labelled'), {
	description: `One to ${MESSAGE_LIMITS.actions} buttons, each with a label of at most ${LABEL_MAX} characters`,
});

const aspectAndSize: INodeProperties[] = [
	{
		displayName: 'Image Aspect Ratio',
		name: 'imageAspectRatio',
		type: 'options',
		default: 'rectangle',
		options: [
			{ name: 'Rectangle (1.51:1)', value: 'rectangle' },
			{ name: 'Square (1:1)', value: 'square' },
		],
		displayOptions: forTypes('buttons', 'carousel'),
	},
	{
		displayName: 'Image Size',
		name: 'imageSize',
		type: 'options',
		default: 'cover',
		options: [
			{ name: 'Cover (Fill, Cropped)', value: 'cover' },
			{ name: 'Contain (Whole Picture)', value: 'contain' },
		],
		displayOptions: forTypes('buttons', 'carousel'),
	},
];

const messageValues: INodeProperties[] = [
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Audio', value: 'audio', description: 'An audio file by URL' },
			{ name: 'Buttons', value: 'buttons', description: `A card with text and up to ${MESSAGE_LIMITS.actions} buttons` },
			{ name: 'Carousel', value: 'carousel', description: `Up to ${MESSAGE_LIMITS.columns} cards side by side, each with buttons` },
			{ name: 'Image', value: 'image', description: 'A picture by URL' },
			{ name: 'Imagemap', value: 'imagemap', description: `A picture with up to ${MESSAGE_LIMITS.imagemapActions} tappable areas` },
			{ name: 'Text', value: 'text' },
			{ name: 'Video', value: 'video', description: 'A video by URL' },
		],
	},
	{
		...cardText,
		displayOptions: forTypes('text', 'buttons'),
		description: `The text (required). On a buttons card at most ${MESSAGE_LIMITS.text} characters, or ${MESSAGE_LIMITS.textWithImageOrTitle} with a picture or a title`,
	},
	{
		displayName: 'Content URL',
		name: 'originalContentUrl',
		type: 'string',
		default: '',
		displayOptions: forTypes('image', 'video', 'audio'),
		placeholder: 'e.g. https://example.com/chart.png',
		description: `Address of the file, an http(s) URL of at most ${MESSAGE_LIMITS.url} characters (required)`,
	},
	{
		displayName: 'Preview Image URL',
		name: 'previewImageUrl',
		type: 'string',
		default: '',
		displayOptions: forTypes('image', 'video'),
		description: 'Address of the preview picture; for an image, empty uses the Content URL; required for a video',
	},
	{
		displayName: 'Duration (Ms)',
		name: 'duration',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1000,
		displayOptions: forTypes('audio'),
		description: 'Length of the audio in milliseconds',
	},
	...imageOptions.map((p) => ({ ...p, displayOptions: forTypes('buttons') })),
	...aspectAndSize,
	{ ...buttons, displayOptions: forTypes('buttons') },
	entries(
		'Columns',
		'columns',
		['Column', 'column'],
		[...imageOptions, cardText, buttons],
		{ displayOptions: forTypes('carousel'), description: `One to ${MESSAGE_LIMITS.columns} cards` },
	),
	{
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		displayOptions: forTypes('imagemap'),
		placeholder: 'e.g. https://example.com/floorplan',
		description: `Address of the picture, an http(s) URL of at most ${MESSAGE_LIMITS.url} characters (required)`,
	},
	{
		displayName: 'Base Width',
		name: 'baseWidth',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1040,
		displayOptions: forTypes('imagemap'),
		description: 'Width of the picture in pixels; areas are measured in the same pixels',
	},
	{
		displayName: 'Base Height',
		name: 'baseHeight',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1040,
		displayOptions: forTypes('imagemap'),
		description: 'Height of the picture in pixels',
	},
	entries('Areas', 'imagemapActions', ['Area', 'action'], actionProperties('imagemap'), {
		displayOptions: forTypes('imagemap'),
		description: `One to ${MESSAGE_LIMITS.imagemapActions} tappable areas, each with its action`,
	}),
	entries(
		'Quick Replies',
		'quickReplies',
		['Quick Reply', 'quickReply'],
		[
			{
				displayName: 'Icon URL',
				name: 'imageUrl',
				type: 'string',
				default: '',
				description: `Optional icon, an http(s) URL of at most ${MESSAGE_LIMITS.url} characters`,
			},
			...actionProperties('labelled'),
		],
		{ description: 'Buttons offered under the message until the user answers' },
	),
];

/** Where the messages come from, and the builder; `show` limits them to an operation's own choice. */
export function messagesProperties(displayOptions?: INodeProperties['displayOptions']): INodeProperties[] {
	const shown = (extra?: INodeProperties['displayOptions']) => {
		if (!displayOptions && !extra) return {};
		return { displayOptions: { show: { ...displayOptions?.show, ...extra?.show } } };
	};
	return [
		{
			displayName: 'Define Messages',
			name: 'messageSource',
			type: 'options',
			noDataExpression: true,
			default: 'panel',
			options: [
				{ name: 'Using Fields Below', value: 'panel' },
				{ name: 'Using JSON', value: 'json', description: 'Message objects from an earlier node or written by hand' },
			],
			...shown(),
		},
		entries('Messages', 'messages', ['Message', 'message'], messageValues, {
			description: 'Messages sent together, in this order',
			...shown({ show: { messageSource: ['panel'] } }),
		}),
		{
			displayName: 'Messages (JSON)',
			name: 'messagesJson',
			type: 'json',
			default: '',
			placeholder: '[{ "type": "text", "text": "Hello" }] or {{ $json.messages }}',
			description:
				'One message object or a list of them, as the service takes them (type text, image, video, audio, imagemap or template); checked against the same limits as the fields',
			...shown({ show: { messageSource: ['json'] } }),
		},
	];
}

const entriesOf = (collection: unknown, key: string): IDataObject[] => read.list(read.object(collection)?.[key]);

const set = (target: IDataObject, key: string, value: unknown) => {
	if (value !== undefined && value !== null && value !== '') target[key] = value as IDataObject[string];
};

/**
 * Actions of one list (buttons, areas, quick replies) in the document's terms,
 * each with the entry it came from. A "From JSON" entry puts its action, or
 * each action of its list, in its place.
 */
function actionsOf(
	values: IDataObject[],
	area: boolean,
	where: { places: Place[]; path: string; kind: Place['kind'] },
): Array<{ action: unknown; entry: IDataObject }> {
	return values.flatMap((entry, i) => {
		if (entry.type !== FROM_JSON) return [{ action: actionFromParameters(entry, area), entry }];
		let json: unknown = entry.actionJson;
		if (typeof json === 'string' && json.trim() !== '') {
			const parsed = parseJson(json);
			if ('problem' in parsed) {
				const place = { kind: where.kind, position: i + 1 };
				throw new MessageProblem('Action (JSON)', parsed.problem, [...where.places, place], `${where.path}[${i}]`);
			}
			json = parsed.value;
		}
		return (Array.isArray(json) ? json : [json]).map((action: unknown) => ({ action, entry }));
	});
}

function card(values: IDataObject, places: Place[], path: string): IDataObject {
	const result: IDataObject = {};
	for (const key of ['thumbnailImageUrl', 'imageBackgroundColor', 'title', 'text']) set(result, key, values[key]);
	result.actions = actionsOf(entriesOf(values.buttons, 'button'), false, { places, path: `${path}.actions`, kind: 'button' }).map(
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
	const places: Place[] = [{ kind: 'message', position: index + 1 }];
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
			const template: IDataObject = { type: 'buttons', ...card(values, places, `${path}.template`) };
			addImageOptions(template, values, [template]);
			message = { type: 'template', template };
			break;
		}
		case 'carousel': {
			const columns = entriesOf(values.columns, 'column').map((column, c) =>
				card(column, [...places, { kind: 'column', position: c + 1 }], `${path}.template.columns[${c}]`),
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
				places,
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
		const actions = actionsOf(quickReplies, false, { places, path: `${path}.quickReply.items`, kind: 'quick reply' });
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
export function messagesFromPanel(collection: unknown): IDataObject[] {
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
				: messagesFromPanel(ctx.getNodeParameter('messages', i, {}));
		return checkMessages(raw);
	} catch (error) {
		if (!(error instanceof MessageProblem)) throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
		throw new NodeOperationError(ctx.getNode(), error.describe(i), { itemIndex: i, description: `At ${error.path}` });
	}
}
