import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const groupTopic: ResourceDefinition = {
	value: 'groupTopic',
	// Named apart from Project Topic (a task-projects container); the value stays 'groupTopic', as workflows store it.
	name: 'Group Chat Topic',
	description: 'A thread inside a group chat of the bot (events give its ID as topicId); not a task-projects topic',
	defaultOperation: 'create',
	operations: [create],
};
