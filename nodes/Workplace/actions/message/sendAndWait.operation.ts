import type { INodeProperties } from 'n8n-workflow';

import type { OperationDefinition } from '../types';
import type { ApiRequest } from '../../../../shared/transport';
import { textId } from '../../../../shared/validation';
import { askQuestion, sendAndWaitProperties, sendAndWaitWebhook, waitForAnswer, type Question } from '../../../../shared/sendAndWait';
import { chat, groupLocator, messageRequest, sentOutput, topicLocator, userLocator } from './common';
import { LABEL_MAX, MESSAGE_LIMITS } from './rules';
import { USER_ID } from '../idSources';

/** The send, with the question it asks (made once, in request, and waited on in output). */
type QuestionRequest = ApiRequest & { question: Question };

const sendTo: INodeProperties = {
	displayName: 'Send To',
	name: 'sendTo',
	type: 'options',
	default: 'group',
	options: [
		{ name: 'Group or Topic', value: 'group', description: 'Buttons in the chat (answered by link or, with Answer in Chat, in the chat itself)' },
		{ name: 'User', value: 'user', description: 'A direct message with answer links (the direct message endpoint sends no buttons)' },
	],
};

export const sendAndWait: OperationDefinition<QuestionRequest> = {
	value: 'sendAndWait',
	name: 'Send and Wait for Response',
	action: 'Send a message and wait for response',
	description: 'Ask a question with buttons and wait for the answer: approval, free text or a form; answered by link or, in a group, in the chat by named people',
	properties: [
		sendTo,
		{ ...groupLocator, displayOptions: { show: { sendTo: ['group'] } } },
		{ ...topicLocator, displayOptions: { show: { sendTo: ['group'] } } },
		{ ...userLocator, displayOptions: { show: { sendTo: ['user'] } } },
		...sendAndWaitProperties(LABEL_MAX, USER_ID),
	],
	waits: true,
	async request(i) {
		const toUser = this.getNodeParameter('sendTo', i, 'group') === 'user';
		// Read before the question is made and recorded, so a bad target sends and records nothing.
		const target = toUser ? { uid: textId(this, i, 'userId', 'User') } : chat(this, i);
		const { question, message, buttons } = await askQuestion(this, i, { labelMax: LABEL_MAX, toUser });
		if ('uid' in target) {
			// A direct message has no buttons: one line per answer, with its link.
			const links = buttons.map((b) => `${b.label}: ${b.link}`).join('\n');
			return { ...messageRequest(['bot', 'v1', 'direct', 'message'], { ...target, message: { type: 'text', data: `${message}\n\n${links}` } }), question };
		}
		const actions = buttons.map((b) => (b.postback ? { type: 'postback', label: b.label, text: b.label, data: b.postback } : { type: 'uri', label: b.label, linkUri: b.link }));
		const short = [...message].length <= MESSAGE_LIMITS.text;
		const template = { type: 'template', template: { type: 'buttons', text: short ? message : 'Your answer:', actions } };
		return { ...messageRequest(['bot', 'v2', 'message', 'push'], { ...target, messages: short ? [template] : [{ type: 'text', text: message }, template] }), question };
	},
	async output(response, _i, request) {
		await waitForAnswer(this, request.question);
		const body = request.body as { gid?: string; uid?: string };
		return [{ json: sentOutput(request, response, { waitingForAnswer: true, groupId: body.gid ?? null, userId: body.uid ?? null }) }];
	},
	webhook: sendAndWaitWebhook,
};
