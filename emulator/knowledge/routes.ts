/**
 * Knowledge-base area: x-api-key auth, strict validation
 * with 422001 details, pagination in three modes, streamed upload and download.
 */
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { knowledgeError } from '../common/apiErrors';
import { baseView, fileView, type KnowledgeBaseRecord, type KnowledgeFileRecord, type KnowledgeState, type Language } from './state';
import type { ApiRegistrar, EmulatorConfig, LoggedPart } from '../types';
import { MAX_FILE_NAME_LENGTH, MAX_KNOWLEDGE_NAME_LENGTH, SUPPORTED_UPLOAD_TYPES } from './limits';

const BASE = '/api/v1/knowledge';

interface FieldError {
	type: string;
	field: string;
	value?: string;
	message: string;
}

/** Thrown inside handlers; the scope's error handler turns it into the API's error body. */
class KnowledgeHttpError extends Error {
	constructor(readonly status: number, message: string, readonly errors: Array<Record<string, unknown>> = []) {
		super(message);
	}
}

const unprocessable = (errors: FieldError[], message = 'Validation failed') =>
	new KnowledgeHttpError(422, message, errors as unknown as Array<Record<string, unknown>>);

function show(value: unknown): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value === 'string') return value;
	try {
		return JSON.stringify(value);
	} catch {
		return String(value);
	}
}

function fieldError(type: string, field: string, value: unknown, message: string): FieldError {
	const v = show(value);
	return v === undefined ? { type, field, message } : { type, field, value: v, message };
}

/** Path ids are positive integers; anything else is a 422001, as a validation pipe would answer. */
function parseId(raw: string, field: 'id' | 'fileId'): number {
	const n = /^[1-9][0-9]*$/.test(raw) ? Number(raw) : NaN;
	if (!Number.isSafeInteger(n)) {
		throw unprocessable([fieldError('number.base', field, raw, `"${field}" must be a positive integer`)]);
	}
	return n;
}

function notFoundBase(id: number): KnowledgeHttpError {
	return new KnowledgeHttpError(404, 'Knowledge not found', [
		{ type: 'KnowledgeNotFoundError', field: 'id', value: String(id), message: `Knowledge ${id} not found` },
	]);
}

function notFoundFile(fileId: number): KnowledgeHttpError {
	return new KnowledgeHttpError(404, 'Knowledge file not found', [
		{ type: 'KnowledgeFileNotFoundError', field: 'fileId', value: String(fileId), message: `Knowledge file ${fileId} not found` },
	]);
}

function findBase(state: KnowledgeState, rawId: string): KnowledgeBaseRecord {
	const id = parseId(rawId, 'id');
	const kb = state.bases.get(id);
	if (!kb) throw notFoundBase(id);
	return kb;
}

function findFile(state: KnowledgeState, rawId: string, rawFileId: string): { kb: KnowledgeBaseRecord; file: KnowledgeFileRecord } {
	const id = parseId(rawId, 'id');
	const fileId = parseId(rawFileId, 'fileId');
	const kb = state.bases.get(id);
	if (!kb) throw notFoundBase(id);
	const file = state.files.get(fileId);
	// A file of another base is as missing as a file that does not exist.
	if (!file || file.knowledgeId !== kb.id) throw notFoundFile(fileId);
	return { kb, file };
}

/** Validates the create body; collects one error per failed field. */
function validateCreate(body: unknown): {
	name: string;
	source: 'internal' | 'external';
	target: string;
	supportedLanguages: Language[];
	createFulfillment: boolean;
} {
	if (!body || typeof body !== 'object' || Array.isArray(body)) {
		throw unprocessable([fieldError('object.base', 'body', body, 'Request body must be a JSON object')]);
	}
	const b = body as Record<string, unknown>;
	const errors: FieldError[] = [];
	const known = new Set(['name', 'source', 'target', 'supportedLanguages', 'createFulfillment']);
	for (const key of Object.keys(b)) {
		if (!known.has(key)) errors.push(fieldError('object.unknown', key, b[key], `"${key}" is not allowed`));
	}

	const name = b.name;
	if (name === undefined) errors.push(fieldError('any.required', 'name', undefined, '"name" is required'));
	else if (typeof name !== 'string') errors.push(fieldError('string.base', 'name', name, '"name" must be a string'));
	else if (name.trim().length === 0) errors.push(fieldError('string.empty', 'name', name, '"name" is not allowed to be empty'));
	else if ([...name].length > MAX_KNOWLEDGE_NAME_LENGTH) errors.push(fieldError('string.max', 'name', name, `"name" length must be less than or equal to ${MAX_KNOWLEDGE_NAME_LENGTH} characters long`));

	const source = b.source;
	if (source === undefined) errors.push(fieldError('any.required', 'source', undefined, '"source" is required'));
	else if (source !== 'internal' && source !== 'external') errors.push(fieldError('any.only', 'source', source, '"source" must be one of [internal, external]'));

	const target = b.target;
	if (target !== undefined && typeof target !== 'string') errors.push(fieldError('string.base', 'target', target, '"target" must be a string'));
	else if (source === 'external' && (target === undefined || target.trim() === '')) {
		errors.push(fieldError('any.required', 'target', target, '"target" is required when "source" is external'));
	}

	const langs = b.supportedLanguages;
	if (langs === undefined) errors.push(fieldError('any.required', 'supportedLanguages', undefined, '"supportedLanguages" is required'));
	else if (!Array.isArray(langs)) errors.push(fieldError('array.base', 'supportedLanguages', langs, '"supportedLanguages" must be an array'));
	else if (langs.length === 0) errors.push(fieldError('array.min', 'supportedLanguages', langs, '"supportedLanguages" must contain at least 1 items'));
	else {
		const bad = langs.find((l) => l !== 'en' && l !== 'th');
		if (bad !== undefined) errors.push(fieldError('any.only', 'supportedLanguages', bad, '"supportedLanguages" items must be one of [en, th]'));
		else if (new Set(langs).size !== langs.length) errors.push(fieldError('array.unique', 'supportedLanguages', langs, '"supportedLanguages" contains a duplicate value'));
	}

	const cf = b.createFulfillment;
	if (cf !== undefined && typeof cf !== 'boolean') errors.push(fieldError('boolean.base', 'createFulfillment', cf, '"createFulfillment" must be a boolean'));

	if (errors.length) throw unprocessable(errors);
	return {
		name: name as string,
		source: source as 'internal' | 'external',
		target: (target as string | undefined) ?? '',
		supportedLanguages: langs as Language[],
		createFulfillment: (cf as boolean | undefined) ?? true,
	};
}

/** Reads pagination[page] / pagination[pageSize] from the flat query; pageSize is the size served (the cap applied). */
function readPagination(query: unknown, config: EmulatorConfig): { page: number; pageSize: number } {
	const q = (query ?? {}) as Record<string, unknown>;
	const errors: FieldError[] = [];
	const read = (key: string, field: string, fallback: number, max: number): number => {
		const raw = q[key];
		if (raw === undefined) return fallback;
		const n = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
		if (!Number.isSafeInteger(n)) {
			errors.push(fieldError('number.base', field, raw, `"${field}" must be an integer`));
			return fallback;
		}
		if (n < 1) errors.push(fieldError('number.min', field, raw, `"${field}" must be greater than or equal to 1`));
		else if (n > max) errors.push(fieldError('number.max', field, raw, `"${field}" must be less than or equal to ${max}`));
		return n;
	};
	const page = read('pagination[page]', 'pagination.page', 1, Number.MAX_SAFE_INTEGER);
	const asked = read('pagination[pageSize]', 'pagination.pageSize', Math.min(config.defaultPageSize, config.maxPageSize), config.maxPageSize);
	if (errors.length) throw unprocessable(errors);
	// A capped service accepts the size asked but serves no more than its cap, and pages by what it serves.
	return { page, pageSize: config.pageCap === null ? asked : Math.min(asked, config.pageCap) };
}

/** One page of `items` in the configured metadata mode. */
function pageOf<T>(items: T[], page: number, pageSize: number, config: EmulatorConfig): { data: T[]; meta?: unknown } {
	const data = items.slice((page - 1) * pageSize, page * pageSize);
	const total = items.length;
	switch (config.paginationMode) {
		case 'none':
			return { data };
		case 'nestjs':
			// The names of NestJS's paginators (nestjs-typeorm-paginate), with the count on this page beside them.
			return { data, meta: { totalItems: total, itemCount: data.length, itemsPerPage: pageSize, totalPages: Math.ceil(total / pageSize), currentPage: page } };
		case 'inconsistent': {
			// Claims far more than exists, so only a client that stops on a short page terminates.
			const pageCount = Math.max(1000, Math.ceil(total / pageSize) * 10);
			return { data, meta: { pagination: { page, pageSize, pageCount, total: pageCount * pageSize } } };
		}
		default:
			return { data, meta: { pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } } };
	}
}

/** Content-Disposition with an ASCII fallback and the RFC 5987 UTF-8 name. */
export function contentDisposition(filename: string): string {
	const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
	const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
	return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

interface StoredUpload {
	size: number;
	sha256: string;
	/** Whether a NUL byte appeared (a CSV with one is rejected). */
	sawNul: boolean;
}

/** Streams `source` into `dest` (or nowhere) while counting and hashing; never buffers the whole file. */
async function consume(source: Readable, dest: string | undefined): Promise<StoredUpload> {
	const hash = createHash('sha256');
	let size = 0;
	let sawNul = false;
	const meter = new Transform({
		transform(chunk: Buffer, _enc, cb) {
			size += chunk.length;
			hash.update(chunk);
			if (!sawNul && chunk.includes(0)) sawNul = true;
			cb(null, dest ? chunk : undefined);
		},
	});
	if (dest) await pipeline(source, meter, fs.createWriteStream(dest));
	else {
		meter.resume();
		await pipeline(source, meter);
	}
	return { size, sha256: hash.digest('hex'), sawNul };
}

function mimeOf(contentType: string | undefined): string {
	return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function isAuthorized(request: FastifyRequest, config: EmulatorConfig): boolean {
	const key = request.headers['x-api-key'];
	return typeof key === 'string' && key === config.apiKey;
}

function sendError(reply: FastifyReply, status: number, message: string, errors: Array<Record<string, unknown>> = []): FastifyReply {
	return reply.code(status).type('application/json; charset=utf-8').send(knowledgeError(status, message, errors));
}

export const registerKnowledgeRoutes: ApiRegistrar<KnowledgeState> = (app, { config, state }) => {
	app.addHook('preHandler', async (request, reply) => {
		if (!isAuthorized(request, config)) {
			sendError(reply, 401, 'Invalid API key');
			return reply;
		}
		return undefined;
	});

	app.setErrorHandler((err: unknown, request, reply) => {
		// Body-parser errors happen before the auth hook; a bad key still wins.
		if (!isAuthorized(request, config)) return sendError(reply, 401, 'Invalid API key');
		if (err instanceof KnowledgeHttpError) return sendError(reply, err.status, err.message, err.errors);
		const e = err as { statusCode?: number; code?: string; message?: string };
		if (e.statusCode === 413) {
			return reply.code(413).type('text/plain; charset=utf-8').send('Request Entity Too Large');
		}
		if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
			// Unparseable or non-JSON bodies and malformed multipart: the validation layer's answer.
			return sendError(reply, 422, 'Validation failed', [
				{ type: 'object.base', field: 'body', message: e.message ?? 'Invalid request body' },
			]);
		}
		// A bug in the emulator, not a scenario: make it visible.
		console.error('knowledge area: unexpected error', err);
		return sendError(reply, 500, 'Internal server error');
	});

	app.post(BASE, async (request, reply) => {
		const input = validateCreate(request.body);
		const kb = state.createBase(input);
		return reply.code(201).send(baseView(kb));
	});

	app.get(BASE, async (request) => {
		const { page, pageSize } = readPagination(request.query, config);
		return pageOf(state.listBases().map(baseView), page, pageSize, config);
	});

	app.get<{ Params: { id: string } }>(`${BASE}/:id`, async (request) => baseView(findBase(state, request.params.id)));

	app.delete<{ Params: { id: string } }>(`${BASE}/:id`, async (request, reply) => {
		const kb = findBase(state, request.params.id);
		state.deleteBase(kb.id);
		if (config.deleteResponse === 'json') return reply.code(200).send({ id: kb.id, deleted: true });
		return reply.code(204).send();
	});

	app.get<{ Params: { id: string } }>(`${BASE}/:id/files`, async (request) => {
		const kb = findBase(state, request.params.id);
		const { page, pageSize } = readPagination(request.query, config);
		return pageOf(state.filesOf(kb.id).map((f) => fileView(f, kb)), page, pageSize, config);
	});

	app.get<{ Params: { id: string; fileId: string } }>(`${BASE}/:id/files/:fileId`, async (request) => {
		const { kb, file } = findFile(state, request.params.id, request.params.fileId);
		return fileView(file, kb);
	});

	app.delete<{ Params: { id: string; fileId: string } }>(`${BASE}/:id/files/:fileId`, async (request, reply) => {
		const { kb, file } = findFile(state, request.params.id, request.params.fileId);
		state.deleteFile(file.id);
		if (config.deleteResponse === 'json') return reply.code(200).send(fileView({ ...file, status: 'deleting' }, kb));
		return reply.code(204).send();
	});

	app.get<{ Params: { id: string; fileId: string } }>(`${BASE}/:id/files/:fileId/download`, async (request, reply) => {
		const { file } = findFile(state, request.params.id, request.params.fileId);
		let size: number;
		try {
			size = fs.statSync(file.contentPath).size;
		} catch {
			throw notFoundFile(file.id);
		}
		reply
			.code(200)
			.header('content-type', file.meta.mimetype)
			.header('content-length', String(size))
			.header('content-disposition', contentDisposition(file.meta.originalName));
		return reply.send(fs.createReadStream(file.contentPath));
	});

	app.put<{ Params: { id: string; fileId: string } }>(`${BASE}/:id/files/:fileId`, async (request, reply) => {
		const { kb, file } = findFile(state, request.params.id, request.params.fileId);
		if (!request.isMultipart()) {
			throw unprocessable([fieldError('any.required', 'file', undefined, 'A multipart/form-data body with a "file" part is required')]);
		}
		const parts: LoggedPart[] = [];
		request.logParts = parts;
		let tmpPath: string | undefined;
		let upload: (StoredUpload & { filename: string; mimetype: string; truncated: boolean }) | undefined;
		let fileParts = 0;
		try {
			// One byte over the limit is enough to know the upload is too large.
			// throwFileSizeLimit is read at runtime but missing from parts()' typings.
			const partsOptions = { limits: { fileSize: config.maxUploadBytes + 1 }, throwFileSizeLimit: false };
			const iterator = request.parts(partsOptions as Parameters<typeof request.parts>[0]);
			for await (const part of iterator) {
				if (part.type === 'file') {
					const target = part.fieldname === 'file' && ++fileParts === 1;
					if (target) tmpPath = path.join(state.uploadDir, randomUUID());
					const stored = await consume(part.file, target ? tmpPath : undefined);
					if (target) upload = { ...stored, filename: part.filename, mimetype: part.mimetype, truncated: part.file.truncated };
					parts.push({ name: part.fieldname, filename: part.filename, contentType: part.mimetype, size: stored.size, sha256: stored.sha256 });
				} else {
					const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
					parts.push({ name: part.fieldname, contentType: part.mimetype, size: Buffer.byteLength(value), value });
				}
			}
			if (upload && (upload.truncated || upload.size > config.maxUploadBytes)) {
				return reply.code(413).type('text/plain; charset=utf-8').send('Request Entity Too Large');
			}
			if (!upload) throw unprocessable([fieldError('any.required', 'file', undefined, '"file" is required')]);
			if (fileParts > 1) {
				throw unprocessable([fieldError('array.max', 'file', String(fileParts), 'Exactly one file must be sent in the "file" part')]);
			}
			if ([...upload.filename].length > MAX_FILE_NAME_LENGTH) {
				throw unprocessable([fieldError('string.max', 'file', upload.filename, `File name must be at most ${MAX_FILE_NAME_LENGTH} characters`)]);
			}
			const mimetype = mimeOf(upload.mimetype);
			if (!SUPPORTED_UPLOAD_TYPES.includes(mimetype)) {
				throw new KnowledgeHttpError(400, 'Unsupported file type', [
					{ type: 'UnsupportedKnowledgeFileTypeError', field: 'file', value: upload.mimetype, message: `File type ${upload.mimetype} is not supported` },
				]);
			}
			if (mimetype === 'text/csv' && (upload.size === 0 || upload.sawNul)) {
				throw new KnowledgeHttpError(400, 'Unsupported CSV format', [
					{
						type: 'UnsupportCsvKnowledgeFileFormatError',
						field: 'file',
						value: upload.filename,
						message: upload.size === 0 ? 'CSV file is empty' : 'CSV file contains binary data',
					},
				]);
			}
			const updated = state.replaceContent(file.id, tmpPath!, { mimetype, originalName: upload.filename, size: upload.size }, upload.sha256);
			tmpPath = undefined;
			return reply.code(200).send(fileView(updated, kb));
		} finally {
			if (tmpPath) fs.rmSync(tmpPath, { force: true });
		}
	});
};
