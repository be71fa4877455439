/**
 * A hostile or broken service: the emulator's hostile modes (a listing that
 * never ends, a body trickled byte by byte, a download larger than any file
 * the service keeps, a gzip bomb, a redirect) against every context that reads
 * from the service, in n8n-core's real engine: an operation, the knowledge
 * trigger's poll and its Include File Content download, the editor's list
 * search, a credential test. All of them go through the one request path
 * (shared/transport/boundedRequest.ts); before it, each of these tests failed
 * (the node waited, read or kept what it was given). Binary data is on disk,
 * as a production n8n keeps large files.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { CREDENTIALS, suiteTestbed, type Testbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';
import { MAX_LIST_ITEMS, MAX_LIST_PAGES } from '../../shared/transport';
import { gzipBombBytes } from '../../emulator/common/hostile';

const bed = suiteTestbed({ binaryMode: 'filesystem' });

const MiB = 1024 * 1024;
const HANDBOOK = 1;
/** A file of the handbook the emulator seeds. */
const HANDBOOK_FILE = 2;

type Rule = Parameters<Testbed['emulator']['faults']['add']>[0];
const inject = (rule: Rule) => bed.emulator.faults.add(rule);

/** Options of a version-2 operation: one attempt unless said, and Timeout `timeout` ms. */
const options = (timeout: number, maxAttempts = 1): INodeParameters => ({ timeout, retry: { retry: { maxAttempts, maxWaitSeconds: 0.2 } } });
const runV2 = async (parameters: INodeParameters) => await bed.runNode(parameters, { typeVersion: 2 });

const kbGet = (extra: INodeParameters = {}): INodeParameters => ({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(HANDBOOK), options: options(1000), ...extra });
const fileDownload = (opts: INodeParameters = {}): INodeParameters => ({
	resource: 'knowledgeFile',
	operation: 'download',
	knowledgeId: byId(HANDBOOK),
	fileId: byId(HANDBOOK_FILE),
	binaryPropertyName: 'data',
	options: { ...options(5000), ...opts },
});

/** The knowledge trigger on the handbook, polled once so it has recorded the files (a first poll reports nothing). */
async function recordedPoller(extraOptions: INodeParameters = {}) {
	const poller = bed.knowledgePoller({ watch: 'knowledgeBase', knowledgeId: byId(HANDBOOK), events: ['fileAdded', 'fileReplaced'], options: extraOptions });
	expect(await poller.poll()).toBeNull();
	return { poller, state: JSON.stringify(poller.staticData) };
}

/** A file added to the handbook by another user of the service (the emulator's admin route). */
async function addFile(name: string): Promise<number> {
	const response = await fetch(`${bed.emulator.url}/__emulator/knowledge/${HANDBOOK}/files`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ originalName: name, mimetype: 'text/csv', content: 'a,b\n1,2\n' }),
	});
	return Number(((await response.json()) as IDataObject).id);
}

const listFiles = (token?: string) =>
	bed.listSearch('searchKnowledgeFiles', { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK) }, undefined, token, 'parameters.fileId');
const searchBases = () => bed.listSearch('searchKnowledgeBases', { resource: 'knowledgeBase', operation: 'get' });

describe('a listing that never ends', () => {
	// Well past the caps, then the real list (which ends): before the caps, all of it was read and returned.
	const pages = (2 * MAX_LIST_ITEMS) / 100;

	it('Get Many (Return All) stops at 100,000 items and fails the item, outputting nothing', async () => {
		inject({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}/files`, times: pages, action: { kind: 'endlessList', pageSize: 100 } });
		const run = await runV2({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(HANDBOOK), returnAll: true });
		expect(run.error?.message).toBe(
			'Get many knowledge files (item 0): the list went on past 100,000 items, the most the node reads of one list, and the service still offered more; the node stopped reading rather than hold a list without end',
		);
		expect(run.json).toEqual([]);
		expect(bed.emulator.requestsTo('GET', `/api/v1/knowledge/${HANDBOOK}/files`)).toHaveLength(MAX_LIST_ITEMS / 100);
	});

	it('the knowledge trigger fails the poll, reports nothing and keeps its state; the next good poll catches up', async () => {
		const { poller, state } = await recordedPoller();
		const added = await addFile('added-while-the-listing-ran.csv');
		inject({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}/files`, times: pages, action: { kind: 'endlessList', meta: 'endless' } });
		await expect(poller.poll()).rejects.toThrow(
			"List the files of a knowledge base: the list went on past 100,000 items, the most the node reads of one list, and the service still offered more; the node stopped reading rather than hold a list without end; nothing was reported and the recorded state was kept",
		);
		expect(JSON.stringify(poller.staticData)).toBe(state);
		bed.emulator.faults.clear();
		const next = await poller.poll();
		expect(next?.[0].map((item) => [item.json.event, item.json.id])).toEqual([['fileAdded', added]]);
	});

	it('a list search refuses a position past 10,000 pages or 100,000 items', async () => {
		await expect(listFiles(`${MAX_LIST_PAGES + 1}:500:`)).rejects.toThrow(/^Search knowledge files: the list went on past 10,000 pages/);
		await expect(listFiles(`1001:${MAX_LIST_ITEMS}:`)).rejects.toThrow(/^Search knowledge files: the list went on past 100,000 items/);
		expect(bed.emulator.requestsTo('GET', `/api/v1/knowledge/${HANDBOOK}/files`)).toHaveLength(0);
	});
});

describe('a body trickled byte by byte', () => {
	const trickle: Rule['action'] = { kind: 'trickle', intervalMs: 100 };

	it('an operation ends each attempt at its Timeout, headers and body together, and retries a read', async () => {
		inject({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}`, times: Infinity, action: trickle });
		const once = await runV2(kbGet());
		expect(once.error?.message).toBe('The service did not answer in time');
		expect(once.error?.description).toBe('ETIMEDOUT after 1 attempt');
		const retried = await runV2(kbGet({ options: options(1000, 3) }));
		expect(retried.error?.message).toMatch(/^Get a knowledge base \(item 0\): gave up after 3 attempts over \d+(\.\d)? s; the last attempt failed: the service did not answer in time$/);
		expect(bed.emulator.requestsTo('GET', `/api/v1/knowledge/${HANDBOOK}`)).toHaveLength(4);
	});

	it('a create whose answer is trickled fails at its Timeout, is not sent again, and says the task may exist', async () => {
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: trickle });
		const run = await runV2({ resource: 'task', operation: 'create', taskTitle: 'Trickled', additionalFields: {}, options: options(1000, 4) });
		expect(run.error?.message).toMatch(/^The service did not answer in time; the task may have been created even so/);
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks')).toHaveLength(1);
	});

	it('a download trickled ends at its Timeout and stores nothing', async () => {
		inject({ method: 'GET', path: /\/download$/, times: Infinity, action: trickle });
		const run = await runV2(fileDownload({ timeout: 1000 }));
		expect(run.error?.message).toMatch(
			/^Download a knowledge file \(item 0\): the download was not complete within the Timeout \(1 s, and a second more for every 64 KB that arrived\) after \d+ bytes; nothing was stored$/,
		);
		expect(run.items).toEqual([]);
	});

	it("the knowledge trigger's poll and its download end at the trigger's Timeout; the state is kept", async () => {
		const { poller, state } = await recordedPoller({ timeout: 1000, includeContent: true });
		inject({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}/files`, times: Infinity, action: trickle });
		await expect(poller.poll()).rejects.toThrow(/gave up after 4 attempts .*the service did not answer in time/);
		expect(JSON.stringify(poller.staticData)).toBe(state);

		bed.emulator.faults.clear();
		await addFile('trickled.csv');
		// Its 8 bytes take 4 s.
		inject({ method: 'GET', path: /\/download$/, times: Infinity, action: { kind: 'trickle', intervalMs: 500 } });
		await expect(poller.poll()).rejects.toThrow(/the download was not complete within the Timeout \(1 s, .*nothing was stored/);
		expect(JSON.stringify(poller.staticData)).toBe(state);
	});

	it('a list search and a credential test end at the editor\'s 15 s, each answer whole', async () => {
		// Once each: the list search's retry then gets the real page; a credential test does not retry.
		inject({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}/files`, action: trickle });
		inject({ method: 'GET', path: '/api/v1/knowledge', action: trickle });
		const [search, credential] = await Promise.all([listFiles(), bed.testCredential(CREDENTIALS.knowledgeBase.id)]);
		expect(bed.emulator.requestsTo('GET', `/api/v1/knowledge/${HANDBOOK}/files`)).toHaveLength(2);
		expect(search.results.length).toBeGreaterThan(0);
		expect(credential).toEqual({ status: 'Error', message: 'The service did not answer in time' });
	});
});

describe('a download larger than any file the service keeps', () => {
	const oversize = (bytes: number, contentLength: boolean): Rule => ({ method: 'GET', path: /\/download$/, action: { kind: 'oversize', bytes, contentLength } });

	it('Download refuses a 150 MB file by its Content-Length before reading it, and stops one without at 100 MB', async () => {
		inject(oversize(150 * MiB, true));
		const announced = await runV2(fileDownload());
		expect(announced.error?.message).toBe('Download a knowledge file (item 0): the file is 150 MB, larger than Max Download Size (100 MB); nothing was downloaded');

		inject(oversize(150 * MiB, false));
		const streamed = await runV2(fileDownload({ timeout: 60_000 }));
		expect(streamed.error?.message).toBe('Download a knowledge file (item 0): the download ran past Max Download Size (100 MB); it was stopped there and nothing was stored');
		expect(streamed.items).toEqual([]);
	});

	it('Max Download Size is an option, checked before anything is sent', async () => {
		inject(oversize(3 * MiB, false));
		const run = await runV2(fileDownload({ maxDownloadSize: 2 }));
		expect(run.error?.message).toBe('Download a knowledge file (item 0): the download ran past Max Download Size (2 MB); it was stopped there and nothing was stored');
		const bad = await runV2(fileDownload({ maxDownloadSize: 0 }));
		expect(bad.error?.message).toBe('Invalid "Max Download Size (MB)" in item 0: must be between 1 and 10240 MB (got 0)');
		expect(bed.emulator.requestsTo('GET', /\/download$/)).toHaveLength(1);
	});

	it('Download Picture stops at Max Download Size too', async () => {
		inject({ method: 'GET', path: /^\/file\/image\//, action: { kind: 'oversize', bytes: 3 * MiB, contentLength: false, contentType: 'image/png' } });
		const run = await runV2({ resource: 'message', operation: 'downloadPicture', pictureId: 'pic-1', size: 'large', binaryPropertyName: 'data', options: { maxDownloadSize: 1 } });
		expect(run.error?.message).toBe('Download a picture a user sent (item 0): the download ran past Max Download Size (1 MB); it was stopped there and nothing was stored');
		expect(bed.emulator.requestsTo('GET', /^\/file\/view\//)).toHaveLength(0);
	});

	it("the knowledge trigger's Include File Content refuses it, with or without Content-Length, and keeps its state", async () => {
		const { poller, state } = await recordedPoller({ includeContent: true });
		const added = await addFile('oversized.csv');
		inject(oversize(150 * MiB, true));
		await expect(poller.poll()).rejects.toThrow(`Download file ${added} of knowledge base ${HANDBOOK}: the file is 150 MB, larger than Max Download Size (100 MB); nothing was downloaded`);
		inject(oversize(150 * MiB, false));
		await expect(poller.poll()).rejects.toThrow(`Download file ${added} of knowledge base ${HANDBOOK}: the download ran past Max Download Size (100 MB); it was stopped there and nothing was stored`);
		expect(JSON.stringify(poller.staticData)).toBe(state);
		const next = await poller.poll();
		expect(next?.[0].map((item) => item.json.event)).toEqual(['fileAdded']);
		expect(next?.[0][0].binary?.data).toBeDefined();
	});
});

describe('a gzip bomb (255 KB on the wire, 256 MB unpacked)', () => {
	const bomb = (method: string, path: string, status?: number): Rule => ({ method, path, action: { kind: 'gzipBomb', status } });
	const RAN_PAST = "the service's answer ran past 16 MB (counted unpacked), far larger than any answer the service gives";

	// Made once (a second or two of compression), before the first request meets it.
	beforeAll(async () => await gzipBombBytes(256 * MiB), 60_000);

	it('an operation stops reading at 16 MB and uses nothing of it', async () => {
		inject(bomb('GET', `/api/v1/knowledge/${HANDBOOK}`));
		const run = await runV2(kbGet());
		expect(run.error?.message).toBe(`Get a knowledge base (item 0): ${RAN_PAST}, so the node stopped reading it; it was a read, so nothing was changed`);
		expect(run.json).toEqual([]);
	});

	it("the knowledge trigger's poll fails and keeps its state", async () => {
		const { poller, state } = await recordedPoller();
		inject(bomb('GET', `/api/v1/knowledge/${HANDBOOK}/files`));
		await expect(poller.poll()).rejects.toThrow(`List the files of a knowledge base: ${RAN_PAST}`);
		expect(JSON.stringify(poller.staticData)).toBe(state);
	});

	it('a list search fails saying so', async () => {
		inject(bomb('GET', '/api/v1/knowledge'));
		await expect(searchBases()).rejects.toThrow(`Search knowledge bases: ${RAN_PAST}`);
	});

	it('the credential tests fail instead of saying "Connection successful"', async () => {
		inject(bomb('GET', '/api/v1/knowledge'));
		expect(await bed.testCredential(CREDENTIALS.knowledgeBase.id)).toEqual({
			status: 'Error',
			message: "Testing the credential: the service's answer ran past 16 MB (counted unpacked), far larger than any answer the service gives; it was not read further. Check the Base URL",
		});
		inject(bomb('POST', '/oauth/token'));
		expect(await bed.testCredential(CREDENTIALS.bot.id)).toEqual({
			status: 'Error',
			message: "Could not obtain a bot access token: the token endpoint's answer ran past 16 MB (counted unpacked), far larger than a token; it was not read further",
		});
		inject(bomb('GET', '/bot/v1/users'));
		expect((await bed.testCredential(CREDENTIALS.bot.id)).message).toMatch(/^Testing the credential: the service's answer ran past 16 MB/);
	});
});

describe('a redirect is refused in every context', () => {
	const redirect = (path: string | RegExp): Rule => ({ method: 'GET', path, action: { kind: 'redirect', status: 302, location: 'https://elsewhere.example/steal?key=1' } });
	const REFUSED = 'the service answered with a redirect (302) to another address, https://elsewhere.example; the node does not follow redirects';

	it("the knowledge trigger's poll and its download", async () => {
		const { poller, state } = await recordedPoller({ includeContent: true });
		inject(redirect(`/api/v1/knowledge/${HANDBOOK}/files`));
		await expect(poller.poll()).rejects.toThrow(`List the files of a knowledge base: ${REFUSED}`);
		const added = await addFile('redirected.csv');
		inject(redirect(/\/download$/));
		await expect(poller.poll()).rejects.toThrow(`Download file ${added} of knowledge base ${HANDBOOK}: ${REFUSED}`);
		expect(JSON.stringify(poller.staticData)).toBe(state);
	});

	it('a list search', async () => {
		inject(redirect('/api/v1/knowledge'));
		await expect(searchBases()).rejects.toThrow(`Search knowledge bases: ${REFUSED}`);
	});
});
