import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const topic: ResourceDefinition = {
	value: 'topic',
	name: 'Topic',
	description: 'Topics of the task-projects area: containers of tasks',
	defaultOperation: 'create',
	operations: [create],
};
