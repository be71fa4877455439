/**
 * /__emulator/knowledge: another user's changes to knowledge bases and files,
 * seen through the service's own API afterwards, and refused when malformed.
 */
import { sha256 } from '../../testbed/httpClient';
import { emulatorTestbed, type CallOptions } from '../../testbed/testbed';

const bed = emulatorTestbed();
const kb = (path: string, options: CallOptions = {}) => bed.call(`/api/v1${path}`, { auth: 'knowledgeBase', ...options });

const admin = (path: string, method: string, json?: unknown) => bed.call(`/__emulator/knowledge${path}`, { method, json });

it('adds a base and a file; the API lists them', async () => {
	const base = await admin('', 'POST', { name: 'Onboarding' });
	expect(base.status).toBe(201);
	const file = await admin(`/${base.body.id}/files`, 'POST', { originalName: 'day-one.csv', mimetype: 'text/csv', content: 'step\nbadge\n' });
	expect(file.status).toBe(201);
	const listed = await kb(`/knowledge/${base.body.id}/files`);
	expect(listed.body.data.map((f: { id: number; meta: { originalName: string; size: number } }) => [f.id, f.meta.originalName, f.meta.size])).toEqual([[file.body.id, 'day-one.csv', 11]]);
	const download = await kb(`/knowledge/${base.body.id}/files/${file.body.id}/download`);
	expect(download.text).toBe('step\nbadge\n');
});

it('replaces a file: new content, size, storage name and a later updatedAt; a deleting file becomes active', async () => {
	const before = (await kb('/knowledge/1/files/6')).body;
	expect(before.status).toBe('deleting');
	const content = Buffer.from('%PDF-1.4 new policy');
	const replaced = await admin('/1/files/6', 'PUT', { contentBase64: content.toString('base64'), originalName: 'travel-policy.pdf' });
	expect(replaced.status).toBe(200);
	const after = (await kb('/knowledge/1/files/6')).body;
	expect(after).toMatchObject({ status: 'active', meta: { originalName: 'travel-policy.pdf', size: content.length, mimetype: 'application/pdf' } });
	expect(after.name).not.toBe(before.name);
	expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
	expect(bed.emulator.knowledge.files.get(6)!.sha256).toBe(sha256(content));
});

it('marks a file deleting (updatedAt moves), removes files and bases', async () => {
	const before = (await kb('/knowledge/1/files/2')).body;
	expect((await admin('/1/files/2', 'PATCH', { status: 'deleting' })).body).toMatchObject({ id: 2, status: 'deleting' });
	expect(Date.parse((await kb('/knowledge/1/files/2')).body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
	expect((await admin('/1/files/2', 'DELETE')).status).toBe(204);
	expect((await kb('/knowledge/1/files/2')).status).toBe(404);
	expect((await admin('/2', 'DELETE')).status).toBe(204);
	expect((await kb('/knowledge/2')).status).toBe(404);
});

it('adds many files at once', async () => {
	const made = await admin('/3/files', 'POST', { count: 250, namePrefix: 'bulk-' });
	expect(made.body).toMatchObject({ count: 250 });
	expect((await kb('/knowledge/3/files?pagination[pageSize]=100')).body.meta.pagination).toMatchObject({ total: 250, pageCount: 3 });
});

it.each([
	['an unknown field', '/1/files/2', 'PATCH', { status: 'deleting', reason: 'old' }, 400, /unknown field\(s\): reason/],
	['a status the service does not have', '/1/files/2', 'PATCH', { status: 'archived' }, 400, /status must be "active" or "deleting"/],
	['content and contentBase64 together', '/1/files/2', 'PUT', { content: 'a', contentBase64: 'YQ==' }, 400, /exactly one of content/],
	['no content', '/1/files', 'POST', { originalName: 'a.csv', mimetype: 'text/csv' }, 400, /exactly one of content/],
	['a file of another base', '/2/files/2', 'PATCH', { status: 'deleting' }, 404, /does not exist in knowledge base 2/],
	['a base that does not exist', '/99', 'DELETE', undefined, 404, /knowledge base 99 does not exist/],
	['an id that is not a number', '/abc/files', 'POST', { originalName: 'a.csv', mimetype: 'text/csv', content: 'a' }, 400, /id must be a positive whole number/],
	['a body that is not an object', '', 'POST', ['Onboarding'], 400, /JSON object expected/],
])('refuses %s', async (_name, path, method, json, status, message) => {
	const before = bed.emulator.knowledge.files.size;
	const answer = await admin(path, method, json);
	expect(answer.status).toBe(status);
	expect(answer.body.message).toMatch(message);
	expect(bed.emulator.knowledge.files.size).toBe(before);
});

it('is not in the request log (an admin route)', async () => {
	await admin('/1/files/2', 'PATCH', { status: 'deleting' });
	expect(bed.emulator.log).toHaveLength(0);
});
