import type { ResourceDefinition } from '../types';
import { create } from './create.operation';
import { deleteKnowledgeBase } from './delete.operation';
import { get } from './get.operation';
import { getMany } from './getMany.operation';

export const knowledgeBase: ResourceDefinition = {
	value: 'knowledgeBase',
	name: 'Knowledge Base',
	description: 'Named collections of files used for search',
	defaultOperation: getMany.value,
	operations: [create, deleteKnowledgeBase, get, getMany],
};
