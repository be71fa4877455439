/**
 * Queue mode: a private Redis, n8n main (receives the webhooks, enqueues) and
 * one `n8n worker` (runs the executions) on one SQLite database in a shared
 * user folder. A workflow Workplace Trigger → Workplace (User → Find by
 * Username, bot token flow) → Workplace (Task → Create) is published; 50
 * concurrent webhook calls, each a distinct postback event signed as the
 * service signs it (X-Eko-Signature: base64 HMAC-SHA256 of the body with the
 * bot's client secret), must all be answered 2xx, run on the worker, and each
 * leave exactly one task at the emulator. A wrong or missing signature is
 * answered 401 and starts nothing.
 *
 * Response mode: the trigger answers "onReceived" (it is fixed in the node).
 * In 2.41 n8n defers that answer until the execution is stored and its job is
 * in Redis (webhook-helpers: shouldDeferOnReceivedResponse), so a 2xx means
 * the event is handed over for good; the bot's sender is not held while the
 * worker runs. Completion is therefore observed by polling the executions.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';

import { startEmulator, type Emulator } from '../../emulator/server';
import { SEED_USER_IDS } from '../../emulator/botSeed';
import { EXAMPLE_CREDENTIALS, exampleCredential } from '../lib/examples';
import { N8n, N8nRest, installCommunityPackage, sqliteBusyTimeoutEnv } from '../lib/n8n';
import { Redis } from '../lib/redis';

const EVENTS = 50;
const WORKER_CONCURRENCY = 10;
const WORKFLOW_ID = 'wpQueueE2eTasks1';
const WEBHOOK_ID = randomUUID();
const REQUESTER = 'nattaya.p';

const CREDENTIAL_REFS = EXAMPLE_CREDENTIALS;

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
			credentials: { workplaceBotApi: CREDENTIAL_REFS.workplaceBotApi },
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
			credentials: { workplaceBotApi: CREDENTIAL_REFS.workplaceBotApi },
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
			credentials: { workplaceTaskProjectsApi: CREDENTIAL_REFS.workplaceTaskProjectsApi },
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
	workflowId: string;
}

let emulator: Emulator | undefined;
let redis: Redis | undefined;
let main: N8n | undefined;
let worker: N8n | undefined;
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

/** The service's signature of the bytes sent: base64 HMAC-SHA256, keyed with the client secret. */
function sign(raw: string, secret = emulator!.credentials.clientSecret): string {
	return createHmac('sha256', secret).update(raw).digest('base64');
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
		headers: { 'content-type': 'application/json;charset=utf-8', ...(value === undefined ? {} : { 'x-eko-signature': value }) },
		body: raw,
	});
	return { status: response.status, text: await response.text() };
}

async function executions(): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
	const page = await rest.request<{ results: ExecutionSummary[] }>('GET', `/rest/executions?limit=100&filter=${filter}`);
	return page.results;
}

/** Polls until check() returns a value, or fails with what was last seen. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	while (Date.now() < deadline) {
		try {
			const value = await check();
			if (value !== undefined) return value;
		} catch (error) {
			last = error;
		}
		await new Promise((resolve) => setTimeout(resolve, 1_000));
	}
	throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

function lines(output: string[], pattern: RegExp): RegExpMatchArray[] {
	return [...output.join('').matchAll(new RegExp(pattern.source, 'g'))];
}

beforeAll(async () => {
	emulator = await startEmulator();
	redis = new Redis();
	await redis.start();

	// E2E_ECHO=1 shows what n8n prints, while it runs.
	const echo = process.env.E2E_ECHO ? process.stderr : undefined;
	// Main and worker write one SQLite file: without a busy timeout (n8n sets none) a
	// write that meets the other's lock fails at once, under load (see sqlite-busy-timeout.ts).
	const env = { ...redis.queueEnv, ...sqliteBusyTimeoutEnv() };
	main = new N8n({ env, echo });
	// Same user folder: the worker reads the same SQLite database, settings and community packages.
	worker = new N8n({ userFolder: main.userFolder, env, echo });
	await installCommunityPackage(main.userFolder);
	await main.importCredentials([
		exampleCredential(emulator, 'workplaceBotApi'),
		exampleCredential(emulator, 'workplaceTaskProjectsApi'),
	]);
	await main.importWorkflows([workflow]);
	// 2.x: publishing replaces activation; main activates published workflows at start.
	await main.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);

	await main.start();
	await worker.startWorker(WORKER_CONCURRENCY);
	rest = new N8nRest(main.url);
	await rest.setupOwner();
	await rest.login();
});

afterAll(async () => {
	// Each step on its own, so one failing stop still lets the others run.
	await worker?.stop().catch(() => undefined);
	await main?.stop().catch(() => undefined);
	await redis?.stop().catch(() => undefined);
	await emulator?.close().catch(() => undefined);
	if (main) rmSync(main.userFolder, { recursive: true, force: true });
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
	// n8n hands the node the bytes it received: a re-indented body signed over those bytes
	// passes, and so does one signed over its compact re-serialisation. A join is not one of
	// the trigger's events, so neither starts anything.
	const join = { events: [{ type: 'join', replyToken: 'rt-join', source: { type: 'direct_chat', uid: SEED_USER_IDS.nattaya }, timestamp: Date.now() }] };
	const pretty = JSON.stringify(join, null, 2);
	for (const signed of [pretty, JSON.stringify(join)]) {
		const call = await callWebhook(join, () => sign(signed), pretty);
		expect({ status: call.status, body: JSON.parse(call.text) as unknown }).toEqual({ status: 200, body: { received: 1, accepted: 0 } });
	}
	expect((await callWebhook(join, () => sign(`${pretty} `), pretty)).status).toBe(401);
	// Nothing was enqueued: main's answer came before any execution could be created.
	expect(lines(main!.output, /Enqueued execution/)).toHaveLength(0);
	expect(await executions()).toHaveLength(0);
});

test(`${EVENTS} concurrent webhook calls all succeed, run on the worker, and no event is lost`, async () => {
	const tasksBefore = new Set(emulator!.taskProjects.tasks.keys());
	const eventIds = Array.from({ length: EVENTS }, (_, n) => `evt-${String(n).padStart(2, '0')}-${randomUUID()}`);

	const calls = await Promise.all(eventIds.map((id) => callWebhook(postback(id))));
	const refused = calls.filter((call) => call.status < 200 || call.status >= 300);
	// On failure, show what was answered and what main logged as an error.
	expect({ refused, mainErrors: refused.length ? lines(main!.output, /^.*(error|SQLITE).*$/im).map((m) => m[0]).slice(-20) : [] }).toEqual({
		refused: [],
		mainErrors: [],
	});
	for (const call of calls) {
		// The trigger's own answer: one event received, one accepted by the filter.
		expect(JSON.parse(call.text)).toEqual({ received: 1, accepted: 1 });
	}

	// Every execution has ended (nothing new, queued or running is left).
	const done = await until(`${EVENTS} finished executions`, async () => {
		const list = await executions();
		const ended = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		return list.length >= EVENTS && ended.length === list.length ? list : undefined;
	});
	expect(done).toHaveLength(EVENTS);
	expect(done.map((e) => e.status)).toEqual(Array(EVENTS).fill('success'));
	expect(new Set(done.map((e) => e.mode))).toEqual(new Set(['webhook']));

	// Ran on the worker: main enqueued each execution as a job, the worker started and
	// finished exactly those jobs, and main started none itself.
	const ids = new Set(done.map((e) => String(e.id)));
	const enqueued = lines(main!.output, /Enqueued execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`);
	const started = lines(worker!.output, /Worker started execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`);
	const finished = lines(worker!.output, /Worker finished execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`);
	expect(new Set(enqueued.map((pair) => pair.split('/')[0]))).toEqual(ids);
	expect(enqueued).toHaveLength(EVENTS);
	expect([...started].sort()).toEqual([...enqueued].sort());
	expect([...finished].sort()).toEqual([...enqueued].sort());
	expect(lines(main!.output, /Worker (started|finished) execution/)).toHaveLength(0);

	// The effect at the emulator: one task per event, titled with its id, for the requester.
	const created = [...emulator!.taskProjects.tasks.values()].filter((t) => !tasksBefore.has(t.id));
	expect(created.map((t) => t.taskTitle).sort()).toEqual(eventIds.map((id) => `Follow up ${id}`).sort());
	expect(new Set(created.map((t) => t.assigneeId))).toEqual(new Set([SEED_USER_IDS.nattaya]));
	const taskPosts = emulator!.logFor('POST', '/api/v1/task-projects/tasks');
	expect(taskPosts.map((e) => e.status)).toEqual(Array(EVENTS).fill(201));
	const lookups = emulator!.logFor('GET', '/bot/v1/users');
	expect(lookups.map((e) => e.status)).toEqual(Array(EVENTS).fill(200));

	// Each execution's stored run data carries exactly one of the events, each event one execution.
	const seen = new Map<string, string>();
	for (const execution of done) {
		const full = await rest.request<{ data: string }>('GET', `/rest/executions/${execution.id}`);
		const found = new Set(full.data.match(/evt-\d{2}-[0-9a-f-]{36}/g) ?? []);
		expect([...found]).toHaveLength(1);
		const [eventId] = [...found];
		expect(seen.get(eventId)).toBeUndefined();
		seen.set(eventId, String(execution.id));
	}
	expect([...seen.keys()].sort()).toEqual([...eventIds].sort());

	// Bot tokens: fetched on the worker and kept in the credential in the database, so only
	// the first jobs, started together before any token was stored, can each ask for one.
	const tokenRequests = emulator!.logFor('POST', '/oauth/token');
	expect(tokenRequests.length).toBeGreaterThanOrEqual(1);
	expect(tokenRequests.length).toBeLessThanOrEqual(WORKER_CONCURRENCY);
	// No secret in what n8n printed.
	const secrets = [
		emulator!.credentials.clientSecret,
		emulator!.credentials.jwt,
		...emulator!.bot.tokens.keys(),
	];
	const printed = main!.output.join('') + worker!.output.join('');
	for (const secret of secrets) expect(printed.includes(secret)).toBe(false);
	console.log(
		`queue mode: ${EVENTS} calls 2xx, ${done.length} executions succeeded on the worker ` +
			`(jobs ${enqueued.length} enqueued by main, ${finished.length} finished by the worker), ` +
			`${created.length} tasks, ${tokenRequests.length} bot token request(s)`,
	);
});
