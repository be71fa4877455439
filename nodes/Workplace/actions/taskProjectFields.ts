/**
 * Fields task and topic creates share (taskTitle, taskDescription, priority,
 * dueDate): their editor descriptions and their local checks. The service's
 * required rules are checked here; the recommended limits (title 200, description
 * 5,000, labels 20, attachments 12) are left to the service, which only
 * recommends them, and whose 422 then shows each detail.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { toUtcIso } from '../../../shared/dateTime';
import { invalid, requiredText } from '../../../shared/validation';
import { ownEntry } from '../../../shared/ownEntry';

export function titleField(noun: string): INodeProperties {
	return {
		displayName: 'Title',
		name: 'taskTitle',
		type: 'string',
		default: '',
		required: true,
		placeholder: noun === 'task' ? 'e.g. Call the customer back' : 'e.g. Q3 onboarding',
		description: `Human-readable title of the ${noun} (the service recommends at most 200 characters)`,
	};
}

export const descriptionField: INodeProperties = {
	displayName: 'Description',
	name: 'taskDescription',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description: 'Notes or goal, plain text (the service recommends at most 5,000 characters)',
};

export const priorityFields: INodeProperties[] = [
	{
		displayName: 'Priority',
		name: 'priority',
		type: 'options',
		default: 'medium',
		options: [
			{ name: 'High', value: 'high', description: 'Sent as 1' },
			{ name: 'Medium', value: 'medium', description: 'Sent as 2' },
			{ name: 'Low', value: 'low', description: 'Sent as 3' },
			{ name: 'Custom', value: 'custom', description: 'Send the integer given in Custom Priority' },
		],
		description:
			'Priority, sent as an integer: High = 1, Medium = 2, Low = 3 (the common mapping). Choose Custom when your service maps them differently.',
	},
	{
		displayName: 'Custom Priority',
		name: 'customPriority',
		type: 'number',
		default: 1,
		typeOptions: { numberPrecision: 0 },
		description: 'Integer priority sent as is; used only when Priority is Custom',
	},
];

export const dueDateField: INodeProperties = {
	displayName: 'Due Date',
	name: 'dueDate',
	type: 'dateTime',
	default: '',
	description:
		"When it is due. A date-time without a zone is read in the workflow's timezone; it is sent as ISO 8601 UTC ending in Z (e.g. 2025-01-31T10:00:00Z).",
};

const PRIORITIES: Record<string, number> = { high: 1, medium: 2, low: 3 };

/** The additional fields collection of item i, as an object. */
export function additionalFields(ctx: IExecuteFunctions, i: number): IDataObject {
	const value = ctx.getNodeParameter('additionalFields', i, {}) as unknown;
	if (value === null || value === undefined || value === '') return {};
	if (typeof value !== 'object' || Array.isArray(value)) {
		throw invalid(ctx, i, 'Additional Fields', 'must be an object of fields');
	}
	return value as IDataObject;
}

function asInteger(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
	return undefined;
}

/** Writes taskTitle, and taskDescription, priority and dueDate when given, into `body`. */
export function commonBody(ctx: IExecuteFunctions, i: number, fields: IDataObject, body: IDataObject): void {
	body.taskTitle = requiredText(ctx, i, 'taskTitle', 'Title');

	const description = fields.taskDescription;
	if (description !== undefined && description !== null && description !== '') {
		if (typeof description !== 'string') throw invalid(ctx, i, 'Description', 'must be text');
		body.taskDescription = description;
	}

	if (fields.priority !== undefined && fields.priority !== null && fields.priority !== '') {
		const choice = fields.priority;
		const named = typeof choice === 'string' ? ownEntry(PRIORITIES, choice) : undefined;
		if (named !== undefined) {
			body.priority = named;
		} else if (choice === 'custom') {
			const custom = asInteger(fields.customPriority);
			if (custom === undefined) {
				throw invalid(ctx, i, 'Custom Priority', `must be a whole number when Priority is Custom, got ${JSON.stringify(fields.customPriority) ?? 'nothing'}`);
			}
			body.priority = custom;
		} else {
			// An expression may give the integer itself.
			const direct = asInteger(choice);
			if (direct === undefined) {
				throw invalid(ctx, i, 'Priority', `must be High, Medium, Low, Custom or a whole number, got ${JSON.stringify(choice)}`);
			}
			body.priority = direct;
		}
	}

	const due = fields.dueDate;
	if (due !== undefined && due !== null && due !== '') {
		const result = toUtcIso(due, ctx.getTimezone());
		if (!result.ok) throw invalid(ctx, i, 'Due Date', result.problem);
		body.dueDate = result.iso;
	}
}
