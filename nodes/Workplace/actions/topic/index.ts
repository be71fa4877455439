import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const topic: ResourceDefinition = {
	value: 'topic',
	// Named apart from Group Chat Topic (a chat thread); the value stays 'topic', as workflows store it.
	name: 'Project Topic',
	description: 'A container of tasks in task projects (its ID starts with top_); not a topic of a group chat',
	defaultOperation: 'create',
	operations: [create],
};
