/**
 * The knowledge base API answers as the service's knowledge-base interface defines
 * it (/api/v1 paths, x-api-key), seen by a plain
 * fetch client: shapes, statuses, errors, pagination modes, upload and download.
 */
import * as fs from 'node:fs';
import { minimalPdf, PARTNER_TARGET, sampleCsv } from '../../emulator/knowledge/sampleFiles';
import { multipartForm, sha256 } from '../../testbed/httpClient';
import { emulatorTestbed, type CallOptions } from '../../testbed/testbed';

const bed = emulatorTestbed();
const kb = (path: string, options: CallOptions = {}) => bed.call(`/api/v1${path}`, { auth: 'knowledgeBase', ...options });
/** A multipart body with the one `file` part an upload sends. */
const upload = (data: Buffer | string, filename: string, type: string) => multipartForm({}, [{ data, filename, type }]);

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const BASE_KEYS = ['createdAt', 'enableSemanticSearch', 'id', 'name', 'source', 'supportedLanguages', 'target', 'updatedAt'];
const FILE_KEYS = ['combined', 'createdAt', 'id', 'kmVersion', 'knowledge', 'meta', 'name', 'path', 'status', 'storageContainerName', 'updatedAt'];
const PDF = 'application/pdf';

/** The API's error body for one refusal: the exception's name, the code, its message, and the one error it lists. */
function refusal(name: string, code: number, message: string, error: Record<string, unknown>) {
	return { name, code, status: Math.trunc(code / 1000), message, errors: [expect.objectContaining(error)] };
}

function validation(fields: string[]) {
	return {
		name: 'UnprocessableEntityException',
		code: 422001,
		status: 422,
		message: expect.any(String),
		errors: fields.map((field) => expect.objectContaining({ field, type: expect.any(String), message: expect.any(String) })),
	};
}

describe('authentication (x-api-key)', () => {
	const endpoints: Array<[string, string]> = [
		['POST', '/knowledge'],
		['GET', '/knowledge'],
		['GET', '/knowledge/1'],
		['DELETE', '/knowledge/1'],
		['GET', '/knowledge/1/files'],
		['GET', '/knowledge/1/files/1'],
		['PUT', '/knowledge/1/files/1'],
		['GET', '/knowledge/1/files/1/download'],
		['DELETE', '/knowledge/1/files/1'],
	];
	const unauthorized = { name: 'UnauthorizedException', code: 401001, status: 401, message: 'Invalid API key', errors: [] };

	it.each(endpoints)('%s %s answers 401001 without a key and with a wrong one', async (method, path) => {
		const json = method === 'POST' ? { name: 'x', source: 'internal', supportedLanguages: ['en'] } : undefined;
		const missing = await bed.call(`/api/v1${path}`, { method, json });
		expect(missing.status).toBe(401);
		expect(missing.body).toEqual(unauthorized);
		const wrong = await bed.call(`/api/v1${path}`, { method, json, headers: { 'x-api-key': 'nope' } });
		expect(wrong.status).toBe(401);
		expect(wrong.body).toEqual(unauthorized);
		// Nothing was deleted or created by the refused calls.
		expect(bed.emulator.knowledge.bases.size).toBe(3);
		expect(bed.emulator.knowledge.files.has(1)).toBe(true);
	});

	it('checks the key before the body (broken JSON with no key is still 401)', async () => {
		const res = await bed.call('/api/v1/knowledge', { method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } });
		expect(res.status).toBe(401);
	});
});

describe('POST /knowledge', () => {
	it('creates an internal base (201) in the response form', async () => {
		const res = await kb('/knowledge', { method: 'POST', json: { name: 'Onboarding', source: 'internal', supportedLanguages: ['en', 'th'] } });
		expect(res.status).toBe(201);
		expect(Object.keys(res.body).sort()).toEqual(BASE_KEYS);
		expect(res.body).toEqual({
			id: 4,
			name: 'Onboarding',
			source: 'internal',
			target: '',
			supportedLanguages: ['en', 'th'],
			enableSemanticSearch: false,
			createdAt: ISO,
			updatedAt: ISO,
		});
		expect(bed.emulator.knowledge.bases.get(4)?.createFulfillment).toBe(true);
	});

	it('creates an external base with its target and honours createFulfillment=false', async () => {
		const res = await kb('/knowledge', {
			method: 'POST',
			json: { name: 'Docs', source: 'external', target: 'https://search.example/api', supportedLanguages: ['th'], createFulfillment: false },
		});
		expect(res.status).toBe(201);
		expect(res.body).toMatchObject({ source: 'external', target: 'https://search.example/api', supportedLanguages: ['th'] });
		expect(res.body).not.toHaveProperty('createFulfillment');
		expect(bed.emulator.knowledge.bases.get(res.body.id)?.createFulfillment).toBe(false);
	});

	it('accepts a 255-character name and rejects 256 (422001)', async () => {
		const ok = await kb('/knowledge', { method: 'POST', json: { name: 'n'.repeat(255), source: 'internal', supportedLanguages: ['en'] } });
		expect(ok.status).toBe(201);
		const long = await kb('/knowledge', { method: 'POST', json: { name: 'n'.repeat(256), source: 'internal', supportedLanguages: ['en'] } });
		expect(long.status).toBe(422);
		expect(long.body).toEqual(validation(['name']));
		expect(long.body.errors[0]).toMatchObject({ type: 'string.max', value: 'n'.repeat(256) });
	});

	it('reports every failed field in errors[] (422001)', async () => {
		const empty = await kb('/knowledge', { method: 'POST', json: {} });
		expect(empty.status).toBe(422);
		expect(empty.body).toEqual(validation(['name', 'source', 'supportedLanguages']));
		expect(empty.body.errors.map((e: { type: string }) => e.type)).toEqual(['any.required', 'any.required', 'any.required']);

		const bad = await kb('/knowledge', {
			method: 'POST',
			json: { name: 7, source: 'cloud', supportedLanguages: ['en', 'fr'], createFulfillment: 'yes', enableSemanticSearch: true },
		});
		expect(bad.status).toBe(422);
		expect(bad.body).toEqual(validation(['enableSemanticSearch', 'name', 'source', 'supportedLanguages', 'createFulfillment']));
		expect(bad.body.errors).toContainEqual(expect.objectContaining({ field: 'supportedLanguages', type: 'any.only', value: 'fr' }));
	});

	it('requires a target for external sources, and a non-empty unique language list', async () => {
		const ext = await kb('/knowledge', { method: 'POST', json: { name: 'x', source: 'external', supportedLanguages: ['en'] } });
		expect(ext.body).toEqual(validation(['target']));
		const none = await kb('/knowledge', { method: 'POST', json: { name: 'x', source: 'internal', supportedLanguages: [] } });
		expect(none.body.errors[0]).toMatchObject({ field: 'supportedLanguages', type: 'array.min' });
		const dup = await kb('/knowledge', { method: 'POST', json: { name: 'x', source: 'internal', supportedLanguages: ['en', 'en'] } });
		expect(dup.body.errors[0]).toMatchObject({ field: 'supportedLanguages', type: 'array.unique' });
		expect(bed.emulator.knowledge.bases.size).toBe(3);
	});

	it('answers 422001 to bodies that are not a JSON object', async () => {
		for (const [body, type] of [
			['{"name":', 'application/json'],
			['name=x', 'text/plain'],
			['[1,2]', 'application/json'],
		]) {
			const res = await kb('/knowledge', { method: 'POST', body, headers: { 'content-type': type } });
			expect(res.status).toBe(422);
			expect(res.body).toMatchObject({ name: 'UnprocessableEntityException', code: 422001, status: 422 });
			expect(res.body.errors[0]).toMatchObject({ field: 'body' });
		}
	});
});

describe('GET /knowledge', () => {
	it('lists bases by id with meta.pagination (strapi mode, default page size 25)', async () => {
		const res = await kb('/knowledge');
		expect(res.status).toBe(200);
		expect(res.body.data.map((b: { name: string }) => b.name)).toEqual(['Employee Handbook', 'Product FAQ', 'Partner Search']);
		expect(res.body.data[2]).toMatchObject({ source: 'external', target: PARTNER_TARGET });
		expect(Object.keys(res.body.data[0]).sort()).toEqual(BASE_KEYS);
		expect(res.body.meta).toEqual({ pagination: { page: 1, pageSize: 25, pageCount: 1, total: 3 } });
	});

	it('pages with pagination[page] and pagination[pageSize]', async () => {
		bed.emulator.knowledge.addKnowledgeBases(57);
		const page3 = await kb('/knowledge?pagination[page]=3&pagination[pageSize]=25');
		expect(page3.body.data).toHaveLength(10);
		expect(page3.body.data[0].id).toBe(51);
		expect(page3.body.meta.pagination).toEqual({ page: 3, pageSize: 25, pageCount: 3, total: 60 });
		const past = await kb('/knowledge?pagination%5Bpage%5D=4&pagination%5BpageSize%5D=25');
		expect(past.body.data).toEqual([]);
		expect(past.body.meta.pagination.page).toBe(4);
		const max = await kb('/knowledge?pagination[pageSize]=100');
		expect(max.body.data).toHaveLength(60);
	});

	it('rejects bad pagination values with 422001', async () => {
		const cases: Array<[string, string]> = [
			['pagination[page]=0', 'pagination.page'],
			['pagination[page]=abc', 'pagination.page'],
			['pagination[pageSize]=101', 'pagination.pageSize'],
			['pagination[pageSize]=0', 'pagination.pageSize'],
			['pagination[pageSize]=2.5', 'pagination.pageSize'],
		];
		for (const [qs, field] of cases) {
			const res = await kb(`/knowledge?${qs}`);
			expect(res.status).toBe(422);
			expect(res.body).toEqual(validation([field]));
		}
	});

	it("sends no meta at all in 'none' mode", async () => {
		bed.emulator.setConfig({ paginationMode: 'none' });
		const res = await kb('/knowledge?pagination[pageSize]=2');
		expect(res.body).toEqual({ data: [expect.objectContaining({ id: 1 }), expect.objectContaining({ id: 2 })] });
	});

	it("names its metadata as NestJS's paginators do in 'nestjs' mode, and refuses an unknown mode", async () => {
		bed.emulator.knowledge.addKnowledgeBases(20);
		const set = await bed.call('/__emulator/config', { method: 'PATCH', json: { paginationMode: 'nestjs' } });
		expect(set.status).toBe(200);
		const res = await kb('/knowledge?pagination[page]=3&pagination[pageSize]=10');
		expect(res.body.data).toHaveLength(3);
		expect(res.body.meta).toEqual({ totalItems: 23, itemCount: 3, itemsPerPage: 10, totalPages: 3, currentPage: 3 });
		const unknown = await bed.call('/__emulator/config', { method: 'PATCH', json: { paginationMode: 'cursor' } });
		expect(unknown.status).toBe(400);
		expect(unknown.body.message).toBe('paginationMode must be "strapi", "nestjs", "none" or "inconsistent"');
		expect(bed.emulator.config.paginationMode).toBe('nestjs');
	});

	it("claims far more pages than exist in 'inconsistent' mode", async () => {
		bed.emulator.setConfig({ paginationMode: 'inconsistent' });
		const first = await kb('/knowledge?pagination[page]=1&pagination[pageSize]=2');
		expect(first.body.data).toHaveLength(2);
		expect(first.body.meta.pagination.pageCount).toBeGreaterThanOrEqual(1000);
		expect(first.body.meta.pagination.total).toBeGreaterThan(3);
		const second = await kb('/knowledge?pagination[page]=2&pagination[pageSize]=2');
		expect(second.body.data).toHaveLength(1);
		const beyond = await kb('/knowledge?pagination[page]=3&pagination[pageSize]=2');
		expect(beyond.body.data).toEqual([]);
		expect(beyond.body.meta.pagination.pageCount).toBeGreaterThanOrEqual(1000);
	});
});

describe('GET /knowledge/{id}', () => {
	it('returns the base', async () => {
		const res = await kb('/knowledge/1');
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			id: 1,
			name: 'Employee Handbook',
			source: 'internal',
			target: '',
			supportedLanguages: ['en', 'th'],
			enableSemanticSearch: false,
			createdAt: '2024-01-10T09:00:00.000Z',
			updatedAt: '2024-01-10T09:00:00.000Z',
		});
	});

	it('answers 404001 KnowledgeNotFoundError for an unknown id and 422001 for a non-numeric one', async () => {
		const missing = await kb('/knowledge/999');
		expect(missing.status).toBe(404);
		expect(missing.body).toEqual(refusal('NotFoundException', 404001, 'Knowledge not found', { type: 'KnowledgeNotFoundError', field: 'id', value: '999' }));
		for (const id of ['abc', '0', '-1', '1.5']) {
			const bad = await kb(`/knowledge/${id}`);
			expect(bad.status).toBe(422);
			expect(bad.body).toEqual(validation(['id']));
			expect(bad.body.errors[0]).toMatchObject({ type: 'number.base', value: id });
		}
	});
});

describe('DELETE /knowledge/{id}', () => {
	it('deletes the base and its files (204, empty body)', async () => {
		const paths = bed.emulator.knowledge.filesOf(1).map((f) => f.contentPath);
		const res = await kb('/knowledge/1', { method: 'DELETE' });
		expect(res.status).toBe(204);
		expect(res.text).toBe('');
		expect((await kb('/knowledge/1')).status).toBe(404);
		expect((await kb('/knowledge/1/files/1')).status).toBe(404);
		expect(bed.emulator.knowledge.filesOf(1)).toEqual([]);
		for (const p of paths) expect(fs.existsSync(p)).toBe(false);
		expect((await kb('/knowledge/1', { method: 'DELETE' })).status).toBe(404);
	});

	it("answers 200 {id, deleted} in 'json' delete mode", async () => {
		bed.emulator.setConfig({ deleteResponse: 'json' });
		const res = await kb('/knowledge/3', { method: 'DELETE' });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ id: 3, deleted: true });
	});
});

describe('GET /knowledge/{id}/files', () => {
	it('lists the files of the base with every documented field', async () => {
		const res = await kb('/knowledge/1/files');
		expect(res.status).toBe(200);
		expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 25, pageCount: 1, total: 6 });
		const files = res.body.data;
		expect(files.map((f: { id: number }) => f.id)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(Object.keys(files[0]).sort()).toEqual(FILE_KEYS);
		expect(files[0]).toEqual({
			id: 1,
			name: expect.stringMatching(/\.pdf$/),
			status: 'active',
			path: expect.any(String),
			combined: expect.any(String),
			storageContainerName: expect.any(String),
			meta: { mimetype: PDF, originalName: 'handbook.pdf', size: minimalPdf('Employee Handbook').length },
			kmVersion: expect.any(String),
			knowledge: (await kb('/knowledge/1')).body,
			createdAt: ISO,
			updatedAt: ISO,
		});
		expect(files.map((f: { status: string }) => f.status)).toEqual(['active', 'active', 'active', 'active', 'active', 'deleting']);
		expect(files.map((f: { meta: { mimetype: string } }) => f.meta.mimetype)).toEqual([
			PDF,
			'text/csv',
			'text/html',
			'text/xml',
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			PDF,
		]);
	});

	it('pages files, and answers 404001 / 422001 for bad base ids', async () => {
		bed.emulator.knowledge.addFiles(3, 30);
		const p2 = await kb('/knowledge/3/files?pagination[page]=2&pagination[pageSize]=20');
		expect(p2.body.data).toHaveLength(10);
		expect(p2.body.meta.pagination).toEqual({ page: 2, pageSize: 20, pageCount: 2, total: 30 });
		expect((await kb('/knowledge/3/files?pagination[pageSize]=500')).status).toBe(422);
		expect((await kb('/knowledge/42/files')).body).toMatchObject({ code: 404001, errors: [{ type: 'KnowledgeNotFoundError' }] });
		expect((await kb('/knowledge/x/files')).body).toEqual(validation(['id']));
	});
});

describe('page cap (the service\'s own largest page)', () => {
	const ids = (res: { body: { data: Array<{ id: number }> } }) => res.body.data.map((x) => x.id);

	it.each([1, 7, 10])('cap %i: accepts pageSize up to 100, serves at most the cap, and its meta says so', async (cap) => {
		bed.emulator.knowledge.addKnowledgeBases(20); // 23 in all
		bed.emulator.setConfig({ pageCap: cap });
		const pageCount = Math.ceil(23 / cap);
		const seen: number[] = [];
		for (let page = 1; page <= pageCount + 1; page++) {
			const res = await kb(`/knowledge?pagination[page]=${page}&pagination[pageSize]=100`);
			expect(res.status).toBe(200);
			expect(res.body.meta.pagination).toEqual({ page, pageSize: cap, pageCount, total: 23 });
			expect(res.body.data.length).toBeLessThanOrEqual(cap);
			seen.push(...ids(res));
		}
		// Pages follow one another by the size served: every base once, in order; the page past the last is empty.
		expect(seen).toEqual(Array.from({ length: 23 }, (_, n) => n + 1));
	});

	it('serves the size asked when it is below the cap, and the cap when none is asked', async () => {
		bed.emulator.knowledge.addKnowledgeBases(20);
		bed.emulator.setConfig({ pageCap: 7 });
		const small = await kb('/knowledge?pagination[page]=2&pagination[pageSize]=5');
		expect(ids(small)).toEqual([6, 7, 8, 9, 10]);
		expect(small.body.meta.pagination).toEqual({ page: 2, pageSize: 5, pageCount: 5, total: 23 });
		const unasked = await kb('/knowledge');
		expect(unasked.body.meta.pagination).toEqual({ page: 1, pageSize: 7, pageCount: 4, total: 23 });
		// Above the accepted maximum is still refused, cap or not.
		expect((await kb('/knowledge?pagination[pageSize]=101')).status).toBe(422);
	});

	it('caps the files of a base too, and without metadata only the page length shows it', async () => {
		const base = bed.emulator.knowledge.createBase({ name: 'Many files' });
		const files = bed.emulator.knowledge.addFiles(base.id, 23).map((f) => f.id);
		bed.emulator.setConfig({ pageCap: 10 });
		const capped = await kb(`/knowledge/${base.id}/files?pagination[page]=3&pagination[pageSize]=100`);
		expect(ids(capped)).toEqual(files.slice(20));
		expect(capped.body.meta.pagination).toEqual({ page: 3, pageSize: 10, pageCount: 3, total: 23 });

		bed.emulator.setConfig({ paginationMode: 'none' });
		const bare = await kb(`/knowledge/${base.id}/files?pagination[page]=2&pagination[pageSize]=100`);
		expect(bare.body).toEqual({ data: expect.any(Array) });
		expect(ids(bare)).toEqual(files.slice(10, 20));
		expect(ids(await kb(`/knowledge/${base.id}/files?pagination[page]=4&pagination[pageSize]=100`))).toEqual([]);
	});

	it('is set and cleared through PATCH /__emulator/config, refuses nonsense, and reset restores none', async () => {
		bed.emulator.knowledge.addKnowledgeBases(20);
		const set = await bed.call('/__emulator/config', { method: 'PATCH', json: { pageCap: 10 } });
		expect(set.status).toBe(200);
		expect(set.body.pageCap).toBe(10);
		expect(ids(await kb('/knowledge?pagination[pageSize]=100'))).toHaveLength(10);
		for (const bad of [0, -1, 2.5, '10']) {
			const res = await bed.call('/__emulator/config', { method: 'PATCH', json: { pageCap: bad } });
			expect(res.status).toBe(400);
			expect(res.body.message).toMatch(/pageCap/);
		}
		expect(bed.emulator.config.pageCap).toBe(10);
		await bed.call('/__emulator/config', { method: 'PATCH', json: { pageCap: null } });
		expect(ids(await kb('/knowledge?pagination[pageSize]=100'))).toHaveLength(23);
		bed.emulator.setConfig({ pageCap: 1 });
		bed.emulator.reset();
		expect(bed.emulator.config.pageCap).toBeNull();
	});
});

describe('a service whose largest page is smaller (maxPageSize)', () => {
	const ids = (res: { body: { data: Array<{ id: number }> } }) => res.body.data.map((x) => x.id);

	it('refuses a larger pagination[pageSize] with 422001, serves up to it, and is set through PATCH /__emulator/config, refusing nonsense', async () => {
		bed.emulator.knowledge.addKnowledgeBases(20);
		const set = await bed.call('/__emulator/config', { method: 'PATCH', json: { maxPageSize: 20 } });
		expect(set.status).toBe(200);
		expect(set.body.maxPageSize).toBe(20);
		const refused = await kb('/knowledge?pagination[pageSize]=21');
		expect(refused.status).toBe(422);
		expect(refused.body).toEqual(validation(['pagination.pageSize']));
		expect(ids(await kb('/knowledge?pagination[pageSize]=20'))).toHaveLength(20);
		// Asked for no size, it serves its default, never above its largest.
		bed.emulator.setConfig({ maxPageSize: 10 });
		expect((await kb('/knowledge')).body.meta.pagination).toEqual({ page: 1, pageSize: 10, pageCount: 3, total: 23 });
		for (const [field, bad] of [['maxPageSize', 0], ['maxPageSize', 2.5], ['defaultPageSize', '10'], ['defaultPageSize', -1]] as const) {
			const res = await bed.call('/__emulator/config', { method: 'PATCH', json: { [field]: bad } });
			expect(res.status).toBe(400);
			expect(res.body.message).toBe(`${field} must be a whole number of at least 1`);
		}
		expect(bed.emulator.config.maxPageSize).toBe(10);
		bed.emulator.reset();
		expect(bed.emulator.config.maxPageSize).toBe(100);
	});
});

describe('GET /knowledge/{id}/files/{fileId}', () => {
	it('returns the file, and 404001 KnowledgeFileNotFoundError for a missing one or one of another base', async () => {
		const res = await kb('/knowledge/2/files/8');
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ id: 8, meta: { originalName: 'Product FAQ – ภาษาไทย.pdf' }, knowledge: { id: 2 } });
		for (const path of ['/knowledge/2/files/1', '/knowledge/2/files/999']) {
			const missing = await kb(path);
			expect(missing.status).toBe(404);
			expect(missing.body).toMatchObject({ name: 'NotFoundException', code: 404001, status: 404, message: 'Knowledge file not found' });
			expect(missing.body.errors[0]).toMatchObject({ type: 'KnowledgeFileNotFoundError', field: 'fileId' });
		}
		expect((await kb('/knowledge/9/files/1')).body.errors[0].type).toBe('KnowledgeNotFoundError');
		expect((await kb('/knowledge/1/files/one')).body).toEqual(validation(['fileId']));
	});
});

describe('DELETE /knowledge/{id}/files/{fileId}', () => {
	it('deletes the file (204) and its content', async () => {
		const contentPath = bed.emulator.knowledge.files.get(2)!.contentPath;
		const res = await kb('/knowledge/1/files/2', { method: 'DELETE' });
		expect(res.status).toBe(204);
		expect(res.text).toBe('');
		expect(fs.existsSync(contentPath)).toBe(false);
		expect((await kb('/knowledge/1/files/2')).status).toBe(404);
		expect((await kb('/knowledge/1/files/2', { method: 'DELETE' })).status).toBe(404);
		expect((await kb('/knowledge/1/files')).body.meta.pagination.total).toBe(5);
	});

	it("answers 200 with the file in status 'deleting' in 'json' delete mode", async () => {
		bed.emulator.setConfig({ deleteResponse: 'json' });
		const res = await kb('/knowledge/1/files/3', { method: 'DELETE' });
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(FILE_KEYS);
		expect(res.body).toMatchObject({ id: 3, status: 'deleting', meta: { originalName: 'benefits.html' } });
	});
});

describe('GET /knowledge/{id}/files/{fileId}/download', () => {
	it('streams the bytes with the file type, length and an RFC 5987 file name', async () => {
		const res = await kb('/knowledge/2/files/8/download');
		expect(res.status).toBe(200);
		const bytes = res.bytes;
		expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
		expect(sha256(bytes)).toBe(sha256(minimalPdf('Product FAQ')));
		expect(res.headers.get('content-type')).toBe(PDF);
		expect(res.headers.get('content-length')).toBe(String(bytes.length));
		expect(res.headers.get('content-disposition')).toBe(
			`attachment; filename="Product FAQ _ _______.pdf"; filename*=UTF-8''${encodeURIComponent('Product FAQ – ภาษาไทย.pdf')}`,
		);
		const csv = await kb('/knowledge/1/files/2/download');
		expect(csv.headers.get('content-type')).toBe('text/csv');
		expect(csv.bytes).toEqual(sampleCsv());
	});

	it('answers 404001 for a missing file', async () => {
		const res = await kb('/knowledge/1/files/77/download');
		expect(res.status).toBe(404);
		expect(res.body.code).toBe(404001);
	});
});

describe('PUT /knowledge/{id}/files/{fileId}', () => {
	it('replaces the content (200), updates meta and name, and the download returns the new bytes', async () => {
		const before = (await kb('/knowledge/1/files/2')).body;
		const pdf = minimalPdf('Replaced policy');
		const res = await kb('/knowledge/1/files/2', { method: 'PUT', body: upload(pdf, 'นโยบาย.pdf', PDF) });
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(FILE_KEYS);
		expect(res.body).toMatchObject({ id: 2, status: 'active', meta: { mimetype: PDF, originalName: 'นโยบาย.pdf', size: pdf.length } });
		expect(res.body.name).not.toBe(before.name);
		expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
		expect(res.body.createdAt).toBe(before.createdAt);

		const dl = await kb('/knowledge/1/files/2/download');
		const bytes = dl.bytes;
		expect(sha256(bytes)).toBe(sha256(pdf));
		expect(dl.headers.get('content-type')).toBe(PDF);

		const [entry] = bed.emulator.logFor('PUT', '/api/v1/knowledge/1/files/2');
		expect(entry.parts).toEqual([{ name: 'file', filename: 'นโยบาย.pdf', contentType: PDF, size: pdf.length, sha256: sha256(pdf) }]);
	});

	it('ignores (but logs) other parts and repeated fields', async () => {
		const csv = 'a,b\n1,2\n';
		const form = multipartForm(
			[
				['note', 'first'],
				['note', 'second'],
			],
			[
				{ name: 'attachment', data: 'extra', type: 'text/plain', filename: 'extra.txt' },
				{ data: csv, filename: 'data.csv', type: 'text/csv' },
			],
		);
		const res = await kb('/knowledge/1/files/2', { method: 'PUT', body: form });
		expect(res.status).toBe(200);
		expect(res.body.meta).toEqual({ mimetype: 'text/csv', originalName: 'data.csv', size: csv.length });
		const [entry] = bed.emulator.logFor('PUT', '/api/v1/knowledge/1/files/2');
		expect(entry.parts).toEqual([
			expect.objectContaining({ name: 'note', value: 'first' }),
			expect.objectContaining({ name: 'note', value: 'second' }),
			expect.objectContaining({ name: 'attachment', filename: 'extra.txt', size: 5, sha256: sha256('extra') }),
			expect.objectContaining({ name: 'file', filename: 'data.csv', size: csv.length, sha256: sha256(csv) }),
		]);
	});

	it('answers 422001 (field file) for a missing file part, two file parts, or a non-multipart body', async () => {
		const noFile = new FormData();
		noFile.append('name', 'x');
		const two = upload('a,b\n', 'one.csv', 'text/csv');
		two.append('file', new Blob(['c,d\n'], { type: 'text/csv' }), 'two.csv');
		for (const body of [noFile, two]) {
			const res = await kb('/knowledge/1/files/2', { method: 'PUT', body });
			expect(res.status).toBe(422);
			expect(res.body).toEqual(validation(['file']));
		}
		const json = await kb('/knowledge/1/files/2', { method: 'PUT', json: { file: 'x' } });
		expect(json.body).toEqual(validation(['file']));
		expect(bed.emulator.knowledge.files.get(2)!.meta.originalName).toBe('leave-policy.csv');
	});

	it('answers 400002 UnsupportedKnowledgeFileTypeError for a type outside the list', async () => {
		const res = await kb('/knowledge/1/files/2', { method: 'PUT', body: upload(Buffer.from([0x89, 0x50]), 'pic.png', 'image/png') });
		expect(res.status).toBe(400);
		expect(res.body).toEqual(refusal('BadRequestException', 400002, 'Unsupported file type', { type: 'UnsupportedKnowledgeFileTypeError', field: 'file', value: 'image/png' }));
	});

	it('answers 400002 UnsupportCsvKnowledgeFileFormatError for a CSV with a NUL byte or no content', async () => {
		for (const content of [Buffer.from('a,b\n1,\u0000\n'), Buffer.alloc(0)]) {
			const res = await kb('/knowledge/1/files/2', { method: 'PUT', body: upload(content, 'bad.csv', 'text/csv') });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ name: 'BadRequestException', code: 400002, errors: [{ type: 'UnsupportCsvKnowledgeFileFormatError', field: 'file' }] });
		}
		expect(bed.emulator.knowledge.files.get(2)!.sha256).toBe(sha256(sampleCsv()));
	});

	it('accepts a 255-character file name and rejects 256 (422001)', async () => {
		const ok = await kb('/knowledge/1/files/3', { method: 'PUT', body: upload('<p>x</p>', 'a'.repeat(250) + '.html', 'text/html') });
		expect(ok.status).toBe(200);
		const long = await kb('/knowledge/1/files/3', { method: 'PUT', body: upload('<p>x</p>', 'a'.repeat(251) + '.html', 'text/html') });
		expect(long.status).toBe(422);
		expect(long.body).toEqual(validation(['file']));
	});

	it('answers 404001 for a missing file and leaves uploads dir clean after failures', async () => {
		const res = await kb('/knowledge/1/files/99', { method: 'PUT', body: upload('a\n', 'a.csv', 'text/csv') });
		expect(res.status).toBe(404);
		expect(res.body.errors[0].type).toBe('KnowledgeFileNotFoundError');
		expect(fs.readdirSync(bed.emulator.knowledge.uploadDir)).toEqual([]);
	});
});

describe('upload size limit', () => {
	it('answers 413 (plain text) one byte over the limit and accepts exactly the limit', async () => {
		bed.emulator.setConfig({ maxUploadBytes: 1024 * 1024 });
		const small = bed.emulator;
		const over = await kb('/knowledge/1/files/1', { method: 'PUT', body: upload(Buffer.alloc(1024 * 1024 + 1, 0x41), 'big.pdf', PDF) });
		expect(over.status).toBe(413);
		expect(over.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(over.text).toBe('Request Entity Too Large');
		expect(small.knowledge.files.get(1)!.meta.originalName).toBe('handbook.pdf');
		expect(fs.readdirSync(small.knowledge.uploadDir)).toEqual([]);

		const exact = Buffer.alloc(1024 * 1024, 0x42);
		const ok = await kb('/knowledge/1/files/1', { method: 'PUT', body: upload(exact, 'exact.pdf', PDF) });
		expect(ok.status).toBe(200);
		expect(small.knowledge.files.get(1)!.sha256).toBe(sha256(exact));
	});
});
