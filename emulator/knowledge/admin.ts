/**
 * /__emulator/knowledge: changes knowledge bases and files as another user of
 * the service would (add, replace, mark deleting, remove), so a client that
 * watches them (the knowledge trigger) can be tested against changes it did not make.
 * Strict: unknown fields, wrong types and missing records are refused.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { baseView, fileView, type FileStatus, type KnowledgeState, type Language } from './state';

const P = '/__emulator/knowledge';

class AdminInputError extends Error {
	constructor(readonly status: number, message: string) {
		super(message);
	}
}

function body(input: unknown, allowed: string[]): Record<string, unknown> {
	if (!input || typeof input !== 'object' || Array.isArray(input)) throw new AdminInputError(400, 'JSON object expected');
	const o = input as Record<string, unknown>;
	const unknown = Object.keys(o).filter((key) => !allowed.includes(key));
	if (unknown.length) throw new AdminInputError(400, `unknown field(s): ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
	return o;
}

function text(o: Record<string, unknown>, key: string, required: boolean): string | undefined {
	const value = o[key];
	if (value === undefined && !required) return undefined;
	if (typeof value !== 'string' || value.trim() === '') throw new AdminInputError(400, `${key} must be a non-empty string`);
	return value;
}

function id(raw: string, what: string): number {
	if (!/^[1-9][0-9]*$/.test(raw)) throw new AdminInputError(400, `${what} must be a positive whole number`);
	return Number(raw);
}

/** The file content: `content` (UTF-8 text) or `contentBase64`, exactly one of them. */
function content(o: Record<string, unknown>): Buffer {
	const plain = o.content;
	const encoded = o.contentBase64;
	if ((plain === undefined) === (encoded === undefined)) throw new AdminInputError(400, 'give exactly one of content (text) or contentBase64');
	if (plain !== undefined) {
		if (typeof plain !== 'string') throw new AdminInputError(400, 'content must be a string');
		return Buffer.from(plain, 'utf8');
	}
	if (typeof encoded !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw new AdminInputError(400, 'contentBase64 must be base64');
	return Buffer.from(encoded, 'base64');
}

function status(o: Record<string, unknown>, required: boolean): FileStatus | undefined {
	const value = o.status;
	if (value === undefined && !required) return undefined;
	if (value !== 'active' && value !== 'deleting') throw new AdminInputError(400, 'status must be "active" or "deleting"');
	return value;
}

export function registerKnowledgeAdminRoutes(app: FastifyInstance, state: KnowledgeState): void {
	const base = (raw: string) => {
		const kb = state.bases.get(id(raw, 'id'));
		if (!kb) throw new AdminInputError(404, `knowledge base ${raw} does not exist`);
		return kb;
	};
	const file = (rawBase: string, rawFile: string) => {
		const kb = base(rawBase);
		const f = state.files.get(id(rawFile, 'fileId'));
		if (!f || f.knowledgeId !== kb.id) throw new AdminInputError(404, `knowledge file ${rawFile} does not exist in knowledge base ${kb.id}`);
		return { kb, file: f };
	};
	const handle = <P>(work: (params: P, input: unknown, reply: FastifyReply) => unknown) =>
		async (request: { params: unknown; body: unknown }, reply: FastifyReply) => {
			try {
				return await work(request.params as P, request.body, reply);
			} catch (error) {
				if (error instanceof AdminInputError) return reply.code(error.status).send({ error: error.status === 404 ? 'not_found' : 'bad_request', message: error.message });
				throw error;
			}
		};

	app.post(P, handle<Record<string, never>>((_params, input, reply) => {
		const o = body(input, ['name', 'source', 'target', 'supportedLanguages']);
		const source = o.source ?? 'internal';
		if (source !== 'internal' && source !== 'external') throw new AdminInputError(400, 'source must be "internal" or "external"');
		const languages = o.supportedLanguages ?? ['en'];
		if (!Array.isArray(languages) || languages.length === 0 || languages.some((l) => l !== 'en' && l !== 'th')) {
			throw new AdminInputError(400, 'supportedLanguages must be a non-empty list of "en" and "th"');
		}
		const kb = state.createBase({ name: text(o, 'name', true)!, source, target: text(o, 'target', source === 'external'), supportedLanguages: languages as Language[] });
		return reply.code(201).send(baseView(kb));
	}));

	app.delete(`${P}/:id`, handle<{ id: string }>((params, _input, reply) => {
		state.deleteBase(base(params.id).id);
		return reply.code(204).send();
	}));

	app.post(`${P}/:id/files`, handle<{ id: string }>((params, input, reply) => {
		const kb = base(params.id);
		const o = body(input, ['originalName', 'mimetype', 'content', 'contentBase64', 'status', 'count', 'namePrefix']);
		if (o.count !== undefined) {
			// Many files at once (one shared content blob), for lists of thousands.
			const count = o.count;
			if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 100_000) throw new AdminInputError(400, 'count must be a whole number from 1 to 100000');
			if (o.originalName !== undefined) throw new AdminInputError(400, 'originalName names one file; with count give namePrefix');
			const made = state.addFiles(kb.id, count, {
				namePrefix: text(o, 'namePrefix', false),
				mimetype: text(o, 'mimetype', false),
				content: o.content === undefined && o.contentBase64 === undefined ? undefined : content(o),
				status: status(o, false),
			});
			return reply.code(201).send({ count: made.length, firstId: made[0].id, lastId: made[made.length - 1].id });
		}
		const made = state.addFile(kb.id, {
			originalName: text(o, 'originalName', true)!,
			mimetype: text(o, 'mimetype', true)!,
			content: content(o),
			status: status(o, false),
		});
		return reply.code(201).send(fileView(made, kb));
	}));

	app.put(`${P}/:id/files/:fileId`, handle<{ id: string; fileId: string }>((params, input) => {
		const { kb, file: f } = file(params.id, params.fileId);
		const o = body(input, ['originalName', 'mimetype', 'content', 'contentBase64']);
		const updated = state.replaceFile(f.id, { originalName: text(o, 'originalName', false), mimetype: text(o, 'mimetype', false), content: content(o) });
		return fileView(updated, kb);
	}));

	app.patch(`${P}/:id/files/:fileId`, handle<{ id: string; fileId: string }>((params, input) => {
		const { kb, file: f } = file(params.id, params.fileId);
		const o = body(input, ['status']);
		return fileView(state.setStatus(f.id, status(o, true)!), kb);
	}));

	app.delete(`${P}/:id/files/:fileId`, handle<{ id: string; fileId: string }>((params, _input, reply) => {
		state.deleteFile(file(params.id, params.fileId).file.id);
		return reply.code(204).send();
	}));
}
