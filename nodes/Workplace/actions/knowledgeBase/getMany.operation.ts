import type { OperationDefinition } from '../types';
import { returnAllOrLimit } from '../list';
import { simplifyKnowledgeBase } from '../simplify';

export const getMany: OperationDefinition = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many knowledge bases',
	description: 'List knowledge bases, page by page',
	simplify: simplifyKnowledgeBase,
	properties: [...returnAllOrLimit()],
	request() {
		return { api: 'knowledgeBase', method: 'GET', path: ['knowledge'] };
	},
	list: { pageSize: 100 },
};
