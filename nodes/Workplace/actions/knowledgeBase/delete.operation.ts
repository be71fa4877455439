import type { IDataObject } from 'n8n-workflow';

import type { OperationDefinition } from '../types';
import { knowledgeBaseLocator } from '../common.descriptions';
import { numericId } from '../validation';

export const deleteKnowledgeBase: OperationDefinition = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a knowledge base',
	description: 'Delete a knowledge base and its files',
	properties: [knowledgeBaseLocator],
	request(i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		return { area: 'knowledgeBase', method: 'DELETE', path: ['knowledge', id], idempotent: true };
	},
	// The confirmation's shape is not documented (often empty): always say what was deleted.
	output(response, i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		const body = response.body;
		const confirmation = body && typeof body === 'object' && !Array.isArray(body) ? (body as IDataObject) : {};
		return [{ json: { ...confirmation, id, deleted: true } }];
	},
};
