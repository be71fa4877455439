import { read } from '../../../../shared/transport';
import { requiredString } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { requiredText, textId } from '../../../../shared/validation';
import { GROUP_ID } from '../idSources';

export const create: OperationDefinition = {
	value: 'create',
	name: 'Create',
	action: 'Create a topic in a group chat',
	description: 'Create a topic inside a group chat the bot is a member of',
	properties: [
		requiredString('Group ID', 'groupId', GROUP_ID.placeholder, 'ID of the group chat the topic goes into', GROUP_ID.hint),
		requiredString('Name', 'name', 'e.g. Timeline', 'Name of the topic'),
	],
	request(i) {
		const groupId = textId(this, i, 'groupId', 'Group ID');
		const name = requiredText(this, i, 'name', 'Name');
		// Form-encoded (application/x-www-form-urlencoded) as in the service's sample; it also declares JSON (fallback).
		return {
			api: 'bot',
			method: 'POST',
			path: ['bot', 'v1', 'groups', groupId, 'topics'],
			form: { name },
			statusMeanings: {
				403: `The bot is not a member of group ${groupId}, so it cannot create topics there`,
				404: `Group ${groupId} was not found`,
			},
		};
	},
	// A refusal of the form (400, 415 or 422: nothing was created) is asked once more as JSON, the body the service declares.
	fallback(error, _i, request) {
		const status = Number(error.httpCode);
		if (request.form === undefined || ![400, 415, 422].includes(status)) return undefined;
		const { form, ...rest } = request;
		return { ...rest, body: form };
	},
	output(response) {
		const body = read.object(response.body) ?? {};
		return [{ json: read.object(body.topic) ?? body }];
	},
};
