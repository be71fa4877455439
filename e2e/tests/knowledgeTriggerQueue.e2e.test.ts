/**
 * The Workplace Knowledge Trigger in n8n 2.41.1's queue mode: PostgreSQL 17,
 * Redis, main (holds the active workflow and polls, every minute) and two
 * workers (run the executions). Each change is reported once: one execution
 * per poll with changes, enqueued by main and run by one worker; a poll with
 * no change starts nothing; the state the main keeps survives the executions
 * the workers run (they do not write it back over the main's).
 *
 * About four minutes of wall time.
 */
import { changesOf, knowledgeAdmin, knowledgeTriggerWorkflow } from '../lib/knowledgeTrigger';
import { until } from '../../testbed/until';
import { e2eTestbed, matchesIn } from '../lib/testbed';

const WORKFLOW_ID = 'wpKnowledgeQueue1';
const WORKERS = 2;

const bed = e2eTestbed({
	credentials: ['workplaceKnowledgeBaseApi'],
	workflows: [knowledgeTriggerWorkflow(WORKFLOW_ID, { watch: 'knowledgeBase', knowledgeId: { __rl: true, mode: 'id', value: '1' }, events: ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged'] })],
	publish: true,
	queue: { workers: WORKERS, concurrency: 5 },
});

const admin = (method: string, path: string, body?: unknown) => knowledgeAdmin(bed.emulator.url, method, path, body);
/** The workflow's executions, from PostgreSQL, oldest first. */
const executions = async () => await bed.storedExecutions(WORKFLOW_ID);
const matches = (output: string[], pattern: RegExp) => matchesIn(output, pattern).map((m) => m[1]);
const filesListed = (kb: number) => bed.emulator.log.filter((e) => e.path === `/api/v1/knowledge/${kb}/files` && e.status === 200).length;

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
	expect(changesOf(await bed.rest.execution(first[0].id))).toEqual([
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
	expect(changesOf(await bed.rest.execution(second[1].id))).toEqual([['fileRemoved', 1]]);

	// Poll 3: nothing changed, nothing started.
	const listed = filesListed(1);
	await until('poll 3', async () => (filesListed(1) > listed ? true : undefined), 180_000);
	await new Promise((resolve) => setTimeout(resolve, 5_000));
	expect(await executions()).toHaveLength(2);

	// main enqueued both executions; the workers ran them; main ran none.
	const ids = second.map((e) => e.id).sort();
	expect(matches(bed.n8n.output, /Enqueued execution (\d+)/).sort()).toEqual(ids);
	expect(bed.workers.flatMap((w) => matches(w.output, /Worker finished execution (\d+)/)).sort()).toEqual(ids);
	expect(matches(bed.n8n.output, /Worker finished execution (\d+)/)).toHaveLength(0);
	const printed = bed.printed();
	expect(printed).not.toContain(bed.emulator.credentials.apiKey);
	console.log(`queue mode: ${filesListed(1)} polls listed base 1; executions ${ids.join(', ')} run by workers (${bed.workers.map((w) => matches(w.output, /Worker finished execution (\d+)/).length).join(' + ')}); each change once`);
});
