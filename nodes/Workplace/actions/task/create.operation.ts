import type { IDataObject } from 'n8n-workflow';

import type { OperationDefinition } from '../types';
import { additionalFields, commonBody, descriptionField, dueDateField, priorityFields, titleField } from '../taskProjectFields';
import { invalid } from '../../../../shared/validation';
import { USER_ID } from '../idSources';

const PARENT_ID = /^(tsk|top)_\S+$/;

export const create: OperationDefinition = {
	value: 'create',
	name: 'Create',
	action: 'Create a task',
	description: 'Create a task, optionally as a subtask of a project topic or another task',
	properties: [
		titleField('task'),
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			description: 'Optional fields of the task; only those added are sent',
			options: [
				{
					displayName: 'Assignee ID',
					name: 'assigneeId',
					type: 'string',
					default: '',
					placeholder: USER_ID.placeholder,
					description: 'ID of the user to assign the task to',
					hint: USER_ID.hint,
				},
				{
					displayName: 'Checklist',
					name: 'checklist',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true },
					placeholder: 'Add Checklist Item',
					default: {},
					description: 'Sub-items of the task, each with its text and whether it is done',
					options: [
						{
							displayName: 'Item',
							name: 'items',
							values: [
								{
									displayName: 'Description',
									name: 'description',
									type: 'string',
									default: '',
									description: 'Text of the checklist item',
								},
								{
									displayName: 'Done',
									name: 'isDone',
									type: 'boolean',
									default: false,
									description: 'Whether the checklist item is already done',
								},
							],
						},
					],
				},
				...priorityFields,
				descriptionField,
				dueDateField,
				{
					displayName: 'Parent ID',
					name: 'parentId',
					type: 'string',
					default: '',
					placeholder: 'e.g. top_8f3k2m or tsk_4j9x1q',
					description: 'ID of a project topic (top_…) or a task (tsk_…); when set, the new task is created as its subtask',
					hint: 'From Project Topic → Create\'s or Task → Create\'s output (id)',
				},
			],
		},
	],
	request(i) {
		const fields = additionalFields(this, i);
		const body: IDataObject = {};
		commonBody(this, i, fields, body);

		if (fields.assigneeId !== undefined && fields.assigneeId !== '') {
			if (typeof fields.assigneeId !== 'string' && typeof fields.assigneeId !== 'number') {
				throw invalid(this, i, 'Assignee ID', 'must be text');
			}
			const assigneeId = String(fields.assigneeId).trim();
			if (assigneeId !== '') body.assigneeId = assigneeId;
		}

		const checklist = (fields.checklist as IDataObject | undefined)?.items;
		if (checklist !== undefined) {
			if (!Array.isArray(checklist)) throw invalid(this, i, 'Checklist', 'must be a list of items');
			body.checklist = checklist.map((entry: unknown, n) => {
				const item = (entry ?? {}) as IDataObject;
				const where = `Checklist item ${n + 1}`;
				if (typeof item.description !== 'string' || item.description.trim() === '') {
					throw invalid(this, i, `${where} Description`, 'is required and cannot be empty');
				}
				let isDone = item.isDone;
				if (isDone === 'true' || isDone === 'false') isDone = isDone === 'true';
				if (typeof isDone !== 'boolean') {
					throw invalid(this, i, `${where} Done`, `is required and must be true or false, got ${JSON.stringify(item.isDone) ?? 'nothing'}`);
				}
				return { description: item.description, isDone };
			});
		}

		if (fields.parentId !== undefined && fields.parentId !== '') {
			const parentId = typeof fields.parentId === 'string' ? fields.parentId.trim() : '';
			if (!PARENT_ID.test(parentId)) {
				throw invalid(
					this,
					i,
					'Parent ID',
					`must be a topic ID (top_…) or a task ID (tsk_…), got ${JSON.stringify(fields.parentId)}`,
				);
			}
			body.parentId = parentId;
		}

		return { api: 'taskProjects', method: 'POST', path: ['tasks'], body };
	},
};
