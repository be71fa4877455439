/**
 * "Requests in Parallel", credential reads and connections, in n8n-core's real
 * engine over HTTP against the emulator; and version 2 of the node, which keeps
 * its request settings in each operation's Options (Batching → Requests in
 * Parallel, Retry, Timeout) and, unless told, runs requests that are safe to
 * repeat several at a time and creates one at a time, while version 1
 * workflows (settings at the top level) keep their meaning. Latency comes from
 * the emulator's delay faults; nothing here asserts how fast anything is.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import { redactedHeader } from '../../emulator/common/requestLog';
import type { RequestLogEntry } from '../../emulator/types';
import { Workplace } from '../../nodes/Workplace/Workplace.node';
import { AUTO_REQUESTS_IN_PARALLEL } from '../../nodes/Workplace/actions/requestSettings';
import { pairedItems } from '../../testbed/engine';
import { CREDENTIALS, suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';

const bed = suiteTestbed();

const FILE_PATH = /^\/api\/v1\/knowledge\/1\/files\/\d+$/;

/** Knowledge File → Get of every item's `fileId`; version 1's Requests in Parallel when given. */
function fileGet(parallel?: number | string, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'knowledgeFile',
		operation: 'get',
		knowledgeId: byId(1),
		fileId: byId('={{ $json.fileId }}'),
		...(parallel === undefined ? {} : { requestsInParallel: parallel }),
		...extra,
	};
}

function addFiles(n: number): number[] {
	return bed.emulator.knowledge.addFiles(1, n).map((f) => f.id);
}

const ended = (e: RequestLogEntry) => Date.parse(e.time) + (e.durationMs ?? 0);

/** Most requests the service was handling at once, by the log's arrival and end times. */
function mostAtOnce(entries: RequestLogEntry[]): number {
	return Math.max(...entries.map((e) => entries.filter((o) => Date.parse(o.time) <= Date.parse(e.time) && ended(o) > Date.parse(e.time)).length));
}

describe('Requests in Parallel: order and pairing', () => {
	it('keeps the input order and pairing when later items are answered first', async () => {
		const ids = addFiles(12);
		// Earlier items wait longer, so answers arrive in roughly reverse order.
		ids.forEach((id, n) => bed.emulator.faults.add({ path: `/api/v1/knowledge/1/files/${id}`, action: { kind: 'delay', ms: 400 - n * 30 } }));
		const run = await bed.runNode(fileGet(4), { items: ids.map((fileId) => ({ json: { fileId } })) });

		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.id)).toEqual(ids);
		expect(run.items.map((item) => pairedItems(item))).toEqual(ids.map((_, n) => [{ item: n }]));
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(sent).toHaveLength(12);
		// The first item sets off first (no token to fetch for this API), then four at a time, never more.
		expect(sent[0].path).toBe(`/api/v1/knowledge/1/files/${ids[0]}`);
		expect(mostAtOnce(sent)).toBeGreaterThan(1);
		expect(mostAtOnce(sent)).toBeLessThanOrEqual(4);
		// Answered out of order: some item finished before an earlier one.
		const endOf = (n: number) => ended(sent.find((e) => e.path.endsWith(`/${ids[n]}`))!);
		expect(endOf(3)).toBeLessThan(endOf(0));
	});

	it('with Continue On Fail, pairs every error item to its input, in order', async () => {
		const ids = addFiles(6);
		const fileIds: Array<number | string> = [...ids];
		fileIds[2] = 999_999; // the service answers 404
		fileIds[4] = 'abc'; // refused locally
		bed.emulator.faults.add({ path: `/api/v1/knowledge/1/files/${ids[1]}`, action: { kind: 'delay', ms: 200 } });
		const run = await bed.runNode(fileGet(3), { items: fileIds.map((fileId) => ({ json: { fileId } })), continueOnFail: true });

		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => pairedItems(item))).toEqual(fileIds.map((_, n) => [{ item: n }]));
		expect(run.json[1].id).toBe(ids[1]);
		expect(run.json[2]).toMatchObject({ httpCode: '404' });
		expect(run.json[4].error).toMatch(/^Invalid "File" in item 4/);
		expect([0, 1, 3, 5].map((n) => run.json[n].id)).toEqual([ids[0], ids[1], ids[3], ids[5]]);
	});

	it('without Continue On Fail, stops starting items at the first failure and throws the lowest item’s error', async () => {
		const ids = addFiles(12);
		const fileIds: Array<number | string> = [...ids];
		fileIds[3] = 999_999; // answered 404, late
		fileIds[5] = 'abc'; // fails at once, before item 3's answer
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1/files/999999', action: { kind: 'delay', ms: 400 } });
		const run = await bed.runNode(fileGet(4), { items: fileIds.map((fileId) => ({ json: { fileId } })) });

		expect(run.error).toBeDefined();
		expect(run.items).toEqual([]);
		// Item 3's 404, not item 5's local error that came first.
		expect(String(run.error!.message)).toMatch(/not found/i);
		expect(run.result.error?.context?.itemIndex).toBe(3);
		// Nothing after item 5 was sent: item 5 stopped the run while item 3 was still waiting.
		const sentIds = bed.emulator.log.filter((e) => FILE_PATH.test(e.path)).map((e) => Number(e.path.split('/').pop()));
		expect(sentIds.sort((a, b) => a - b)).toEqual([ids[0], ids[1], ids[2], ids[4], 999_999].sort((a, b) => a - b));
	});
});

describe('Requests in Parallel: rate limits', () => {
	it('a 429 with Retry-After pauses every worker of the run, not only the refused item', async () => {
		const ids = addFiles(40);
		// The 6th file request is refused; Retry-After 1 s.
		bed.emulator.faults.add({ path: FILE_PATH, skip: 5, action: { kind: 'status', status: 429, retryAfter: 1 } });
		const run = await bed.runNode(fileGet(8), { items: ids.map((fileId) => ({ json: { fileId } })) });

		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.id)).toEqual(ids);
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(sent).toHaveLength(41);
		const refusedAt = ended(sent.find((e) => e.status === 429)!);
		// Only requests the other 7 workers had already set off may still arrive during the
		// pause; without the shared pause the remaining ~34 items would all go out in it.
		const duringPause = sent.filter((e) => Date.parse(e.time) > refusedAt && Date.parse(e.time) < refusedAt + 900);
		expect(duringPause.length).toBeLessThanOrEqual(7);
		expect(sent.filter((e) => Date.parse(e.time) >= refusedAt + 900).length).toBeGreaterThanOrEqual(41 - 6 - 7);
	});

	it('under the service’s rate limiter, a parallel run completes in order with every item', async () => {
		bed.emulator.setConfig({ rateLimit: { capacity: 5, refillPerSecond: 20 } });
		const ids = addFiles(30);
		const run = await bed.runNode(fileGet(8, { retryOptions: { maxAttempts: 10 } }), { items: ids.map((fileId) => ({ json: { fileId } })) });

		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.id)).toEqual(ids);
		expect(bed.emulator.log.some((e) => e.status === 429)).toBe(true);
	});
});

describe('Requests in Parallel: the option', () => {
	it.each([
		['={{ 0 }}', 'must be between 1 and 100 (got 0)'],
		['={{ 101 }}', 'must be between 1 and 100 (got 101)'],
		['={{ 2.5 }}', 'expected a whole number, got 2.5'],
		['={{ "many" }}', 'expected a whole number, got "many"'],
	])('refuses %s before sending anything', async (value, why) => {
		const ids = addFiles(3);
		const run = await bed.runNode(fileGet(value), { items: ids.map((fileId) => ({ json: { fileId } })) });
		expect(String(run.error?.message)).toBe(`Invalid "Requests in Parallel" in item 0: ${why}`);
		expect(bed.emulator.log).toEqual([]);
	});
});

describe('credentials and tokens', () => {
	it('reads the credential once per run, not per item', async () => {
		const ids = addFiles(50);
		for (const parallel of [1, 8]) {
			bed.credentialsHelper.events.length = 0;
			const run = await bed.runNode(fileGet(parallel), { items: ids.map((fileId) => ({ json: { fileId } })) });
			expect(run.error).toBeUndefined();
			expect(run.json).toHaveLength(50);
			expect(bed.credentialsHelper.reads('workplaceKnowledgeBaseApi')).toBe(1);
		}
	});

	it('fetches one bot token for a 100-item run at 8 in parallel, and reads the credential once', async () => {
		const items = Array.from({ length: 100 }, (_, n) => ({ json: { username: n % 2 ? 'somchai.k' : 'nattaya.p' } }));
		const run = await bed.runNode(
			{ resource: 'user', operation: 'findByUsername', username: '={{ $json.username }}', requestsInParallel: 8 },
			{ items },
		);
		expect(run.error).toBeUndefined();
		expect(run.json.map((j) => j.username)).toEqual(items.map((i) => i.json.username));
		expect(bed.emulator.bot.tokenRequests).toBe(1);
		expect(bed.emulator.log.filter((e) => e.path === '/oauth/token')).toHaveLength(1);
		expect(bed.credentialsHelper.reads('workplaceBotApi')).toBe(1);
	});

	it('keeps a token refreshed after a 401 for the later items, and stores it', async () => {
		const items = Array.from({ length: 10 }, () => ({ json: { username: 'nattaya.p' } }));
		// The service refuses the 4th request's token (as if revoked): n8n fetches a new one and resends.
		bed.emulator.faults.add({ path: '/bot/v1/users', skip: 3, action: { kind: 'status', status: 401 } });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: '={{ $json.username }}' }, { items });

		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(10);
		expect(bed.emulator.bot.tokenRequests).toBe(2);
		const issued = [...bed.emulator.bot.tokens.keys()];
		const users = bed.emulator.log.filter((e) => e.path === '/bot/v1/users');
		expect(users.map((e) => e.status)).toEqual([200, 200, 200, 401, ...Array(7).fill(200)]);
		// Every request after the refresh carries the new token, and so does the stored credential.
		expect(users.slice(4).map((e) => e.headers.authorization)).toEqual(Array(7).fill(redactedHeader('authorization', `Bearer ${issued[1]}`)));
		expect(bed.credentialsHelper.getStored(CREDENTIALS.bot.id)!.data.accessToken).toBe(issued[1]);
		expect(bed.credentialsHelper.reads('workplaceBotApi')).toBe(1);
	});
});

describe('connections', () => {
	it('n8n-core 2.41 opens a new connection for every request (no keep-alive through its HTTP helper)', async () => {
		// Measured fact behind docs/performance.md: n8n builds a new http.Agent for each request
		// (@n8n/backend-network setAxiosAgents), so requests say "Connection: close". If this
		// fails, n8n started reusing connections: update docs/performance.md.
		const ids = addFiles(50);
		const run = await bed.runNode(fileGet(1), { items: ids.map((fileId) => ({ json: { fileId } })) });
		expect(run.error).toBeUndefined();
		const sent = bed.emulator.log.filter((e) => FILE_PATH.test(e.path));
		expect(sent).toHaveLength(50);
		expect(new Set(sent.map((e) => e.connection)).size).toBe(50);
		expect(new Set(sent.map((e) => e.headers.connection))).toEqual(new Set(['close']));
	});
});

describe('per-run work', () => {
	// n8n resolves every getNodeParameter call anew; spying on its resolver counts them.
	const { ExecuteContext } = jest.requireActual<typeof import('n8n-core')>('n8n-core');
	const reads = () => {
		const spy = jest.spyOn(ExecuteContext.prototype as unknown as { _getNodeParameter: (name: string) => unknown }, '_getNodeParameter');
		return { of: (name: string) => spy.mock.calls.filter(([n]) => n === name).length, restore: () => spy.mockRestore() };
	};

	it('reads a parameter without an expression once per run, one with an expression once per item', async () => {
		const ids = addFiles(20);
		const counter = reads();
		try {
			const run = await bed.runNode(fileGet(4), { items: ids.map((fileId) => ({ json: { fileId } })) });
			expect(run.json.map((j) => j.id)).toEqual(ids);
			expect(counter.of('knowledgeId')).toBe(1);
			expect(counter.of('fileId')).toBe(20);
			expect(counter.of('retryOptions')).toBe(1);
		} finally {
			counter.restore();
		}
	});

	it('builds the requests of 64 items in one go, ahead of sending them', async () => {
		const ids = addFiles(100);
		const read = jest.spyOn(ExecuteContext.prototype as unknown as { _getNodeParameter: (name: string) => unknown }, '_getNodeParameter');
		const sent = jest.spyOn(bed.credentialsHelper, 'authenticate');
		try {
			const run = await bed.runNode(fileGet(1), { items: ids.map((fileId) => ({ json: { fileId } })) });
			expect(run.json.map((j) => j.id)).toEqual(ids);
			const reads = read.mock.invocationCallOrder.filter((_, k) => read.mock.calls[k][0] === 'fileId');
			const sends = sent.mock.invocationCallOrder;
			expect(sends).toHaveLength(100);
			const readBefore = (send: number) => reads.filter((order) => order < sends[send]).length;
			// Items 0–63 are built before item 0 is sent; items 64–99 once item 64 is due.
			expect([readBefore(0), readBefore(63), readBefore(64)]).toEqual([64, 64, 100]);
		} finally {
			read.mockRestore();
			sent.mockRestore();
		}
	});

	it('meets a request built ahead that failed in its own item\u2019s turn: the items before it are sent, none after', async () => {
		const ids = addFiles(80);
		const fileIds: Array<number | string> = [...ids];
		fileIds[70] = 'abc';
		const run = await bed.runNode(fileGet(1), { items: fileIds.map((fileId) => ({ json: { fileId } })) });
		expect(run.result.error?.context?.itemIndex).toBe(70);
		expect(String(run.error!.message)).toMatch(/File.*item 70/);
		const sentIds = bed.emulator.log.filter((e) => FILE_PATH.test(e.path)).map((e) => Number(e.path.split('/').pop()));
		expect(sentIds).toEqual(ids.slice(0, 70));
	});

	it('still fails every item on its own when a value without an expression is invalid', async () => {
		const ids = addFiles(3);
		const fromList = { __rl: true, mode: 'list', value: 'x' };
		const run = await bed.runNode(fileGet(2, { knowledgeId: fromList }), { items: ids.map((fileId) => ({ json: { fileId } })), continueOnFail: true });
		expect(run.json.map((j) => j.error)).toEqual([0, 1, 2].map((i) => `Invalid "Knowledge Base" in item ${i}: must be a positive whole number, got "x"`));
		expect(bed.emulator.log).toEqual([]);
	});
});

// ---------------------------------------------------------------------------
// Version 2: request settings in Options, defaults derived from the request

const TASKS = '/api/v1/task-projects/tasks';
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
		const run = await bed.runNode(fileGet(undefined, { options: { batching: { batch: { requestsInParallel: 3 } } } }), { items, typeVersion: 2 });
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
		const run = await bed.runNode(fileGet(3, { retryOptions: { maxAttempts: 1, timeoutSeconds: 30 } }), { items, typeVersion: 1 });
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
