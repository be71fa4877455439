import type { IExecuteFunctions } from 'n8n-workflow';

import { multipartBody, read } from '../../../../shared/transport';
import { binaryFile } from '../../../../shared/binaryFile';
import { requiredString } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { idList, invalid, requiredText } from '../../../../shared/validation';
import { USER_ID } from '../idSources';

/** The binary property holding the group picture, or undefined when none is asked for. */
function pictureProperty(ctx: IExecuteFunctions, i: number): string | undefined {
	const raw = ctx.getNodeParameter('pictureBinaryProperty', i, '') as unknown;
	if (raw === undefined || raw === null || raw === '') return undefined;
	if (typeof raw !== 'string') throw invalid(ctx, i, 'Picture (Binary Property)', 'expected the name of a binary property');
	return raw.trim() === '' ? undefined : raw.trim();
}

export const create: OperationDefinition = {
	value: 'create',
	name: 'Create',
	action: 'Create a group chat',
	description: 'Create a group chat with the given members; the bot is a member too',
	properties: [
		requiredString('Name', 'name', 'e.g. Incident 4711', 'Name of the group chat'),
		requiredString(
			'Member IDs',
			'members',
			// One ID and more to come: two full IDs do not fit the field.
			`${USER_ID.placeholder}, …`,
			'User IDs of the members, separated by commas, or a list from an expression',
			USER_ID.hint,
		),
		{
			displayName: 'Picture (Binary Property)',
			name: 'pictureBinaryProperty',
			type: 'string',
			default: '',
			placeholder: 'e.g. data',
			description: 'Name of the input binary property holding the group picture (PNG, JPEG, GIF or WebP); leave empty for none',
		},
	],
	async request(i) {
		const name = requiredText(this, i, 'name', 'Name');
		const members = idList(this, i, 'members', 'Member IDs');
		const property = pictureProperty(this, i);
		// Checked now, so a missing or non-image picture fails before anything is sent.
		const picture = property === undefined ? undefined : await binaryFile(this, i, property, 'Picture (Binary Property)');
		if (picture?.mimeType && !picture.mimeType.toLowerCase().startsWith('image/')) {
			throw invalid(this, i, 'Picture (Binary Property)', `must be an image, got ${picture.mimeType}`);
		}
		// Name, one `uids[]` part per member, and the picture streamed, built afresh for every attempt.
		const fields: Array<[string, string]> = [['name', name], ...members.map((uid): [string, string] => ['uids[]', uid])];
		return {
			api: 'bot',
			method: 'POST',
			path: ['bot', 'v1', 'groups'],
			body: async () => multipartBody(fields, picture?.part('file')),
		};
	},
	output(response) {
		const body = read.object(response.body) ?? {};
		return [{ json: read.object(body.group) ?? body }];
	},
};
