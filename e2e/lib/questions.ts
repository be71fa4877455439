/**
 * The Send and Wait workflows of the end-to-end suites that prove every
 * answer is bound to its question (sendAndWaitAnswers, sendAndWaitQueue): a
 * question asked again in one execution, as in a loop, by link or in the chat,
 * and how a suite reads what became of it.
 */
import type { MessageRecord } from '../../emulator/bot/state';
import type { Emulator } from '../../emulator/server';
import { IF_APPROVED_PARAMETERS } from '../../testbed/answerPage';
import { chainWorkflow } from '../../testbed/chainWorkflow';
import { byId } from '../../testbed/locator';
import { hasEnded, type N8nRest } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { QUESTION_GROUP } from './waiting';
import { BOT, noOp, webhookStart, workplaceNode } from './workflows';

/**
 * POST /webhook/<path> → Ask (Send and Wait, Approve or Decline) → Approved?:
 * an approval goes round through Again and asks once more (the same node, a
 * new question, one execution); a decline ends at Done. `ask` adds Send and
 * Wait parameters (Answer in Chat, a limit).
 */
export function loopWorkflow(id: string, path: string, ask: Record<string, unknown> = {}) {
	const approved = { name: 'Approved?', type: 'n8n-nodes-base.if', typeVersion: 2, parameters: IF_APPROVED_PARAMETERS };
	const parameters = {
		resource: 'message',
		operation: 'sendAndWait',
		sendTo: 'group',
		groupId: byId(QUESTION_GROUP),
		topicId: byId(''),
		message: `=${path}: {{ $json.body ? $json.body.question : 'once more' }}`,
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double' } },
		...ask,
	};
	const chain = chainWorkflow(id, `Send and Wait loop: ${path}`, [webhookStart(path), workplaceNode('Ask', BOT, parameters, 2), approved, noOp('Again'), noOp('Done')]);
	return {
		...chain,
		// n8n 1.x's import needs the field; publishing is a CLI step.
		active: false,
		connections: {
			Start: { main: [[{ node: 'Ask', type: 'main' as const, index: 0 }]] },
			Ask: { main: [[{ node: 'Approved?', type: 'main' as const, index: 0 }]] },
			'Approved?': { main: [[{ node: 'Again', type: 'main' as const, index: 0 }], [{ node: 'Done', type: 'main' as const, index: 0 }]] },
			Again: { main: [[{ node: 'Ask', type: 'main' as const, index: 0 }]] },
		},
	};
}

export type LoopWorkflow = ReturnType<typeof loopWorkflow>;

/** Starts one execution of a loop workflow; resolves with its id once it waits. */
export async function startLoop(n8nUrl: string, rest: N8nRest, workflow: LoopWorkflow, question: string): Promise<string> {
	const before = new Set((await rest.executions(workflow.id)).map((e) => e.id));
	const path = workflow.nodes[0].parameters.path as string;
	const started = await fetch(`${n8nUrl}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
	if (started.status !== 200) throw new Error(`POST /webhook/${path} → ${started.status}`);
	const execution = await until(`a waiting execution of ${workflow.id}`, async () => (await rest.executions(workflow.id)).find((e) => e.status === 'waiting' && !before.has(e.id)), 180_000);
	return String(execution.id);
}

/** The questions the bot posted to the room for one execution, oldest first. */
export function questionsOf(emulator: Emulator, executionId: string): MessageRecord[] {
	return emulator.messages({ gid: QUESTION_GROUP, route: '/bot/v2/message/push' }).filter((record) => JSON.stringify(record.messages).includes(`/webhook-waiting/${executionId}/`));
}

/** Waits until the execution has asked `count` questions; resolves with them. */
export async function asked(emulator: Emulator, executionId: string, count: number): Promise<MessageRecord[]> {
	return await until(`question ${count} of execution ${executionId}`, async () => {
		const found = questionsOf(emulator, executionId);
		return found.length >= count ? found : undefined;
	}, 180_000);
}

type Action = { type: string; label: string; linkUri?: string; data?: string };

/** A question's buttons, by label. */
export function buttonsOf(record: MessageRecord): Record<string, Action> {
	const { template } = record.messages?.at(-1) as { template: { actions: Action[] } };
	return Object.fromEntries(template.actions.map((a) => [a.label, a]));
}

/** An execution once it has ended (saved, Done run when it succeeded). */
export async function ended(rest: N8nRest, id: string, timeoutMs = 180_000) {
	return await until(`execution ${id} to end`, async () => {
		const execution = await rest.execution(id);
		if (!hasEnded(execution.status)) return undefined;
		if (execution.status === 'success' && !execution.data.resultData.runData.Done) return undefined;
		return execution;
	}, timeoutMs);
}

/**
 * Waits until the loop's execution `id` went round through Again and waits at
 * the question once more. Its new question reaches the service while the node
 * runs, before n8n writes the wait (status and run data at once), so a run
 * count read on the question alone may still be the earlier one.
 */
export async function waitingAgain(rest: N8nRest, id: string, timeoutMs = 120_000) {
	return await until(`execution ${id} waiting again`, async () => {
		const execution = await rest.execution(id);
		return execution.status === 'waiting' && execution.data.resultData.runData.Again ? execution : undefined;
	}, timeoutMs);
}

/** How many times a node ran in an execution. */
export async function runsOf(rest: N8nRest, id: string, node: string): Promise<number> {
	return (await rest.execution(id)).data.resultData.runData[node]?.length ?? 0;
}
