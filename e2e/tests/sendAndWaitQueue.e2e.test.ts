/**
 * Two n8n processes taking answers for the same waiting executions (issue 30,
 * items 1 and 5), in queue mode on PostgreSQL and Redis: `n8n start` (main)
 * and `n8n webhook` (a webhook process) both serve the waiting webhooks, one
 * `n8n worker` runs the executions. Each question is answered twice at the
 * same moment, Approve through main and Decline through the webhook process:
 * exactly one of the two is told "recorded", and it is the one the execution
 * went on with. A question asked again in the same execution makes the
 * earlier link no longer open, whichever process gets it.
 *
 * n8n 2.41.1 only: n8n 1.x resumes a waiting execution without checking that
 * it still waits and sends the node's page before it does (docs/security.md).
 */
import { rmSync } from 'node:fs';

import { startEmulator, type Emulator } from '../../emulator/server';
import { hiddenFields, openLink, postForm, type PageAnswer } from '../../testbed/answerPage';
import { exampleCredential } from '../../testbed/examples';
import { N8n, N8nRest, freePort, installCommunityPackage, until } from '../../testbed/n8n';
import { Postgres } from '../lib/postgres';
import { Redis } from '../lib/redis';
import { asked, buttonsOf, ended, loopWorkflow, runsOf, startLoop } from '../lib/questions';
import { executionOfQuestion, tally } from '../lib/waiting';

const QUESTIONS = 10;
const LOOP = loopWorkflow('wpBoundQueue1', 'bound-queue');
const RECORDED = 'Your answer was recorded';

let emulator: Emulator | undefined;
let postgres: Postgres | undefined;
let redis: Redis | undefined;
let main: N8n | undefined;
let webhooks: N8n | undefined;
let worker: N8n | undefined;
let rest: N8nRest;
let webhookUrl: string;

/** Starts `count` executions at once; resolves with their ids, read from the questions they asked. */
async function startMany(count: number): Promise<string[]> {
	const texts = Array.from({ length: count }, (_, n) => `bound-queue: Question ${n}?`);
	await Promise.all(texts.map((_, n) => fetch(`${main!.url}/webhook/bound-queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: `Question ${n}?` }) })));
	const records = await until(`${count} questions`, async () => {
		const posted = emulator!.messages({ route: '/bot/v2/message/push' }).filter((r) => texts.includes((r.messages?.at(-1) as { template?: { text?: string } }).template?.text ?? ''));
		return posted.length === count ? posted : undefined;
	}, 180_000);
	const ids = records.map(executionOfQuestion);
	await until('every execution waiting', async () => ((await Promise.all(ids.map(async (id) => (await rest.execution(id)).status))).every((s) => s === 'waiting') ? true : undefined), 120_000);
	return ids;
}

/** The same link on the webhook process. */
const viaWebhooks = (link: string) => webhookUrl + new URL(link).pathname + new URL(link).search;

beforeAll(async () => {
	emulator = await startEmulator({ replyTokenTtlSeconds: 900 });
	postgres = new Postgres();
	await postgres.start();
	redis = new Redis();
	await redis.start();
	const echo = process.env.E2E_ECHO ? process.stderr : undefined;
	const port = await freePort();
	const env = { ...redis.queueEnv, ...postgres.n8nEnv, N8N_PORT: String(port), WEBHOOK_URL: `http://localhost:${port}/` };
	main = new N8n({ env, echo });
	webhooks = new N8n({ userFolder: main.userFolder, env, echo });
	worker = new N8n({ userFolder: main.userFolder, env, echo });
	await installCommunityPackage(main.userFolder);
	await main.importCredentials([exampleCredential(emulator, 'workplaceBotApi')]);
	await main.importWorkflows([LOOP]);
	await main.cli(['publish:workflow', `--id=${LOOP.id}`]);
	await main.start(port);
	await worker.startWorker(10);
	const webhookPort = await freePort();
	webhookUrl = `http://localhost:${webhookPort}`;
	const child = await webhooks.spawn(['webhook'], { N8N_PORT: String(webhookPort) });
	await until('the webhook process', async () => {
		if (child.exitCode !== null) throw new Error(`n8n webhook exited ${child.exitCode}: ${webhooks!.output.join('').slice(-2000)}`);
		const ready = await fetch(`${webhookUrl}/healthz/readiness`).then((r) => r.ok, () => false);
		return ready ? true : undefined;
	}, 180_000);
	rest = new N8nRest(main.url);
	await rest.setupOwner();
	await rest.login();
}, 600_000);

afterAll(async () => {
	for (const process of [webhooks, worker, main]) await process?.stop().catch(() => undefined);
	await redis?.stop().catch(() => undefined);
	await postgres?.stop().catch(() => undefined);
	await emulator?.close().catch(() => undefined);
	if (main) rmSync(main.userFolder, { recursive: true, force: true });
}, 120_000);

test(`${QUESTIONS} questions, each answered at the same moment through main and through the webhook process: one answer each is told it was recorded, and it is the one the execution went on with`, async () => {
	const ids = await startMany(QUESTIONS);
	const outcomes: Array<{ id: string; approve: PageAnswer; decline: PageAnswer }> = [];
	await Promise.all(
		ids.map(async (id) => {
			const [question] = await asked(emulator!, id, 1);
			const buttons = buttonsOf(question);
			const approve = buttons.Approve.linkUri as string;
			const decline = viaWebhooks(buttons.Decline.linkUri as string);
			const pages = await Promise.all([openLink(approve), openLink(decline)]);
			const [a, d] = await Promise.all([postForm(approve, hiddenFields(pages[0].body)), postForm(decline, hiddenFields(pages[1].body))]);
			outcomes.push({ id, approve: a, decline: d });
		}),
	);
	const recorded = outcomes.map((o) => [o.approve.body.includes(RECORDED), o.decline.body.includes(RECORDED)]);
	// Never both, never neither.
	expect(recorded.filter(([a, d]) => a === d)).toEqual([]);
	for (const { id, approve } of outcomes) {
		// Approved: the loop asks again; declined: the execution ends. Either way it went on once, with the recorded answer.
		const approved = approve.body.includes(RECORDED);
		if (approved) await asked(emulator!, id, 2);
		else await ended(rest, id);
		expect([await runsOf(rest, id, 'Again'), await runsOf(rest, id, 'Done')]).toEqual(approved ? [1, 0] : [0, 1]);
	}
	const refusals = outcomes.map((o) => (o.approve.body.includes(RECORDED) ? o.decline : o.approve)).map((r) => `${r.status} ${/already being resumed|problem executing the workflow|running already|answered already|No action required|no longer open/i.exec(r.body)?.[0] ?? r.body.slice(0, 80)}`);
	console.log(`two processes: ${QUESTIONS * 2} answers, ${recorded.flat().filter(Boolean).length} told "recorded" (${recorded.filter(([a]) => a).length} through main, ${recorded.filter(([, d]) => d).length} through the webhook process); the other ${QUESTIONS}: ${JSON.stringify(tally(refusals))}`);
});

test('asked again: the earlier question\'s link answers nothing through either process; the new question takes its answer through the webhook process', async () => {
	const id = await startLoop(main!.url, rest, LOOP, 'Once more?');
	const [first] = await asked(emulator!, id, 1);
	const approveA = buttonsOf(first).Approve.linkUri as string;
	const pageA = await openLink(approveA);
	expect((await postForm(approveA, hiddenFields(pageA.body))).body).toContain(RECORDED);
	const [, second] = await asked(emulator!, id, 2);
	await until(`execution ${id} waiting again`, async () => ((await rest.execution(id)).status === 'waiting' ? true : undefined), 120_000);
	for (const link of [approveA, viaWebhooks(approveA)]) {
		const stale = await postForm(link, hiddenFields(pageA.body));
		expect([stale.status, stale.body.includes('This question is no longer open')]).toEqual([410, true]);
	}
	const decline = viaWebhooks(buttonsOf(second).Decline.linkUri as string);
	const page = await openLink(decline);
	expect((await postForm(decline, hiddenFields(page.body))).body).toContain(RECORDED);
	expect((await ended(rest, id)).status).toBe('success');
	expect(await runsOf(rest, id, 'Again')).toBe(1);
});
