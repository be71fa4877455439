/**
 * Fault injection, the rate limiter, the request log and the admin routes,
 * each seen from a plain client.
 */
import { redactedHeader } from '../../emulator/common/requestLog';
import { minimalPdf } from '../../emulator/knowledge/sampleFiles';
import { setTimeout as sleep } from 'node:timers/promises';
import { multipartForm, rawGet, sha256 } from '../../testbed/httpClient';
import { emulatorTestbed, type CallOptions } from '../../testbed/testbed';

const bed = emulatorTestbed();
const kb = (path: string, options: CallOptions = {}) => bed.call(`/api/v1${path}`, { auth: 'knowledgeBase', ...options });

const KB_CREATE = { name: 'Fault test', source: 'internal', supportedLanguages: ['en'] };
const createKb = () => kb('/knowledge', { method: 'POST', json: KB_CREATE });
const apiKey = () => ({ 'x-api-key': bed.emulator.credentials.apiKey });

function createTask(title = 'Fault task') {
	return bed.call('/api/v1/task-projects/tasks', { method: 'POST', auth: 'taskProjects', json: { taskTitle: title } });
}

/** fetch() that reports the failure instead of throwing. */
async function failure(promise: Promise<unknown>): Promise<string> {
	try {
		await promise;
		return 'no error';
	} catch (err) {
		const e = err as Error & { cause?: { code?: string; message?: string } };
		return `${e.name}: ${e.message} ${e.cause?.code ?? e.cause?.message ?? ''}`;
	}
}

describe('status faults', () => {
	it('answers instead of the handler, in the knowledge error shape, once by default', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/knowledge', action: { kind: 'status', status: 503 } });
		expect(bed.emulator.faults.pending()).toBe(1);
		const res = await createKb();
		expect(res.status).toBe(503);
		expect(res.body).toEqual({ name: 'ServiceUnavailableException', code: 503001, status: 503, message: expect.any(String), errors: [] });
		expect(bed.emulator.knowledge.bases.size).toBe(3);
		expect(bed.emulator.faults.pending()).toBe(0);
		expect((await createKb()).status).toBe(201);
		expect(bed.emulator.logFor('POST', '/api/v1/knowledge').map((e) => [e.status, e.fault])).toEqual([
			[503, 'status:503'],
			[201, undefined],
		]);
	});

	it('sets Retry-After on 429 (default 1, or the given value) and passes custom bodies and headers', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge*', action: { kind: 'status', status: 429 } });
		bed.emulator.faults.add({ path: '/api/v1/knowledge*', action: { kind: 'status', status: 503, retryAfter: 7, headers: { 'x-trace': 'abc' }, body: { oops: true } } });
		const first = await kb('/knowledge');
		expect(first.status).toBe(429);
		expect(first.headers.get('retry-after')).toBe('1');
		expect(first.body).toMatchObject({ name: 'RateLimitExceededException', code: 429001 });
		const second = await kb('/knowledge/1');
		expect(second.status).toBe(503);
		expect(second.headers.get('retry-after')).toBe('7');
		expect(second.headers.get('x-trace')).toBe('abc');
		expect(second.body).toEqual({ oops: true });
	});

	it('uses each API’s error shape', async () => {
		bed.emulator.faults.add({ path: '/api/v1/task-projects/*', action: { kind: 'status', status: 503 } });
		bed.emulator.faults.add({ path: '/bot/*', action: { kind: 'status', status: 502 } });
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1/files/1', method: 'PUT', action: { kind: 'status', status: 413 } });
		const task = await createTask();
		expect(task.status).toBe(503);
		expect(task.body).toEqual({ error: 'service_unavailable', message: expect.any(String), details: [] });
		const bot = await bed.call('/bot/v1/users?username=a', { auth: 'bot' });
		expect(bot.status).toBe(502);
		expect(bot.body).toEqual({ code: 'bad_gateway', message: expect.any(String) });
		const big = await kb('/knowledge/1/files/1', { method: 'PUT', body: multipartForm({}, [{ data: minimalPdf(), filename: 'a.pdf', type: 'application/pdf' }]) });
		expect(big.status).toBe(413);
		expect(big.text).toBe('Request Entity Too Large');
	});

	it("phase 'after' runs the handler (state changes) and then replaces the response", async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', phase: 'after', action: { kind: 'status', status: 503 } });
		const before = bed.emulator.taskProjects.tasks.size;
		const res = await createTask('Stored anyway');
		expect(res.status).toBe(503);
		expect(res.body).toMatchObject({ error: 'service_unavailable' });
		expect(bed.emulator.taskProjects.tasks.size).toBe(before + 1);
		expect([...bed.emulator.taskProjects.tasks.values()].some((t) => t.taskTitle === 'Stored anyway')).toBe(true);

		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/knowledge', phase: 'after', action: { kind: 'status', status: 500 } });
		expect((await createKb()).status).toBe(500);
		expect(bed.emulator.knowledge.bases.size).toBe(4);
	});

	it('replaces a streamed download in the after phase too', async () => {
		bed.emulator.faults.add({ path: /\/download$/, phase: 'after', action: { kind: 'status', status: 502 } });
		const res = await kb('/knowledge/1/files/1/download');
		expect(res.status).toBe(502);
		expect(res.headers.get('content-disposition')).toBeNull();
		expect(res.body).toMatchObject({ code: 502001 });
	});
});

describe('connection faults', () => {
	it('stall: sends nothing, then drops the connection after ms', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge', action: { kind: 'stall', ms: 200 } });
		const started = Date.now();
		const outcome = await failure(fetch(`${bed.emulator.url}/api/v1/knowledge`, { headers: apiKey() }));
		expect(outcome).not.toBe('no error');
		expect(Date.now() - started).toBeGreaterThanOrEqual(180);
		await sleep(50);
		const [entry] = bed.emulator.logFor('GET', '/api/v1/knowledge');
		expect(entry).toMatchObject({ fault: 'stall', aborted: true });
		expect(entry.status).toBeUndefined();
	});

	it('stall without ms: waits until the client gives up', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge', action: { kind: 'stall' } });
		const outcome = await failure(fetch(`${bed.emulator.url}/api/v1/knowledge`, { headers: apiKey(), signal: AbortSignal.timeout(200) }));
		expect(outcome).toMatch(/TimeoutError|AbortError/);
		await sleep(50);
		expect(bed.emulator.logFor('GET', '/api/v1/knowledge')[0]).toMatchObject({ fault: 'stall', aborted: true });
	});

	it('delay: adds latency, then answers normally', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1', action: { kind: 'delay', ms: 250 } });
		const started = Date.now();
		const res = await kb('/knowledge/1');
		expect(Date.now() - started).toBeGreaterThanOrEqual(240);
		expect(res.status).toBe(200);
		expect(res.body.name).toBe('Employee Handbook');
	});

	it('reset: destroys the socket without a response; the request is still logged', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/api/v1/knowledge', action: { kind: 'reset' } });
		const outcome = await failure(createKb());
		expect(outcome).toMatch(/fetch failed/);
		expect(bed.emulator.knowledge.bases.size).toBe(3);
		const [entry] = bed.emulator.logFor('POST', '/api/v1/knowledge');
		expect(entry).toMatchObject({ fault: 'reset', aborted: true, body: KB_CREATE });
		expect(entry.status).toBeUndefined();
	});

	it('resetMidBody: real headers and part of a download, then a reset', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1/files/1/download', action: { kind: 'resetMidBody', afterBytes: 100 } });
		const size = bed.emulator.knowledge.files.get(1)!.meta.size;
		const res = await rawGet(bed.emulator.url + '/api/v1/knowledge/1/files/1/download', apiKey());
		expect(res.status).toBe(200);
		expect(res.headers!['content-length']).toBe(String(size));
		expect(res.headers!['content-type']).toBe('application/pdf');
		expect(res.received.length).toBe(100);
		expect(res.complete).toBe(false);
		expect(res.error).toBeDefined();
	});

	it('truncate: full Content-Length, half the body (default), then a clean close — on a download and on JSON', async () => {
		bed.emulator.faults.add({ path: /\/download$/, action: { kind: 'truncate' } });
		const file = bed.emulator.knowledge.files.get(1)!;
		const dl = await rawGet(bed.emulator.url + '/api/v1/knowledge/1/files/1/download', apiKey());
		expect(dl.status).toBe(200);
		expect(dl.headers!['content-length']).toBe(String(file.meta.size));
		expect(dl.received.length).toBe(Math.floor(file.meta.size / 2));
		expect(dl.complete).toBe(false);

		bed.emulator.faults.add({ path: '/api/v1/knowledge', action: { kind: 'truncate', bytes: 10 } });
		const list = await rawGet(bed.emulator.url + '/api/v1/knowledge', apiKey());
		expect(list.status).toBe(200);
		expect(Number(list.headers!['content-length'])).toBeGreaterThan(10);
		expect(list.received.toString()).toBe('{"data":[{');
		// fetch sees the cut as an error while reading the body.
		bed.emulator.faults.add({ path: '/api/v1/knowledge', action: { kind: 'truncate' } });
		const res = await fetch(`${bed.emulator.url}/api/v1/knowledge`, { headers: apiKey() });
		expect(res.status).toBe(200);
		expect(await failure(res.json())).not.toBe('no error');
		expect(bed.emulator.logFor('GET', /^\/api\/v1\/knowledge$/).map((e) => [e.status, e.fault])).toEqual([
			[200, 'truncate'],
			[200, 'truncate'],
		]);
	});

	it('malformedJson: 200 application/json that does not parse', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge', action: { kind: 'malformedJson' } });
		const res = await fetch(`${bed.emulator.url}/api/v1/knowledge`, { headers: apiKey() });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(await failure(res.json())).toMatch(/SyntaxError/);
	});

	it('redirect: answers with the status and Location', async () => {
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1', action: { kind: 'redirect', location: '/api/v1/knowledge/2' } });
		bed.emulator.faults.add({ path: '/api/v1/knowledge/1', action: { kind: 'redirect', status: 307, location: 'https://elsewhere.example/x' } });
		const first = await kb('/knowledge/1');
		expect(first.status).toBe(302);
		expect(first.headers.get('location')).toBe('/api/v1/knowledge/2');
		const second = await kb('/knowledge/1');
		expect(second.status).toBe(307);
		expect(second.headers.get('location')).toBe('https://elsewhere.example/x');
	});
});

describe('rule matching', () => {
	it('counts times, matches in order, filters by method, prefix and RegExp', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/*', times: 2, action: { kind: 'status', status: 500 } });
		bed.emulator.faults.add({ path: /^\/api\/v1\/knowledge\/\d+$/, times: Infinity, name: 'always-504', action: { kind: 'status', status: 504 } });
		expect(bed.emulator.faults.pending()).toBe(Infinity);
		expect((await kb('/knowledge', { method: 'POST', json: KB_CREATE })).status).toBe(201); // path does not match either rule
		expect((await kb('/knowledge/1')).status).toBe(500);
		expect((await kb('/knowledge/1/files')).status).toBe(500);
		expect((await kb('/knowledge/1')).status).toBe(504);
		expect((await kb('/knowledge/2', { method: 'DELETE' })).status).toBe(504);
		expect((await kb('/knowledge/1/files')).status).toBe(200);
		expect(bed.emulator.logFor('*', '/api/v1/knowledge/').map((e) => e.fault)).toEqual(['status:500', 'status:500', 'always-504', 'always-504', undefined]);
		bed.emulator.faults.clear();
		expect(bed.emulator.faults.pending()).toBe(0);
		expect((await kb('/knowledge/1')).status).toBe(200);
	});

	it('skip lets that many matching requests through first; every skipping rule counts each request', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', skip: 2, action: { kind: 'status', status: 503 } });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/1', skip: 1, action: { kind: 'status', status: 500 } });
		expect(() => bed.emulator.faults.add({ path: '/x', skip: -1, action: { kind: 'reset' } })).toThrow(/skip/);
		const statuses: number[] = [];
		for (let n = 0; n < 4; n++) statuses.push((await kb('/knowledge/1')).status);
		// 1st: both skip; 2nd: the 500 rule is due; 3rd: the 503 rule is due; 4th: none left.
		expect(statuses).toEqual([200, 500, 503, 200]);
		expect(bed.emulator.faults.pending()).toBe(0);
	});
});

describe('rate limiter', () => {
	it('answers 429 with Retry-After and the API’s error shape once a credential’s bucket is empty', async () => {
		bed.emulator.setConfig({ rateLimit: { capacity: 2, refillPerSecond: 1 } });
		expect((await kb('/knowledge')).status).toBe(200);
		expect((await kb('/knowledge')).status).toBe(200);
		const limited = await kb('/knowledge');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('1');
		expect(limited.body).toEqual({ name: 'RateLimitExceededException', code: 429001, status: 429, message: expect.any(String), errors: [] });
		// Another credential has its own bucket.
		expect((await createTask()).status).toBe(201);
		// Admin routes are never limited.
		expect((await bed.call('/__emulator/credentials')).status).toBe(200);
		await sleep(1050);
		expect((await kb('/knowledge')).status).toBe(200);
	});

	it('uses the task-projects shape there', async () => {
		bed.emulator.setConfig({ rateLimit: { capacity: 1, refillPerSecond: 0.25 } });
		expect((await createTask()).status).toBe(201);
		const limited = await createTask();
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('4');
		expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String), details: [] });
	});
});

describe('request log', () => {
	it('records method, path, verbatim bracket query keys, headers, bodies, parts and status', async () => {
		await kb('/knowledge?pagination[page]=2&pagination%5BpageSize%5D=1&tag=a&tag=b');
		await createKb();
		const pdf = minimalPdf('logged');
		await kb('/knowledge/1/files/1', { method: 'PUT', body: multipartForm({ comment: 'hi' }, [{ data: pdf, filename: 'logged.pdf', type: 'application/pdf' }]) });
		await bed.call('/__emulator/log');

		expect(bed.emulator.log).toHaveLength(3);
		const [list, create, put] = bed.emulator.log;
		expect(list).toMatchObject({
			seq: expect.any(Number),
			method: 'GET',
			path: '/api/v1/knowledge',
			query: { 'pagination[page]': '2', 'pagination[pageSize]': '1', tag: ['a', 'b'] },
			rawUrl: '/api/v1/knowledge?pagination[page]=2&pagination%5BpageSize%5D=1&tag=a&tag=b',
			status: 200,
		});
		expect(list.headers['x-api-key']).toBe(redactedHeader('x-api-key', bed.emulator.credentials.apiKey));
		expect(list.body).toBeUndefined();
		expect(typeof list.durationMs).toBe('number');
		expect(create).toMatchObject({ method: 'POST', contentType: 'application/json', body: KB_CREATE, status: 201 });
		expect(create.seq).toBeGreaterThan(list.seq);
		expect(put.contentType).toMatch(/^multipart\/form-data; boundary=/);
		expect(put.parts).toEqual([
			{ name: 'comment', contentType: 'text/plain', size: 2, value: 'hi' },
			{ name: 'file', filename: 'logged.pdf', contentType: 'application/pdf', size: pdf.length, sha256: sha256(pdf) },
		]);
		expect(bed.emulator.logFor('PUT', /files\/1$/)).toEqual([put]);
		// logFor takes a string as a prefix of paths, requestsTo as the whole path.
		expect(bed.emulator.logFor('*', '/api/v1/knowledge')).toEqual([list, create, put]);
		expect(bed.emulator.requestsTo('*', '/api/v1/knowledge')).toEqual([list, create]);
		expect(bed.emulator.requestsTo('GET', '/api/v1/knowledge')).toEqual([list]);
		bed.emulator.clearLog();
		expect(bed.emulator.log).toHaveLength(0);
	});
});

describe('admin routes', () => {
	it('add and clear faults over HTTP (regex paths, endless times)', async () => {
		const added = await bed.call('/__emulator/faults', {
			method: 'POST',
			json: { path: { regex: '^/api/v1/knowledge/\\d+$' }, times: 'Infinity', action: { kind: 'status', status: 503 } },
		});
		expect(added.status).toBe(201);
		expect(added.body.pending).toBe('Infinity');
		expect((await kb('/knowledge/1')).status).toBe(503);
		expect((await kb('/knowledge/2')).status).toBe(503);
		expect((await kb('/knowledge')).status).toBe(200);
		expect((await bed.call('/__emulator/faults', { method: 'DELETE' })).status).toBe(204);
		expect((await kb('/knowledge/1')).status).toBe(200);
		const bad = await bed.call('/__emulator/faults', { method: 'POST', json: { action: { kind: 'explode' } } });
		expect(bad.status).toBe(400);
	});

	it('read and clear the log, reset the state, expire bot tokens and show credentials', async () => {
		await createKb();
		const log = await bed.call('/__emulator/log');
		expect(log.body.entries).toEqual([expect.objectContaining({ method: 'POST', path: '/api/v1/knowledge', status: 201 })]);
		expect((await bed.call('/__emulator/log', { method: 'DELETE' })).status).toBe(204);
		expect(bed.emulator.log).toHaveLength(0);

		expect(bed.emulator.knowledge.bases.size).toBe(4);
		bed.emulator.faults.add({ path: '/nowhere', action: { kind: 'reset' } });
		expect((await bed.call('/__emulator/reset', { method: 'POST' })).status).toBe(204);
		expect(bed.emulator.knowledge.bases.size).toBe(3);
		expect(bed.emulator.faults.pending()).toBe(0);

		const users = () => bed.call('/bot/v1/users?username=a', { auth: 'bot' });
		expect((await users()).status).toBe(200);
		expect((await bed.call('/__emulator/tokens/expire', { method: 'POST' })).status).toBe(204);
		expect((await users()).status).toBe(401);

		const creds = await bed.call('/__emulator/credentials');
		expect(creds.body).toEqual({ baseUrl: bed.emulator.url, ...bed.emulator.credentials });
		expect((await createTask()).status).toBe(201);
		expect(bed.emulator.log.some((e) => e.path.startsWith('/__emulator'))).toBe(false);
	});

	it('patch the config at runtime', async () => {
		const res = await bed.call('/__emulator/config', { method: 'PATCH', json: { paginationMode: 'none' } });
		expect(res.body.paginationMode).toBe('none');
		expect((await kb('/knowledge')).body.meta).toBeUndefined();
	});

	it('refuses a setting it does not change, or a value the setting cannot take, naming it, and then sets nothing of that body', async () => {
		const before = structuredClone(bed.emulator.config);
		const refusals: Array<[unknown, string | RegExp]> = [
			[{ paginationMod: 'none' }, /^paginationMod is not a setting PATCH \/config changes; it changes apiKey, .*, webhookUrl$/],
			[{ dataDir: '/tmp' }, /^dataDir is not a setting PATCH \/config changes/],
			[{ paginationMode: 'none', v1SendAnswer: 'both' }, 'v1SendAnswer must be "message" or "status"'],
			[{ deleteResponse: 'text' }, 'deleteResponse must be "empty" or "json"'],
			[{ textReplyJson: true }, 'textReplyJson must be "refuse" or "accept"'],
			[{ v2ReplyRoute: 'false' }, 'v2ReplyRoute must be true or false'],
			[{ fileImageRoute: 0 }, 'fileImageRoute must be true or false'],
			[{ rateLimit: { capacity: 5 } }, /^rateLimit must be \{"capacity"/],
			[{ rateLimit: { capacity: 5, refillPerSecond: 0 } }, /^rateLimit must be \{"capacity"/],
			[{ rateLimit: { capacity: 1.5, refillPerSecond: 1 } }, /^rateLimit must be \{"capacity"/],
			[{ webhookUrl: 'ftp://example.com/' }, 'webhookUrl must be an http(s) URL, or null for none'],
			// Not a URL a play request could deliver to (the same rule as a play request's url).
			[{ webhookUrl: 'http://[bad' }, 'webhookUrl must be an http(s) URL, or null for none'],
			[{ apiKey: '' }, 'apiKey must be a non-empty string'],
			[{ tokenTtlSeconds: 0 }, 'tokenTtlSeconds must be a whole number of at least 1'],
			[{ replyTokenTtlSeconds: '60' }, 'replyTokenTtlSeconds must be a whole number of at least 1'],
			[{ maxUploadBytes: -1 }, 'maxUploadBytes must be a whole number of at least 1'],
			[[{ paginationMode: 'none' }], 'JSON object expected'],
		];
		for (const [body, message] of refusals) {
			const res = await bed.call('/__emulator/config', { method: 'PATCH', json: body });
			expect({ body, status: res.status }).toEqual({ body, status: 400 });
			expect(res.body.message).toMatch(message);
		}
		expect(bed.emulator.config).toEqual(before);

		const set = { v1SendAnswer: 'status', deleteResponse: 'json', v2ReplyRoute: false, rateLimit: { capacity: 5, refillPerSecond: 0.5 }, webhookUrl: null, maxMessageFileBytes: 1024 };
		const res = await bed.call('/__emulator/config', { method: 'PATCH', json: set });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject(set);
		expect(bed.emulator.config).toMatchObject(set);
	});
});
