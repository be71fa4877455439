/**
 * "Requests in Parallel", credential reads and connections, in n8n-core's real
 * engine over HTTP against the emulator. Latency comes from the emulator's
 * delay faults; nothing here asserts how fast anything is.
 */
import type { INodeParameters } from 'n8n-workflow';

import { redactedHeader } from '../../emulator/requestLog';
import type { RequestLogEntry } from '../../emulator/types';
import { pairedItems } from '../harness/engine';
import { CREDENTIALS, Testbed, emulatorCredential } from '../harness/testbed';

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
	bed.credentialsHelper.set(emulatorCredential(bed.emulator, 'bot'));
	bed.credentialsHelper.events.length = 0;
});

const byId = (id: string | number) => ({ __rl: true, mode: 'id', value: String(id) });
const FILE_PATH = /^\/api\/v1\/knowledge\/1\/files\/\d+$/;

/** Knowledge File → Get of every item's `fileId`. */
function fileGet(parallel: number | string, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'knowledgeFile',
		operation: 'get',
		knowledgeId: byId(1),
		fileId: byId('={{ $json.fileId }}'),
		requestsInParallel: parallel,
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
		// The first item runs alone (credential and token), then four at a time, never more.
		expect(sent[0].path).toBe(`/api/v1/knowledge/1/files/${ids[0]}`);
		expect(mostAtOnce(sent)).toBeGreaterThan(1);
		expect(mostAtOnce(sent)).toBeLessThanOrEqual(4);
		// Answered out of order: some item finished before an earlier one.
		const endOf = (n: number) => ended(sent.find((e) => e.path.endsWith(`/${ids[n]}`))!);
		expect(endOf(4)).toBeLessThan(endOf(1));
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
	it.each([['={{ 0 }}'], ['={{ 51 }}'], ['={{ 2.5 }}'], ['={{ "many" }}']])('refuses %s before sending anything', async (value) => {
		const ids = addFiles(3);
		const run = await bed.runNode(fileGet(value), { items: ids.map((fileId) => ({ json: { fileId } })) });
		expect(String(run.error?.message)).toMatch(/^Invalid "Requests in Parallel" in item 0: must be a whole number from 1 to 50/);
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
