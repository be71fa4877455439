/**
 * The Workplace Knowledge Trigger in a real n8n 2.41.1 (SQLite), on n8n's own
 * schedule: a published workflow polls every minute (the shortest interval
 * n8n allows: it refuses a poll cron whose seconds field is not one number).
 * Changes are made at the emulator's admin route, as another user would.
 *
 *   poll 0 (activation): records what exists, starts nothing;
 *   poll 1: one change of each kind → one execution, one item per change;
 *   poll 2: the knowledge base list answers 503 on every attempt → no items (n8n records a failed trigger execution);
 *   poll 3: a page-cap surprise (an empty page before the total the metadata names) → no items, failed again;
 *   poll 4: the changes made during polls 2 and 3, each once;
 *   poll 5: nothing changed → no execution.
 *
 * About six minutes of wall time.
 */
import { changesOf, knowledgeAdmin, knowledgeTriggerWorkflow } from '../lib/knowledgeTrigger';
import { until } from '../../testbed/until';
import { e2eTestbed } from '../lib/testbed';

const WORKFLOW_ID = 'wpKnowledgePoll01';

const bed = e2eTestbed({ credentials: ['workplaceKnowledgeBaseApi'], workflows: [knowledgeTriggerWorkflow(WORKFLOW_ID)], publish: true });
const report: string[] = [];

const admin = (method: string, path: string, body?: unknown) => knowledgeAdmin(bed.emulator.url, method, path, body);

/** Lists of knowledge bases answered 200 (one per poll that got past its first request). */
const completedListings = () => bed.emulator.log.filter((e) => e.method === 'GET' && e.path === '/api/v1/knowledge' && e.status === 200).length;
const executions = async () => (await bed.rest.executions(WORKFLOW_ID)).sort((a, b) => Number(a.id) - Number(b.id));
/** The executions once there are `count` of them and the last has finished (a trigger execution is listed while it still runs). */
const executionsOnceFinished = async (count: number) => {
	const list = await executions();
	return list.length === count && !['new', 'running'].includes(list[count - 1].status) ? list : undefined;
};

afterAll(() => {
	console.log(`knowledge trigger in n8n 2.41.1 (every minute):\n${report.join('\n')}`);
});

test('each kind of change is reported exactly once across polls; failed polls report nothing and the next one catches up', async () => {
	// Poll 0, at activation: the whole listing read, nothing started.
	await until('the activation poll', async () => (bed.emulator.log.some((e) => e.path === '/api/v1/knowledge/3/files' && e.status === 200) ? true : undefined), 180_000);
	expect(await executions()).toHaveLength(0);
	report.push('| 0 (activation) | — | 0 executions |');

	// Poll 1: one change of each kind.
	const added = await admin('POST', '/1/files', { originalName: 'new-policy.csv', mimetype: 'text/csv', content: 'a,b\n1,2\n' });
	await admin('PUT', '/1/files/2', { content: 'type,days\nannual,25\n' });
	await admin('DELETE', '/1/files/3');
	await admin('PATCH', '/1/files/4', { status: 'deleting' });
	const base = await admin('POST', '', { name: 'Onboarding' });
	await admin('DELETE', '/3');
	const first = await until('the execution of poll 1', () => executionsOnceFinished(1), 180_000);
	expect(first).toHaveLength(1);
	const run1 = await bed.rest.execution(first[0].id);
	expect(run1.mode).toBe('trigger');
	expect(changesOf(run1)).toEqual([
		['fileReplaced', 2],
		['fileStatusChanged', 4],
		['fileAdded', Number(added.id)],
		['fileRemoved', 3],
		['knowledgeBaseAdded', Number(base.id)],
		['knowledgeBaseRemoved', 3],
	]);
	report.push('| 1 | add, replace, remove, status, base added, base removed | 1 execution, 6 items (one per kind) |');

	// Poll 2: the list of knowledge bases answers 503 on every attempt.
	const listingsBefore = completedListings();
	bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', times: Infinity, action: { kind: 'status', status: 503 } });
	const late = await admin('POST', '/1/files', { originalName: 'late.csv', mimetype: 'text/csv', content: 'x\n1\n' });
	const failed1 = await until('the failed poll 2', () => executionsOnceFinished(2), 180_000);
	expect(failed1[1].status).toBe('error');
	const attempts = bed.emulator.log.filter((e) => e.fault === 'status:503').length;
	bed.emulator.faults.clear();
	expect(completedListings()).toBe(listingsBefore);
	report.push(`| 2 | add late.csv; GET /knowledge answers 503 (${attempts} attempts) | 0 items; n8n records a failed trigger execution |`);

	// Poll 3: a page-cap surprise: pages of 2, and page 2 of base 1's files comes back empty, short of the total its metadata names.
	bed.emulator.setConfig({ pageCap: 2 });
	await admin('PUT', '/2/files/8', { contentBase64: Buffer.from('%PDF-1.4 FAQ v2').toString('base64') });
	bed.emulator.faults.add({
		name: 'page-cap surprise',
		method: 'GET',
		path: '/api/v1/knowledge/1/files',
		skip: 1,
		action: { kind: 'status', status: 200, body: { data: [], meta: { pagination: { page: 2, pageSize: 2, pageCount: 4, total: 7 } } } },
	});
	const failed2 = await until('the failed poll 3', () => executionsOnceFinished(3), 180_000);
	expect(failed2[2].status).toBe('error');
	expect(bed.emulator.log.filter((e) => e.fault === 'page-cap surprise')).toHaveLength(1);
	report.push('| 3 | replace a file of base 2; an empty page 2 of base 1 (page cap 2, metadata: 7 files) | 0 items; failed trigger execution |');

	// Poll 4: both changes, once each, through the capped pages.
	const caught = await until('the execution of poll 4', () => executionsOnceFinished(4), 180_000);
	expect(caught[3].status).toBe('success');
	expect(changesOf(await bed.rest.execution(caught[3].id))).toEqual([
		['fileAdded', Number(late.id)],
		['fileReplaced', 8],
	]);
	report.push('| 4 | — | 1 execution: late.csv added, base 2 file replaced (once each) |');

	// Poll 5: nothing changed, nothing started. Its end: the last base's files listed once more.
	const lastBaseListed = () => bed.emulator.log.filter((e) => e.path === `/api/v1/knowledge/${String(base.id)}/files` && e.status === 200).length;
	const listedBefore = lastBaseListed();
	await until('poll 5', async () => (lastBaseListed() > listedBefore ? true : undefined), 180_000);
	// An execution would be created right after the listing; give it a moment to show.
	await new Promise((resolve) => setTimeout(resolve, 5_000));
	expect(await executions()).toHaveLength(4);
	report.push('| 5 | — | 0 executions |');

	// Across all polls: each change reported once.
	const all = (await Promise.all((await executions()).filter((e) => e.status === 'success').map(async (e) => changesOf(await bed.rest.execution(e.id))))).flat();
	expect(all).toHaveLength(8);
	expect(new Set(all.map((c) => c.join(':'))).size).toBe(8);
	const credentials = bed.emulator.credentials;
	expect(bed.n8n.output.join('')).not.toContain(credentials.apiKey);
});
