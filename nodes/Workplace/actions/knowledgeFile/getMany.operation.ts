import type { IDataObject } from 'n8n-workflow';

import { read } from '../../../../shared/transport';
import { knowledgeBaseLocator } from '../../../../shared/descriptions';
import { returnAllOrLimit } from '../list';
import type { OperationDefinition } from '../types';
import { invalid, numericId } from '../../../../shared/validation';
import { deletingHints, fileOutput } from '../../../../shared/knowledgeFile/file';
import { simplifyKnowledgeFile } from '../simplify';

const STATUSES = ['active', 'deleting'] as const;

export const getMany: OperationDefinition = {
	value: 'getAll',
	name: 'Get Many',
	action: 'Get many knowledge files',
	description: 'List the files of a knowledge base, page by page, optionally filtered',
	simplify: simplifyKnowledgeFile,
	properties: [
		knowledgeBaseLocator,
		...returnAllOrLimit(),
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			description: 'Applied while paging, so Limit counts matching files',
			options: [
				{
					displayName: 'Mime Type',
					name: 'mimeType',
					type: 'string',
					default: '',
					placeholder: 'e.g. text/csv',
					description: 'Only files of this type (meta.mimetype), ignoring letter case',
				},
				{
					displayName: 'Original Name',
					name: 'originalName',
					type: 'string',
					default: '',
					placeholder: 'e.g. faq.csv',
					description: 'Only files whose name as uploaded (meta.originalName) matches',
				},
				{
					displayName: 'Original Name Match',
					name: 'originalNameMatch',
					type: 'options',
					default: 'equals',
					options: [
						{ name: 'Equals', value: 'equals', description: 'Exactly this name, letter case included' },
						{ name: 'Contains', value: 'contains', description: 'Contains this text, ignoring letter case' },
					],
					description: 'How Original Name is compared',
				},
				{
					displayName: 'Status',
					name: 'status',
					type: 'options',
					default: 'active',
					options: [
						{ name: 'Active', value: 'active', description: 'Files the language model uses' },
						{
							name: 'Deleting',
							value: 'deleting',
							description: 'Files being deleted; the language model does not use their content',
						},
					],
					description: 'Only files with this status',
				},
			],
		},
	],
	request(i) {
		const id = numericId(this, i, 'knowledgeId', 'Knowledge Base');
		return { api: 'knowledgeBase', method: 'GET', path: ['knowledge', id, 'files'] };
	},
	list: {
		pageSize: 100,
		filter(i) {
			const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
			const tests: Array<(file: IDataObject) => boolean> = [];
			const meta = (file: IDataObject) => read.object(file.meta) ?? {};

			const name = filters.originalName;
			if (name !== undefined && name !== '') {
				if (typeof name !== 'string') throw invalid(this, i, 'Original Name', 'expected text');
				const match = filters.originalNameMatch ?? 'equals';
				if (match === 'equals') {
					tests.push((file) => meta(file).originalName === name);
				} else if (match === 'contains') {
					const needle = name.toLowerCase();
					tests.push((file) => String(meta(file).originalName ?? '').toLowerCase().includes(needle));
				} else {
					throw invalid(this, i, 'Original Name Match', `must be "equals" or "contains", got "${String(match)}"`);
				}
			}

			const status = filters.status;
			if (status !== undefined && status !== '') {
				if (!STATUSES.includes(status as (typeof STATUSES)[number])) {
					throw invalid(this, i, 'Status', `must be "active" or "deleting", got "${String(status)}"`);
				}
				tests.push((file) => file.status === status);
			}

			const mimeType = filters.mimeType;
			if (mimeType !== undefined && mimeType !== '') {
				if (typeof mimeType !== 'string') throw invalid(this, i, 'Mime Type', 'expected text');
				const wanted = mimeType.trim().toLowerCase();
				tests.push((file) => String(meta(file).mimetype ?? '').split(';')[0].trim().toLowerCase() === wanted);
			}

			return tests.length === 0 ? undefined : (file) => tests.every((test) => test(file));
		},
		map: fileOutput,
	},
	hints: deletingHints,
};
