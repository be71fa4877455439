import { read } from '../../../../shared/transport';
import { knowledgeBaseLocator } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { deletingHints, fileIds, fileOutput, knowledgeFileLocator } from '../../../../shared/knowledgeFile/file';
import { simplifyKnowledgeFile } from '../simplify';

export const get: OperationDefinition = {
	value: 'get',
	name: 'Get',
	action: 'Get a knowledge file',
	description: 'Retrieve one file of a knowledge base',
	simplify: simplifyKnowledgeFile,
	properties: [knowledgeBaseLocator, knowledgeFileLocator],
	request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		return { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId] };
	},
	output(response) {
		const file = read.object(response.body) ?? { response: response.body ?? null };
		return [{ json: fileOutput(file) }];
	},
	hints: deletingHints,
};
