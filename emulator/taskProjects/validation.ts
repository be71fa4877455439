/**
 * Body checks of the task-projects creates, split the way the service splits
 * its statuses: wrong types / missing required → 400, field rules → 422.
 * Each check returns every problem at once so a client can show them all.
 */
import { isPlainObject } from '../common/helpers';

export interface ErrorDetail {
	path: string;
	message: string;
}

export type Body = Record<string, unknown>;

/** Limits the service calls "recommended"; the emulator enforces them (422). */
export const LIMITS = {
	titleChars: 200,
	descriptionChars: 5000,
	labelIds: 20,
	attachments: 12,
	priorityMin: 1,
	priorityMax: 5,
} as const;

export const PARENT_ID_PATTERN = /^(tsk|top)_[A-Za-z0-9]+$/;

/** Fields a body may omit; `null` is not "omitted" and is reported as a wrong type. */
function present(body: Body, key: string): boolean {
	return body[key] !== undefined;
}

function commonTypeErrors(body: Body): ErrorDetail[] {
	const details: ErrorDetail[] = [];
	const title = body.taskTitle;
	if (title === undefined) {
		details.push({ path: 'taskTitle', message: 'taskTitle is required' });
	} else if (typeof title !== 'string') {
		details.push({ path: 'taskTitle', message: 'taskTitle must be a string' });
	} else if (title.trim() === '') {
		details.push({ path: 'taskTitle', message: 'taskTitle must not be empty' });
	}
	if (present(body, 'taskDescription') && typeof body.taskDescription !== 'string') {
		details.push({ path: 'taskDescription', message: 'taskDescription must be a string' });
	}
	if (present(body, 'priority') && !Number.isInteger(body.priority)) {
		details.push({ path: 'priority', message: 'priority must be an integer' });
	}
	if (present(body, 'dueDate') && typeof body.dueDate !== 'string') {
		details.push({ path: 'dueDate', message: 'dueDate must be a string (ISO 8601 UTC date-time)' });
	}
	return details;
}

export function taskTypeErrors(body: Body): ErrorDetail[] {
	const details = commonTypeErrors(body);
	for (const key of ['assigneeId', 'parentId']) {
		if (present(body, key) && typeof body[key] !== 'string') {
			details.push({ path: key, message: `${key} must be a string` });
		}
	}
	if (present(body, 'checklist')) {
		if (!Array.isArray(body.checklist)) {
			details.push({ path: 'checklist', message: 'checklist must be an array' });
		} else {
			body.checklist.forEach((item: unknown, i) => {
				const path = `checklist[${i}]`;
				if (!isPlainObject(item)) {
					details.push({ path, message: 'checklist item must be an object' });
					return;
				}
				if (typeof item.description !== 'string') {
					details.push({
						path: `${path}.description`,
						message: item.description === undefined ? 'description is required' : 'description must be a string',
					});
				}
				if (typeof item.isDone !== 'boolean') {
					details.push({
						path: `${path}.isDone`,
						message: item.isDone === undefined ? 'isDone is required' : 'isDone must be a boolean',
					});
				}
			});
		}
	}
	return details;
}

export function topicTypeErrors(body: Body): ErrorDetail[] {
	const details = commonTypeErrors(body);
	if (present(body, 'labelIds')) {
		if (!Array.isArray(body.labelIds)) {
			details.push({ path: 'labelIds', message: 'labelIds must be an array of strings' });
		} else {
			body.labelIds.forEach((id: unknown, i) => {
				if (typeof id !== 'string') details.push({ path: `labelIds[${i}]`, message: 'label id must be a string' });
			});
		}
	}
	if (present(body, 'attachments')) {
		if (!Array.isArray(body.attachments)) {
			details.push({ path: 'attachments', message: 'attachments must be an array of objects' });
		} else {
			body.attachments.forEach((a: unknown, i) => {
				if (!isPlainObject(a)) details.push({ path: `attachments[${i}]`, message: 'attachment must be an object' });
			});
		}
	}
	return details;
}

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?Z$/;

/** ISO 8601 UTC date-time ending in Z that names a real instant (no 2024-02-30, no 25:00). */
export function isIsoUtcDateTime(value: string): boolean {
	const m = ISO_UTC.exec(value);
	if (!m) return false;
	const [year, month, day, hour, minute, second] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
	const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
	return (
		d.getUTCFullYear() === year &&
		d.getUTCMonth() === month - 1 &&
		d.getUTCDate() === day &&
		d.getUTCHours() === hour &&
		d.getUTCMinutes() === minute &&
		d.getUTCSeconds() === second
	);
}

/** Length in Unicode code points rather than UTF-16 units, so an emoji counts once. */
function chars(value: string): number {
	return [...value].length;
}

/** 422 checks; only run once the types are right (after the 400 checks pass). */
function commonFieldErrors(body: Body): ErrorDetail[] {
	const details: ErrorDetail[] = [];
	if (chars(body.taskTitle as string) > LIMITS.titleChars) {
		details.push({ path: 'taskTitle', message: `taskTitle must be at most ${LIMITS.titleChars} characters` });
	}
	if (typeof body.taskDescription === 'string' && chars(body.taskDescription) > LIMITS.descriptionChars) {
		details.push({
			path: 'taskDescription',
			message: `taskDescription must be at most ${LIMITS.descriptionChars} characters`,
		});
	}
	if (typeof body.priority === 'number' && (body.priority < LIMITS.priorityMin || body.priority > LIMITS.priorityMax)) {
		details.push({
			path: 'priority',
			message: `priority must be between ${LIMITS.priorityMin} and ${LIMITS.priorityMax}`,
		});
	}
	if (typeof body.dueDate === 'string' && !isIsoUtcDateTime(body.dueDate)) {
		details.push({
			path: 'dueDate',
			message: 'dueDate must be an ISO 8601 UTC date-time ending in Z, e.g. 2025-01-31T17:00:00Z',
		});
	}
	return details;
}

export function taskFieldErrors(body: Body): ErrorDetail[] {
	const details = commonFieldErrors(body);
	if (typeof body.parentId === 'string' && !PARENT_ID_PATTERN.test(body.parentId)) {
		details.push({ path: 'parentId', message: 'parentId must be a task (tsk_…) or topic (top_…) id' });
	}
	return details;
}

export function topicFieldErrors(body: Body): ErrorDetail[] {
	const details = commonFieldErrors(body);
	if (Array.isArray(body.labelIds) && body.labelIds.length > LIMITS.labelIds) {
		details.push({ path: 'labelIds', message: `at most ${LIMITS.labelIds} labels are allowed` });
	}
	if (Array.isArray(body.attachments) && body.attachments.length > LIMITS.attachments) {
		details.push({ path: 'attachments', message: `at most ${LIMITS.attachments} attachments are allowed` });
	}
	return details;
}
