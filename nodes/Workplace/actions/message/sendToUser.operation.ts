import { multipartBody } from '../../../../shared/transport';
import { binaryFile } from '../../../../shared/binaryFile';
import type { OperationDefinition } from '../types';
import { requiredText, textId } from '../../../../shared/validation';
import { binaryField, binaryProperty, captionField, messageRequest, sentOutput, textField, userLocator, withCaption } from './common';
import { simplifySend } from '../simplify';

export const sendToUser: OperationDefinition = {
	value: 'sendToUser',
	name: 'Send to User',
	action: 'Send a message to a user',
	description: 'Send a text, a picture or a file to a person\'s direct chat with the bot',
	simplify: simplifySend,
	properties: [
		userLocator,
		{
			displayName: 'Send',
			name: 'content',
			type: 'options',
			default: 'text',
			options: [
				{ name: 'Text', value: 'text' },
				{ name: 'Picture', value: 'picture', description: 'An image from a binary field, with an optional caption' },
				{ name: 'File', value: 'file', description: 'A file from a binary field' },
			],
		},
		textField({ show: { content: ['text'] } }),
		{ ...binaryField('The name of the input binary field holding the picture or file'), displayOptions: { show: { content: ['picture', 'file'] } } },
		captionField({ show: { content: ['picture'] } }),
	],
	async request(i) {
		const uid = textId(this, i, 'userId', 'User');
		const content = this.getNodeParameter('content', i) as string;
		if (content === 'text') {
			const text = requiredText(this, i, 'text', 'Text');
			return messageRequest(['bot', 'v1', 'direct', 'message'], { uid, message: { type: 'text', data: text } });
		}
		const file = await binaryFile(this, i, binaryProperty(this, i), 'Input Binary Field');
		const fields = withCaption(this, i, content === 'picture', file, [['uid', uid]]);
		return messageRequest(['bot', 'v1', 'direct', content === 'picture' ? 'picture' : 'file'], async () => multipartBody(fields, file.part('file')));
	},
	output(response, i, request) {
		return [{ json: sentOutput(request, response, { userId: textId(this, i, 'userId', 'User') }) }];
	},
};
