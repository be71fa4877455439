import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const task: ResourceDefinition = {
	value: 'task',
	name: 'Task',
	description: 'Tasks of the task-projects area, optionally subtasks of a project topic or another task',
	defaultOperation: 'create',
	operations: [create],
};
