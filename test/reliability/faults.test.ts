/**
 * Fault suite: every fault the emulator can inject, survived by the real node
 * in n8n-core's real engine over HTTP. Retries keep waits short through the
 * node's own "Retry and Timeout" options and Retry-After 1; no timing is asserted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { assertNoSecrets, capturedLogs, emulatorCredential, suiteTestbed, type Testbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';
import { figure } from '../figures';

const bed = suiteTestbed();
/** Secrets checked per run by the testbed; counted here for the summary line. */
let secretsFound = 0;
let faultsInjected = 0;

/** Short waits: backoff capped at 0.2 s, Retry-After over 2 s fails at once. */
const FAST: INodeParameters = { maxWaitSeconds: 0.2 };
const kbGet = (id: string | number = 1, retryOptions: INodeParameters = FAST): INodeParameters => ({
	resource: 'knowledgeBase',
	operation: 'get',
	knowledgeId: byId(id),
	retryOptions,
});
const taskCreate = (title = 'Call the customer back', retryOptions: INodeParameters = FAST): INodeParameters => ({
	resource: 'task',
	operation: 'create',
	taskTitle: title,
	additionalFields: {},
	retryOptions,
});
const tasksCreated = () => bed.emulator.taskProjects.tasks.size;

/** Runs the node and also scans its run once more, counting (not only failing on) secrets. */
async function run(parameters: INodeParameters, options: Parameters<Testbed['runNode']>[1] = {}) {
	const result = await bed.runNode(parameters, options);
	for (const value of [result.result.run.data.resultData, capturedLogs]) {
		try {
			assertNoSecrets(value, bed.secrets);
		} catch {
			secretsFound++;
		}
	}
	return result;
}

function inject(rule: Parameters<Testbed['emulator']['faults']['add']>[0]) {
	faultsInjected += rule.times ?? 1;
	bed.emulator.faults.add(rule);
}

describe('faults on one request', () => {
	it('429 twice, then success: a read and a create are each carried out once', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 2, action: { kind: 'status', status: 429, retryAfter: 1 } });
		const read = await run(kbGet(1, { maxWaitSeconds: 2 }));
		expect(read.error).toBeUndefined();
		expect(read.json[0]).toMatchObject({ id: 1 });
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1').map((e) => e.status)).toEqual([429, 429, 200]);

		const before = tasksCreated();
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', times: 2, action: { kind: 'status', status: 429, retryAfter: 1 } });
		const create = await run(taskCreate('After the rate limit', { maxWaitSeconds: 2 }));
		expect(create.error).toBeUndefined();
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks').map((e) => e.status)).toEqual([429, 429, 201]);
		expect(tasksCreated()).toBe(before + 1);
	});

	it('Retry-After as an HTTP date is honoured', async () => {
		const soon = new Date(Date.now() + 1000).toUTCString();
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 429, retryAfter: soon } });
		const read = await run(kbGet(1, { maxWaitSeconds: 5 }));
		expect(read.error).toBeUndefined();
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1').map((e) => e.status)).toEqual([429, 200]);
	});

	it('Retry-After beyond Max Wait fails the item at once, saying when to retry', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 429, retryAfter: 120 } });
		const read = await run(kbGet(1, { maxWaitSeconds: 2 }));
		expect(read.error?.message).toMatch(
			/^Get a knowledge base \(item 0\): the service asked to wait 120 s, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; that is longer than Max Wait \(2 s\), so the node stopped instead of waiting$/,
		);
		expect(read.error?.httpCode).toBe('429');
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1')).toHaveLength(1);
	});

	it("a 429 an item stops at (Max Attempts 1) still holds the next items' requests for its Retry-After", async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 429, retryAfter: 1 } });
		const read = await run({ ...kbGet(1, { maxAttempts: 1, maxWaitSeconds: 5 }), requestsInParallel: 1 }, { items: [{ json: {} }, { json: {} }, { json: {} }], continueOnFail: true });
		expect(String(read.json[0].error)).toMatch(/^The service is rate limiting requests; retry in 1 s/);
		expect(read.json.slice(1)).toMatchObject([{ id: 1 }, { id: 1 }]);
		const sent = bed.emulator.requestsTo('GET', '/api/v1/knowledge/1');
		// Not sent into the rate limit the refusal announced: after it, and taken.
		expect(sent.map((e) => e.status)).toEqual([429, 200, 200]);
		expect(Date.parse(sent[1].time) - Date.parse(sent[0].time)).toBeGreaterThanOrEqual(900);
	});

	it("a 503's Retry-After is honoured as a 429's: beyond Max Wait the item fails at once, saying until when", async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 4, action: { kind: 'status', status: 503, retryAfter: 120, body: { message: 'Down for maintenance' } } });
		const read = await run(kbGet(1, { maxWaitSeconds: 2 }));
		expect(read.error?.message).toMatch(
			/^Get a knowledge base \(item 0\): the service asked to wait 120 s, until \S+Z; that is longer than Max Wait \(2 s\), so the node stopped instead of waiting$/,
		);
		expect(read.error?.httpCode).toBe('503');
		// Not three backoffs into an answer it said would not change for two minutes.
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1')).toHaveLength(1);
		bed.emulator.faults.clear();
	});

	it('a 503 burst on a read is retried with backoff until it passes; Max Attempts bounds it', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 3, action: { kind: 'status', status: 503 } });
		const read = await run(kbGet(1));
		expect(read.error).toBeUndefined();
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1').map((e) => e.status)).toEqual([503, 503, 503, 200]);

		bed.emulator.clearLog();
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 3, action: { kind: 'status', status: 503 } });
		const bounded = await run(kbGet(1, { ...FAST, maxAttempts: 2 }));
		expect(bounded.error?.httpCode).toBe('503');
		expect(bounded.error?.message).toMatch(/^Get a knowledge base \(item 0\): gave up after 2 attempts over \d+(\.\d)? s; the last answer was 503/);
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1')).toHaveLength(2);
		bed.emulator.faults.clear();
	});

	it('a 503 on a create is not resent, and the error says the task may exist', async () => {
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', action: { kind: 'status', status: 503 } });
		const create = await run(taskCreate());
		expect(create.error?.message).toMatch(/may have been created even so.*not retried automatically/);
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks')).toHaveLength(1);
	});

	it('a reset mid-body on a read is retried; on a create it is reported, not resent', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'resetMidBody', afterBytes: 10 } });
		const read = await run(kbGet(1));
		expect(read.error).toBeUndefined();
		expect(read.json[0]).toMatchObject({ id: 1 });
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1')).toHaveLength(2);

		const before = tasksCreated();
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', action: { kind: 'resetMidBody', afterBytes: 10 } });
		const create = await run(taskCreate('Reset after processing'));
		expect(create.error?.message).toMatch(/may have been created even so/);
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks')).toHaveLength(1);
		// The service did create it (the reset came after); the node did not create a second one.
		expect(tasksCreated()).toBe(before + 1);
	});

	it('a response slower than the timeout: a read is tried again, a stalled service fails the item', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'delay', ms: 3000 } });
		const read = await run(kbGet(1, { ...FAST, timeoutSeconds: 1 }));
		expect(read.error).toBeUndefined();
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1')).toHaveLength(2);

		bed.emulator.clearLog();
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 2, action: { kind: 'stall', ms: 3000 } });
		const stalled = await run(kbGet(1, { ...FAST, timeoutSeconds: 1, maxAttempts: 2 }));
		expect(stalled.error?.message).toMatch(/^Get a knowledge base \(item 0\): gave up after 2 attempts over \d+(\.\d)? s; the last attempt failed: the service did not answer in time/);
	});

	it('malformed JSON in a 2xx answer fails the item instead of passing text on', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'malformedJson' } });
		const read = await run(kbGet(1));
		expect(read.error?.message).toBe(
			'Get a knowledge base (item 0): the service answered 200 (application/json; charset=utf-8) with a body that is not valid JSON, where a JSON answer was expected; it was a read, so nothing was changed',
		);
		expect(read.json).toHaveLength(0);
	});

	it('a truncated download stores nothing and says so', async () => {
		const file = bed.emulator.knowledge.filesOf(1).find((f) => f.status === 'active')!;
		inject({ method: 'GET', path: `/api/v1/knowledge/1/files/${file.id}/download`, action: { kind: 'truncate' } });
		const download = await run(
			{ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(1), fileId: byId(file.id), binaryPropertyName: 'data', retryOptions: FAST },
			{ continueOnFail: true },
		);
		expect(download.json).toHaveLength(1);
		expect(download.json[0].error).toMatch(/broke off after \d+ of \d+ bytes; nothing was stored/);
		expect(download.items[0].binary).toBeUndefined();
		expect(download.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('an expired bot token is fetched again once and the request succeeds; a 503 on the token endpoint is retried', async () => {
		const first = await run({ resource: 'user', operation: 'findByUsername', username: 'anan.w', retryOptions: FAST });
		expect(first.error).toBeUndefined();
		bed.emulator.expireBotTokens();
		inject({ method: 'POST', path: '/oauth/token', action: { kind: 'status', status: 503 } });
		const again = await run({ resource: 'user', operation: 'findByUsername', username: 'anan.w', retryOptions: FAST });
		expect(again.error).toBeUndefined();
		expect(again.json[0]).toMatchObject({ username: 'anan.w' });
		expect(bed.emulator.requestsTo('POST', '/oauth/token').map((e) => e.status)).toEqual([200, 503, 200]);
	});

	it('the token endpoint rate limiting twice (Retry-After 1) still yields a token', async () => {
		inject({ method: 'POST', path: '/oauth/token', times: 2, action: { kind: 'status', status: 429, retryAfter: 1 } });
		const run1 = await run({ resource: 'user', operation: 'findByUsername', username: 'anan.w', retryOptions: FAST });
		expect(run1.error).toBeUndefined();
		expect(bed.emulator.requestsTo('POST', '/oauth/token').map((e) => e.status)).toEqual([429, 429, 200]);
	});

	it("a 500 on create task is reported once, with the service's message, and never resent", async () => {
		const before = tasksCreated();
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: { kind: 'status', status: 500 } });
		const create = await run(taskCreate('Created despite the 500'));
		expect(create.error?.name).toBe('NodeApiError');
		expect(create.error?.httpCode).toBe('500');
		expect(create.error?.message).toMatch(/may have been created even so/);
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks')).toHaveLength(1);
		expect(tasksCreated()).toBe(before + 1);
	});

	it('a redirect to another host is not followed: the other host receives nothing, no credential leaves', async () => {
		const seen: http.IncomingHttpHeaders[] = [];
		const other = http.createServer((req, res) => {
			seen.push(req.headers);
			res.setHeader('content-type', 'application/json');
			res.end('{"data":[]}');
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
		try {
			inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'redirect', status: 307, location: `${otherUrl}/steal` } });
			const read = await run(kbGet(1));
			expect(read.error?.message).toMatch(
				/^Get a knowledge base \(item 0\): the service answered with a redirect \(307\) to another address, http:\/\/127\.0\.0\.1:\d+; the node does not follow redirects/,
			);
			expect(read.error?.message).not.toMatch(/steal/);

			inject({ method: 'POST', path: '/api/v1/task-projects/tasks', action: { kind: 'redirect', status: 308, location: `${otherUrl}/steal` } });
			const create = await run(taskCreate());
			expect(create.error?.message).toMatch(/^Create a task \(item 0\): the service answered with a redirect \(308\) to another address/);

			bed.emulator.expireBotTokens();
			inject({ method: 'POST', path: '/oauth/token', action: { kind: 'redirect', status: 307, location: `${otherUrl}/oauth/token` } });
			const token = await run({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
			expect(token.error?.message).toMatch(/Could not obtain a bot access token/);

			expect(seen).toHaveLength(0);
		} finally {
			await new Promise<void>((resolve) => other.close(() => resolve()));
		}
	});

	it('errors of failed requests carry no Authorization or x-api-key value', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 400, body: { error: { message: 'bad' } } } });
		const kb = await run(kbGet(1), { continueOnFail: true });
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', action: { kind: 'status', status: 422 } });
		const task = await run(taskCreate(), { continueOnFail: true });
		for (const result of [kb, task]) {
			const text = JSON.stringify(result.result.run.data.resultData);
			expect(text).not.toMatch(/x-api-key|authorization|bearer /i);
			expect(result.json[0].error).toBeDefined();
		}
	});
});

describe('a retried request whose repeat answers differently (issue 23, item 7)', () => {
	const kbDelete = (id: number): INodeParameters => ({ resource: 'knowledgeBase', operation: 'delete', knowledgeId: byId(id), retryOptions: FAST });
	const fileDelete = (kb: number, file: number): INodeParameters => ({
		resource: 'knowledgeFile',
		operation: 'delete',
		knowledgeId: byId(kb),
		fileId: byId(file),
		retryOptions: FAST,
	});

	it.each<[string, { kind: 'reset' } | { kind: 'status'; status: number }, string]>([
		['the connection resets after the service deleted it', { kind: 'reset' }, 'lost its answer (ECONNRESET)'],
		['a gateway answers 504 after passing the delete on', { kind: 'status', status: 504 }, 'was answered 504 by a gateway that may have passed it on'],
	])('a knowledge base delete: %s, the retry gets 404: done, and the output says so', async (_label, action, said) => {
		const [base] = bed.emulator.knowledge.addKnowledgeBases(1);
		inject({ method: 'DELETE', path: `/api/v1/knowledge/${base.id}`, phase: 'after', action });
		const result = await run(kbDelete(base.id));
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([
			{ id: base.id, deleted: true, note: `Deleted: the first attempt ${said}, and the repeat found it already gone (404), so the first attempt deleted it` },
		]);
		const sent = bed.emulator.requestsTo('DELETE', `/api/v1/knowledge/${base.id}`);
		expect(sent).toHaveLength(2);
		expect(sent[1].status).toBe(404);
		expect(bed.emulator.knowledge.bases.has(base.id)).toBe(false);
	});

	it('a knowledge file delete whose answer is lost: the retry\'s 404 is done', async () => {
		const [base] = bed.emulator.knowledge.addKnowledgeBases(1);
		const [file] = bed.emulator.knowledge.addFiles(base.id, 1);
		inject({ method: 'DELETE', path: `/api/v1/knowledge/${base.id}/files/${file.id}`, phase: 'after', action: { kind: 'reset' } });
		const result = await run(fileDelete(base.id, file.id));
		expect(result.json).toEqual([{ id: file.id, knowledgeId: base.id, deleted: true, note: expect.stringMatching(/^Deleted: the first attempt lost its answer/) }]);
	});

	it('a delete of something that never existed still fails as not found (no earlier attempt could have deleted it)', async () => {
		const result = await run(kbDelete(987654), { continueOnFail: true });
		expect(result.json[0].error).toBeDefined();
		expect(result.json[0].httpCode).toBe('404');
	});
});

describe('100 items, 10 injected faults, Continue On Fail', () => {
	it('Knowledge Base → Get: every item answered once, paired, in order; nothing lost', async () => {
		const bases = bed.emulator.knowledge.addKnowledgeBases(100, { namePrefix: 'Fault run' });
		const items = bases.map((b, n) => ({ json: { id: b.id, n } }));
		const at = (n: number) => `/api/v1/knowledge/${bases[n].id}`;
		// Recovered by retry: 429 twice, a 503 burst, a reset, a reset mid-body, a slow answer.
		const recovered = [
			{ path: at(5), times: 2, action: { kind: 'status', status: 429, retryAfter: 1 } },
			{ path: at(17), times: 2, action: { kind: 'status', status: 503 } },
			{ path: at(29), action: { kind: 'reset' } },
			{ path: at(41), action: { kind: 'resetMidBody', afterBytes: 5 } },
			{ path: at(53), action: { kind: 'delay', ms: 2500 } },
		] as const;
		// Failing: a 403, a 500, malformed JSON, a redirect, a 404. (A Retry-After beyond Max Wait holds every later
		// request to the service, not one item's: its own tests below.)
		const failing = [
			{ n: 60, rule: { path: at(60), action: { kind: 'status', status: 403 } } },
			{ n: 71, rule: { path: at(71), action: { kind: 'status', status: 500 } } },
			{ n: 82, rule: { path: at(82), action: { kind: 'malformedJson' } } },
			{ n: 90, rule: { path: at(90), action: { kind: 'redirect', location: 'http://127.0.0.1:9/elsewhere' } } },
			{ n: 99, rule: { path: at(99), action: { kind: 'status', status: 404 } } },
		] as const;
		for (const rule of recovered) inject({ method: 'GET', ...rule });
		for (const { rule } of failing) inject({ method: 'GET', ...rule });

		const result = await run(
			{ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), retryOptions: { maxWaitSeconds: 2, timeoutSeconds: 1 } },
			{ items, continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(100);
		const failed = failing.map((f) => f.n);
		result.items.forEach((item, n) => {
			expect(item.pairedItem).toEqual({ item: n });
			if (failed.includes(n as never)) {
				expect(item.json.error).toEqual(expect.any(String));
				expect(item.json.id).toBeUndefined();
			} else {
				expect(item.json.error).toBeUndefined();
				expect(item.json.id).toBe(bases[n].id);
			}
		});
		expect(bed.emulator.faults.pending()).toBe(0);
		const lost = 100 - new Set(result.items.map((i) => (i.pairedItem as { item: number }).item)).size;
		expect(lost).toBe(0);
		// 10 rules; the 429 and 503 rules answer twice each.
		expect(bed.emulator.log.filter((e) => e.fault !== undefined)).toHaveLength(12);
		// Each item's request reached the service once, plus one per recovered faulty answer: no item asked twice otherwise.
		expect(bed.emulator.log.filter((e) => e.method === 'GET')).toHaveLength(100 + 7);
	});

	it('Task → Create: tasks created equal successes, no title twice, failures paired to their inputs', async () => {
		const before = tasksCreated();
		const items = Array.from({ length: 100 }, (_, n) => ({ json: { title: `Night run task ${n}` } }));
		const path = '/api/v1/task-projects/tasks';
		// The Nth create request (0-based) gets each fault; retries shift later requests, so skips are counted from
		// the requests actually sent: a retried 429 or refused-before-processing fault adds one request.
		const plan: Array<{ n: number; action: Record<string, unknown>; phase?: 'after'; recovers: boolean }> = [
			{ n: 3, action: { kind: 'status', status: 429, retryAfter: 1 }, recovers: true },
			{ n: 12, action: { kind: 'status', status: 500 }, recovers: false },
			{ n: 25, action: { kind: 'status', status: 503 }, recovers: false },
			{ n: 31, action: { kind: 'reset' }, recovers: false },
			{ n: 44, action: { kind: 'status', status: 429, retryAfter: 1 }, recovers: true },
			{ n: 50, action: { kind: 'status', status: 502 }, recovers: false },
			{ n: 63, action: { kind: 'status', status: 504 }, recovers: false },
			{ n: 77, action: { kind: 'malformedJson' }, phase: 'after', recovers: false },
			{ n: 85, action: { kind: 'stall', ms: 2500 }, recovers: false },
			// The last request: a Retry-After beyond Max Wait holds every later one.
			{ n: 99, action: { kind: 'status', status: 429, retryAfter: 600 }, recovers: false },
		];
		let extra = 0;
		for (const fault of plan) {
			inject({ method: 'POST', path, skip: fault.n + extra, phase: fault.phase, action: fault.action as never });
			if (fault.recovers) extra++;
		}
		const result = await run(
			{ ...taskCreate('={{ $json.title }}', { maxWaitSeconds: 2, timeoutSeconds: 1 }) },
			{ items, continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(bed.emulator.faults.pending()).toBe(0);
		expect(result.items).toHaveLength(100);
		const failedItems = plan.filter((f) => !f.recovers).map((f) => f.n);
		const successes = result.items.filter((i) => i.json.error === undefined);
		result.items.forEach((item, n) => {
			expect(item.pairedItem).toEqual({ item: n });
			expect(item.json.error === undefined).toBe(!failedItems.includes(n));
		});
		// The malformed answer came after the handler ran: that one task exists though its item failed (and says so).
		const processedButFailed = plan.filter((f) => f.action.kind === 'malformedJson').length;
		expect(tasksCreated() - before).toBe(successes.length + processedButFailed);
		const titles = [...bed.emulator.taskProjects.tasks.values()].map((t) => t.taskTitle);
		const nightTitles = titles.filter((t) => typeof t === 'string' && t.startsWith('Night run task '));
		const duplicates = nightTitles.length - new Set(nightTitles).size;
		expect(duplicates).toBe(0);
		const lost = 100 - new Set(result.items.map((i) => (i.pairedItem as { item: number }).item)).size;
		expect(lost).toBe(0);
		// The scan covers n8n's logs too; they are not empty, so it is not vacuous.
		expect(capturedLogs.length).toBeGreaterThan(0);
		expect(secretsFound).toBe(0);
		figure(
			`fault suite: faults injected ${plan.length}, items processed ${result.items.length}, items lost ${lost}, duplicates ${duplicates}, secrets found ${secretsFound}` +
				` (whole suite: ${faultsInjected} faults injected)`,
		);
	});
});

describe('messages that say what happened (each names the operation and the item)', () => {
	const inAWhile = (seconds: number) => new Date(Math.ceil(Date.now() / 1000) * 1000 + seconds * 1000).toUTCString();

	it('429 with Retry-After as an HTTP date beyond Max Wait: until when, in seconds and as a date, and that the node stopped', async () => {
		const until = inAWhile(300);
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 429, retryAfter: until } });
		const read = await run(kbGet(1, { maxWaitSeconds: 2 }), { items: [{ json: {} }, { json: {} }], continueOnFail: true });
		const message = String(read.json[0].error);
		const m = /^Get a knowledge base \(item 0\): the service asked to wait (\d+) s, until (\S+Z); that is longer than Max Wait \(2 s\), so the node stopped instead of waiting$/.exec(message);
		expect(m).not.toBeNull();
		expect(Number(m![1])).toBeGreaterThan(290);
		// The date is on a whole second up to 1 s beyond 300 s from now.
		expect(Number(m![1])).toBeLessThanOrEqual(301);
		expect(Date.parse(m![2])).toBe(Date.parse(until));
		expect(read.json[0].httpCode).toBe('429');
		expect(String(read.json[0].description)).toContain(`after ${m![2]}`);
		// Once refused, that request was not sent again, and neither was item 1's: the pause holds every request
		// to the service, and it outlasts item 1's Max Wait too. Item 1 fails at once, saying it was not sent.
		expect(String(read.json[1].error)).toBe(message.replace('(item 0)', '(item 1)'));
		expect(String(read.json[1].description)).toMatch(/^Not sent: the service refused an earlier request with this credential \(429\)/);
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/1').map((e) => e.status)).toEqual([429]);
	});

	it('retries exhausted on 5xx: attempts, seconds, the last status and the service\'s message', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/2', times: 3, action: { kind: 'status', status: 503, body: { message: 'Down for maintenance' } } });
		const read = await run(kbGet(2, { ...FAST, maxAttempts: 3 }));
		expect(read.error?.message).toMatch(
			/^Get a knowledge base \(item 0\): gave up after 3 attempts over \d+(\.\d)? s; the last answer was 503 \(the service said: Down for maintenance\)$/,
		);
		expect(read.error?.httpCode).toBe('503');
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge/2')).toHaveLength(3);
	});

	it('retries exhausted on 429 and on broken connections say so too', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', times: 2, action: { kind: 'status', status: 429, retryAfter: 0 } });
		const limited = await run(kbGet(1, { ...FAST, maxAttempts: 2 }));
		expect(limited.error?.message).toMatch(/^Get a knowledge base \(item 0\): gave up after 2 attempts over \d+(\.\d)? s; the last answer was 429/);

		inject({ method: 'GET', path: '/api/v1/knowledge/3', times: 2, action: { kind: 'reset' } });
		const reset = await run(kbGet(3, { ...FAST, maxAttempts: 2 }));
		expect(reset.error?.message).toMatch(
			/^Get a knowledge base \(item 0\): gave up after 2 attempts over \d+(\.\d)? s; the last attempt failed: the connection to the service was reset$/,
		);
	});

	it('a refused redirect: another address, scheme and host only, not followed with credentials, not a service error', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'redirect', status: 301, location: 'https://moved.example:8443/api/v1/knowledge/1?token=abc#x' } });
		const read = await run(kbGet(1), { continueOnFail: true });
		const message = String(read.json[0].error);
		expect(message).toBe(
			'Get a knowledge base (item 0): the service answered with a redirect (301) to another address, https://moved.example:8443; ' +
				'the node does not follow redirects, so the credentials are sent only to the Base URL. This is not an error of the service',
		);
		expect(String(read.json[0].description)).toMatch(/Base URL/);
		expect(read.json[0].httpCode).toBeUndefined();
	});

	it('a 2xx whose body is not JSON: what was expected, status and content type, and whether anything changed', async () => {
		inject({ method: 'GET', path: '/api/v1/knowledge/1', action: { kind: 'status', status: 200, body: '<html><body>Sign in</body></html>', headers: { 'content-type': 'text/html' } } });
		const read = await run(kbGet(1));
		expect(read.error?.message).toBe(
			'Get a knowledge base (item 0): the service answered 200 (text/html) with a body that is not JSON, where a JSON answer was expected; it was a read, so nothing was changed',
		);

		const before = tasksCreated();
		inject({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: { kind: 'malformedJson' } });
		const create = await run(taskCreate('Malformed answer'));
		expect(create.error?.message).toMatch(
			/^Create a task \(item 0\): the service answered 200 \(application\/json; charset=utf-8\) with a body that is not valid JSON, where a JSON answer was expected; the task may have been created even so/,
		);
		expect(tasksCreated()).toBe(before + 1);
		expect(bed.emulator.requestsTo('POST', '/api/v1/task-projects/tasks')).toHaveLength(1);
	});
});

describe('one token request at a time', () => {
	const users = [SEED_USER_IDS.somchai, SEED_USER_IDS.nattaya, SEED_USER_IDS.pimchanok];
	const info = (parallel: number): INodeParameters => ({
		resource: 'user',
		operation: 'getInfoInGroup',
		groupId: SEED_GROUP_IDS.incidentRoom,
		userId: '={{ $json.uid }}',
		requestsInParallel: parallel,
		retryOptions: FAST,
	});
	const bearer = (e: { headers: Record<string, unknown> }) => String(e.headers.authorization ?? '').replace(/^Bearer /, '');

	it('Requests in Parallel 8: a 401 on several items at once makes exactly one token request; all use the new token', async () => {
		const items = Array.from({ length: 24 }, (_, n) => ({ json: { uid: users[n % users.length] } }));
		const warm = await run(info(1), { items: items.slice(0, 1) });
		expect(warm.error).toBeUndefined();
		const tokenRequests = () => bed.emulator.requestsTo('POST', '/oauth/token').length;
		const before = tokenRequests();
		const oldToken = bearer(bed.emulator.log.filter((e) => e.path.startsWith('/bot/')).at(-1)!);

		// Item 0 runs first; the eight requests sent together next are refused as an expired token is.
		bed.emulator.clearLog();
		inject({ method: 'GET', path: /^\/bot\/v2\/groups\//, skip: 1, times: 8, action: { kind: 'status', status: 401, body: { code: 'invalid_token', message: 'Access token expired' } } });
		const result = await run(info(8), { items });
		expect(result.error).toBeUndefined();
		expect(result.json.map((u) => u._id)).toEqual(items.map((i) => i.json.uid));
		expect(tokenRequests()).toBe(1);
		expect(before).toBeGreaterThanOrEqual(1);

		const sent = bed.emulator.log.filter((e) => e.path.startsWith('/bot/v2/'));
		const refused = sent.filter((e) => e.status === 401);
		expect(refused).toHaveLength(8);
		// Every answered request after the token request carries the one new token.
		const tokenAt = bed.emulator.log.findIndex((e) => e.path === '/oauth/token');
		const after = bed.emulator.log.slice(tokenAt + 1).filter((e) => e.path.startsWith('/bot/v2/'));
		expect(after.length).toBeGreaterThanOrEqual(items.length - 1);
		const newTokens = new Set(after.map(bearer));
		expect(newTokens.size).toBe(1);
		expect(newTokens.has(oldToken)).toBe(false);
		expect(after.every((e) => e.status === 200)).toBe(true);
	});
});

describe('100-item runs: each fault alone and all mixed, at Requests in Parallel 1 and 8', () => {
	const GROUP = SEED_GROUP_IDS.incidentRoom;
	const ATTEMPTS = 3;
	const OPTIONS: INodeParameters = { maxAttempts: ATTEMPTS, maxWaitSeconds: 2, timeoutSeconds: 1 };
	const pathOf = (uid: string) => `/bot/v2/groups/${GROUP}/users/${uid}/info`;
	const httpDate = (seconds: number) => new Date(Date.now() + seconds * 1000).toUTCString();

	interface Fault {
		/** Items it is aimed at (their request paths are their own). */
		items: number[];
		rule?: (path: string) => Omit<Parameters<typeof inject>[0], 'path' | 'method'>;
		/** The id item n sends instead of its own (bad input). */
		value?: (n: number) => string;
		/** What the failed item says; undefined: the item recovers. */
		fails?: RegExp;
		/** Expire every bot token at the service before the run. */
		expireTokens?: true;
		/** A pause beyond Max Wait: items whose request had not gone out when it came fail too, not sent (so it is not mixed with others). */
		holdsTheRest?: true;
	}
	const FAULTS: Record<string, Fault> = {
		'429 with an HTTP date beyond Max Wait': {
			items: [7],
			holdsTheRest: true,
			rule: () => ({ action: { kind: 'status', status: 429, retryAfter: httpDate(300) } }),
			fails: /the service asked to wait \d+ s, until \S+Z; that is longer than Max Wait \(2 s\), so the node stopped instead of waiting$/,
		},
		'429 once, Retry-After 1': { items: [12], rule: () => ({ action: { kind: 'status', status: 429, retryAfter: 1 } }) },
		'503 until retries are exhausted': {
			items: [19, 44],
			rule: () => ({ times: ATTEMPTS, action: { kind: 'status', status: 503, body: { code: 'unavailable', message: 'Down for maintenance' } } }),
			fails: /gave up after 3 attempts over \d+(\.\d)? s; the last answer was 503 \(the service said: Down for maintenance\)$/,
		},
		'reset until retries are exhausted': {
			items: [23, 58],
			rule: () => ({ times: ATTEMPTS, action: { kind: 'reset' } }),
			fails: /gave up after 3 attempts over \d+(\.\d)? s; the last attempt failed: the connection to the service was reset$/,
		},
		'redirect to another address': {
			items: [37, 71],
			rule: () => ({ action: { kind: 'redirect', status: 302, location: 'https://login.example/sso?next=/bot' } }),
			fails: /the service answered with a redirect \(302\) to another address, https:\/\/login\.example; the node does not follow redirects/,
		},
		'malformed JSON in a 200': {
			items: [49, 83],
			rule: () => ({ action: { kind: 'malformedJson' } }),
			fails: /the service answered 200 \(application\/json; charset=utf-8\) with a body that is not valid JSON, where a JSON answer was expected; it was a read, so nothing was changed$/,
		},
		'HTML in a 200': {
			items: [52, 90],
			rule: () => ({ action: { kind: 'status', status: 200, body: '<html>Sign in</html>', headers: { 'content-type': 'text/html; charset=utf-8' } } }),
			fails: /the service answered 200 \(text\/html; charset=utf-8\) with a body that is not JSON/,
		},
		'path-unsafe user ids': {
			items: [5, 66, 99],
			value: (n) => [`u${n}/../admin`, '..', `u${n}%2F..`][n % 3],
			fails: /^Invalid "User ID" in item \d+: /,
		},
		'expired token': { items: [], expireTokens: true },
	};

	let uids: string[];
	beforeEach(() => {
		const group = bed.emulator.bot.groups.get(GROUP)!;
		const template = bed.emulator.bot.users.get(SEED_USER_IDS.somchai)!;
		uids = Array.from({ length: 100 }, (_, n) => `64b7f0a1c2d3e4f5a6b7${String(9000 + n)}`);
		uids.forEach((uid, n) => {
			bed.emulator.bot.users.set(uid, { ...template, _id: uid, username: `member.${n}`, firstname: `Member ${n}` });
			group.members.add(uid);
		});
	});

	const totals = { scenarios: 0, items: 0, lost: 0, duplicates: 0, failedAsExpected: 0 };

	async function scenario(names: string[], parallel: number): Promise<void> {
		const faults = names.map((name) => FAULTS[name]);
		// A token to start from, so an expiry at the service is met mid-run as a 401.
		await run({ resource: 'user', operation: 'getInfoInGroup', groupId: GROUP, userId: uids[0] });
		bed.emulator.clearLog();
		const values = uids.slice();
		for (const fault of faults) {
			for (const n of fault.items) {
				if (fault.value) values[n] = fault.value(n);
				if (fault.rule) inject({ method: 'GET', path: pathOf(uids[n]), ...fault.rule(pathOf(uids[n])) });
			}
			if (fault.expireTokens) bed.emulator.expireBotTokens();
		}
		const items = values.map((uid) => ({ json: { uid } }));
		const result = await run(
			{ resource: 'user', operation: 'getInfoInGroup', groupId: GROUP, userId: '={{ $json.uid }}', requestsInParallel: parallel, retryOptions: OPTIONS },
			{ items, continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(bed.emulator.faults.pending()).toBe(0);

		const seen = result.items.map((item) => (item.pairedItem as { item: number }).item);
		const lost = 100 - new Set(seen).size;
		const duplicates = seen.length - new Set(seen).size;
		const failing = new Map<number, RegExp>();
		for (const fault of faults) for (const n of fault.items) if (fault.fails) failing.set(n, fault.fails);
		// Items held by a pause beyond Max Wait: every one whose request had not gone out when the refusal was read.
		const holding = faults.find((f) => f.holdsTheRest);
		const held = result.items.flatMap((item, n) => (/^Not sent: /.test(String(item.json.description)) ? [n] : []));
		if (holding) {
			// Items start in order, so the held ones are the last: all of them after the few already out.
			expect(held).toEqual(Array.from({ length: held.length }, (_, k) => 100 - held.length + k));
			expect(held.length).toBeGreaterThanOrEqual(100 - holding.items[0] - 1 - 2 * parallel);
			for (const n of held) {
				failing.set(n, holding.fails!);
				expect(bed.emulator.requestsTo('GET', pathOf(uids[n]))).toHaveLength(0);
			}
		} else {
			expect(held).toEqual([]);
		}
		result.items.forEach((item, n) => {
			expect(item.pairedItem).toEqual({ item: n });
			const expected = failing.get(n);
			if (expected) {
				expect(item.json.error).toMatch(expected);
				// Transport messages name the operation and the item; local checks name the field and the item.
				expect(item.json.error).toMatch(new RegExp(`(^Get info about a user in a group \\(item ${n}\\): )|(in item ${n}: )`));
				totals.failedAsExpected++;
			} else {
				expect(item.json.error).toBeUndefined();
				expect(item.json._id).toBe(uids[n]);
			}
		});
		// No item's request went out more often than its attempts allow; refused ids never went out.
		const own = new Set(values.filter((value, n) => value === uids[n]).map(pathOf));
		expect(bed.emulator.requestsTo('GET', /^\/bot\/v2\//).filter((e) => !own.has(e.path))).toHaveLength(0);
		for (const path of own) expect(bed.emulator.requestsTo('GET', path).length).toBeLessThanOrEqual(ATTEMPTS + 1);
		const tokenRequests = bed.emulator.requestsTo('POST', '/oauth/token').length;
		expect(tokenRequests).toBe(faults.some((f) => f.expireTokens) ? 1 : 0);
		expect(lost).toBe(0);
		expect(duplicates).toBe(0);
		totals.scenarios++;
		totals.items += result.items.length;
		totals.lost += lost;
		totals.duplicates += duplicates;
	}

	const alone = Object.keys(FAULTS).flatMap((name) => [1, 8].map((parallel) => [name, parallel] as const));
	it.each(alone)('%s alone, parallel %i', async (name, parallel) => {
		await scenario([name], parallel);
	});

	it.each([1, 8])('all mixed, parallel %i (but the pause that holds the rest)', async (parallel) => {
		await scenario(
			Object.keys(FAULTS).filter((name) => !FAULTS[name].holdsTheRest),
			parallel,
		);
	});

	it('Get Many under a page cap of 7, 100 items each listing 23 knowledge bases, parallel 1 and 8: every id once per item', async () => {
		for (const parallel of [1, 8]) {
			bed.emulator.reset();
			bed.credentialsHelper.set(emulatorCredential(bed.emulator, 'knowledgeBase'));
			bed.emulator.knowledge.addKnowledgeBases(20);
			bed.emulator.setConfig({ pageCap: 7 });
			const ids = bed.emulator.knowledge.listBases().map((b) => b.id);
			const items = Array.from({ length: 100 }, (_, n) => ({ json: { n } }));
			const result = await run(
				{ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 23, requestsInParallel: parallel, retryOptions: OPTIONS },
				{ items },
			);
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(100 * 23);
			for (let n = 0; n < 100; n++) {
				const mine = result.items.filter((i) => (i.pairedItem as { item: number }).item === n).map((i) => i.json.id);
				expect(mine).toEqual(ids);
			}
			// ceil(23 / 7) = 4 requests per item.
			expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge')).toHaveLength(400);
			totals.scenarios++;
			totals.items += 100;
		}
		expect(secretsFound).toBe(0);
		figure(
			`new-fault suite: scenarios ${totals.scenarios}, items ${totals.items}, failing by design ${totals.failedAsExpected}, items lost ${totals.lost}, duplicates ${totals.duplicates}, secrets found ${secretsFound}`,
		);
	});
});
