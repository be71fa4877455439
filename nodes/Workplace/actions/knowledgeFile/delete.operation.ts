import { goneOnRepeat, read } from '../../../../shared/transport';
import { knowledgeBaseLocator } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { fileIds, fileOutput, knowledgeFileLocator } from '../../../../shared/knowledgeFile/file';

export const deleteKnowledgeFile: OperationDefinition = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a knowledge file',
	description: 'Delete a file from a knowledge base',
	properties: [knowledgeBaseLocator, knowledgeFileLocator],
	request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		return { api: 'knowledgeBase', method: 'DELETE', path: ['knowledge', knowledgeId, 'files', fileId] };
	},
	// The confirmation's shape is not documented (often empty): always say what was deleted.
	output(response, i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		if (response.doneByEarlierAttempt !== undefined) {
			return [{ json: { id: fileId, knowledgeId, deleted: true, note: goneOnRepeat(response.doneByEarlierAttempt, response.statusCode) } }];
		}
		const body = read.object(response.body);
		const confirmation = body ? fileOutput(body) : {};
		return [{ json: { ...confirmation, id: fileId, knowledgeId, deleted: true } }];
	},
};
