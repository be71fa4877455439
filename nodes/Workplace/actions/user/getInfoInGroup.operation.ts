import { requiredString } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { textId } from '../../../../shared/validation';
import { simplifyUser } from '../simplify';
import { GROUP_ID, USER_ID } from '../idSources';

export const getInfoInGroup: OperationDefinition = {
	value: 'getInfoInGroup',
	name: 'Get Info in Group',
	action: 'Get info about a user in a group',
	description: 'Read a user\'s name, avatar and admin flag; both the user and the bot must be members of the group',
	simplify: simplifyUser,
	properties: [
		requiredString('Group ID', 'groupId', GROUP_ID.placeholder, 'ID of the group chat', GROUP_ID.hint),
		requiredString('User ID', 'userId', USER_ID.placeholder, 'ID of the user', USER_ID.hint),
	],
	request(i) {
		const gid = textId(this, i, 'groupId', 'Group ID');
		const uid = textId(this, i, 'userId', 'User ID');
		const membership = `user ${uid} and the bot must both be members of group ${gid}`;
		return {
			api: 'bot',
			method: 'GET',
			path: ['bot', 'v2', 'groups', gid, 'users', uid, 'info'],
			// The service returns the info only when both the user and the bot are members of the group.
			statusMeanings: {
				403: `No info: ${membership}, and at least one of them is not`,
				404: `No info: the group or the user was not found, or one of them is not a member (${membership})`,
			},
		};
	},
};
