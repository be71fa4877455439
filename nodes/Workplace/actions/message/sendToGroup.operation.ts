import { read } from '../../../../shared/transport';
import type { OperationDefinition } from '../types';
import { chat, groupLocator, messageRequest, sentOutput, topicLocator } from './common';
import { readMessages } from './messagesFromFields';
import { messagesProperties } from './messageFields';
import { simplifySend } from '../simplify';

export const sendToGroup: OperationDefinition = {
	value: 'sendToGroup',
	name: 'Send to Group or Topic',
	action: 'Send messages to a group or topic',
	description: 'Push one or more messages (text, image, video, audio, buttons, carousel, imagemap, quick replies) to a group chat or one of its topics',
	simplify: simplifySend,
	properties: [groupLocator, topicLocator, ...messagesProperties()],
	request(i) {
		const to = chat(this, i);
		const messages = readMessages(this, i);
		return messageRequest(['bot', 'v2', 'message', 'push'], { ...to, messages });
	},
	output(response, i, request) {
		const to = chat(this, i);
		return [{ json: sentOutput(request, response, { groupId: to.gid, topicId: to.tid ?? null, messageCount: read.list(read.object(request.body)?.messages).length }) }];
	},
};
