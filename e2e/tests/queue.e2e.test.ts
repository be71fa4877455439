/**
 * Queue mode as n8n runs it in production: a private PostgreSQL 15 cluster
 * (e2e/lib/postgres.ts) and a private Redis, n8n main (receives the webhooks,
 * enqueues) and TWO `n8n worker`s (run the executions). A workflow Workplace
 * Trigger → Workplace (User → Find by Username, bot token flow) → Workplace
 * (Task → Create) is published; 100 concurrent webhook calls, each a distinct
 * postback event signed as the service signs them (X-Eko-Signature: base64
 * HMAC-SHA256 of the raw body, keyed with the bot's client secret), must all be
 * answered 2xx, run on the workers, and each leave exactly one task at the
 * emulator. A wrong or missing signature is answered 401 and starts nothing.
 *
 * Two bursts: the first with no bot token stored yet (the workers' first jobs
 * race to fetch one), the second while the stored token is valid (no worker
 * may ask for a token).
 *
 * Response mode: the trigger answers "onReceived". n8n 2.x defers that answer
 * until the execution is stored and its job is in Redis, so a 2xx means the
 * event is handed over for good; completion is observed by polling.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';

import { startEmulator, type Emulator } from '../../emulator/server';
import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { EXAMPLE_CREDENTIALS, exampleCredential } from '../../testbed/examples';
import { N8n, N8nRest, installCommunityPackage, until } from '../../testbed/n8n';
import { Postgres } from '../lib/postgres';
import { Redis } from '../lib/redis';

const EVENTS = 100;
const WORKERS = 2;
const WORKER_CONCURRENCY = 10;
const WORKFLOW_ID = 'wpQueueE2eTasks1';
const WEBHOOK_ID = randomUUID();
const SIGNATURE_HEADER = 'X-Eko-Signature';
const REQUESTER = 'nattaya.p';

const workflow = {
	id: WORKFLOW_ID,
	name: 'Postback to task (queue mode)',
	nodes: [
		{
			parameters: { events: ['postback'] },
			id: 'a1b2c3d4-0000-4c55-9e0e-1d2a4b9f0601',
			name: 'Workplace Trigger',
			type: 'n8n-nodes-workplace.workplaceTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			// Its client secret verifies X-Eko-Signature.
			credentials: { workplaceBotApi: EXAMPLE_CREDENTIALS.workplaceBotApi },
		},
		{
			parameters: {
				resource: 'user',
				operation: 'findByUsername',
				username: REQUESTER,
				options: { excludeDeleted: true, exactMatch: true },
			},
			id: 'a1b2c3d4-0000-4c55-9e0e-1d2a4b9f0602',
			name: 'Find the requester',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [220, 0],
			credentials: { workplaceBotApi: EXAMPLE_CREDENTIALS.workplaceBotApi },
		},
		{
			parameters: {
				resource: 'task',
				operation: 'create',
				taskTitle: "=Follow up {{ $('Workplace Trigger').item.json.data }}",
				additionalFields: { assigneeId: '={{ $json._id }}' },
			},
			id: 'a1b2c3d4-0000-4c55-9e0e-1d2a4b9f0603',
			name: 'Create the follow-up task',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 1,
			position: [440, 0],
			credentials: { workplaceTaskProjectsApi: EXAMPLE_CREDENTIALS.workplaceTaskProjectsApi },
		},
	],
	connections: {
		'Workplace Trigger': { main: [[{ node: 'Find the requester', type: 'main', index: 0 }]] },
		'Find the requester': { main: [[{ node: 'Create the follow-up task', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
}

let emulator: Emulator | undefined;
let postgres: Postgres | undefined;
let redis: Redis | undefined;
let main: N8n | undefined;
const workers: N8n[] = [];
let rest: N8nRest;

/** A distinct postback event; its id travels as postback.data into the task's title. */
function postback(eventId: string) {
	return {
		events: [
			{
				type: 'postback',
				replyToken: `rt-${eventId}`,
				source: { type: 'user', uid: SEED_USER_IDS.nattaya },
				timestamp: Date.now(),
				postback: { data: eventId, text: 'Create a follow-up task' },
			},
		],
	};
}

/** The service's signature of a raw body: base64 HMAC-SHA256 keyed with the bot's client secret. */
function sign(rawBody: string, key = emulator!.credentials.clientSecret): string {
	return createHmac('sha256', key).update(rawBody).digest('base64');
}

/**
 * Posts the body as the service does (compact JSON unless `raw` is given);
 * `signature(raw)` gives X-Eko-Signature (undefined: none).
 */
async function callWebhook(
	body: unknown,
	signature: (raw: string) => string | undefined = sign,
	raw = JSON.stringify(body),
): Promise<{ status: number; text: string }> {
	const value = signature(raw);
	const response = await fetch(`${main!.url}/webhook/${WEBHOOK_ID}/webhook`, {
		method: 'POST',
		headers: { 'content-type': 'application/json;charset=utf-8', ...(value === undefined ? {} : { [SIGNATURE_HEADER]: value }) },
		body: raw,
	});
	return { status: response.status, text: await response.text() };
}

/** The workflow's executions, read from PostgreSQL (n8n's REST list stops at 100 a page). */
async function executions(): Promise<ExecutionSummary[]> {
	const rows = await postgres!.sql(`SELECT id, status, mode FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}'`);
	return rows
		.split('\n')
		.filter(Boolean)
		.map((row) => {
			const [id, status, mode] = row.split('|');
			return { id, status, mode };
		});
}

function lines(output: string[], pattern: RegExp): RegExpMatchArray[] {
	return [...output.join('').matchAll(new RegExp(pattern.source, 'g'))];
}

beforeAll(async () => {
	emulator = await startEmulator();
	postgres = new Postgres();
	await postgres.start();
	redis = new Redis();
	await redis.start();

	// E2E_ECHO=1 shows what n8n prints, while it runs.
	const echo = process.env.E2E_ECHO ? process.stderr : undefined;
	const env = { ...redis.queueEnv, ...postgres.n8nEnv };
	main = new N8n({ env, echo });
	// The workers load the community package from the main's user folder; the data is in PostgreSQL.
	for (let n = 0; n < WORKERS; n++) workers.push(new N8n({ userFolder: main.userFolder, env, echo }));
	await installCommunityPackage(main.userFolder);
	await main.importCredentials([
		exampleCredential(emulator, 'workplaceBotApi'),
		exampleCredential(emulator, 'workplaceTaskProjectsApi'),
	]);
	await main.importWorkflows([workflow]);
	// 2.x: publishing replaces activation; main activates published workflows at start.
	await main.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);

	await main.start();
	await Promise.all(workers.map((worker) => worker.startWorker(WORKER_CONCURRENCY)));
	rest = new N8nRest(main.url);
	await rest.setupOwner();
	await rest.login();
});

afterAll(async () => {
	// Each step on its own, so one failing stop still lets the others run.
	for (const worker of workers) await worker.stop().catch(() => undefined);
	await main?.stop().catch(() => undefined);
	await redis?.stop().catch(() => undefined);
	await postgres?.stop().catch(() => undefined);
	await emulator?.close().catch(() => undefined);
	if (main) rmSync(main.userFolder, { recursive: true, force: true });
});

test('n8n runs on the private PostgreSQL cluster', async () => {
	expect(postgres!.version).toMatch(/^15\./);
	// n8n's schema is in that database, and it holds the imported workflow.
	expect((await postgres!.sql(`SELECT id FROM workflow_entity WHERE id = '${WORKFLOW_ID}'`)).trim()).toBe(WORKFLOW_ID);
});

test('a wrong or missing signature is answered 401 and starts nothing', async () => {
	// Polled: the production webhook is registered while main activates the workflow.
	const wrong = await until('the webhook to be registered', async () => {
		const call = await callWebhook(postback('evt-wrong-signature'), (raw) => sign(raw, `${emulator!.credentials.clientSecret}x`));
		return call.status === 404 ? undefined : call;
	});
	expect(wrong.status).toBe(401);
	expect(JSON.parse(wrong.text)).toEqual({ message: 'Invalid X-Eko-Signature' });
	// The signature of another body.
	const tampered = await callWebhook(postback('evt-tampered'), () => sign(JSON.stringify(postback('evt-original'))));
	expect(tampered.status).toBe(401);
	const missing = await callWebhook(postback('evt-no-signature'), () => undefined);
	expect(missing.status).toBe(401);
	expect(JSON.parse(missing.text)).toEqual({ message: 'Missing X-Eko-Signature' });
	// Nothing was enqueued: main's answer came before any execution could be created.
	expect(lines(main!.output, /Enqueued execution/)).toHaveLength(0);
	expect(await executions()).toHaveLength(0);
});

interface BurstResult {
	executions: number;
	perWorker: number[];
	tasks: number;
	tokenRequests: number;
}

/**
 * EVENTS concurrent signed calls, each a distinct postback: every call answered 2xx, exactly
 * EVENTS new executions succeed, each enqueued by main and run by one worker, one task per
 * event at the emulator, and each execution's data carries exactly its one event.
 */
async function burst(label: string): Promise<BurstResult> {
	const tasksBefore = new Set(emulator!.taskProjects.tasks.keys());
	const executionsBefore = new Set((await executions()).map((e) => e.id));
	const logBefore = emulator!.log.length;
	const outputBefore = [main!, ...workers].map((n) => n.output.length);
	const eventIds = Array.from({ length: EVENTS }, (_, n) => `evt-${label}-${String(n).padStart(3, '0')}-${randomUUID()}`);

	const calls = await Promise.all(eventIds.map((id) => callWebhook(postback(id))));
	const refused = calls.filter((call) => call.status < 200 || call.status >= 300);
	expect({ refused, mainErrors: refused.length ? lines(main!.output, /^.*error.*$/im).map((m) => m[0]).slice(-20) : [] }).toEqual({
		refused: [],
		mainErrors: [],
	});
	for (const call of calls) expect(JSON.parse(call.text)).toEqual({ received: 1, accepted: 1 });

	// Every new execution has ended (nothing new, queued or running is left).
	const done = await until(`${EVENTS} finished executions`, async () => {
		const list = (await executions()).filter((e) => !executionsBefore.has(e.id));
		const ended = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		return list.length >= EVENTS && ended.length === list.length ? list : undefined;
	});
	expect(done).toHaveLength(EVENTS);
	expect(done.map((e) => e.status)).toEqual(Array(EVENTS).fill('success'));
	expect(new Set(done.map((e) => e.mode))).toEqual(new Set(['webhook']));

	// Ran on the workers: main enqueued each execution as a job; together the workers
	// started and finished exactly those jobs, each job on one worker; main ran none.
	const since = (n: N8n, index: number) => [n.output.slice(outputBefore[index]).join('')];
	const ids = new Set(done.map((e) => String(e.id)));
	const enqueued = lines(since(main!, 0), /Enqueued execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`);
	const startedBy = workers.map((w, n) => lines(since(w, n + 1), /Worker started execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`));
	const finishedBy = workers.map((w, n) => lines(since(w, n + 1), /Worker finished execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`));
	expect(new Set(enqueued.map((pair) => pair.split('/')[0]))).toEqual(ids);
	expect(enqueued).toHaveLength(EVENTS);
	expect(startedBy.flat().sort()).toEqual([...enqueued].sort());
	expect(finishedBy.flat().sort()).toEqual([...enqueued].sort());
	expect(lines(main!.output, /Worker (started|finished) execution/)).toHaveLength(0);
	const perWorker = finishedBy.map((jobs) => jobs.length);
	// Both workers took jobs from the queue.
	for (const count of perWorker) expect(count).toBeGreaterThan(0);

	// The effect at the emulator: one task per event, titled with its id, for the requester.
	const created = [...emulator!.taskProjects.tasks.values()].filter((t) => !tasksBefore.has(t.id));
	expect(created.map((t) => t.taskTitle).sort()).toEqual(eventIds.map((id) => `Follow up ${id}`).sort());
	expect(new Set(created.map((t) => t.assigneeId))).toEqual(new Set([SEED_USER_IDS.nattaya]));
	const sent = emulator!.log.slice(logBefore);
	const statuses = (method: string, path: string) => sent.filter((e) => e.method === method && e.path === path).map((e) => e.status);
	expect(statuses('POST', '/api/v1/task-projects/tasks')).toEqual(Array(EVENTS).fill(201));
	expect(statuses('GET', '/bot/v1/users')).toEqual(Array(EVENTS).fill(200));

	// Each execution's stored run data carries exactly one of the events, each event one execution.
	const pattern = new RegExp(`evt-${label}-\\d{3}-[0-9a-f-]{36}`, 'g');
	const seen = new Map<string, string>();
	for (const execution of done) {
		const full = await rest.request<{ data: string }>('GET', `/rest/executions/${execution.id}`);
		const found = new Set(full.data.match(pattern) ?? []);
		expect([...found]).toHaveLength(1);
		const [eventId] = [...found];
		expect(seen.get(eventId)).toBeUndefined();
		seen.set(eventId, String(execution.id));
	}
	expect([...seen.keys()].sort()).toEqual([...eventIds].sort());

	// No secret in what n8n printed.
	const secrets = [emulator!.credentials.clientSecret, emulator!.credentials.jwt, ...emulator!.bot.tokens.keys()];
	const printed = [main!, ...workers].map((n) => n.output.join('')).join('');
	for (const secret of secrets) expect(printed.includes(secret)).toBe(false);
	const result = { executions: done.length, perWorker, tasks: created.length, tokenRequests: statuses('POST', '/oauth/token').length };
	console.log(
		`queue mode on PostgreSQL ${postgres!.version}, ${label}: ${EVENTS} signed calls 2xx, ${result.executions} executions succeeded ` +
			`(${enqueued.length} jobs enqueued by main; finished per worker: ${perWorker.join(' + ')}), ` +
			`${result.tasks} tasks, ${result.tokenRequests} bot token request(s)`,
	);
	return result;
}

test(`${EVENTS} concurrent signed calls, no token stored yet: all run, spread over ${WORKERS} workers, none lost`, async () => {
	const { tokenRequests } = await burst('cold');
	// A worker's executions that ask at the same moment share one token request, but one that
	// read the credential before the first fetched token was stored in the database asks again:
	// bounded by the jobs the workers start at once.
	expect(tokenRequests).toBeGreaterThanOrEqual(1);
	expect(tokenRequests).toBeLessThanOrEqual(WORKERS * WORKER_CONCURRENCY);
});

test(`${EVENTS} more concurrent signed calls while the stored token is valid: all run, and no worker asks for a token`, async () => {
	const { tokenRequests } = await burst('warm');
	expect(tokenRequests).toBe(0);
});

test('main refuses a signed call delivered again as a duplicate, and starts one execution for it', async () => {
	const before = (await executions()).length;
	const raw = JSON.stringify(postback(`evt-replay-${randomUUID()}`));
	const first = await callWebhook(undefined, sign, raw);
	expect({ status: first.status, body: JSON.parse(first.text) as unknown }).toEqual({ status: 200, body: { received: 1, accepted: 1 } });
	const again = await callWebhook(undefined, sign, raw);
	expect({ status: again.status, body: JSON.parse(again.text) as unknown }).toEqual({ status: 200, body: { received: 1, accepted: 0, duplicate: 1 } });
	const done = await until('the one execution to finish', async () => {
		const list = await executions();
		return list.length > before && list.every((e) => !['new', 'running', 'waiting'].includes(e.status)) ? list : undefined;
	});
	expect(done).toHaveLength(before + 1);
});
