/**
 * Knowledge File resource, executed in n8n-core's real engine against the
 * emulator over HTTP on 127.0.0.1, with n8n's binary data in filesystem mode
 * (streamed to disk) unless a test says otherwise.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData, IDataObject, INode, INodeListSearchResult, INodeParameters } from 'n8n-workflow';

import type { WorkflowJson } from '../../testbed/engine';
import { exampleCredential } from '../../testbed/examples';
import { CREDENTIALS, NODE_TYPE, suiteTestbed } from '../../testbed/testbed';
import { ROOT } from '../../testbed/root';
import { byId } from '../../testbed/locator';
import { until } from '../../testbed/until';
import { ALLOWED_MIME_TYPES } from '../../nodes/Workplace/actions/knowledgeFile/uploadRules';

const bed = suiteTestbed({ binaryMode: 'filesystem', emulator: { paginationMode: 'strapi', deleteResponse: 'empty' } });

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const kbRequests = (method?: string) =>
	bed.emulator.log.filter((e) => e.path.startsWith('/api/v1/knowledge') && (!method || e.method === method));
const fileRequests = (kbId: number) =>
	kbRequests('GET')
		.filter((e) => e.path === `/api/v1/knowledge/${kbId}/files`)
		.map((e) => `${String(e.query['pagination[page]'])}/${String(e.query['pagination[pageSize]'])}`);

/** Seeded: knowledge base 1 has files 1–6 (6 is `deleting`), knowledge base 2 has files 7 (faq.csv) and 8. */
const HANDBOOK = 1;
const FAQ = 2;

async function binaryBytes(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

/** A binary in n8n's store, as an upstream node (Read File, HTTP Request) would leave it. */
async function storedBinary(content: Buffer | Readable, fileName: string | undefined, mimeType: string): Promise<IBinaryData> {
	const binary: IBinaryData = { data: '', mimeType };
	if (fileName !== undefined) binary.fileName = fileName;
	return await Container.get(BinaryDataService).store(
		{ type: 'execution', workflowId: 'fixtures', executionId: 'fixtures' },
		content,
		binary,
	);
}

/** Files of n8n's binary store this process holds open (Linux's /proc/self/fd). */
function openStoreFiles(): string[] {
	return readdirSync('/proc/self/fd')
		.map((fd) => {
			try {
				return readlinkSync(`/proc/self/fd/${fd}`);
			} catch {
				return '';
			}
		})
		.filter((file) => file.startsWith(bed.binaryStoragePath));
}

/** A stream closes its file after it is destroyed or ended, a moment later: the files still open once that moment (up to 5 s) is over. */
async function storeFilesLeftOpen(): Promise<string[]> {
	return await until("the binary store's files to close", () => (openStoreFiles().length === 0 ? [] : undefined), 5000, { everyMs: 20 }).catch(() => openStoreFiles());
}

function filesUnder(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...filesUnder(full));
		else out.push(full);
	}
	return out;
}

describe('Knowledge File → Get Many', () => {
	beforeEach(() => {
		// 2 seeded + 262 = 264 files in knowledge base 2: three pages of 100.
		bed.emulator.knowledge.addFiles(FAQ, 120, { namePrefix: 'Report-', ext: '.csv' });
		bed.emulator.knowledge.addFiles(FAQ, 100, { namePrefix: 'report-', ext: '.csv', status: 'deleting' });
		bed.emulator.knowledge.addFiles(FAQ, 42, { namePrefix: 'manual-', ext: '.pdf', mimetype: 'application/pdf' });
	});

	it('returns all matches of name-contains and status filters across 3 pages', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'getAll',
			knowledgeId: byId(FAQ),
			returnAll: true,
			filters: { originalName: 'REPORT', originalNameMatch: 'contains', status: 'active' },
		});
		expect(run.error).toBeUndefined();
		expect(fileRequests(FAQ)).toEqual(['1/100', '2/100', '3/100']);
		expect(run.json).toHaveLength(120);
		for (const file of run.json) {
			expect((file.meta as IDataObject).originalName).toMatch(/^Report-\d+\.csv$/);
			expect(file).toMatchObject({ status: 'active', usedByLanguageModel: true });
		}
		expect(new Set(run.json.map((f) => f.id)).size).toBe(120);
		expect(run.items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
	});

	it('lets Limit count matches, stopping as soon as enough are found', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'getAll',
			knowledgeId: byId(FAQ),
			returnAll: false,
			limit: 5,
			filters: { status: 'deleting' },
		});
		// Page 1 holds files 7–106: none is being deleted; page 2 has the first ones.
		expect(fileRequests(FAQ)).toEqual(['1/100', '2/100']);
		expect(run.json).toHaveLength(5);
		expect(run.json.every((f) => f.status === 'deleting' && f.usedByLanguageModel === false)).toBe(true);
	});

	it('matches a name exactly, letter case included, and a mime type ignoring case', async () => {
		const exact = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'getAll',
			knowledgeId: byId(FAQ),
			returnAll: true,
			filters: { originalName: 'faq.csv' },
		});
		expect(exact.json.map((f) => f.id)).toEqual([7]);
		bed.emulator.clearLog();
		const wrongCase = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'getAll',
			knowledgeId: byId(FAQ),
			returnAll: true,
			filters: { originalName: 'FAQ.csv', originalNameMatch: 'equals' },
		});
		expect(wrongCase.json).toHaveLength(0);
		expect(fileRequests(FAQ)).toEqual(['1/100', '2/100', '3/100']);
		const pdfs = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'getAll',
			knowledgeId: byId(FAQ),
			returnAll: true,
			filters: { mimeType: ' Application/PDF ' },
		});
		expect(pdfs.json).toHaveLength(43); // the seeded Thai-named PDF and 42 manuals
		expect(pdfs.json.every((f) => (f.meta as IDataObject).mimetype === 'application/pdf')).toBe(true);
	});

	it.each([
		['a status that is not documented', { status: '={{ "archived" }}' }, /"Status" in item 0: must be "active" or "deleting", got "archived"/],
		['an unknown name match', { originalName: 'x', originalNameMatch: '={{ "startsWith" }}' }, /"Original Name Match" in item 0/],
	])('rejects %s before any request', async (_label, filters, message) => {
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(FAQ), returnAll: true, filters });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(message);
		expect(kbRequests()).toHaveLength(0);
	});

	it('makes deleting files visible: a field on each file and a hint with the output', async () => {
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(HANDBOOK), returnAll: true });
		expect(run.json).toHaveLength(6);
		const deleting = run.json.filter((f) => f.usedByLanguageModel === false);
		expect(deleting.map((f) => (f.meta as IDataObject).originalName)).toEqual(['old-travel-policy.pdf']);
		expect(run.json.filter((f) => f.usedByLanguageModel === true)).toHaveLength(5);
		const task = run.result.run.data.resultData.runData.Workplace[0];
		expect(task.hints).toEqual([
			expect.objectContaining({
				message: expect.stringMatching(/1 file has status "deleting" \("old-travel-policy\.pdf"\): the service's language model does not use its content/),
			}),
		]);
	});
});

describe('Knowledge File → Get', () => {
	it('gets a file with its language-model verdict', async () => {
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'get', knowledgeId: byId(HANDBOOK), fileId: byId(6) });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ id: 6, status: 'deleting', usedByLanguageModel: false, meta: { originalName: 'old-travel-policy.pdf' } });
		expect(kbRequests('GET').map((e) => e.path)).toEqual(['/api/v1/knowledge/1/files/6']);
	});

	it('answers a file of another knowledge base as not found', async () => {
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'get', knowledgeId: byId(HANDBOOK), fileId: byId(7) });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('404');
		expect(run.error?.description).toContain('Service code: 404001');
	});

	it.each(['7/../1', '..', 'abc', '0', ' '])('rejects the file id %p from upstream data before any request', async (id) => {
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'get', knowledgeId: byId(FAQ), fileId: byId('={{ $json.id }}') },
			{ items: [{ json: { id } }] },
		);
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(/"File" in item 0: (must be a positive whole number|is required)/);
		expect(kbRequests()).toHaveLength(0);
	});
});

describe('Knowledge File → Download', () => {
	it('streams the file into n8n\'s filesystem store with its name, type and sha256', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeFile',
			operation: 'download',
			knowledgeId: byId(FAQ),
			fileId: byId(8),
			binaryPropertyName: 'document',
		});
		expect(run.error).toBeUndefined();
		const record = bed.emulator.knowledge.files.get(8)!;
		const binary = run.items[0].binary!.document;
		expect(binary.id).toMatch(/^filesystem-v2:/);
		expect(binary).toMatchObject({ fileName: 'Product FAQ – ภาษาไทย.pdf', mimeType: 'application/pdf', fileExtension: 'pdf' });
		const bytes = await binaryBytes(binary);
		expect(sha256(bytes)).toBe(record.sha256);
		// The file item's fields a download knows, named as in every node's file item (issue 33), and the checksum.
		expect(run.json[0]).toEqual({
			id: 8,
			originalName: 'Product FAQ – ภาษาไทย.pdf',
			size: record.meta.size,
			mimeType: 'application/pdf',
			knowledgeId: FAQ,
			sha256: record.sha256,
		});
		expect(kbRequests('GET').map((e) => e.path)).toEqual(['/api/v1/knowledge/2/files/8/download']);
	});

	it.each([
		['../../../home/node/.n8n/config', 'config'],
		['..\\..\\Windows\\win.ini', 'win.ini'],
		['/etc/passwd', 'passwd'],
		['reports/2025/q3.csv', 'q3.csv'],
		['../..', 'knowledge-file-{id}'],
		['evil\u0000name\u0007.csv', 'evilname.csv'],
	])('stores a file named %j under a plain name (%s), the original kept in originalName (issue 23, item 12)', async (originalName, plain) => {
		const file = bed.emulator.knowledge.addFile(FAQ, { originalName, mimetype: 'text/csv', content: 'a,b\n' });
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(FAQ), fileId: byId(file.id), binaryPropertyName: 'data' });
		expect(run.error).toBeUndefined();
		const expected = plain.replace('{id}', String(file.id));
		expect(run.items[0].binary!.data.fileName).toBe(expected);
		expect(run.items[0].binary!.data.directory).toBeUndefined();
		// The plain name is the binary's; the item keeps one name, the original (issue 33: one name field per file).
		expect(run.json[0]).toMatchObject({ originalName });
		expect(run.json[0]).not.toHaveProperty('fileName');
	});

	it('falls back to the file\'s meta for the name when the download carries no Content-Disposition', async () => {
		bed.emulator.faults.add({
			method: 'GET',
			path: '/api/v1/knowledge/2/files/7/download',
			action: { kind: 'status', status: 200, body: 'question,answer\nQ,A\n', headers: { 'content-type': 'text/csv; charset=utf-8' } },
		});
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' });
		expect(run.error).toBeUndefined();
		expect(run.items[0].binary!.data).toMatchObject({ fileName: 'faq.csv', mimeType: 'text/csv' });
		expect((await binaryBytes(run.items[0].binary!.data)).toString()).toBe('question,answer\nQ,A\n');
		expect(kbRequests('GET').map((e) => e.path)).toEqual(['/api/v1/knowledge/2/files/7/download', '/api/v1/knowledge/2/files/7']);
	});

	it.each([
		['a body cut short with a clean close', { kind: 'truncate' as const, bytes: 100_000 }],
		['a connection reset mid-body', { kind: 'resetMidBody' as const, afterBytes: 100_000 }],
	])('fails on %s and stores no short file', async (_label, action) => {
		const big = randomBytes(1024 * 1024);
		const file = bed.emulator.knowledge.addFile(HANDBOOK, { originalName: 'big.pdf', mimetype: 'application/pdf', content: big });
		const before = new Set(filesUnder(bed.binaryStoragePath));
		bed.emulator.faults.add({ method: 'GET', path: `/api/v1/knowledge/1/files/${file.id}/download`, action });

		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId(file.id), binaryPropertyName: 'data' });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.message).toMatch(/^The download broke off after \d+ of 1048576 bytes; nothing was stored$/);
		const added = filesUnder(bed.binaryStoragePath).filter((f) => !before.has(f));
		expect(added).toEqual([]);

		// Control: the same download, unbroken, does leave its file there.
		const ok = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId(file.id), binaryPropertyName: 'data' });
		expect(ok.json[0].sha256).toBe(sha256(big));
		const stored = filesUnder(bed.binaryStoragePath).filter((f) => !before.has(f));
		expect(stored.some((f) => statSync(f).size === big.length)).toBe(true);
	});

	it('turns a truncated body into an error item paired to its input with Continue On Fail', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1/files/1/download', action: { kind: 'truncate', bytes: 10 } });
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId('={{ $json.id }}'), binaryPropertyName: 'data' },
			{ continueOnFail: true, items: [{ json: { id: 1 } }, { json: { id: 2 } }] },
		);
		expect(run.error).toBeUndefined();
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(run.json[0].error).toMatch(/broke off after 10 of \d+ bytes/);
		expect(run.items[0].binary).toBeUndefined();
		expect(run.json[1]).toMatchObject({ id: 2, originalName: 'leave-policy.csv' });
		expect(sha256(await binaryBytes(run.items[1].binary!.data))).toBe(bed.emulator.knowledge.files.get(2)!.sha256);
	});

	it('works in n8n\'s default (in-memory) binary mode as well, truncation included', async () => {
		await bed.setBinaryMode('default');
		const ok = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId(1), binaryPropertyName: 'data' });
		const binary = ok.items[0].binary!.data;
		expect(binary.id).toBeUndefined();
		expect(sha256(Buffer.from(binary.data, 'base64'))).toBe(bed.emulator.knowledge.files.get(1)!.sha256);

		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1/files/1/download', action: { kind: 'truncate' } });
		const cut = await bed.runNode({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId(1), binaryPropertyName: 'data' });
		expect(cut.error?.message).toMatch(/^The download broke off after/);
	});
});

/** Manual Trigger → Download (file `from`) → Replace (file `to`) with the downloaded binary. */
function roundTrip(kbFrom: number, from: number, kbTo: number, to: number): WorkflowJson {
	const credentials = { [CREDENTIALS.knowledgeBase.type]: { id: CREDENTIALS.knowledgeBase.id, name: CREDENTIALS.knowledgeBase.name } };
	const node = (name: string, x: number, parameters: INodeParameters): INode => ({
		id: name,
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials,
	});
	return {
		name: 'round trip',
		nodes: [
			{ id: 't', name: 'Manual Trigger', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			node('Download', 200, { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(kbFrom), fileId: byId(from), binaryPropertyName: 'data' }),
			node('Replace', 400, { resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(kbTo), fileId: byId(to), binaryPropertyName: 'data' }),
		],
		connections: {
			'Manual Trigger': { main: [[{ node: 'Download', type: 'main', index: 0 }]] },
			Download: { main: [[{ node: 'Replace', type: 'main', index: 0 }]] },
		},
	};
}

describe('Knowledge File → Replace', () => {
	it.each(['filesystem', 'default'] as const)(
		'round-trips download → replace with matching bytes (sha256), %s binary mode',
		async (mode) => {
			await bed.setBinaryMode(mode);
			const content = randomBytes(3 * 1024 * 1024 + 17);
			const source = bed.emulator.knowledge.addFile(HANDBOOK, { originalName: 'Quarterly report 2026 (final).pdf', mimetype: 'application/pdf', content });
			const result = await bed.run(roundTrip(HANDBOOK, source.id, FAQ, 7));
			expect(result.status).toBe('success');

			const [downloaded] = result.json('Download');
			const [replaced] = result.json('Replace');
			expect(downloaded.sha256).toBe(sha256(content));
			const target = bed.emulator.knowledge.files.get(7)!;
			expect(target.sha256).toBe(sha256(content));
			expect(sha256(readFileSync(target.contentPath))).toBe(sha256(content));
			expect(target.meta).toEqual({ mimetype: 'application/pdf', originalName: 'Quarterly report 2026 (final).pdf', size: content.length });
			expect(replaced).toMatchObject({
				id: 7,
				status: 'active',
				usedByLanguageModel: true,
				meta: { originalName: 'Quarterly report 2026 (final).pdf', size: content.length },
				upload: { originalName: 'Quarterly report 2026 (final).pdf', mimetype: 'application/pdf', size: content.length, sha256: sha256(content) },
			});

			const [put] = kbRequests('PUT');
			expect(put.path).toBe('/api/v1/knowledge/2/files/7');
			expect(put.parts).toEqual([
				{ name: 'file', filename: 'Quarterly report 2026 (final).pdf', contentType: 'application/pdf', size: content.length, sha256: sha256(content) },
			]);
			// form-data with known lengths: the length is announced up front, nothing chunked.
			expect(Number(put.headers['content-length'])).toBeGreaterThan(content.length);
			expect(put.headers['transfer-encoding']).toBeUndefined();
		},
	);

	it('takes the type from the extension when the binary\'s type is generic', async () => {
		const binary = await storedBinary(Buffer.from('question,answer\nA,B\n'), 'answers.csv', 'application/octet-stream');
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error).toBeUndefined();
		expect(kbRequests('PUT')[0].parts?.[0]).toMatchObject({ filename: 'answers.csv', contentType: 'text/csv' });
	});

	it('uploads under the File Name option when given', async () => {
		const binary = await storedBinary(Buffer.from('<p>hi</p>'), 'export.html', 'text/html');
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(HANDBOOK), fileId: byId(3), binaryPropertyName: 'data', options: { fileName: 'benefits.html' } },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error).toBeUndefined();
		expect(bed.emulator.knowledge.files.get(3)!.meta.originalName).toBe('benefits.html');
	});

	// The emulator judges uploads by its own reading of the service (emulator/knowledge/limits.ts):
	// a type the node wrongly lets through fails here (test/unit/emulatorAuthority.test.ts shows it).
	describe('what the node lets through, the service accepts', () => {
		it('every upload type the node allows', async () => {
			const content = Buffer.from('question,answer\nA,B\n');
			for (const type of ALLOWED_MIME_TYPES) {
				const binary = await storedBinary(content, 'answers', type);
				const run = await bed.runNode(
					{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
					{ items: [{ json: {}, binary: { data: binary } }] },
				);
				expect({ type, error: run.error?.message }).toEqual({ type, error: undefined });
			}
			expect(kbRequests('PUT').map((put) => put.parts?.[0]?.contentType)).toEqual(ALLOWED_MIME_TYPES);
		});
	});

	describe('rejects a bad upload before any byte is sent', () => {
		const replaceParams = { resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' };

		it('a type the service does not accept', async () => {
			const binary = await storedBinary(Buffer.from('\x89PNG'), 'photo.png', 'image/png');
			const run = await bed.runNode(replaceParams, { items: [{ json: {}, binary: { data: binary } }] });
			expect(run.error?.name).toBe('NodeOperationError');
			expect(run.error?.message).toMatch(/^Invalid "Input Binary Field" in item 0: "photo\.png" has type image\/png, which the service does not accept \(accepted: text\/csv, /);
			expect(kbRequests()).toHaveLength(0);
		});

		it('a file over 100 MB', async () => {
			const chunk = Buffer.alloc(1024 * 1024);
			const huge = Readable.from((function* () {
				for (let n = 0; n < 100; n++) yield chunk;
				yield Buffer.alloc(1);
			})());
			const binary = await storedBinary(huge, 'huge.csv', 'text/csv');
			const run = await bed.runNode(replaceParams, { items: [{ json: {}, binary: { data: binary } }] });
			expect(run.error?.name).toBe('NodeOperationError');
			expect(run.error?.message).toBe(
				'Invalid "Input Binary Field" in item 0: "huge.csv" is 104857601 bytes (100.0 MB); the service accepts at most 100 MB (104857600 bytes)',
			);
			expect(kbRequests()).toHaveLength(0);
		});

		it('a file name over 255 characters, naming the failing item', async () => {
			const good = await storedBinary(Buffer.from('a,b\n'), 'ok.csv', 'text/csv');
			const long = await storedBinary(Buffer.from('a,b\n'), `${'n'.repeat(252)}.csv`, 'text/csv');
			const run = await bed.runNode(
				{ ...replaceParams, fileId: byId('={{ $json.id }}') },
				{ continueOnFail: true, items: [{ json: { id: 7 }, binary: { data: good } }, { json: { id: 7 }, binary: { data: long } }] },
			);
			expect(run.json[0]).toMatchObject({ id: 7, usedByLanguageModel: true });
			expect(run.json[1].error).toBe('Invalid "File Name" in item 1: must be at most 255 characters (got 256)');
			expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			expect(kbRequests('PUT')).toHaveLength(1);
		});

		it('an item without the binary field, or a binary without a name', async () => {
			const missing = await bed.runNode(replaceParams, { items: [{ json: {} }] });
			// The node's own form, as for every other binary field (the item's own fields only: "toString" is none).
			expect(missing.error?.message).toBe('Invalid "Input Binary Field" in item 0: the item has no binary field "data"');
			const nameless = await storedBinary(Buffer.from('a,b\n'), undefined, 'text/csv');
			const unnamed = await bed.runNode(replaceParams, { items: [{ json: {}, binary: { data: nameless } }] });
			expect(unnamed.error?.message).toMatch(/^Invalid "File Name" in item 0: the binary field "data" has no file name/);
			expect(kbRequests()).toHaveLength(0);
		});
	});

	it('uploads data an item holds in memory mode, base64 written with line breaks (e.g. by a Code node) included', async () => {
		const bytes = Buffer.from('question,answer\n'.concat('Where?,Here\n'.repeat(40)));
		const wrapped = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
		for (const data of [bytes.toString('base64'), wrapped]) {
			const run = await bed.runNode(
				{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
				{ items: [{ json: {}, binary: { data: { data, mimeType: 'text/csv', fileName: 'faq.csv' } } }] },
			);
			expect(run.error).toBeUndefined();
			expect(run.json[0].upload).toMatchObject({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
			expect(bed.emulator.knowledge.files.get(7)!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
		}
	});

	it('explains the service\'s 400002 (unsupported CSV format)', async () => {
		const binary = await storedBinary(Buffer.from('a,b\n\0\0\0'), 'broken.csv', 'text/csv');
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('400');
		expect(run.error?.message).toBe('The service refused the file of item 0: Unsupported CSV format (its type or CSV format is not supported)');
		expect(run.error?.description).toContain('Service code: 400002');
		expect(run.error?.description).toContain('CSV file contains binary data');
	});

	it('explains the service\'s 413', async () => {
		bed.emulator.setConfig({ maxUploadBytes: 1000 });
		const binary = await storedBinary(randomBytes(5000), 'scan.pdf', 'application/pdf');
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error?.httpCode).toBe('413');
		expect(run.error?.message).toBe('The service refused the file of item 0 as too large (the service accepts at most 100 MB)');
	});

	it('rebuilds the streamed body when the transport retries the PUT', async () => {
		const content = randomBytes(256 * 1024);
		const binary = await storedBinary(content, 'retry.pdf', 'application/pdf');
		bed.emulator.faults.add({ method: 'PUT', path: '/api/v1/knowledge/2/files/7', action: { kind: 'status', status: 503 } });
		const run = await bed.runNode(
			{ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ), fileId: byId(7), binaryPropertyName: 'data' },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error).toBeUndefined();
		const puts = kbRequests('PUT');
		expect(puts.map((p) => p.status)).toEqual([503, 200]);
		expect(puts[1].parts?.[0]).toMatchObject({ size: content.length, sha256: sha256(content) });
		expect(bed.emulator.knowledge.files.get(7)!.sha256).toBe(sha256(content));
		// The refused attempt's body was opened and left unread by the HTTP client: its file is closed all the same.
		expect(await storeFilesLeftOpen()).toEqual([]);
	});
});

describe('Knowledge File → Delete', () => {
	it('outputs what was deleted when the confirmation is empty', async () => {
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'delete', knowledgeId: byId(HANDBOOK), fileId: byId(2) });
		expect(run.json).toEqual([{ id: 2, knowledgeId: HANDBOOK, deleted: true }]);
		expect(kbRequests('DELETE').map((e) => [e.path, e.status])).toEqual([['/api/v1/knowledge/1/files/2', 204]]);
		expect(bed.emulator.knowledge.files.has(2)).toBe(false);
	});

	it('keeps a JSON confirmation, with its language-model verdict', async () => {
		bed.emulator.setConfig({ deleteResponse: 'json' });
		const run = await bed.runNode({ resource: 'knowledgeFile', operation: 'delete', knowledgeId: byId(HANDBOOK), fileId: byId(2) });
		expect(run.json[0]).toMatchObject({ id: 2, knowledgeId: HANDBOOK, deleted: true, status: 'deleting', usedByLanguageModel: false });
	});
});

/** What the editor's file list shows, opened on the File field with the node's current parameters. */
const listSearch = async (method: string, parameters: INodeParameters, filter?: string, token?: string): Promise<INodeListSearchResult> =>
	await bed.listSearch(method, parameters, filter, token, 'parameters.fileId');

describe('File locator list', () => {
	it('lists the files of the knowledge base chosen in the node, flagging deleting ones', async () => {
		const result = await listSearch('searchKnowledgeFiles', {
			resource: 'knowledgeFile',
			operation: 'get',
			knowledgeId: { __rl: true, mode: 'list', value: String(HANDBOOK), cachedResultName: 'Employee Handbook (1)' },
		});
		expect(result.results.map((r) => r.value)).toEqual(['1', '2', '3', '4', '5', '6']);
		expect(result.results[0].name).toBe('handbook.pdf (1)');
		expect(result.results[5].name).toBe('old-travel-policy.pdf (6) — deleting, not used by the language model');
		expect(result.paginationToken).toBeUndefined();
		expect(kbRequests('GET').map((e) => e.path)).toEqual(['/api/v1/knowledge/1/files']);
	});

	it('filters by name and pages with a token', async () => {
		bed.emulator.knowledge.addFiles(FAQ, 150, { namePrefix: 'page-' });
		const first = await listSearch('searchKnowledgeFiles', { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(FAQ) }, 'PAGE-');
		expect(first.results).toHaveLength(98);
		// The token says where the list stands (page 2); it is opaque to the editor.
		expect(first.paginationToken).toMatch(/^2:/);
		const second = await listSearch('searchKnowledgeFiles', { resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(FAQ) }, 'page-', first.paginationToken);
		expect(second.results).toHaveLength(52);
		expect(second.paginationToken).toBeUndefined();
	});

	it('asks for a knowledge base first when none is chosen', async () => {
		await expect(listSearch('searchKnowledgeFiles', { resource: 'knowledgeFile', operation: 'get', knowledgeId: { __rl: true, mode: 'list', value: '' } })).rejects.toThrow(
			/Choose a knowledge base first/,
		);
		expect(kbRequests()).toHaveLength(0);
	});
});

describe('Example: Scheduled knowledge base sync', () => {
	const workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples/scheduled-knowledge-base-sync.json'), 'utf8')) as WorkflowJson;

	beforeEach(() => {
		bed.credentialsHelper.set(exampleCredential(bed.emulator, 'workplaceKnowledgeBaseApi'));
	});

	it('replaces faq.csv when it changed, and leaves it alone on the next run', async () => {
		const first = await bed.run(workflow);
		expect(first.status).toBe('success');
		expect(first.executionOrder[0]).toBe('Every night at 02:00');
		const [replaced] = first.json('Replace faq.csv');
		// The example's node is version 3: Simplify is on.
		expect(replaced).toMatchObject({ id: 7, originalName: 'faq.csv', mimeType: 'text/csv', usedByLanguageModel: true });
		const stored = readFileSync(bed.emulator.knowledge.files.get(7)!.contentPath, 'utf8');
		expect(stored).toContain('Which languages are supported?');
		expect(replaced.sha256).toBe(bed.emulator.knowledge.files.get(7)!.sha256);
		expect(kbRequests('PUT')).toHaveLength(1);

		bed.emulator.clearLog();
		const second = await bed.run(workflow);
		expect(second.status).toBe('success');
		expect(second.json('Replace faq.csv')).toEqual([expect.objectContaining({ id: 7, skipped: 'unchanged' })]);
		expect(kbRequests('PUT')).toHaveLength(0);
	});

	it('runs with its credential id and sends no request with another knowledge base', async () => {
		const result = await bed.run(workflow);
		const paths = new Set(kbRequests().map((e) => e.path));
		expect([...paths].every((p) => p.startsWith('/api/v1/knowledge/2/files'))).toBe(true);
		expect(result.json('List faq.csv in the knowledge base')).toHaveLength(1);
	});
});
