import type { ResourceDefinition } from '../types';
import { findByUsername } from './findByUsername.operation';
import { getInfoInGroup } from './getInfoInGroup.operation';

export const user: ResourceDefinition = {
	value: 'user',
	name: 'User',
	description: 'People of the workplace, as the bot sees them',
	defaultOperation: 'findByUsername',
	operations: [findByUsername, getInfoInGroup],
};
