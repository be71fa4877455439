/**
 * Many executions waiting for a person at once, and the emulator answering
 * them as the people would (POST /__emulator/tap): shared by the suites that
 * prove Send and Wait under load, across a restart and in queue mode.
 *
 * A question workflow: Webhook (POST /webhook/<path>, body { n }) → Ask (Send
 * and Wait to the Incident Room) → Record (Task → Create, titled with the
 * request's number and the answer), so every resumption leaves one task at
 * the emulator: a request answered twice would leave two, a lost one none.
 * A trigger workflow (Workplace Trigger → No Op) relays the in-chat taps.
 */
import { createHash } from 'node:crypto';

import { SEED_GROUP_IDS } from '../../emulator/bot/seed';
import type { MessageRecord } from '../../emulator/bot/state';
import type { Emulator, TapResult } from '../../emulator/server';
import { hasEnded, type ExecutionSummary, type N8nRest } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { chainWorkflow, type ChainWorkflow } from '../../testbed/chainWorkflow';
import { byId } from '../../testbed/locator';
import { BOT, TASKS, noOp, webhookStart, workplaceNode, workplaceTrigger } from './workflows';

export const QUESTION_GROUP = SEED_GROUP_IDS.incidentRoom;

export type QuestionWorkflow = ChainWorkflow & {
	/** The Webhook node's path: POST <n8n>/webhook/<path> starts one execution. */
	path: string;
	active: boolean;
};

/** The title the Record node gives request n's task (the answer and, in the chat, who gave it). */
export const taskTitle = (prefix: string, n: number, approved: boolean, by: string) => `${prefix} ${n}: approved=${approved} by=${by}`;

/**
 * Webhook → Ask → Record. `prefix` starts the question's text and the task's title; `ask` adds
 * Send and Wait parameters (approval options, Answer in Chat, approvers).
 */
export function questionWorkflow(id: string, prefix: string, ask: Record<string, unknown>): QuestionWorkflow {
	const nodeId = (n: number) => `${createHash('sha256').update(id).digest('hex').slice(0, 8)}-0000-4c55-9e0e-1d2a4b9f00${String(n).padStart(2, '0')}`;
	const webhookPath = `ask-${id.toLowerCase()}`;
	return {
		...chainWorkflow(
			id,
			`${prefix} (waiting e2e)`,
			[
				webhookStart(webhookPath),
				workplaceNode(
					'Ask',
					BOT,
					{
						resource: 'message',
						operation: 'sendAndWait',
						sendTo: 'group',
						groupId: byId(QUESTION_GROUP),
						topicId: byId(''),
						message: `=${prefix} {{ $json.body.n }}: deploy?`,
						responseType: 'approval',
						approvalOptions: { values: { approvalType: 'double' } },
						...ask,
					},
					2,
				),
				workplaceNode(
					'Record',
					TASKS,
					{
						resource: 'task',
						operation: 'create',
						taskTitle: `=${prefix} {{ $('Start').item.json.body.n }}: approved={{ $json.data.approved }} by={{ $json.data.answeredBy ? $json.data.answeredBy.userId : 'link' }}`,
						additionalFields: {},
					},
					2,
				),
			],
			(index) => nodeId(index + 1),
		),
		path: webhookPath,
		// n8n 1.x's import needs the field; publishing (the test bed's publish option) makes the workflow run.
		active: false,
	};
}

/** A published Workplace Trigger: it relays the in-chat answers; any other event runs the No Op. */
export function triggerWorkflow(id: string): ChainWorkflow & { active: boolean } {
	// n8n 1.x's import needs the field.
	return { ...chainWorkflow(id, 'Bot events (waiting e2e)', [workplaceTrigger(['*']), noOp('Event')]), active: false };
}

/** Starts one execution per request number, all at once; every call must be answered 200. */
export async function askAll(n8nUrl: string, workflow: QuestionWorkflow, numbers: number[]): Promise<void> {
	const answers = await Promise.all(
		numbers.map(async (n) => {
			const res = await fetch(`${n8nUrl}/webhook/${workflow.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) });
			return `${res.status} ${(await res.text()).slice(0, 200)}`;
		}),
	);
	const refused = answers.filter((a) => !a.startsWith('200 '));
	if (refused.length) throw new Error(`${refused.length} of ${numbers.length} starts refused: ${refused.slice(0, 3).join('; ')}`);
}

/** The question the bot posted for request n of a workflow (its buttons template's text). */
export function questionOf(prefix: string, n: number) {
	return (record: MessageRecord) => {
		const template = (record.messages?.at(-1) as { template?: { text?: string } } | undefined)?.template;
		return template?.text === `${prefix} ${n}: deploy?`;
	};
}

/** Waits until the bot has posted a question for every request number; their records by number. */
export async function questionsPosted(emulator: Emulator, prefix: string, numbers: number[], timeoutMs = 300_000): Promise<Map<number, MessageRecord>> {
	return until(`${numbers.length} questions "${prefix} …" in the chat`, async () => {
		const records = emulator.messages({ gid: QUESTION_GROUP, route: '/bot/v2/message/push' });
		const found = new Map<number, MessageRecord>();
		for (const n of numbers) {
			const matches = records.filter(questionOf(prefix, n));
			if (matches.length > 1) throw new Error(`request ${n} was asked ${matches.length} times`);
			if (matches.length === 1) found.set(n, matches[0]);
		}
		return found.size === numbers.length ? found : undefined;
	}, timeoutMs);
}

export interface ExecutionDetail {
	id: string;
	status: string;
	/** How many times each node ran in this execution. */
	runs: Record<string, number>;
}

/** One execution with how often each of its nodes ran. */
export async function executionDetail(rest: N8nRest, id: string): Promise<ExecutionDetail> {
	const execution = await rest.execution(id);
	const runs = Object.fromEntries(Object.entries(execution.data.resultData.runData).map(([node, list]) => [node, list.length]));
	return { id: String(execution.id), status: execution.status, runs };
}

/** The execution a question belongs to: its answer link or postback names /webhook-waiting/<execution>/. */
export function executionOfQuestion(record: MessageRecord): string {
	const text = JSON.stringify(record.messages);
	const match = /\/webhook-waiting\/(\d+)\//.exec(text);
	if (!match) throw new Error(`question ${record.seq} names no waiting execution`);
	return match[1];
}

/** Taps, collecting a refusal as a value so a batch of taps can be judged together. */
export async function tapOrError(emulator: Emulator, request: Parameters<Emulator['tap']>[0]): Promise<TapResult | { error: string }> {
	try {
		return await emulator.tap(request);
	} catch (error) {
		return { error: (error as Error).message };
	}
}

/** Tasks at the emulator whose title starts with the prefix, by title. */
export function tasksTitled(emulator: Emulator, prefix: string): string[] {
	return [...emulator.taskProjects.tasks.values()].map((t) => t.taskTitle).filter((title) => title.startsWith(`${prefix} `)).sort();
}

/** Counts equal strings: { value: count }. */
export function tally(values: string[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const v of values) out[v] = (out[v] ?? 0) + 1;
	return out;
}

/** The numbers from `from`, `count` of them: the requests a batch asks. */
export const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

/** The trigger answers a tap after relaying it and replying in the chat; on two shared cores that can take a while. */
export const TRIGGER_TIMEOUT_MS = 180_000;

/**
 * Waits until the workflow has `count` executions in `status` among those of the given ids (all, when
 * none given); fails at once when one of them ended in another status.
 */
export async function executionsIn(rest: N8nRest, workflowId: string, status: string, count: number, ids?: Set<string>): Promise<ExecutionSummary[]> {
	return until(`${count} ${status} executions of ${workflowId}`, async () => {
		const list = (await rest.executions(workflowId)).filter((e) => !ids || ids.has(String(e.id)));
		const ended = list.find((e) => hasEnded(e.status) && e.status !== status);
		if (ended) throw new Error(`execution ${ended.id} ended ${ended.status}`);
		const matching = list.filter((e) => e.status === status);
		return matching.length === count ? matching : undefined;
	}, 300_000);
}

/** The taps of a batch, once every one was made; the refusals named when any was refused. */
export function allTapped(results: Array<TapResult | { error: string }>): TapResult[] {
	const refused = results.filter((r): r is { error: string } => 'error' in r);
	if (refused.length > 0) throw new Error(`${refused.length} of ${results.length} taps were refused: ${refused.map((r) => r.error).join('; ')}`);
	return results as TapResult[];
}

/** The chat's reply (v1 text with the reply token) to each tap delivered to the trigger, once all came. */
export async function repliesTo(emulator: Emulator, taps: TapResult[]): Promise<string[]> {
	const tokens = taps.map((t) => t.delivery?.replyToken);
	return until(`${taps.length} replies in the chat`, async () => {
		const replies = new Map(emulator.messages({ route: '/bot/v1/message/text' }).map((r) => [r.target.replyToken, r.text ?? '']));
		const texts = tokens.map((token) => (token ? replies.get(token) : undefined));
		return texts.every((t) => t !== undefined) ? (texts as string[]) : undefined;
	}, 120_000);
}
