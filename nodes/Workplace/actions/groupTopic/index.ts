import type { ResourceDefinition } from '../types';
import { create } from './create.operation';

export const groupTopic: ResourceDefinition = {
	value: 'groupTopic',
	name: 'Group Topic',
	description: 'Topics inside a group chat',
	defaultOperation: 'create',
	operations: [create],
};
