import { goneOnRepeat, read } from '../../../../shared/transport';
import type { OperationDefinition } from '../types';
import { knowledgeBaseLocator } from '../../../../shared/descriptions';
import { numericId } from '../../../../shared/validation';

export const deleteKnowledgeBase: OperationDefinition = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a knowledge base',
	description: 'Delete a knowledge base and its files',
	properties: [knowledgeBaseLocator],
	request(i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		return { api: 'knowledgeBase', method: 'DELETE', path: ['knowledge', id] };
	},
	// The confirmation's shape is not documented (often empty): always say what was deleted.
	output(response, i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		if (response.doneByEarlierAttempt !== undefined) {
			return [{ json: { id, deleted: true, note: goneOnRepeat(response.doneByEarlierAttempt, response.statusCode) } }];
		}
		const confirmation = read.object(response.body) ?? {};
		return [{ json: { ...confirmation, id, deleted: true } }];
	},
};
