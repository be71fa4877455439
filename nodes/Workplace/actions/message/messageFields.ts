/**
 * The message builder's parameters as the editor shows them: where the messages
 * come from (fields or JSON) and one entry per message with its buttons,
 * columns, areas and quick replies. messagesFromFields.ts reads them back.
 */
import type { INodeProperties } from 'n8n-workflow';

import { LABEL_MAX } from './action';
import { actionProperties } from './actionFields';
import { entries } from './common';
import { MESSAGE_LIMITS } from './model';

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
