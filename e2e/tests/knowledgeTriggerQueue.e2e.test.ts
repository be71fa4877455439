/**
 * The Workplace Knowledge Trigger in n8n 2.41.1's queue mode: PostgreSQL 15,
 * Redis, main (holds the active workflow and polls, every minute) and two
 * workers (run the executions). Each change is reported once: one execution
 * per poll with changes, enqueued by main and run by one worker; a poll with
 * no change starts nothing; the state the main keeps survives the executions
 * the workers run (they do not write it back over the main's).
 *
 * About four minutes of wall time.
 */
import { rmSync } from 'node:fs';

import { startEmulator, type Emulator } from '../../emulator/server';
import { exampleCredential } from '../../testbed/examples';
import { changesOf, knowledgeAdmin, knowledgeTriggerWorkflow } from '../lib/knowledgeTrigger';
import { N8n, N8nRest, installCommunityPackage, until } from '../../testbed/n8n';
import { Postgres } from '../lib/postgres';
import { Redis } from '../lib/redis';

const WORKFLOW_ID = 'wpKnowledgeQueue1';
const WORKERS = 2;

let emulator: Emulator | undefined;
let postgres: Postgres | undefined;
let redis: Redis | undefined;
let main: N8n | undefined;
const workers: N8n[] = [];
let rest: N8nRest;

const admin = (method: string, path: string, body?: unknown) => knowledgeAdmin(emulator!.url, method, path, body);

/** The workflow's executions, from PostgreSQL, oldest first. */
async function executions(): Promise<Array<{ id: string; status: string; mode: string }>> {
	const rows = await postgres!.sql(`SELECT id, status, mode FROM execution_entity WHERE "workflowId" = '${WORKFLOW_ID}' ORDER BY id`);
	return rows
		.split('\n')
		.filter(Boolean)
		.map((row) => {
			const [id, status, mode] = row.split('|');
			return { id, status, mode };
		});
}

const matches = (output: string[], pattern: RegExp) => [...output.join('').matchAll(new RegExp(pattern.source, 'g'))].map((m) => m[1]);
const filesListed = (kb: number) => emulator!.log.filter((e) => e.path === `/api/v1/knowledge/${kb}/files` && e.status === 200).length;

beforeAll(async () => {
	emulator = await startEmulator();
	postgres = new Postgres();
	await postgres.start();
	redis = new Redis();
	await redis.start();
	const echo = process.env.E2E_ECHO ? process.stderr : undefined;
	const env = { ...redis.queueEnv, ...postgres.n8nEnv };
	main = new N8n({ env, echo });
	for (let n = 0; n < WORKERS; n++) workers.push(new N8n({ userFolder: main.userFolder, env, echo }));
	await installCommunityPackage(main.userFolder);
	await main.importCredentials([exampleCredential(emulator, 'workplaceKnowledgeBaseApi')]);
	await main.importWorkflows([knowledgeTriggerWorkflow(WORKFLOW_ID, { watch: 'knowledgeBase', knowledgeId: { __rl: true, mode: 'id', value: '1' }, events: ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged'] })]);
	await main.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);
	await main.start();
	await Promise.all(workers.map((worker) => worker.startWorker(5)));
	rest = new N8nRest(main.url);
	await rest.setupOwner();
	await rest.login();
});

afterAll(async () => {
	for (const worker of workers) await worker.stop().catch(() => undefined);
	await main?.stop().catch(() => undefined);
	await redis?.stop().catch(() => undefined);
	await postgres?.stop().catch(() => undefined);
	await emulator?.close().catch(() => undefined);
	if (main) rmSync(main.userFolder, { recursive: true, force: true });
});

test('polls on main, executions on the workers, each change reported once', async () => {
	await until('the activation poll', async () => (filesListed(1) >= 1 ? true : undefined), 180_000);
	expect(await executions()).toHaveLength(0);

	// Poll 1: three changes.
	const added = await admin('POST', '/1/files', { originalName: 'queue.csv', mimetype: 'text/csv', content: 'q\n1\n' });
	await admin('PUT', '/1/files/2', { content: 'type,days\nannual,30\n' });
	await admin('PATCH', '/1/files/5', { status: 'deleting' });
	const first = await until('the execution of poll 1', async () => {
		const list = await executions();
		return list.length === 1 && list[0].status === 'success' ? list : undefined;
	}, 180_000);
	expect(first[0].mode).toBe('trigger');
	expect(changesOf(await rest.execution(first[0].id))).toEqual([
		['fileReplaced', 2],
		['fileStatusChanged', 5],
		['fileAdded', Number(added.id)],
	]);

	// Poll 2: one more change.
	await admin('DELETE', '/1/files/1');
	const second = await until('the execution of poll 2', async () => {
		const list = await executions();
		return list.length === 2 && list[1].status === 'success' ? list : undefined;
	}, 180_000);
	expect(changesOf(await rest.execution(second[1].id))).toEqual([['fileRemoved', 1]]);

	// Poll 3: nothing changed, nothing started.
	const listed = filesListed(1);
	await until('poll 3', async () => (filesListed(1) > listed ? true : undefined), 180_000);
	await new Promise((resolve) => setTimeout(resolve, 5_000));
	expect(await executions()).toHaveLength(2);

	// main enqueued both executions; the workers ran them; main ran none.
	const ids = second.map((e) => e.id).sort();
	expect(matches(main!.output, /Enqueued execution (\d+)/).sort()).toEqual(ids);
	expect(workers.flatMap((w) => matches(w.output, /Worker finished execution (\d+)/)).sort()).toEqual(ids);
	expect(matches(main!.output, /Worker finished execution (\d+)/)).toHaveLength(0);
	const printed = [main!, ...workers].map((n) => n.output.join('')).join('');
	expect(printed).not.toContain(emulator!.credentials.apiKey);
	console.log(`queue mode: ${filesListed(1)} polls listed base 1; executions ${ids.join(', ')} run by workers (${workers.map((w) => matches(w.output, /Worker finished execution (\d+)/).length).join(' + ')}); each change once`);
});
