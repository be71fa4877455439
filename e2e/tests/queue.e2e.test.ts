/**
 * Queue mode as n8n runs it in production: a private PostgreSQL 17 cluster and
 * a private Redis (e2e/lib/testbed.ts), n8n main (receives the webhooks,
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
import { randomUUID } from 'node:crypto';

import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { chainWorkflow } from '../../testbed/chainWorkflow';
import { hasEnded, type N8n } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { e2eTestbed, matchesIn } from '../lib/testbed';
import { BOT, TASKS, workplaceNode, workplaceTrigger } from '../lib/workflows';

const EVENTS = 100;
const WORKERS = 2;
const WORKER_CONCURRENCY = 10;
const WORKFLOW_ID = 'wpQueueE2eTasks1';
const WEBHOOK_ID = randomUUID();
const SIGNATURE_HEADER = 'X-Eko-Signature';
const REQUESTER = 'nattaya.p';

const workflow = chainWorkflow(WORKFLOW_ID, 'Postback to task (queue mode)', [
	workplaceTrigger(['postback'], WEBHOOK_ID),
	workplaceNode('Find the requester', BOT, { resource: 'user', operation: 'findByUsername', username: REQUESTER, options: { excludeDeleted: true, exactMatch: true } }),
	workplaceNode('Create the follow-up task', TASKS, {
		resource: 'task',
		operation: 'create',
		taskTitle: "=Follow up {{ $('Workplace Trigger').item.json.data }}",
		additionalFields: { assigneeId: '={{ $json._id }}' },
	}),
]);

const bed = e2eTestbed({
	credentials: ['workplaceBotApi', 'workplaceTaskProjectsApi'],
	workflows: [workflow],
	publish: true,
	queue: { workers: WORKERS, concurrency: WORKER_CONCURRENCY },
});

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

/**
 * Posts the body as the service does (compact JSON unless `raw` is given);
 * `signature(raw)` gives X-Eko-Signature (undefined: none).
 */
async function callWebhook(
	body: unknown,
	signature: (raw: string) => string | undefined = (raw) => bed.sign(raw),
	raw = JSON.stringify(body),
): Promise<{ status: number; text: string }> {
	const value = signature(raw);
	const response = await fetch(`${bed.url}/webhook/${WEBHOOK_ID}/webhook`, {
		method: 'POST',
		headers: { 'content-type': 'application/json;charset=utf-8', ...(value === undefined ? {} : { [SIGNATURE_HEADER]: value }) },
		body: raw,
	});
	return { status: response.status, text: await response.text() };
}

/** The workflow's executions, read from PostgreSQL (n8n's REST list stops at 100 a page). */
const executions = async () => await bed.storedExecutions(WORKFLOW_ID);

test('n8n runs on the private PostgreSQL 17 cluster, and has no warning about its version', async () => {
	expect(bed.postgres!.version).toMatch(/^17\./);
	const started = matchesIn(bed.postgres!.output, /starting PostgreSQL .*/)[0]?.[0];
	expect(started).toMatch(/^starting PostgreSQL 17\.\d+ on x86_64/);
	// n8n's schema is in that database, and it holds the imported workflow.
	expect(await bed.postgres!.query(`SELECT id FROM workflow_entity WHERE id = '${WORKFLOW_ID}'`)).toEqual([{ id: WORKFLOW_ID }]);
	// n8n 2.41 checks the server's version once connected and warns below 17: "Postgres 15 is not
	// supported. …", or for 16 "… receives compatibility support only."
	expect(bed.printed()).not.toMatch(/Postgres \d+ is (not supported|outside the supported range)|Could not check database version/);
	console.log(`queue mode: the cluster said "${started}"; n8n printed no warning about the PostgreSQL version`);
});

test('a wrong or missing signature is answered 401 and starts nothing', async () => {
	// Polled: the production webhook is registered while main activates the workflow.
	const wrong = await until('the webhook to be registered', async () => {
		const call = await callWebhook(postback('evt-wrong-signature'), (raw) => bed.sign(raw, `${bed.emulator.credentials.clientSecret}x`));
		return call.status === 404 ? undefined : call;
	});
	expect(wrong.status).toBe(401);
	expect(JSON.parse(wrong.text)).toEqual({ message: 'Invalid X-Eko-Signature' });
	// The signature of another body.
	const tampered = await callWebhook(postback('evt-tampered'), () => bed.sign(JSON.stringify(postback('evt-original'))));
	expect(tampered.status).toBe(401);
	const missing = await callWebhook(postback('evt-no-signature'), () => undefined);
	expect(missing.status).toBe(401);
	expect(JSON.parse(missing.text)).toEqual({ message: 'Missing X-Eko-Signature' });
	// Nothing was enqueued: main's answer came before any execution could be created.
	expect(matchesIn(bed.n8n.output, /Enqueued execution/)).toHaveLength(0);
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
	const tasksBefore = new Set(bed.emulator.taskProjects.tasks.keys());
	const executionsBefore = new Set((await executions()).map((e) => e.id));
	const logBefore = bed.emulator.log.length;
	const outputBefore = [bed.n8n, ...bed.workers].map((n) => n.output.length);
	const eventIds = Array.from({ length: EVENTS }, (_, n) => `evt-${label}-${String(n).padStart(3, '0')}-${randomUUID()}`);

	const calls = await Promise.all(eventIds.map((id) => callWebhook(postback(id))));
	const refused = calls.filter((call) => call.status < 200 || call.status >= 300);
	expect({ refused, mainErrors: refused.length ? matchesIn(bed.n8n.output, /^.*error.*$/im).map((m) => m[0]).slice(-20) : [] }).toEqual({
		refused: [],
		mainErrors: [],
	});
	for (const call of calls) expect(JSON.parse(call.text)).toEqual({ received: 1, accepted: 1 });

	// Every new execution has ended (nothing new, queued or running is left).
	const done = await until(`${EVENTS} finished executions`, async () => {
		const list = (await executions()).filter((e) => !executionsBefore.has(e.id));
		const ended = list.filter((e) => hasEnded(e.status));
		return list.length >= EVENTS && ended.length === list.length ? list : undefined;
	});
	expect(done).toHaveLength(EVENTS);
	expect(done.map((e) => e.status)).toEqual(Array(EVENTS).fill('success'));
	expect(new Set(done.map((e) => e.mode))).toEqual(new Set(['webhook']));

	// Ran on the workers: main enqueued each execution as a job; together the workers
	// started and finished exactly those jobs, each job on one worker; main ran none.
	const since = (n: N8n, index: number) => [n.output.slice(outputBefore[index]).join('')];
	const ids = new Set(done.map((e) => String(e.id)));
	const enqueued = matchesIn(since(bed.n8n, 0), /Enqueued execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`);
	const startedBy = bed.workers.map((w, n) => matchesIn(since(w, n + 1), /Worker started execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`));
	const finishedLines = () => bed.workers.map((w, n) => matchesIn(since(w, n + 1), /Worker finished execution (\d+) \(job (\d+)\)/).map((m) => `${m[1]}/${m[2]}`));
	// A worker prints "finished" after it has stored the execution's end, so the last lines may trail the statuses read above.
	const finishedBy = await until(`every job's "finished" line`, () => {
		const lines = finishedLines();
		return lines.flat().length >= EVENTS ? lines : undefined;
	}, 30_000).catch(() => finishedLines());
	expect(new Set(enqueued.map((pair) => pair.split('/')[0]))).toEqual(ids);
	expect(enqueued).toHaveLength(EVENTS);
	expect(startedBy.flat().sort()).toEqual([...enqueued].sort());
	expect(finishedBy.flat().sort()).toEqual([...enqueued].sort());
	expect(matchesIn(bed.n8n.output, /Worker (started|finished) execution/)).toHaveLength(0);
	const perWorker = finishedBy.map((jobs) => jobs.length);
	// Both workers took jobs from the queue.
	for (const count of perWorker) expect(count).toBeGreaterThan(0);

	// The effect at the emulator: one task per event, titled with its id, for the requester.
	const created = [...bed.emulator.taskProjects.tasks.values()].filter((t) => !tasksBefore.has(t.id));
	expect(created.map((t) => t.taskTitle).sort()).toEqual(eventIds.map((id) => `Follow up ${id}`).sort());
	expect(new Set(created.map((t) => t.assigneeId))).toEqual(new Set([SEED_USER_IDS.nattaya]));
	const sent = bed.emulator.log.slice(logBefore);
	const statuses = (method: string, path: string) => sent.filter((e) => e.method === method && e.path === path).map((e) => e.status);
	expect(statuses('POST', '/api/v1/task-projects/tasks')).toEqual(Array(EVENTS).fill(201));
	expect(statuses('GET', '/bot/v1/users')).toEqual(Array(EVENTS).fill(200));

	// Each execution's stored run data carries exactly one of the events, each event one execution.
	const pattern = new RegExp(`evt-${label}-\\d{3}-[0-9a-f-]{36}`, 'g');
	const seen = new Map<string, string>();
	for (const execution of done) {
		const full = await bed.rest.request<{ data: string }>('GET', `/rest/executions/${execution.id}`);
		const found = new Set(full.data.match(pattern) ?? []);
		expect([...found]).toHaveLength(1);
		const [eventId] = [...found];
		expect(seen.get(eventId)).toBeUndefined();
		seen.set(eventId, String(execution.id));
	}
	expect([...seen.keys()].sort()).toEqual([...eventIds].sort());

	// No secret in what n8n printed.
	const secrets = [bed.emulator.credentials.clientSecret, bed.emulator.credentials.jwt, ...bed.emulator.bot.tokens.keys()];
	const printed = bed.printed();
	for (const secret of secrets) expect(printed.includes(secret)).toBe(false);
	const result = { executions: done.length, perWorker, tasks: created.length, tokenRequests: statuses('POST', '/oauth/token').length };
	console.log(
		`queue mode on PostgreSQL ${bed.postgres!.version}, ${label}: ${EVENTS} signed calls 2xx, ${result.executions} executions succeeded ` +
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
	const first = await callWebhook(undefined, (body) => bed.sign(body), raw);
	expect({ status: first.status, body: JSON.parse(first.text) as unknown }).toEqual({ status: 200, body: { received: 1, accepted: 1 } });
	const again = await callWebhook(undefined, (body) => bed.sign(body), raw);
	expect({ status: again.status, body: JSON.parse(again.text) as unknown }).toEqual({ status: 200, body: { received: 1, accepted: 0, duplicate: 1 } });
	const done = await until('the one execution to finish', async () => {
		const list = await executions();
		return list.length > before && list.every((e) => hasEnded(e.status)) ? list : undefined;
	});
	expect(done).toHaveLength(before + 1);
});
