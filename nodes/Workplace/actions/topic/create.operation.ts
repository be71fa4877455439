import type { IDataObject } from 'n8n-workflow';

import type { OperationDefinition } from '../types';
import { additionalFields, commonBody, descriptionField, dueDateField, priorityFields, titleField } from '../taskProjectFields';
import { invalid } from '../../../../shared/validation';

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const create: OperationDefinition = {
	value: 'create',
	name: 'Create',
	action: 'Create a project topic',
	description: 'Create a topic in task projects: a container for tasks',
	properties: [
		titleField('topic'),
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			description: 'Optional fields of the topic; only those added are sent',
			options: [
				{
					displayName: 'Attachments',
					name: 'attachments',
					type: 'json',
					default: '[]',
					description:
						'Files or links to attach, as a JSON array of objects. The service does not document their structure, so each object is sent as given (the service recommends at most 12).',
				},
				descriptionField,
				dueDateField,
				{
					displayName: 'Label IDs',
					name: 'labelIds',
					type: 'string',
					default: '',
					placeholder: 'e.g. lbl_urgent, lbl_backend',
					description:
						'IDs of the labels to tag the topic with, separated by commas (or a list from an expression; the service recommends at most 20)',
				},
				...priorityFields,
			],
		},
	],
	request(i) {
		const fields = additionalFields(this, i);
		const body: IDataObject = {};
		commonBody(this, i, fields, body);

		const labels = fields.labelIds;
		if (labels !== undefined && labels !== '') {
			const list = typeof labels === 'string' ? labels.split(',') : labels;
			if (!Array.isArray(list)) throw invalid(this, i, 'Label IDs', 'must be IDs separated by commas, or a list of IDs');
			const ids = list.map((id: unknown, n) => {
				if (typeof id !== 'string') {
					throw invalid(this, i, 'Label IDs', `entry ${n + 1} must be text, got ${JSON.stringify(id) ?? 'nothing'}`);
				}
				return id.trim();
			});
			const kept = ids.filter((id) => id !== '');
			if (kept.length > 0) body.labelIds = kept;
		}

		const raw = fields.attachments;
		if (raw !== undefined && raw !== '') {
			let attachments: unknown = raw;
			if (typeof raw === 'string') {
				try {
					attachments = JSON.parse(raw) as unknown;
				} catch {
					throw invalid(this, i, 'Attachments', 'is not valid JSON (expected an array of objects)');
				}
			}
			if (!Array.isArray(attachments)) throw invalid(this, i, 'Attachments', 'must be a JSON array of objects');
			attachments.forEach((a: unknown, n) => {
				if (!isPlainObject(a)) {
					throw invalid(this, i, 'Attachments', `entry ${n + 1} must be an object, got ${Array.isArray(a) ? 'a list' : JSON.stringify(a)}`);
				}
			});
			if (attachments.length > 0) body.attachments = attachments as IDataObject[];
		}

		return { api: 'taskProjects', method: 'POST', path: ['topics'], body };
	},
};
