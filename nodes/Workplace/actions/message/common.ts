/**
 * What the Message operations share: where a message goes (group, topic, user,
 * reply token), the binary field a picture or file comes from, and how the
 * service's answer to a send becomes output.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { read, type ApiRequest, type ApiResponse } from '../../../../shared/transport';
import type { BinaryFile } from '../../../../shared/binaryFile';
import { invalid, optionalTextId, requiredText, textId } from '../../../../shared/validation';
import { GROUP_ID, TOPIC_ID, USER_ID, type IdSource } from '../idSources';

/** Groups and topics have no list endpoint: an ID, from an event or a create's output (said under the field). */
const idLocator = (displayName: string, name: string, source: IdSource, description: string, required: boolean): INodeProperties => ({
	displayName,
	name,
	type: 'resourceLocator',
	default: { mode: 'id', value: '' },
	required,
	description,
	hint: source.hint,
	modes: [{ displayName: 'ID', name: 'id', type: 'string', placeholder: source.placeholder }],
});

export const groupLocator = idLocator('Group', 'groupId', GROUP_ID, 'ID of the group chat (or of a direct chat, as events name it)', true);

export const topicLocator = idLocator('Topic', 'topicId', TOPIC_ID, 'ID of a topic (a thread) of the group chat; leave empty for the group\'s main chat', false);

export const userLocator: INodeProperties = {
	displayName: 'User',
	name: 'userId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The person whose direct chat with the bot gets the message: found by username, or given by ID',
	hint: USER_ID.hint,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Type a username…',
			typeOptions: { searchListMethod: 'searchUsers', searchable: true, searchFilterRequired: true },
		},
		{ displayName: 'ID', name: 'id', type: 'string', placeholder: USER_ID.placeholder },
	],
};

export const replyTokenField: INodeProperties = {
	displayName: 'Reply Token',
	// Not a secret (it answers one event, once), so not named "…token": n8n's scanner would ask to mask it.
	name: 'replyTo',
	type: 'string',
	default: '={{ $json.replyToken }}',
	required: true,
	description: 'The replyToken of the event being answered (from the Workplace Trigger). It can be used once, shortly after the event.',
};

/** A list the user adds entries to (messages, buttons, columns, areas, quick replies); `entry` is [display name, name] of one. */
export const entries = (
	displayName: string,
	name: string,
	entry: [string, string],
	values: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties => ({
	displayName,
	name,
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	default: {},
	placeholder: `Add ${entry[0]}`,
	options: [{ displayName: entry[0], name: entry[1], values }],
	...extra,
});

/** The text of a text message or reply. */
export const textField = (displayOptions: INodeProperties['displayOptions'], description?: string): INodeProperties => ({
	displayName: 'Text',
	name: 'text',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	required: true,
	displayOptions,
	...(description ? { description } : {}),
});

export const captionField = (displayOptions: INodeProperties['displayOptions']): INodeProperties => ({
	displayName: 'Caption',
	name: 'caption',
	type: 'string',
	default: '',
	displayOptions,
	description: 'Optional text shown with the picture',
});

export const binaryField = (description: string): INodeProperties => ({
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	hint: description,
});

/** The group and optional topic of item i; an empty topic is left out: a message without one goes to the group's main chat. */
export function chat(ctx: IExecuteFunctions, i: number): { gid: string; tid?: string } {
	const gid = textId(ctx, i, 'groupId', 'Group');
	const tid = optionalTextId(ctx, i, 'topicId', 'Topic');
	return tid === undefined ? { gid } : { gid, tid };
}

/** The input binary field name of item i. */
export const binaryProperty = (ctx: IExecuteFunctions, i: number) => requiredText(ctx, i, 'binaryPropertyName', 'Input Binary Field').trim();

/** A picture must be an image when its binary says what it is. */
export function assertImage(ctx: IExecuteFunctions, i: number, mimeType: string | undefined): void {
	if (mimeType && !mimeType.toLowerCase().startsWith('image/')) {
		throw invalid(ctx, i, 'Input Binary Field', `a picture must be an image, got ${mimeType}`);
	}
}

/** The multipart parts of a picture or file send: `fields`, then a picture's caption (checked to be an image) when set. */
export function withCaption(ctx: IExecuteFunctions, i: number, picture: boolean, file: BinaryFile, fields: Array<[string, string]>): Array<[string, string]> {
	if (!picture) return fields;
	assertImage(ctx, i, file.mimeType);
	const caption = ctx.getNodeParameter('caption', i, '') as string;
	return caption.trim() === '' ? fields : [...fields, ['caption', caption]];
}

/** A send's request: a POST that delivers a message (said so when its fate is unknown after a failure). */
export const messageRequest = (path: string[], body: ApiRequest['body'], statusMeanings?: ApiRequest['statusMeanings']): ApiRequest => ({
	api: 'bot',
	method: 'POST',
	path,
	body,
	effect: 'delivered',
	...(statusMeanings ? { statusMeanings } : {}),
});

/** The note of a send the service confirmed without any message id. */
export const NO_IDS_GIVEN = 'The service confirmed the send but gave no message id';

/**
 * What was sent, and where. Any 2xx is success; the v1 answer's `message`
 * (id, type, groupId, threadId) is read when present; not every answer carries
 * it. `ids` is always a list of the message ids the service gave (empty when it
 * gave none, and then `note` says so), so `{{ $json.ids[0] }}` is an id or empty.
 */
export function sentOutput(request: ApiRequest, answer: ApiResponse, where: IDataObject): IDataObject {
	const body = read.object(answer.body);
	const message = read.object(body?.message);
	const messageId = read.text(message?.id);
	const threadId = read.text(message?.threadId);
	return {
		sent: true,
		endpoint: `POST /${request.path.join('/')}`,
		...where,
		ids: messageId === undefined ? [] : [messageId],
		messageId: messageId ?? null,
		...(threadId === undefined ? {} : { threadId }),
		...(messageId === undefined ? { note: NO_IDS_GIVEN } : {}),
		// More than 1 only when the service refused the earlier attempts before taking them (429, connection refused).
		attempts: answer.attempts ?? 1,
		response: body ?? null,
	};
}
