/**
 * Version 2 of the node keeps its request settings in each operation's Options
 * (Batching → Requests in Parallel, Retry, Timeout) and, unless told, runs
 * requests that are safe to repeat several at a time and creates one at a
 * time. Version 1 workflows (settings at the top level) keep their meaning.
 * In n8n-core's real engine over HTTP against the emulator.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import type { RequestLogEntry } from '../../emulator/types';
import { Workplace } from '../../nodes/Workplace/Workplace.node';
import { AUTO_REQUESTS_IN_PARALLEL } from '../../nodes/Workplace/transport';
import { Testbed, emulatorCredential } from '../harness/testbed';

let bed: Testbed;

beforeAll(async () => {
	bed = await Testbed.start();
});
afterAll(async () => {
	await bed?.close();
});
beforeEach(() => {
	bed.emulator.reset();
	bed.credentialsHelper.set(emulatorCredential(bed.emulator, 'knowledgeBase'));
	bed.credentialsHelper.set(emulatorCredential(bed.emulator, 'taskProjects'));
});

const byId = (id: string | number) => ({ __rl: true, mode: 'id', value: String(id) });
const FILE_PATH = /^\/api\/v1\/knowledge\/1\/files\/\d+$/;
const TASKS = '/api/v1/task-projects/tasks';
const ended = (e: RequestLogEntry) => Date.parse(e.time) + (e.durationMs ?? 0);
function mostAtOnce(entries: RequestLogEntry[]): number {
	return Math.max(...entries.map((e) => entries.filter((o) => Date.parse(o.time) <= Date.parse(e.time) && ended(o) > Date.parse(e.time)).length));
}

const fileGet = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'knowledgeFile',
	operation: 'get',
	knowledgeId: byId(1),
	fileId: byId('={{ $json.fileId }}'),
	...extra,
});
const taskCreate = (extra: INodeParameters = {}): INodeParameters => ({ resource: 'task', operation: 'create', taskTitle: '={{ $json.title }}', ...extra });

/** `n` files, each answered after `ms`, as items `{ fileId }`. */
function slowFiles(n: number, ms: number) {
	const ids = bed.emulator.knowledge.addFiles(1, n).map((f) => f.id);
	bed.emulator.faults.add({ method: 'GET', path: FILE_PATH, times: Infinity, action: { kind: 'delay', ms } });
	return { ids, items: ids.map((fileId) => ({ json: { fileId } })) };
}

describe('version 2: defaults derived from the request', () => {
	it(`runs reads ${AUTO_REQUESTS_IN_PARALLEL} at a time, in input order and paired`, async () => {
		const { ids, items } = slowFiles(40, 150);
		const run = await bed.runNode(fileGet(), { items, typeVersion: 2 });
		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.id)).toEqual(ids);
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(sent).toHaveLength(40);
		expect(mostAtOnce(sent)).toBeGreaterThan(1);
		expect(mostAtOnce(sent)).toBeLessThanOrEqual(AUTO_REQUESTS_IN_PARALLEL);
	});

	it('runs creates (POST) one at a time, in order', async () => {
		bed.emulator.faults.add({ method: 'POST', path: TASKS, times: 6, action: { kind: 'delay', ms: 60 } });
		const titles = ['a', 'b', 'c', 'd', 'e', 'f'];
		const run = await bed.runNode(taskCreate(), { items: titles.map((title) => ({ json: { title } })), typeVersion: 2 });
		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.taskTitle)).toEqual(titles);
		const sent = bed.emulator.log.filter((e) => e.method === 'POST' && e.path === TASKS);
		expect(sent).toHaveLength(6);
		expect(mostAtOnce(sent)).toBe(1);
	});
});

describe('version 2: Options → Batching, Retry, Timeout', () => {
	it('Batching → Requests in Parallel bounds the requests at once', async () => {
		const { ids, items } = slowFiles(12, 150);
		const run = await bed.runNode(fileGet({ options: { batching: { batch: { requestsInParallel: 3 } } } }), { items, typeVersion: 2 });
		expect(run.json.map((j) => j.id)).toEqual(ids);
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(mostAtOnce(sent)).toBeGreaterThan(1);
		expect(mostAtOnce(sent)).toBeLessThanOrEqual(3);
	});

	it('Batching → Requests in Parallel lets creates run several at a time when asked', async () => {
		bed.emulator.faults.add({ method: 'POST', path: TASKS, times: 8, action: { kind: 'delay', ms: 150 } });
		const titles = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
		const run = await bed.runNode(taskCreate({ options: { batching: { batch: { requestsInParallel: 4 } } } }), {
			items: titles.map((title) => ({ json: { title } })),
			typeVersion: 2,
		});
		expect(run.json.map((j) => j.taskTitle)).toEqual(titles);
		expect(mostAtOnce(bed.emulator.log.filter((e) => e.method === 'POST'))).toBeGreaterThan(1);
	});

	it('Retry → Max Attempts 1 sends a failing read once', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', times: 3, action: { kind: 'status', status: 503 } });
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1), options: { retry: { retry: { maxAttempts: 1 } } } }, { typeVersion: 2 });
		expect(run.error?.httpCode).toBe('503');
		expect(bed.emulator.log.filter((e) => e.path === '/api/v1/knowledge/1')).toHaveLength(1);
	});

	it('retries a read after 503 by default (4 attempts)', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', times: 2, action: { kind: 'status', status: 503 } });
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1) }, { typeVersion: 2 });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.filter((e) => e.path === '/api/v1/knowledge/1')).toHaveLength(3);
	});

	it('Timeout (ms) ends an attempt the service does not answer in time', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'delay', ms: 2500 } });
		const run = await bed.runNode(
			{ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1), options: { timeout: 1000, retry: { retry: { maxAttempts: 1 } } } },
			{ typeVersion: 2 },
		);
		expect(String(run.error?.message)).toMatch(/did not answer in time/);
	});

	it('an operation’s own options sit beside them in the same collection', async () => {
		const run = await bed.runNode(
			{ resource: 'user', operation: 'findByUsername', username: 'nattaya.p', options: { exactMatch: true, batching: { batch: { requestsInParallel: 2 } } } },
			{ typeVersion: 2 },
		);
		expect(run.error).toBeUndefined();
		expect(run.json[0].username).toBe('nattaya.p');
	});

	it.each([
		[{ batching: { batch: { requestsInParallel: '={{ 101 }}' } } }, 'Requests in Parallel', 'must be between 0 and 100 (got 101)'],
		[{ retry: { retry: { maxAttempts: '={{ 0 }}' } } }, 'Max Attempts', 'must be between 1 and 10 (got 0)'],
		[{ timeout: '={{ "soon" }}' }, 'Timeout', 'expected a number, got "soon"'],
	])('refuses %j before sending anything, naming the field', async (options, field, why) => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1), options }, { typeVersion: 2 });
		expect(String(run.error?.message)).toBe(`Invalid "${field}" in item 0: ${why}`);
		expect(bed.emulator.log).toEqual([]);
	});
});

describe('version 1 workflows (settings at the top level) keep their meaning', () => {
	it('run one item at a time unless Requests in Parallel is set', async () => {
		const { ids, items } = slowFiles(6, 80);
		const run = await bed.runNode(fileGet(), { items, typeVersion: 1 });
		expect(run.json.map((j) => j.id)).toEqual(ids);
		expect(mostAtOnce(bed.emulator.log.filter((e) => FILE_PATH.test(e.path)))).toBe(1);
	});

	it('read requestsInParallel and retryOptions where version 1 stored them', async () => {
		const { ids, items } = slowFiles(9, 150);
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', times: 3, action: { kind: 'status', status: 503 } });
		const run = await bed.runNode(fileGet({ requestsInParallel: 3, retryOptions: { maxAttempts: 1, timeoutSeconds: 30 } }), { items, typeVersion: 1 });
		expect(run.json.map((j) => j.id)).toEqual(ids);
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(mostAtOnce(sent)).toBeGreaterThan(1);
		expect(mostAtOnce(sent)).toBeLessThanOrEqual(3);
		const once = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1), retryOptions: { maxAttempts: 1 } }, { typeVersion: 1 });
		expect(once.error?.httpCode).toBe('503');
		expect(bed.emulator.log.filter((e) => e.path === '/api/v1/knowledge/1')).toHaveLength(1);
	});
});

describe('the editor', () => {
	const properties = new Workplace().description.properties;
	const shown = (p: INodeProperties, version: number, resource: string, operation: string) => {
		const show = p.displayOptions?.show ?? {};
		const fits = (key: string, value: unknown) => !show[key] || (show[key] as unknown[]).includes(value);
		return fits('@version', version) && fits('resource', resource) && fits('operation', operation);
	};
	const names = (version: number, resource: string, operation: string) => properties.filter((p) => shown(p, version, resource, operation)).map((p) => p.name);
	const optionsOf = (version: number, resource: string, operation: string) =>
		(properties.find((p) => p.name === 'options' && shown(p, version, resource, operation))?.options ?? []).map((o) => o.name);

	it('version 2: one Options collection per operation holding the request settings', () => {
		expect(names(2, 'knowledgeBase', 'get')).not.toContain('requestsInParallel');
		expect(names(2, 'knowledgeBase', 'get')).not.toContain('retryOptions');
		expect(names(2, 'knowledgeBase', 'get').filter((n) => n === 'options')).toHaveLength(1);
		expect(optionsOf(2, 'knowledgeBase', 'get')).toEqual(['batching', 'retry', 'timeout']);
		expect(optionsOf(2, 'user', 'findByUsername')).toEqual(expect.arrayContaining(['exactMatch', 'excludeDeleted', 'batching', 'retry', 'timeout']));
		expect(optionsOf(2, 'messageAction', 'build')).toEqual([]);
	});

	it('version 1: the top-level settings, and the operations’ own Options as they were', () => {
		expect(names(1, 'knowledgeBase', 'get')).toEqual(expect.arrayContaining(['requestsInParallel', 'retryOptions']));
		expect(optionsOf(1, 'knowledgeBase', 'get')).toEqual([]);
		expect(optionsOf(1, 'user', 'findByUsername')).toEqual(expect.arrayContaining(['exactMatch', 'excludeDeleted']));
		expect(optionsOf(1, 'user', 'findByUsername')).not.toContain('batching');
	});
});
