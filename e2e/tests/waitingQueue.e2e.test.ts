/**
 * Send and Wait for Response in queue mode, as production runs it: a private
 * PostgreSQL 17 and Redis, n8n main (webhooks, waiting webhooks, the Workplace
 * Trigger) and TWO `n8n worker`s (the executions). Executions wait for a
 * person, then the emulator answers them as people do (e2e/lib/waiting.ts):
 * links opened and confirmed, postbacks delivered signed to the trigger, which
 * relays them to its own instance. Every answer must resume its execution
 * once, on a worker, and leave exactly one task at the emulator.
 */
import { SEED_USER_IDS } from '../../emulator/bot/seed';
import type { N8n } from '../../testbed/n8n';
import { e2eTestbed, matchesIn } from '../lib/testbed';
import { TRIGGER_TIMEOUT_MS, allTapped, askAll, executionDetail, executionOfQuestion, executionsIn, questionWorkflow, questionsPosted, range, repliesTo, tapOrError, taskTitle, tasksTitled, triggerWorkflow } from '../lib/waiting';

const AT_ONCE = 20;
const WORKERS = 2;
const { somchai, nattaya, pimchanok } = SEED_USER_IDS;
const BY_LINK = questionWorkflow('wpWaitQueueLink1', 'Queue link request', {});
const IN_CHAT = questionWorkflow('wpWaitQueueChat1', 'Queue chat request', { options: { answerInChat: true, approvers: nattaya } });
const TRIGGER = triggerWorkflow('wpWaitQueueTrig1');

// The queue bed sets WEBHOOK_URL, as production needs it: the workers build the resume URLs, which must name main.
const bed = e2eTestbed({
	emulator: { replyTokenTtlSeconds: 900 },
	credentials: ['workplaceBotApi', 'workplaceTaskProjectsApi'],
	workflows: [BY_LINK, IN_CHAT, TRIGGER],
	publish: true,
	queue: { workers: WORKERS, concurrency: 10 },
});

test(`${AT_ONCE} executions wait at once in queue mode; each link tapped resumes its execution once, on the workers`, async () => {
	const numbers = range(1, AT_ONCE);
	const outputBefore = [bed.n8n, ...bed.workers].map((n) => n.output.length);
	await askAll(bed.url, BY_LINK, numbers);
	const waiting = await executionsIn(bed.rest, BY_LINK.id, 'waiting', AT_ONCE);
	const questions = await questionsPosted(bed.emulator, 'Queue link request', numbers);
	const ids = new Set(waiting.map((e) => String(e.id)));
	expect(new Set([...questions.values()].map(executionOfQuestion))).toEqual(ids);

	const taps = allTapped(await Promise.all(numbers.map((n) => tapOrError(bed.emulator, { seq: questions.get(n)!.seq, label: n % 3 === 0 ? 'Decline' : 'Approve', uid: somchai }))));
	for (const t of taps) expect(t.submitted?.status).toBe(200);
	const done = await executionsIn(bed.rest, BY_LINK.id, 'success', AT_ONCE);
	expect(tasksTitled(bed.emulator, 'Queue link request')).toEqual(numbers.map((n) => taskTitle('Queue link request', n, n % 3 !== 0, 'link')).sort());
	for (const e of done) expect((await executionDetail(bed.rest, String(e.id))).runs.Record).toBe(1);

	// Main enqueued; the workers ran every execution, the resumed part included; main ran none.
	const since = (n: N8n, index: number) => n.output.slice(outputBefore[index]);
	const finished = bed.workers.map((w, k) => matchesIn(since(w, k + 1), /Worker finished execution (\d+) \(job \d+\)/).map((m) => m[1]));
	const perExecution = new Map<string, number>();
	for (const id of finished.flat()) perExecution.set(id, (perExecution.get(id) ?? 0) + 1);
	// Each execution ran as two jobs: up to the wait, and from the answer on.
	expect([...ids].map((id) => [id, perExecution.get(id)])).toEqual([...ids].map((id) => [id, 2]));
	for (const jobs of finished) expect(jobs.length).toBeGreaterThan(0);
	expect(matchesIn(bed.n8n.output, /Worker (started|finished) execution/)).toHaveLength(0);
	console.log(`queue mode: ${AT_ONCE} waiting at once, ${taps.length} link taps → ${done.length} executions succeeded, jobs finished per worker ${finished.map((f) => f.length).join(' + ')}`);
});

test('in-chat answers in queue mode: the trigger on main relays the approver\'s tap to its own instance; a stranger is refused', async () => {
	const numbers = range(101, 5);
	await askAll(bed.url, IN_CHAT, numbers);
	await executionsIn(bed.rest, IN_CHAT.id, 'waiting', numbers.length);
	const questions = await questionsPosted(bed.emulator, 'Queue chat request', numbers);

	const stranger = allTapped(await Promise.all(numbers.map((n) => tapOrError(bed.emulator, { seq: questions.get(n)!.seq, label: 'Approve', uid: pimchanok, url: bed.triggerUrl(TRIGGER), timeoutMs: TRIGGER_TIMEOUT_MS }))));
	expect(await repliesTo(bed.emulator, stranger)).toEqual(Array(numbers.length).fill('You are not one of the people who may answer this question.'));
	expect((await bed.rest.executions(IN_CHAT.id)).filter((e) => e.status === 'waiting')).toHaveLength(numbers.length);

	const approver = allTapped(await Promise.all(numbers.map((n) => tapOrError(bed.emulator, { seq: questions.get(n)!.seq, label: 'Approve', uid: nattaya, url: bed.triggerUrl(TRIGGER), timeoutMs: TRIGGER_TIMEOUT_MS }))));
	expect(await repliesTo(bed.emulator, approver)).toEqual(Array(numbers.length).fill('Answer recorded: approved'));
	await executionsIn(bed.rest, IN_CHAT.id, 'success', numbers.length);
	expect(tasksTitled(bed.emulator, 'Queue chat request')).toEqual(numbers.map((n) => taskTitle('Queue chat request', n, true, nattaya)).sort());
	expect(await bed.rest.executions(TRIGGER.id)).toEqual([]);
	const printed = bed.printed();
	expect(printed.includes(bed.emulator.credentials.clientSecret)).toBe(false);
});
