import type { IDataObject } from 'n8n-workflow';

import { read } from '../../../../shared/transport';
import { optionsCollection, requiredString } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { requiredText } from '../../../../shared/validation';
import { simplifyUser } from '../simplify';

export const findByUsername: OperationDefinition = {
	value: 'findByUsername',
	name: 'Find by Username',
	action: 'Find users by username',
	description: 'Look users up by username; one output item per user found',
	simplify: simplifyUser,
	properties: [
		requiredString('Username', 'username', 'e.g. somchai.k', 'Username to look up'),
		optionsCollection([
			{
				displayName: 'Exclude Deleted Users',
				name: 'excludeDeleted',
				type: 'boolean',
				default: true,
				description: 'Whether to leave out users whose account is deleted',
			},
			{
				displayName: 'Exact Match Only',
				name: 'exactMatch',
				type: 'boolean',
				default: false,
				description: 'Whether to keep only users whose username equals the one given (ignoring case)',
			},
		]),
	],
	request(i) {
		const username = requiredText(this, i, 'username', 'Username').trim();
		return { api: 'bot', method: 'GET', path: ['bot', 'v1', 'users'], qs: { username } };
	},
	output(response, i) {
		const username = (this.getNodeParameter('username', i) as string).trim().toLowerCase();
		const options = this.getNodeParameter('options', i, {}) as IDataObject;
		const excludeDeleted = options.excludeDeleted !== false;
		const exactMatch = options.exactMatch === true;
		const users = read.list(read.object(response.body)?.users);
		return users
			.filter((user) => !(excludeDeleted && user.deleted === true))
			.filter((user) => !exactMatch || String(user.username ?? '').toLowerCase() === username)
			.map((json) => ({ json }));
	},
};
