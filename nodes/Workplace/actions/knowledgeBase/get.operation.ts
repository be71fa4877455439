import type { OperationDefinition } from '../types';
import { knowledgeBaseLocator } from '../../../../shared/descriptions';
import { numericId } from '../../../../shared/validation';
import { simplifyKnowledgeBase } from '../simplify';

export const get: OperationDefinition = {
	value: 'get',
	name: 'Get',
	action: 'Get a knowledge base',
	description: 'Retrieve one knowledge base',
	simplify: simplifyKnowledgeBase,
	properties: [knowledgeBaseLocator],
	request(i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		return { api: 'knowledgeBase', method: 'GET', path: ['knowledge', id] };
	},
};
