import type { OperationDefinition } from '../types';
import { knowledgeBaseLocator } from '../common.descriptions';
import { numericId } from '../validation';

export const get: OperationDefinition = {
	value: 'get',
	name: 'Get',
	action: 'Get a knowledge base',
	description: 'Retrieve one knowledge base',
	properties: [knowledgeBaseLocator],
	request(i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		return { area: 'knowledgeBase', method: 'GET', path: ['knowledge', id] };
	},
};
