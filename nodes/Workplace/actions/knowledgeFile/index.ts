import type { ResourceDefinition } from '../types';
import { deleteKnowledgeFile } from './delete.operation';
import { download } from './download.operation';
import { get } from './get.operation';
import { getMany } from './getMany.operation';
import { replace } from './replace.operation';

export const knowledgeFile: ResourceDefinition = {
	value: 'knowledgeFile',
	name: 'Knowledge File',
	description: 'Files inside a knowledge base: list, download, replace and delete',
	defaultOperation: getMany.value,
	operations: [deleteKnowledgeFile, download, get, getMany, replace],
};
