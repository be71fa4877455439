import { multipartBody } from '../../../../shared/transport';
import { binaryFile } from '../../../../shared/binaryFile';
import type { OperationDefinition } from '../types';
import { binaryField, binaryProperty, captionField, chat, groupLocator, messageRequest, sentOutput, topicLocator, withCaption } from './common';
import { simplifySend } from '../simplify';

export const sendFileToGroup: OperationDefinition = {
	value: 'sendFileToGroup',
	name: 'Send Picture or File to Group or Topic',
	action: 'Send a picture or file to a group or topic',
	description: 'Send a picture or a file from a binary field to a group chat or one of its topics, streamed',
	simplify: simplifySend,
	properties: [
		groupLocator,
		topicLocator,
		{
			displayName: 'Send As',
			name: 'sendAs',
			type: 'options',
			default: 'picture',
			options: [
				{ name: 'Picture', value: 'picture', description: 'Shown in the chat, with an optional caption' },
				{ name: 'File', value: 'file', description: 'A file to download' },
			],
		},
		binaryField('The name of the input binary field holding the picture or file'),
		captionField({ show: { sendAs: ['picture'] } }),
	],
	async request(i) {
		const { gid, tid } = chat(this, i);
		const sendAs = this.getNodeParameter('sendAs', i) as string;
		const file = await binaryFile(this, i, binaryProperty(this, i), 'Input Binary Field');
		const fields = withCaption(this, i, sendAs === 'picture', file, tid === undefined ? [['gid', gid]] : [['gid', gid], ['tid', tid]]);
		return messageRequest(['bot', 'v1', 'group', sendAs === 'picture' ? 'picture' : 'file'], async () => multipartBody(fields, file.part('file')));
	},
	output(response, i, request) {
		const to = chat(this, i);
		return [{ json: sentOutput(request, response, { groupId: to.gid, topicId: to.tid ?? null }) }];
	},
};
