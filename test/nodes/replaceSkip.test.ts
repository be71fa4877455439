/**
 * Knowledge File → Replace with Skip If Unchanged, in n8n-core's real engine
 * against the emulator: sizes first (no download when they differ), then the
 * sha256 of a streamed download against the binary's (from n8n's binary store
 * in filesystem mode, from the item in memory mode). Also the nightly sync
 * example's uploads over several nights, with and without the option.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { exampleCredential } from '../../testbed/examples';
import type { WorkflowJson } from '../../testbed/engine';
import { suiteTestbed } from '../../testbed/testbed';
import { ROOT } from '../../testbed/root';
import { byId } from '../../testbed/locator';
import { figure } from '../figures';

const bed = suiteTestbed({ binaryMode: 'filesystem' });
const figures: string[] = [];

afterAll(async () => {
	figure(figures.join('\n'));
});

const FAQ_CSV = 7;
const replace = (skipIfUnchanged?: boolean): INodeParameters => ({
	resource: 'knowledgeFile',
	operation: 'replace',
	knowledgeId: byId(2),
	fileId: byId(FAQ_CSV),
	binaryPropertyName: 'data',
	options: skipIfUnchanged === undefined ? {} : { skipIfUnchanged },
});
const csvItem = (content: Buffer | string): INodeExecutionData => ({
	json: {},
	binary: { data: { data: Buffer.from(content).toString('base64'), mimeType: 'text/csv', fileName: 'faq.csv' } },
});
const requests = () => bed.emulator.log.filter((e) => e.path.startsWith('/api/v1/knowledge')).map((e) => `${e.method} ${e.path.replace('/api/v1/knowledge', '')}`);
const stored = () => readFileSync(bed.emulator.knowledge.files.get(FAQ_CSV)!.contentPath);

describe('Skip If Unchanged (a binary held in the item)', () => {
	beforeEach(async () => {
		await bed.setBinaryMode('default');
	});

	it('the same content: no upload; the stored file with skipped: unchanged', async () => {
		const run = await bed.runNode(replace(true), { items: [csvItem(stored())] });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expect.objectContaining({ id: FAQ_CSV, skipped: 'unchanged', usedByLanguageModel: true, meta: expect.objectContaining({ originalName: 'faq.csv' }) })]);
		expect(requests()).toEqual([`GET /2/files/${FAQ_CSV}`, `GET /2/files/${FAQ_CSV}/download`]);
	});

	it('another size: uploaded without downloading the stored file', async () => {
		const content = Buffer.concat([stored(), Buffer.from('Is there a size limit?,100 MB\n')]);
		const run = await bed.runNode(replace(true), { items: [csvItem(content)] });
		expect(run.json[0].skipped).toBeUndefined();
		expect(run.json[0].upload).toMatchObject({ size: content.length });
		expect(requests()).toEqual([`GET /2/files/${FAQ_CSV}`, `PUT /2/files/${FAQ_CSV}`]);
		expect(stored()).toEqual(content);
	});

	it('the same size, other bytes: compared by sha256, then uploaded', async () => {
		const content = Buffer.from(stored().toString('latin1').replace('Yes', 'Yup'), 'latin1');
		expect(content.length).toBe(stored().length);
		const run = await bed.runNode(replace(true), { items: [csvItem(content)] });
		expect(run.json[0].skipped).toBeUndefined();
		expect(requests()).toEqual([`GET /2/files/${FAQ_CSV}`, `GET /2/files/${FAQ_CSV}/download`, `PUT /2/files/${FAQ_CSV}`]);
		expect(stored()).toEqual(content);
	});
});

describe('Skip If Unchanged, errors', () => {
	it('off (the default): uploads as before, without reading the stored file', async () => {
		const run = await bed.runNode(replace(), { items: [csvItem(stored())] });
		expect(run.json[0].upload).toBeDefined();
		expect(requests()).toEqual([`PUT /2/files/${FAQ_CSV}`]);
	});

	it('a download that fails: an error item paired to its input, nothing uploaded', async () => {
		bed.emulator.faults.add({ method: 'GET', path: /\/download$/, action: { kind: 'truncate', bytes: 3 } });
		const run = await bed.runNode(replace(true), { items: [csvItem(stored())], continueOnFail: true });
		expect(String(run.json[0].error)).toMatch(/The download broke off after 3 of \d+ bytes/);
		expect(run.items[0].pairedItem).toEqual({ item: 0 });
		expect(requests().filter((r) => r.startsWith('PUT'))).toEqual([]);
	});

	it('a file that does not exist: the service\'s 404, nothing uploaded', async () => {
		const run = await bed.runNode({ ...replace(true), fileId: byId(999) }, { items: [csvItem('a,b\n')], continueOnFail: true });
		expect(String(run.json[0].error)).toMatch(/not found/i);
		expect(requests()).toEqual(['GET /2/files/999']);
	});

	it('a value that is not true or false is refused before anything is sent', async () => {
		const run = await bed.runNode({ ...replace(), options: { skipIfUnchanged: 'yes' } }, { items: [csvItem('a,b\n')], continueOnFail: true });
		expect(run.json[0].error).toBe('Invalid "Skip If Unchanged" in item 0: expected true or false');
		expect(requests()).toEqual([]);
	});
});

describe('the nightly sync example: uploads before and after Skip If Unchanged', () => {
	const example = JSON.parse(readFileSync(path.join(ROOT, 'examples/scheduled-knowledge-base-sync.json'), 'utf8')) as WorkflowJson;
	const withoutSkip: WorkflowJson = {
		...example,
		nodes: example.nodes.map((n) => (n.name === 'Replace faq.csv' ? { ...n, parameters: { ...n.parameters, options: {} } } : n)),
	};

	async function nights(workflow: WorkflowJson, count: number): Promise<{ uploads: number; requests: number; outputs: IDataObject[] }> {
		bed.emulator.reset();
		bed.credentialsHelper.set(exampleCredential(bed.emulator, 'workplaceKnowledgeBaseApi'));
		const outputs: IDataObject[] = [];
		for (let night = 0; night < count; night++) {
			const result = await bed.run(workflow);
			expect(result.status).toBe('success');
			outputs.push(...result.json('Replace faq.csv'));
			// The rendered file lives in n8n's binary store, so Skip If Unchanged hashes it as a stream.
			expect(result.items('Render faq.csv')[0].binary?.data.id).toMatch(/^filesystem/);
		}
		const kb = bed.emulator.log.filter((e) => e.path.startsWith('/api/v1/knowledge'));
		return { uploads: kb.filter((e) => e.method === 'PUT').length, requests: kb.length, outputs };
	}

	it('7 nights with the answers unchanged after the first: 1 upload with the option, 7 without (binaries streamed from the filesystem store)', async () => {
		await bed.setBinaryMode('filesystem');
		const after = await nights(example, 7);
		expect(after.uploads).toBe(1);
		expect(after.outputs.map((o) => o.skipped ?? 'uploaded')).toEqual(['uploaded', ...Array(6).fill('unchanged')]);
		const before = await nights(withoutSkip, 7);
		expect(before.uploads).toBe(7);
		figures.push(`nightly sync, 7 nights, answers unchanged after night 1: uploads ${before.uploads} without Skip If Unchanged (${before.requests} requests), ${after.uploads} with it (${after.requests} requests)`);
	});
});
