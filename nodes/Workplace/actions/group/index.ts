import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const group: ResourceDefinition = {
	value: 'group',
	name: 'Group',
	description: 'Group chats the bot creates',
	defaultOperation: 'create',
	operations: [create],
};
