import type { ResourceDefinition } from '../types';
import { build } from './build.operation';

export const messageAction: ResourceDefinition = {
	value: 'messageAction',
	name: 'Message Action',
	description: 'Action objects for bot messages, built locally',
	defaultOperation: 'build',
	operations: [build],
};
