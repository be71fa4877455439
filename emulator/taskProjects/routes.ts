/**
 * Task-projects area: POST /api/v1/task-projects/tasks and /topics.
 * Auth is a Bearer HS256 JWT (config.jwtSecret); every error answers
 * { error, message, details: [{ path, message }] }, the service's 422 shape.
 * Auth runs in onRequest, before the body is parsed, so a bad token is a 401
 * even when the body is broken too.
 */
import type { FastifyError, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ApiRegistrar, EmulatorConfig } from '../types';
import { verifyJwt } from './jwt';
import type { ChecklistItem, Task, TaskProjectsState, Topic } from './state';
import { bearerToken, clientErrorStatus, isPlainObject, mediaType, randomAlnum } from '../common/helpers';
import {
	type Body,
	type ErrorDetail,
	taskFieldErrors,
	taskTypeErrors,
	topicFieldErrors,
	topicTypeErrors,
} from './validation';

function sendError(reply: FastifyReply, status: number, error: string, message: string, details: ErrorDetail[] = []) {
	return reply.code(status).send({ error, message, details });
}

const AUTH_MESSAGES = {
	missing: 'Missing bearer token',
	malformed: 'Malformed token',
	signature: 'Invalid token signature',
	expired: 'Token expired',
} as const;

function authHook(config: EmulatorConfig) {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		const token = bearerToken(request);
		const result = token === undefined ? ({ ok: false, reason: 'missing' } as const) : verifyJwt(config.jwtSecret, token);
		if (!result.ok) {
			reply.header('www-authenticate', 'Bearer error="invalid_token"');
			return sendError(reply, 401, 'unauthorized', AUTH_MESSAGES[result.reason]);
		}
		if (result.claims.role === 'viewer') {
			return sendError(reply, 403, 'forbidden', 'Write access to task projects is required');
		}
		return undefined;
	};
}

/** Body-parser failures (bad JSON, unsupported type, too large) in this API's error shape. */
function parserErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
	const status = clientErrorStatus(error);
	if (status === undefined) throw error;
	if (status === 415) return sendError(reply, 400, 'bad_request', 'Content-Type must be application/json');
	return sendError(reply, status, status === 413 ? 'payload_too_large' : 'bad_request', error.message);
}

/** Shared front half of both creates: content type, object body, 400 then 422 checks. */
function checkBody(
	request: FastifyRequest,
	reply: FastifyReply,
	typeErrors: (b: Body) => ErrorDetail[],
	fieldErrors: (b: Body) => ErrorDetail[],
): Body | undefined {
	if (mediaType(request) !== 'application/json') {
		sendError(reply, 400, 'bad_request', 'Content-Type must be application/json');
		return undefined;
	}
	const body = request.body;
	if (!isPlainObject(body)) {
		sendError(reply, 400, 'bad_request', 'Request body must be a JSON object', [
			{ path: '', message: 'expected a JSON object' },
		]);
		return undefined;
	}
	const invalid = typeErrors(body);
	if (invalid.length > 0) {
		sendError(reply, 400, 'bad_request', 'Invalid payload', invalid);
		return undefined;
	}
	const failed = fieldErrors(body);
	if (failed.length > 0) {
		sendError(reply, 422, 'validation_failed', 'Field validation failed', failed);
		return undefined;
	}
	return body;
}

function optional<T>(body: Body, key: string): T | null {
	return body[key] === undefined ? null : (body[key] as T);
}

/** The fields a task and a topic both have, from a checked create body. */
function sharedFields(body: Body): Pick<Task, 'taskTitle' | 'taskDescription' | 'priority' | 'dueDate'> {
	return {
		taskTitle: body.taskTitle as string,
		taskDescription: optional<string>(body, 'taskDescription'),
		priority: optional<number>(body, 'priority'),
		dueDate: optional<string>(body, 'dueDate'),
	};
}

export const registerTaskProjectsRoutes: ApiRegistrar<TaskProjectsState> = (app, { config, state }) => {
	const routeOptions: RouteShorthandOptions = {
		onRequest: authHook(config),
		errorHandler: parserErrorHandler,
	};

	app.post('/api/v1/task-projects/tasks', routeOptions, async (request, reply) => {
		const body = checkBody(request, reply, taskTypeErrors, taskFieldErrors);
		if (!body) return reply;

		const missing: ErrorDetail[] = [];
		const assigneeId = optional<string>(body, 'assigneeId');
		if (assigneeId !== null && !state.users.has(assigneeId)) {
			missing.push({ path: 'assigneeId', message: `User ${assigneeId} does not exist` });
		}
		const parentId = optional<string>(body, 'parentId');
		const parentTask = parentId?.startsWith('tsk_') ? state.tasks.get(parentId) : undefined;
		if (parentId !== null && !parentTask && !state.topics.has(parentId)) {
			missing.push({ path: 'parentId', message: `Parent ${parentId} does not exist` });
		}
		if (missing.length > 0) return sendError(reply, 404, 'not_found', 'Related resource not found', missing);
		if (parentTask?.status === 'closed') {
			return sendError(reply, 409, 'conflict', 'Parent task is closed; subtasks cannot be added');
		}

		const now = new Date().toISOString();
		const task: Task = {
			id: `tsk_${randomAlnum(20)}`,
			...sharedFields(body),
			assigneeId,
			checklist: ((body.checklist as ChecklistItem[] | undefined) ?? []).map((c) => ({
				description: c.description,
				isDone: c.isDone,
			})),
			parentId,
			status: 'open',
			createdAt: now,
			updatedAt: now,
		};
		state.tasks.set(task.id, task);
		return reply.code(201).send(task);
	});

	app.post('/api/v1/task-projects/topics', routeOptions, async (request, reply) => {
		const body = checkBody(request, reply, topicTypeErrors, topicFieldErrors);
		if (!body) return reply;

		const labelIds = (body.labelIds as string[] | undefined) ?? [];
		const missing = labelIds.flatMap((id, i) =>
			state.labels.has(id) ? [] : [{ path: `labelIds[${i}]`, message: `Label ${id} does not exist` }],
		);
		if (missing.length > 0) return sendError(reply, 404, 'not_found', 'Related resource not found', missing);

		const now = new Date().toISOString();
		const topic: Topic = {
			id: `top_${randomAlnum(20)}`,
			...sharedFields(body),
			labelIds,
			attachments: (body.attachments as Record<string, unknown>[] | undefined) ?? [],
			status: 'open',
			createdAt: now,
			updatedAt: now,
		};
		state.topics.set(topic.id, topic);
		return reply.code(201).send(topic);
	});
};
