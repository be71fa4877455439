import type { IDataObject } from 'n8n-workflow';

import { multipartBody, type ApiRequest, type ErrorText } from '../../../../shared/transport';
import { binaryFile } from '../../../../shared/binaryFile';
import type { OperationDefinition } from '../types';
import { invalid, requiredText } from '../../../../shared/validation';
import { LABEL_MAX } from './action';
import { assertImage, binaryField, binaryProperty, entries, replyTokenField, messageRequest, sentOutput, textField } from './common';
import { readMessages } from './messagesFromFields';
import { messagesProperties } from './messageFields';
import { simplifySend } from '../simplify';

const REPLY_WITH = ['text', 'picture', 'quickReplies', 'messages'] as const;
const shown = (...replyWith: string[]) => ({ show: { replyWith } });

/**
 * What the service's refusals of a reply mean. A reply token answers one event,
 * once, shortly after it arrived; the service has no v2 reply path (it answers 404).
 */
function replyRefusals(i: number, replyWith: string): ApiRequest['statusMeanings'] {
	return {
		400: (text) =>
			/invalid_reply_token/.test(text.description ?? '')
				? { ...text, message: `The service refused the reply token of item ${i}: a token answers one event once, shortly after it arrived (${text.message})` }
				: undefined,
		...(replyWith === 'messages'
			? {
					404: (text: ErrorText) => ({
						...text,
						message:
							`The service has no v2 reply (POST /bot/v2/message/reply answered 404), so item ${i} was not sent. ` +
							"Send the messages with Message → Send to Group or Topic instead, to the event's chat: Group {{ $json.groupId }}, Topic {{ $json.topicId }}",
					}),
				}
			: {}),
	};
}

/** v1 quick replies (GR): a prompt and labelled items; a tap comes back as an ordinary text message event. */
function quickReplyItems(values: unknown, fail: (problem: string) => never): IDataObject[] {
	const entries = (values as IDataObject | undefined)?.item;
	if (!Array.isArray(entries) || entries.length === 0) fail('at least one quick reply is required');
	return (entries as IDataObject[]).map((entry, n) => {
		const label = typeof entry.label === 'string' ? entry.label : '';
		if (label.trim() === '') fail(`the label of quick reply ${n + 1} is required`);
		if ([...label].length > LABEL_MAX) {
			fail(`the label of quick reply ${n + 1} must be at most ${LABEL_MAX} characters (got ${[...label].length})`);
		}
		const text = typeof entry.text === 'string' && entry.text.trim() !== '' ? entry.text : label;
		return { type: 'label', value: label, data: { text } };
	});
}

export const reply: OperationDefinition = {
	value: 'reply',
	name: 'Reply',
	action: 'Reply to an event',
	description: 'Answer a message, postback or join event in its chat, with the event\'s reply token',
	simplify: simplifySend,
	properties: [
		replyTokenField,
		{
			displayName: 'Reply With',
			name: 'replyWith',
			type: 'options',
			default: 'text',
			options: [
				{ name: 'Text', value: 'text' },
				{ name: 'Picture', value: 'picture', description: 'An image from a binary field' },
				{ name: 'Quick Replies', value: 'quickReplies', description: 'A prompt with answers to tap; a tap comes back as a text message event' },
				{
					name: 'Messages (Buttons, Carousel, …)',
					value: 'messages',
					description: 'Rich messages through the v2 reply, where the service offers it',
				},
			],
		},
		textField(shown('text', 'quickReplies'), 'The reply; with quick replies, the prompt shown above them'),
		{ ...binaryField('The name of the input binary field holding the picture'), displayOptions: shown('picture') },
		entries(
			'Quick Replies',
			'quickReplies',
			['Quick Reply', 'item'],
			[
				{
					displayName: 'Label',
					name: 'label',
					type: 'string',
					default: '',
					description: `Shown on the answer, at most ${LABEL_MAX} characters (required)`,
				},
				{
					displayName: 'Text',
					name: 'text',
					type: 'string',
					default: '',
					description: 'Sent as the user\'s message when tapped; empty sends the label',
				},
			],
			{ displayOptions: shown('quickReplies') },
		),
		...messagesProperties(shown('messages')),
	],
	async request(i) {
		const token = this.getNodeParameter('replyTo', i, '') as unknown;
		if (token === undefined || token === null || token === '') {
			throw invalid(this, i, 'Reply Token', 'is required: the input item has none (the Workplace Trigger gives each event\'s as replyToken)');
		}
		const replyToken = requiredText(this, i, 'replyTo', 'Reply Token').trim();
		const replyWith = this.getNodeParameter('replyWith', i) as (typeof REPLY_WITH)[number];
		if (!REPLY_WITH.includes(replyWith)) throw invalid(this, i, 'Reply With', `must be one of ${REPLY_WITH.join(', ')}`);
		const refusals = replyRefusals(i, replyWith);
		switch (replyWith) {
			case 'text': {
				// The service's pages document the v1 text reply as a multipart form (message, replyToken), not JSON.
				const text = requiredText(this, i, 'text', 'Text');
				return messageRequest(['bot', 'v1', 'message', 'text'], async () => multipartBody([['message', text], ['replyToken', replyToken]]), refusals);
			}
			case 'picture': {
				const file = await binaryFile(this, i, binaryProperty(this, i), 'Input Binary Field');
				assertImage(this, i, file.mimeType);
				return messageRequest(['bot', 'v1', 'message', 'picture'], async () => multipartBody([['replyToken', replyToken]], file.part('file')), refusals);
			}
			case 'quickReplies': {
				const prompt = requiredText(this, i, 'text', 'Text');
				const items = quickReplyItems(this.getNodeParameter('quickReplies', i, {}), (problem) => {
					throw invalid(this, i, 'Quick Replies', problem);
				});
				// `meta` goes inside `message`, where the service's example request puts it.
				const message = { data: prompt, meta: { quickreply: { template: 'default', items } } };
				return messageRequest(['bot', 'v1', 'message', 'quickreply'], { replyToken, message }, refusals);
			}
			default:
				return messageRequest(['bot', 'v2', 'message', 'reply'], { replyToken, messages: readMessages(this, i) }, refusals);
		}
	},
	output(response, i, request) {
		return [{ json: sentOutput(request, response, { replyWith: this.getNodeParameter('replyWith', i) as string }) }];
	},
};
